"""The registry of wire styles, by the name a service gives as its `error_style`."""

from __future__ import annotations

from clawarena.server.drive_wire import DriveWire
from clawarena.server.slack_wire import SlackServiceWire
from clawarena.server.wire import GoogleWire, JsonWire, Wire
from clawarena.registry import Registry

WIRES: Registry[Wire] = Registry("wire style")
WIRES.register("google", GoogleWire())
WIRES.register("json", JsonWire())  # the domain services: a JSON object body is the arguments
WIRES.register("google-drive", DriveWire())  # alt=media, and the methods that need `fields`
WIRES.register("slack", SlackServiceWire())  # the v2 upload URL flow
