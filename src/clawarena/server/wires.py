"""The registry of wire styles, by the name a service gives as its `error_style`."""

from __future__ import annotations

from clawarena.server.drive_wire import DriveWire
from clawarena.server.slack_wire import SlackServiceWire
from clawarena.server.wire import GoogleWire, Wire

WIRES: dict[str, Wire] = {}


def register_wire(name: str, wire: Wire) -> None:
    if name in WIRES:
        raise ValueError(f"wire style {name!r} is registered twice")
    WIRES[name] = wire


def wire_for(style: str) -> Wire:
    try:
        return WIRES[style]
    except KeyError:
        raise KeyError(f"no wire style {style!r} (registered: {sorted(WIRES)})") from None


register_wire("google", GoogleWire())
register_wire("google-drive", DriveWire())  # alt=media, and the methods that need `fields`
register_wire("slack", SlackServiceWire())  # the v2 upload URL flow
