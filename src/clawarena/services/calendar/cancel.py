"""Cancelling an event: what events.delete does, and what deleting or clearing a calendar does to each event.

Below both `events` and `resources` (which both cancel events), so neither imports the other.
"""

from __future__ import annotations

from typing import Any

from clawarena.services.base import ServiceContext, ServiceError
from clawarena.services.calendar import core
from clawarena.services.calendar.tables import EVENTS


def delete_event(ctx: ServiceContext, cal: dict[str, Any], row: dict[str, Any], updates: str) -> None:
    """Cancel `row` on `cal`: a guest's copy declines; the organizer's copy (and a series' exceptions) goes for everyone."""
    world = ctx.world
    if row["status"] == "cancelled" and not row.get("_synth"):
        raise ServiceError(410, "Resource has been deleted", reason="deleted")
    now = world.clock.now_ms()
    tz = core.cal_tz(cal)
    if not core.is_organizer_copy(row):
        me = cal["id"].lower()
        entry = next((a for a in row["attendees"] if a["email"].lower() == me), None)
        core.save(world, {**row, "status": "cancelled", "updated_ms": now})
        if entry is not None and entry.get("responseStatus") != "declined":
            core.rsvp_propagate(ctx, row, {**entry, "responseStatus": "declined"}, updates)
        return
    targets = [row]
    if row["recurrence"] and not row["recurring_event_id"]:
        targets += [r for r in world.store.select(EVENTS.name, {"calendar_id": cal["id"], "recurring_event_id": row["id"]})
                    if r["status"] != "cancelled"]  # fmt: skip
    for i, target in enumerate(targets):
        gone = {**target, "status": "cancelled", "updated_ms": now}
        core.save(world, gone)
        core.propagate(ctx, gone, target, updates, "delete", tz, deliver=(i == 0))
