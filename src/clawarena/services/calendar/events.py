"""Calendar events: list, get, insert, update, patch, delete, move, quickAdd, instances, import, watch.

Each is one function: the REST route on /calendar/v3, the agent tool and the MCP tool.
"""

from __future__ import annotations

import base64
import re
from typing import Annotated, Any, Literal

from pydantic import Field

from clawarena.services.base import ServiceContext, ServiceError
from clawarena.services.calendar import core
from clawarena.services.calendar.bodies import Channel, Event
from clawarena.services.calendar.cancel import delete_event
from clawarena.services.calendar.channels import open_channel
from clawarena.services.calendar.quickadd import parse_quick_add
from clawarena.services.calendar.tables import EVENTS
from clawarena.services.calendar.times import parse_rfc3339, to_ms, valid_zone, when_from_stored, zone
from clawarena.services.pagination import page
from clawarena.tools.core import RestBinding, ToolKind, WireOnly, tool

BASE = "/calendar/v3"
EVENTS_PATH = f"{BASE}/calendars/{{calendarId}}/events"
EVENT_PATH = f"{EVENTS_PATH}/{{eventId}}"

SendUpdates = Literal["all", "externalOnly", "none"]
Hidden = WireOnly()


# ---- helpers ---------------------------------------------------------------------------------
def _out_tz(cal: dict[str, Any], time_zone: str | None):
    if time_zone is not None and not valid_zone(time_zone):
        raise core.bad("Invalid time zone.", "invalid")
    return zone(time_zone) if time_zone else core.cal_tz(cal)


def _bounds(time_min: str | None, time_max: str | None) -> tuple[int | None, int | None]:
    lo = to_ms(parse_rfc3339(time_min)) if time_min else None
    hi = to_ms(parse_rfc3339(time_max)) if time_max else None
    if lo is not None and hi is not None and hi < lo:
        raise ServiceError(400, "The specified time range is empty.", reason="timeRangeEmpty")
    return lo, hi


def _terms(q: str) -> list[str]:
    return [(a or b).lower() for a, b in re.findall(r'"([^"]+)"|(\S+)', q)]


def _haystack(row: dict[str, Any]) -> str:
    parts = [row["summary"], row["description"], row["location"], row["organizer"].get("email", ""),
             row["organizer"].get("displayName", ""), row["creator"].get("email", "")]  # fmt: skip
    for a in row["attendees"]:
        parts += [a.get("email", ""), a.get("displayName", "")]
    return "\n".join(p for p in parts if p).lower()


def _ext_filter(row: dict[str, Any], scope: str, constraints: list[str] | None) -> bool:
    if not constraints:
        return True
    props = (row["extended_properties"] or {}).get(scope) or {}
    for c in constraints:
        name, _, value = c.partition("=")
        if props.get(name) != value:
            return False
    return True


def _sync_token(ms: int) -> str:
    return base64.urlsafe_b64encode(f"s:{ms}".encode()).decode().rstrip("=")


def _read_sync_token(token: str) -> int:
    try:
        text = base64.urlsafe_b64decode(token + "=" * (-len(token) % 4)).decode()
        kind, _, value = text.partition(":")
        if kind != "s" or not value.isdigit():
            raise ValueError
        return int(value)
    except ValueError:
        raise ServiceError(410, "Sync token is no longer valid, a full sync is required.", reason="fullSyncRequired") from None


def _events_response(ctx: ServiceContext, cal: dict[str, Any], role: str, rows: list[dict[str, Any]], out_tz,
                     page_token: str | None, max_results: int, max_attendees: int | None) -> dict[str, Any]:  # fmt: skip
    chunk, next_token = page(rows, page_token, max_results)
    updated = max([r["updated_ms"] for r in rows] + [cal.get("updated_ms") or 0]) or ctx.world.clock.now_ms()
    out: dict[str, Any] = {
        "kind": "calendar#events",
        "etag": f'"p{updated}"',
        "summary": cal["summary"],
        "updated": core.fmt_ms(updated),
        "timeZone": cal["time_zone"],
        "accessRole": role,
        "defaultReminders": core.default_reminders(ctx, cal),
        "items": [core.event_resource(ctx, r, role, out_tz, max_attendees) for r in chunk],
    }
    if cal.get("description"):
        out["description"] = cal["description"]
    if next_token:
        out["nextPageToken"] = next_token
    else:
        out["nextSyncToken"] = _sync_token(ctx.world.clock.now_ms())
    return out


def _sort_key(order_by: str | None):
    if order_by == "updated":
        return lambda r: (r["updated_ms"], r["id"])
    return lambda r: (r["start_ms"], r["id"])


def _merge_own_view(old: dict[str, Any], inp: dict[str, Any], me: str) -> dict[str, Any]:
    """A guest's attendee list: entries they left out stay as they were (only the organizer removes guests)."""
    given = {(a.get("email") or "").lower(): a for a in inp.get("attendees") or [] if isinstance(a, dict)}
    merged = []
    for a in old["attendees"]:
        key = a["email"].lower()
        merged.append(given.pop(key, a))
    merged += list(given.values())
    return {**inp, "attendees": merged}


def _own_entry_changed(old: dict[str, Any], new: dict[str, Any], me: str) -> dict[str, Any] | None:
    before = next((a for a in old["attendees"] if a["email"].lower() == me), None)
    after = next((a for a in new["attendees"] if a["email"].lower() == me), None)
    if before is None or after is None:
        return None
    keys = ("responseStatus", "comment", "additionalGuests")
    return after if any(before.get(k) != after.get(k) for k in keys) else None


def _without(row: dict[str, Any], me: str) -> dict[str, Any]:
    return {**row, "attendees": [a for a in row["attendees"] if a["email"].lower() != me]}


def commit_change(ctx: ServiceContext, cal: dict[str, Any], old: dict[str, Any], new: dict[str, Any], send_updates: str) -> dict[str, Any]:
    """Store an edited event; organizer edits reach the guests, guest edits are limited to their own view."""
    world = ctx.world
    tz = core.cal_tz(cal)
    if core.significant_change(old, new):
        new["sequence"] = old["sequence"] + 1
    if core.is_organizer_copy(old):
        core.save(world, new)
        core.propagate(ctx, new, old, send_updates, "update", tz)
        core.notify_owner(ctx, cal, new, "Updated event")
        return new
    me = cal["id"].lower()
    mine = _own_entry_changed(old, new, me)
    if core.shared_changed(_without(old, me), _without(new, me)):
        extra = old["extra"] or {}
        old_others = {a["email"].lower(): a for a in _without(old, me)["attendees"]}
        new_others = {a["email"].lower(): a for a in _without(new, me)["attendees"]}
        only_invites = (
            not core.shared_changed({**old, "attendees": []}, {**new, "attendees": []})
            and all(new_others.get(k) == v for k, v in old_others.items())
        )
        if not (extra.get("guestsCanModify") or (only_invites and extra.get("guestsCanInviteOthers", True))):
            raise ServiceError(403, "Shared properties can only be changed by the organizer of the event.", reason="forbiddenForNonOrganizer")
        org_cal = core.get_calendar(world, old["organizer"].get("email", ""))
        org_row = core.get_event(world, org_cal, old["id"]) if org_cal else None
        if org_cal is not None and org_row is not None:
            new_org = {**org_row, **{k: new[k] for k in core.SHARED_COLUMNS}, "updated_ms": new["updated_ms"]}
            new_org["start_ms"], new_org["end_ms"] = core.span_ms(new_org, core.cal_tz(org_cal))
            core.save(world, new_org)
            core.propagate(ctx, new_org, org_row, send_updates, "update", core.cal_tz(org_cal))
            mine_now = world.store.get(EVENTS.name, {"calendar_id": cal["id"], "id": new["id"]})
            if mine_now is not None:
                new = {**mine_now, **{k: new[k] for k in ("color_id", "reminders", "transparency", "extended_properties")}}
    core.save(world, new)
    if mine is not None:
        core.rsvp_propagate(ctx, new, mine, send_updates)
    return new


def _insert(ctx: ServiceContext, cal: dict[str, Any], inp: dict[str, Any], send_updates: str, *,
            organizer: dict[str, Any] | None = None, notify: bool = True) -> dict[str, Any]:  # fmt: skip
    world = ctx.world
    event_id = inp.get("id")
    if event_id:
        core.check_event_id(event_id)
    else:
        event_id = world.ids.next("calendar.event", 26)
    if world.store.get(EVENTS.name, {"calendar_id": cal["id"], "id": event_id}) is not None:
        raise ServiceError(409, "The requested identifier already exists.", reason="duplicate")
    organizer = organizer or {"email": cal["id"], "displayName": core.calendar_display_name(world, cal)}
    creator = {"email": ctx.principal.email, "displayName": ctx.principal.name}
    ical = inp.get("iCalUID") or f"{event_id}@google.com"
    row = core.build_row(ctx, cal, inp, prev=None, event_id=event_id, organizer=organizer, creator=creator, ical_uid=ical)
    core.save(world, row)
    if notify:
        core.propagate(ctx, row, None, send_updates, "insert", core.cal_tz(cal))
    core.notify_owner(ctx, cal, row, "New event")
    return row


def _existing(ctx: ServiceContext, cal: dict[str, Any], event_id: str) -> dict[str, Any]:
    row = core.get_event(ctx.world, cal, event_id)
    if row is None:
        raise core.not_found()
    return row


def _rebuild(ctx: ServiceContext, cal: dict[str, Any], old: dict[str, Any], inp: dict[str, Any]) -> dict[str, Any]:
    if not core.is_organizer_copy(old):
        inp = _merge_own_view(old, inp, cal["id"].lower())
    return core.build_row(ctx, cal, inp, prev=old, event_id=old["id"], organizer=old["organizer"],
                          creator=old["creator"], ical_uid=old["ical_uid"])  # fmt: skip


# ---- REST operations ---------------------------------------------------------------------------
@tool(ToolKind.READ, name="calendar_events_list", rest=RestBinding("GET", EVENTS_PATH))
def events_list(
    ctx: ServiceContext,
    calendar_id: str = "primary",
    time_min: str | None = None,
    time_max: str | None = None,
    single_events: bool = False,
    order_by: Literal["startTime", "updated"] | None = None,
    q: str | None = None,
    show_deleted: bool = False,
    max_results: int = Field(default=250, ge=1, le=2500),
    page_token: str | None = None,
    updated_min: str | None = None,
    i_cal_uid: str | None = Field(default=None, alias="iCalUID"),
    time_zone: str | None = None,
    max_attendees: int | None = Field(default=None, ge=1),
    sync_token: str | None = None,
    event_types: list[str] | None = None,
    private_extended_property: list[str] | None = None,
    shared_extended_property: list[str] | None = None,
    show_hidden_invitations: Annotated[bool | None, Hidden] = None,
    always_include_email: Annotated[bool | None, Hidden] = None,
) -> dict[str, Any]:
    """List events on a calendar; with single_events=true recurring events come as their instances.

    Args:
        calendar_id: calendar id, or 'primary' for your own calendar (a colleague's email for theirs, if shared).
        time_min: only events ending after this RFC 3339 time (with offset), e.g. '2026-03-02T00:00:00Z'.
        time_max: only events starting before this RFC 3339 time (with offset).
        single_events: expand recurring events into instances (needed for order_by=startTime).
        order_by: 'startTime' (needs single_events=true) or 'updated'.
        q: free-text search in summary, description, location, organizer and attendees.
        show_deleted: include cancelled events.
        max_results: page size (1-2500, default 250).
        page_token: the nextPageToken of the previous page.
        updated_min: only events modified at or after this RFC 3339 time (deleted ones included).
        i_cal_uid: only the event with this iCalendar UID.
        time_zone: time zone of the times in the response; default the calendar's.
        max_attendees: at most this many attendees per event.
        sync_token: the nextSyncToken of an earlier list: only what changed since.
        event_types: only these event types (default, focusTime, outOfOffice, workingLocation).
        private_extended_property: 'name=value' constraints on private extended properties.
        shared_extended_property: 'name=value' constraints on shared extended properties.
    """
    cal, role = core.access(ctx, calendar_id)
    out_tz = _out_tz(cal, time_zone)
    rows = ctx.store.select(EVENTS.name, {"calendar_id": cal["id"]})
    if sync_token:
        if any(v is not None for v in (time_min, time_max, q, order_by, updated_min, i_cal_uid)):
            raise core.bad("Sync token cannot be combined with timeMin, timeMax, q, orderBy, updatedMin or iCalUID.")
        since = _read_sync_token(sync_token)
        changed = sorted((r for r in rows if r["updated_ms"] > since), key=_sort_key(None))
        return _events_response(ctx, cal, role, changed, out_tz, page_token, max_results, max_attendees)
    if order_by == "startTime" and not single_events:
        raise core.bad("The requested ordering is not available for the particular query.", "badRequest")
    lo, hi = _bounds(time_min, time_max)
    tz = core.cal_tz(cal)
    upd = to_ms(parse_rfc3339(updated_min)) if updated_min else None
    include_cancelled = show_deleted or upd is not None
    if i_cal_uid:
        rows = [r for r in rows if r["ical_uid"] == i_cal_uid]
    if single_events:
        items = core.expand(ctx.world, cal, rows, lo, hi, include_cancelled)
    else:
        items = []
        for r in rows:
            if r["status"] == "cancelled" and not include_cancelled and not r["recurring_event_id"]:
                continue
            if r["recurrence"] and not r["recurring_event_id"]:
                if core.any_instance_in(r, tz, lo, hi):
                    items.append(r)
            elif core.overlaps(r, tz, lo, hi):
                items.append(r)
    if upd is not None:
        items = [r for r in items if r["updated_ms"] >= upd]
    if q:
        terms = _terms(q)
        items = [r for r in items if not core.limited_view(ctx, r, role) and all(t in _haystack(r) for t in terms)]
    if event_types:
        items = [r for r in items if r["event_type"] in event_types]
    items = [r for r in items if _ext_filter(r, "private", private_extended_property) and _ext_filter(r, "shared", shared_extended_property)]
    items.sort(key=_sort_key(order_by))
    return _events_response(ctx, cal, role, items, out_tz, page_token, max_results, max_attendees)


@tool(ToolKind.READ, name="calendar_events_get", rest=RestBinding("GET", EVENT_PATH))
def events_get(
    ctx: ServiceContext,
    event_id: str,
    calendar_id: str = "primary",
    time_zone: str | None = None,
    max_attendees: int | None = Field(default=None, ge=1),
    always_include_email: Annotated[bool | None, Hidden] = None,
) -> dict[str, Any]:
    """Get one event (an instance id like '<id>_20260302T140000Z' gives one occurrence of a recurring event).

    Args:
        event_id: the event id.
        calendar_id: calendar id, or 'primary'.
        time_zone: time zone of the times in the response; default the calendar's.
        max_attendees: at most this many attendees.
    """
    cal, role = core.access(ctx, calendar_id)
    row = _existing(ctx, cal, event_id)
    return core.event_resource(ctx, row, role, _out_tz(cal, time_zone), max_attendees)


@tool(ToolKind.SEND, name="calendar_events_insert", rest=RestBinding("POST", EVENTS_PATH, body="body"))
def events_insert(
    ctx: ServiceContext,
    body: Event,
    calendar_id: str = "primary",
    send_updates: SendUpdates | None = None,
    send_notifications: Annotated[bool | None, Hidden] = None,
    max_attendees: int | None = Field(default=None, ge=1),
    conference_data_version: Annotated[int | None, Hidden] = None,
    supports_attachments: Annotated[bool | None, Hidden] = None,
    event_label_version: Annotated[int | None, Hidden] = None,
) -> dict[str, Any]:
    """Create an event. Guests who are colleagues get it on their calendar; outside guests get mail only with send_updates.

    Args:
        body: the Event: summary, start and end ({'dateTime', 'timeZone'} or {'date'} for all-day), description,
            location, attendees [{'email'}], recurrence ['RRULE:FREQ=WEEKLY;BYDAY=MO'], visibility, reminders.
        calendar_id: calendar id, or 'primary'.
        send_updates: who is emailed the invitation: 'all', 'externalOnly' or 'none' (default).
        max_attendees: at most this many attendees in the response.
    """
    cal, role = core.access(ctx, calendar_id, "writer")
    updates = core.resolve_send_updates(send_updates, send_notifications)
    row = _insert(ctx, cal, body.given(), updates)
    return core.event_resource(ctx, row, role, core.cal_tz(cal), max_attendees)


def _modify(ctx: ServiceContext, calendar_id: str, event_id: str, given: dict[str, Any], replace: bool, updates: str,
            max_attendees: int | None) -> dict[str, Any]:  # fmt: skip
    cal, role = core.access(ctx, calendar_id, "writer")
    old = _existing(ctx, cal, event_id)
    if replace:
        inp = dict(given)
        if old["recurring_event_id"]:
            inp.pop("recurrence", None)
    else:
        inp = core.merge_patch(core.row_to_input(old), given)
    new = _rebuild(ctx, cal, old, inp)
    new = commit_change(ctx, cal, old, new, updates)
    return core.event_resource(ctx, new, role, core.cal_tz(cal), max_attendees)


@tool(ToolKind.SEND, name="calendar_events_update", rest=RestBinding("PUT", EVENT_PATH, body="body"))
def events_update(
    ctx: ServiceContext,
    event_id: str,
    body: Event,
    calendar_id: str = "primary",
    send_updates: SendUpdates | None = None,
    send_notifications: Annotated[bool | None, Hidden] = None,
    max_attendees: int | None = Field(default=None, ge=1),
    always_include_email: Annotated[bool | None, Hidden] = None,
    conference_data_version: Annotated[int | None, Hidden] = None,
    supports_attachments: Annotated[bool | None, Hidden] = None,
    event_label_version: Annotated[int | None, Hidden] = None,
) -> dict[str, Any]:
    """Replace an event with the given resource (fields left out are cleared; start and end are required).

    Args:
        event_id: the event id (an instance id changes only that occurrence).
        body: the complete Event.
        calendar_id: calendar id, or 'primary'.
        send_updates: who is emailed about the change: 'all', 'externalOnly' or 'none' (default).
        max_attendees: at most this many attendees in the response.
    """
    updates = core.resolve_send_updates(send_updates, send_notifications)
    return _modify(ctx, calendar_id, event_id, body.given(), True, updates, max_attendees)


@tool(ToolKind.SEND, name="calendar_events_patch", rest=RestBinding("PATCH", EVENT_PATH, body="body"))
def events_patch(
    ctx: ServiceContext,
    event_id: str,
    body: Event,
    calendar_id: str = "primary",
    send_updates: SendUpdates | None = None,
    send_notifications: Annotated[bool | None, Hidden] = None,
    max_attendees: int | None = Field(default=None, ge=1),
    always_include_email: Annotated[bool | None, Hidden] = None,
    conference_data_version: Annotated[int | None, Hidden] = None,
    supports_attachments: Annotated[bool | None, Hidden] = None,
    event_label_version: Annotated[int | None, Hidden] = None,
) -> dict[str, Any]:
    """Change some fields of an event. To answer an invitation, patch `attendees` with your own entry's responseStatus.

    Args:
        event_id: the event id (an instance id changes only that occurrence).
        body: the fields to change, e.g. {'summary': 'New title'} or
            {'attendees': [{'email': 'me@...', 'responseStatus': 'accepted'}]}.
        calendar_id: calendar id, or 'primary'.
        send_updates: who is emailed about the change: 'all', 'externalOnly' or 'none' (default).
        max_attendees: at most this many attendees in the response.
    """
    updates = core.resolve_send_updates(send_updates, send_notifications)
    return _modify(ctx, calendar_id, event_id, body.given(), False, updates, max_attendees)


@tool(ToolKind.SEND, name="calendar_events_delete", rest=RestBinding("DELETE", EVENT_PATH, status=204))
def events_delete(
    ctx: ServiceContext,
    event_id: str,
    calendar_id: str = "primary",
    send_updates: SendUpdates | None = None,
    send_notifications: Annotated[bool | None, Hidden] = None,
) -> None:
    """Delete an event (a guest deleting their copy declines it; an instance id deletes one occurrence).

    Args:
        event_id: the event id.
        calendar_id: calendar id, or 'primary'.
        send_updates: who is emailed the cancellation: 'all', 'externalOnly' or 'none' (default).
    """
    cal, _ = core.access(ctx, calendar_id, "writer")
    updates = core.resolve_send_updates(send_updates, send_notifications)
    delete_event(ctx, cal, _existing(ctx, cal, event_id), updates)
    return None


@tool(ToolKind.SEND, name="calendar_events_move", rest=RestBinding("POST", f"{EVENT_PATH}/move"))
def events_move(
    ctx: ServiceContext,
    event_id: str,
    destination: str,
    calendar_id: str = "primary",
    send_updates: SendUpdates | None = None,
    send_notifications: Annotated[bool | None, Hidden] = None,
) -> dict[str, Any]:
    """Move an event to another calendar (which becomes its organizer).

    Args:
        event_id: the event id.
        destination: id of the calendar to move it to.
        calendar_id: the calendar it is on now, or 'primary'.
        send_updates: who is emailed about the change: 'all', 'externalOnly' or 'none' (default).
    """
    world = ctx.world
    src, _ = core.access(ctx, calendar_id, "writer")
    dst, role = core.access(ctx, destination, "writer")
    row = world.store.get(EVENTS.name, {"calendar_id": src["id"], "id": event_id})
    if row is None:
        if core.get_event(world, src, event_id) is not None:
            raise core.bad("Cannot change the organizer of an instance.", "cannotChangeOrganizerOfInstance")
        raise core.not_found()
    if row["recurring_event_id"]:
        raise core.bad("Cannot change the organizer of an instance.", "cannotChangeOrganizerOfInstance")
    if not core.is_organizer_copy(row):
        raise core.bad("Cannot change the organizer of this event.", "cannotChangeOrganizer")
    if row["event_type"] != "default":
        raise core.bad("This event type cannot be moved.", "eventTypeRestriction")
    if dst["id"] == src["id"]:
        return core.event_resource(ctx, row, role, core.cal_tz(dst))
    if world.store.get(EVENTS.name, {"calendar_id": dst["id"], "id": event_id}) is not None:
        raise ServiceError(409, "The requested identifier already exists.", reason="duplicate")
    updates = core.resolve_send_updates(send_updates, send_notifications)
    now = world.clock.now_ms()
    organizer = {"email": dst["id"], "displayName": core.calendar_display_name(world, dst)}
    moved_rows = [row] + world.store.select(EVENTS.name, {"calendar_id": src["id"], "recurring_event_id": event_id})
    moved_master = row
    for r in moved_rows:
        world.store.delete(EVENTS.name, {"calendar_id": src["id"], "id": r["id"]})
        new = {**r, "calendar_id": dst["id"], "owner": dst["owner"], "organizer": organizer, "updated_ms": now}
        new["start_ms"], new["end_ms"] = core.span_ms(new, core.cal_tz(dst))
        core.save(world, new)
        core.propagate(ctx, new, r, updates, "update", core.cal_tz(dst), deliver=False)
        if r is row:
            moved_master = new
    core.notify_owner(ctx, dst, moved_master, "Moved event")
    return core.event_resource(ctx, moved_master, role, core.cal_tz(dst))


@tool(ToolKind.WRITE, name="calendar_events_quick_add", rest=RestBinding("POST", f"{EVENTS_PATH}/quickAdd"))
def events_quick_add(
    ctx: ServiceContext,
    text: str,
    calendar_id: str = "primary",
    send_updates: SendUpdates | None = None,
    send_notifications: Annotated[bool | None, Hidden] = None,
) -> dict[str, Any]:
    """Create an event from a line of text, e.g. 'Lunch with Bob tomorrow at 12pm' or 'Review Mar 5 3-4pm at Room 2'.

    Args:
        text: what happens and when (dates, times, ranges, 'for 30 minutes', 'at <place>').
        calendar_id: calendar id, or 'primary'.
        send_updates: who is emailed: 'all', 'externalOnly' or 'none' (default).
    """
    cal, role = core.access(ctx, calendar_id, "writer")
    if not text.strip():
        raise core.bad("Missing text.", "required")
    length = int(core.settings_of(ctx.world, ctx.principal.id).get("defaultEventLength", "60") or 60)
    parsed = parse_quick_add(text, ctx.world.clock.now(), cal["time_zone"], length)
    inp: dict[str, Any] = {"summary": parsed.summary, "start": parsed.start.stored(), "end": parsed.end.stored()}
    if parsed.location:
        inp["location"] = parsed.location
    updates = core.resolve_send_updates(send_updates, send_notifications)
    row = _insert(ctx, cal, inp, updates)
    return core.event_resource(ctx, row, role, core.cal_tz(cal))


@tool(ToolKind.READ, name="calendar_events_instances", rest=RestBinding("GET", f"{EVENT_PATH}/instances"))
def events_instances(
    ctx: ServiceContext,
    event_id: str,
    calendar_id: str = "primary",
    time_min: str | None = None,
    time_max: str | None = None,
    max_results: int = Field(default=250, ge=1, le=2500),
    page_token: str | None = None,
    show_deleted: bool = False,
    original_start: str | None = None,
    time_zone: str | None = None,
    max_attendees: int | None = Field(default=None, ge=1),
    always_include_email: Annotated[bool | None, Hidden] = None,
) -> dict[str, Any]:
    """List the occurrences of a recurring event (modified ones included, cancelled ones with show_deleted).

    Args:
        event_id: id of the recurring event.
        calendar_id: calendar id, or 'primary'.
        time_min: only instances ending after this RFC 3339 time (with offset).
        time_max: only instances starting before this RFC 3339 time (with offset).
        max_results: page size.
        page_token: the nextPageToken of the previous page.
        show_deleted: include cancelled instances.
        original_start: only the instance whose original start is this time.
        time_zone: time zone of the times in the response.
        max_attendees: at most this many attendees per instance.
    """
    cal, role = core.access(ctx, calendar_id)
    out_tz = _out_tz(cal, time_zone)
    master = ctx.store.get(EVENTS.name, {"calendar_id": cal["id"], "id": event_id})
    if master is None:
        raise core.not_found()
    lo, hi = _bounds(time_min, time_max)
    rows = [master] if master["recurrence"] else []
    rows += ctx.store.select(EVENTS.name, {"calendar_id": cal["id"], "recurring_event_id": event_id})
    items = core.expand(ctx.world, cal, rows, lo, hi, show_deleted)
    if original_start:
        key = original_start.strip()
        if len(key) == 10:
            items = [r for r in items if r["original_start"].get("date") == key]
        else:
            moment = to_ms(parse_rfc3339(key))
            items = [r for r in items if to_ms(when_from_stored(r["original_start"]).moment(core.cal_tz(cal))) == moment]
    items.sort(key=_sort_key("startTime"))
    resp = _events_response(ctx, cal, role, items, out_tz, page_token, max_results, max_attendees)
    resp.pop("nextSyncToken", None)
    return resp


@tool(ToolKind.WRITE, name="calendar_events_import", rest=RestBinding("POST", f"{EVENTS_PATH}/import", body="body"))
def events_import(
    ctx: ServiceContext,
    body: Event,
    calendar_id: str = "primary",
    conference_data_version: Annotated[int | None, Hidden] = None,
    supports_attachments: Annotated[bool | None, Hidden] = None,
    event_label_version: Annotated[int | None, Hidden] = None,
) -> dict[str, Any]:
    """Import a private copy of an existing event (by iCalUID); nobody is invited or notified.

    Args:
        body: the Event, with `iCalUID` (required), start, end, and optionally organizer and attendees.
        calendar_id: calendar id, or 'primary'.
    """
    cal, role = core.access(ctx, calendar_id, "writer")
    inp = body.given()
    ical = inp.get("iCalUID")
    if not ical:
        raise core.bad("Missing iCalUID.", "required")
    organizer_in = inp.get("organizer") or {}
    organizer = {k: v for k, v in organizer_in.items() if k in ("email", "displayName") and v} or None
    existing = [r for r in ctx.store.select(EVENTS.name, {"calendar_id": cal["id"], "ical_uid": ical}) if not r["recurring_event_id"]]
    if existing:
        old = existing[0]
        new = core.build_row(ctx, cal, inp, prev=old, event_id=old["id"], organizer=organizer or old["organizer"],
                             creator=old["creator"], ical_uid=ical)  # fmt: skip
        core.save(ctx.world, new)
        core.notify_owner(ctx, cal, new, "Imported event")
        return core.event_resource(ctx, new, role, core.cal_tz(cal))
    row = _insert(ctx, cal, inp, "none", organizer=organizer, notify=False)
    return core.event_resource(ctx, row, role, core.cal_tz(cal))


@tool(ToolKind.WRITE, name="calendar_events_watch", rest=RestBinding("POST", f"{EVENTS_PATH}/watch", body="body"))
def events_watch(
    ctx: ServiceContext,
    body: Channel,
    calendar_id: str = "primary",
    time_min: Annotated[str | None, Hidden] = None,
    time_max: Annotated[str | None, Hidden] = None,
    single_events: Annotated[bool | None, Hidden] = None,
    order_by: Annotated[str | None, Hidden] = None,
    q: Annotated[str | None, Hidden] = None,
    show_deleted: Annotated[bool | None, Hidden] = None,
    max_results: Annotated[int | None, Hidden] = None,
    page_token: Annotated[str | None, Hidden] = None,
    updated_min: Annotated[str | None, Hidden] = None,
    i_cal_uid: Annotated[str | None, Hidden] = Field(default=None, alias="iCalUID"),
    time_zone: Annotated[str | None, Hidden] = None,
    max_attendees: Annotated[int | None, Hidden] = None,
    sync_token: Annotated[str | None, Hidden] = None,
    event_types: Annotated[list[str] | None, Hidden] = None,
    private_extended_property: Annotated[list[str] | None, Hidden] = None,
    shared_extended_property: Annotated[list[str] | None, Hidden] = None,
    show_hidden_invitations: Annotated[bool | None, Hidden] = None,
    always_include_email: Annotated[bool | None, Hidden] = None,
) -> dict[str, Any]:
    """Watch a calendar's events: change notifications (no event content) go to a web hook.

    Args:
        body: the channel: {'id', 'type': 'web_hook', 'address': 'https://...'}.
        calendar_id: calendar id, or 'primary'.
    """
    cal, _ = core.access(ctx, calendar_id, "reader")
    return open_channel(ctx, body, f"https://www.googleapis.com/calendar/v3/calendars/{cal['id']}/events?alt=json")


TOOLS = (events_list, events_get, events_insert, events_update, events_patch, events_delete, events_move,
         events_quick_add, events_instances, events_import, events_watch)  # fmt: skip
