"""Push notification channels that the watch methods open (events, ACL, calendar list, settings).

Below both `events` and `resources` (which both open channels), so neither imports the other.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from clawarena.services.base import ServiceContext
from clawarena.services.calendar import core
from clawarena.services.calendar.bodies import Channel
from clawarena.services.calendar.tables import CHANNELS


def open_channel(ctx: ServiceContext, body: Channel, resource_uri: str) -> dict[str, Any]:
    """Register a push channel. Notifications carry no content, so nothing leaves the workspace here."""
    world = ctx.world
    if not body.id:
        raise core.bad("Channel id required.", "required")
    if (body.type or "").lower() not in ("web_hook", "webhook"):
        raise core.bad(f"Unsupported channel type: {body.type}", "push.invalidChannelType" if body.type else "required")
    if not (body.address or "").startswith("https://"):
        raise core.bad(f"WebHook callback must be HTTPS: {body.address}", "push.webhookUrlNotHttps")
    if ctx.store.get(CHANNELS.name, {"owner": ctx.principal.id, "id": body.id}) is not None:
        raise core.bad(f"Channel id {body.id} not unique", "channelIdNotUnique")
    expiration = int(body.expiration) if body.expiration and body.expiration.isdigit() else world.clock.now_ms() + int(timedelta(days=7).total_seconds() * 1000)
    row = {"id": body.id, "owner": ctx.principal.id, "resource_id": world.ids.next("calendar.resource", 27),
           "resource_uri": resource_uri, "type": "web_hook", "address": body.address, "token": body.token,
           "expiration_ms": expiration, "params": body.params}  # fmt: skip
    ctx.store.insert(CHANNELS.name, row)
    out = {"kind": "api#channel", "id": row["id"], "resourceId": row["resource_id"], "resourceUri": resource_uri,
           "expiration": str(expiration)}  # fmt: skip
    if body.token:
        out["token"] = body.token
    return out
