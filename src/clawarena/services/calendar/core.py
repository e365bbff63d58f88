"""Calendar internals shared by the operations: calendars, access, event rows, rendering, propagation.

Access: the data owner of a calendar has role `owner`; anyone else gets the
best role of the ACL rules that match them (user:<email>, domain:<domain>,
default). No role means the calendar does not exist for them (404, refused).

Events: one row per calendar the event appears on. The organizer's row is the
one on the organizer's calendar; attendees who are principals get a copy with
the same id on their primary calendar, kept in sync by `propagate`.
"""

from __future__ import annotations

import base64
import re
from datetime import datetime, timedelta, tzinfo
from typing import Any

from clawarena.services.base import Delivery, ServiceContext, ServiceError
from clawarena.services.calendar import recurrence as rec
from clawarena.services.calendar.tables import ACL, CALENDAR_LIST, CALENDARS, EVENTS, SETTINGS
from clawarena.services.calendar.times import UTC, When, fmt_ms, fmt_rfc3339, to_ms, valid_zone, when_from_body, when_from_stored, zone
from clawarena.spec.models import PrincipalSpec
from clawarena.world.world import World

ROLES = ("none", "freeBusyReader", "reader", "writer", "owner")
RANK = {r: i for i, r in enumerate(ROLES)}
RESPONSE_STATUSES = ("needsAction", "declined", "tentative", "accepted")
EVENT_COLORS = {str(i) for i in range(1, 12)}
DEFAULT_SETTINGS = {
    "autoAddHangouts": "false", "dateFieldOrder": "MDY", "defaultEventLength": "60", "format24HourTime": "false",
    "hideInvitations": "false", "hideWeekends": "false", "locale": "en", "remindOnRespondedEventsOnly": "false",
    "showDeclinedEvents": "true", "timezone": "UTC", "useKeyboardShortcuts": "true", "weekStart": "0",
}  # fmt: skip
# Event fields kept as they are sent (no logic of ours reads them beyond guest permissions).
PASS_THROUGH = (
    "guestsCanModify", "guestsCanInviteOthers", "guestsCanSeeOtherGuests", "anyoneCanAddSelf", "source", "attachments",
    "conferenceData", "locked", "gadget", "endTimeUnspecified", "focusTimeProperties", "outOfOfficeProperties",
    "workingLocationProperties", "birthdayProperties", "eventLabelId", "hangoutLink",
)  # fmt: skip
SHARED_COLUMNS = (
    "ical_uid", "status", "summary", "description", "location", "start", "end", "recurrence", "recurring_event_id",
    "original_start", "organizer", "creator", "attendees", "visibility", "extra", "event_type", "sequence",
)  # fmt: skip
_EVENT_ID = re.compile(r"^[a-v0-9]{5,1024}$")
_EMAIL = re.compile(r"^[^@\s]+@[^@\s]+\.[^@\s]+$")


def not_found(denied: bool = False) -> ServiceError:
    return ServiceError(404, "Not Found", reason="notFound", denied=denied)


def bad(message: str, reason: str = "invalid") -> ServiceError:
    return ServiceError(400, message, reason=reason)


# ---- principals, settings, calendars ----------------------------------------------------
def principal_by_email(world: World, email: str | None) -> PrincipalSpec | None:
    return world.directory.by_address(email) if email else None


def settings_of(world: World, principal_id: str) -> dict[str, str]:
    values = dict(DEFAULT_SETTINGS)
    for row in world.store.select(SETTINGS.name, {"principal": principal_id}):
        values[row["id"]] = row["value"]
    p = world.directory.principal(principal_id)
    primary = world.store.get(CALENDARS.name, {"id": p.email})
    if primary is not None:
        values["timezone"] = primary["time_zone"]
    return values


def virtual_primary(world: World, p: PrincipalSpec) -> dict[str, Any]:
    tz = DEFAULT_SETTINGS["timezone"]
    row = world.store.get(SETTINGS.name, {"principal": p.id, "id": "timezone"})
    if row is not None:
        tz = row["value"]
    return {"id": p.email, "owner": p.id, "summary": p.email, "description": "", "location": "", "time_zone": tz,
            "is_primary": True, "updated_ms": 0, "_virtual": True}  # fmt: skip


def get_calendar(world: World, cal_id: str) -> dict[str, Any] | None:
    row = world.store.get(CALENDARS.name, {"id": cal_id})
    if row is not None:
        return row
    p = principal_by_email(world, cal_id)
    if p is not None:
        return virtual_primary(world, p)
    return None


def materialize(world: World, cal: dict[str, Any]) -> dict[str, Any]:
    """Store a virtual primary calendar before it is changed."""
    if cal.pop("_virtual", False):
        world.store.insert(CALENDARS.name, cal)
    return cal


def resolve_id(ctx: ServiceContext, calendar_id: str) -> str:
    if calendar_id == "primary":
        return ctx.principal.email
    p = principal_by_email(ctx.world, calendar_id)
    return p.email if p is not None else calendar_id


def cal_tz(cal: dict[str, Any]) -> tzinfo:
    return zone(cal.get("time_zone"))


def role_of(world: World, principal: PrincipalSpec, cal: dict[str, Any]) -> str:
    if cal["owner"] == principal.id:
        return "owner"
    email = principal.email.lower()
    domain = email.rsplit("@", 1)[-1]
    best = 0
    for rule in world.store.select(ACL.name, {"calendar_id": cal["id"]}):
        value = (rule["scope_value"] or "").lower()
        kind = rule["scope_type"]
        if (kind == "user" and value == email) or (kind == "domain" and value == domain) or kind == "default":
            best = max(best, RANK.get(rule["role"], 0))
    return ROLES[best]


def access(ctx: ServiceContext, calendar_id: str, need: str = "freeBusyReader") -> tuple[dict[str, Any], str]:
    """The calendar and the caller's role on it, or the real API's refusal."""
    cal = get_calendar(ctx.world, resolve_id(ctx, calendar_id))
    if cal is None:
        raise not_found()
    role = role_of(ctx.world, ctx.principal, cal)
    if role == "none":
        raise not_found(denied=True)
    if RANK[role] < RANK[need]:
        raise ServiceError(403, f"You need to have {need} access to this calendar.", reason="requiredAccessLevel")
    return cal, role


def owner_email(world: World, cal: dict[str, Any]) -> str:
    return world.directory.principal(cal["owner"]).email


def calendar_display_name(world: World, cal: dict[str, Any]) -> str:
    if cal.get("is_primary"):
        return world.directory.principal(cal["owner"]).name
    return cal["summary"]


# ---- event rows -----------------------------------------------------------------------------
def start_of(row: dict[str, Any]) -> When:
    return when_from_stored(row["start"])


def end_of(row: dict[str, Any]) -> When:
    return when_from_stored(row["end"])


def span_ms(row: dict[str, Any], tz: tzinfo) -> tuple[int, int]:
    return to_ms(start_of(row).moment(tz)), to_ms(end_of(row).moment(tz))


def etag(row: dict[str, Any]) -> str:
    return f'"{row["updated_ms"] * 1000 + row["sequence"]}"'


def html_link(row: dict[str, Any]) -> str:
    eid = base64.urlsafe_b64encode(f"{row['id']} {row['calendar_id']}".encode()).decode().rstrip("=")
    return f"https://www.google.com/calendar/event?eid={eid}"


def is_organizer_copy(row: dict[str, Any]) -> bool:
    return (row["organizer"].get("email") or "").lower() == row["calendar_id"].lower()


def get_event(world: World, cal: dict[str, Any], event_id: str) -> dict[str, Any] | None:
    """A stored row, or an instance of a recurring event synthesized from its master (`_synth`)."""
    row = world.store.get(EVENTS.name, {"calendar_id": cal["id"], "id": event_id})
    if row is not None:
        return row
    if "_" not in event_id:
        return None
    master_id, key = event_id.rsplit("_", 1)
    master = world.store.get(EVENTS.name, {"calendar_id": cal["id"], "id": master_id})
    if master is None or not master["recurrence"]:
        return None
    start = start_of(master)
    when = rec.parse_instance_key(key, start.tz)
    if when is None or when.all_day != start.all_day:
        return None
    if not is_occurrence(master, when, cal_tz(cal)):
        return None
    return synth_instance(master, when, cal_tz(cal))


def is_occurrence(master: dict[str, Any], when: When, tz: tzinfo) -> bool:
    start = start_of(master)
    moment = when.moment(tz)
    lo = rec.local_bound(moment - timedelta(seconds=1), start, tz)
    hi = rec.local_bound(moment + timedelta(seconds=1), start, tz)
    try:
        occs = rec.occurrences(master["recurrence"], start, after=lo, before=hi, limit=3)
    except rec.RecurrenceError:
        return False
    return any(rec.instance_key(rec.occurrence_when(o, start)) == rec.instance_key(when) for o in occs)


def synth_instance(master: dict[str, Any], when: When, tz: tzinfo) -> dict[str, Any]:
    start = start_of(master)
    end_when = rec.shift(when, rec.duration(start, end_of(master)))
    row = dict(master)
    row.update(
        id=f"{master['id']}_{rec.instance_key(when)}", recurrence=None, recurring_event_id=master["id"],
        original_start=when.stored(), start=when.stored(), end=end_when.stored(),
        start_ms=to_ms(when.moment(tz)), end_ms=to_ms(end_when.moment(tz)), _synth=True,
    )  # fmt: skip
    return row


def expand(world: World, cal: dict[str, Any], rows: list[dict[str, Any]], lo_ms: int | None, hi_ms: int | None,
           include_cancelled: bool) -> list[dict[str, Any]]:  # fmt: skip
    """Recurring masters replaced by their instances in [lo, hi); exceptions replace their instance."""
    tz = cal_tz(cal)
    exceptions: set[tuple[str, str]] = set()
    for r in rows:
        if r["recurring_event_id"] and r["original_start"]:
            exceptions.add((r["recurring_event_id"], rec.instance_key(when_from_stored(r["original_start"]))))
    out: list[dict[str, Any]] = []
    for r in rows:
        if r["recurrence"] and not r["recurring_event_id"]:
            if r["status"] == "cancelled" and not include_cancelled:
                continue
            out.extend(instances_of(r, tz, lo_ms, hi_ms, exceptions))
        elif overlaps(r, tz, lo_ms, hi_ms) and (include_cancelled or r["status"] != "cancelled"):
            out.append(r)
    return out


def instances_of(master: dict[str, Any], tz: tzinfo, lo_ms: int | None, hi_ms: int | None,
                 skip: set[tuple[str, str]] = frozenset()) -> list[dict[str, Any]]:  # type: ignore[assignment]  # fmt: skip
    start = start_of(master)
    length = rec.duration(start, end_of(master))
    length_td = length if isinstance(length, timedelta) else timedelta(days=length)
    after = None
    if lo_ms is not None:
        after = rec.local_bound(datetime.fromtimestamp(lo_ms / 1000, tz=UTC) - length_td - timedelta(days=1), start, tz)
    before = None
    if hi_ms is not None:
        before = rec.local_bound(datetime.fromtimestamp(hi_ms / 1000, tz=UTC) + timedelta(days=1), start, tz)
    try:
        occs = rec.occurrences(master["recurrence"], start, after=after, before=before)
    except rec.RecurrenceError:
        return []
    out = []
    for occ in occs:
        when = rec.occurrence_when(occ, start)
        if (master["id"], rec.instance_key(when)) in skip:
            continue
        inst = synth_instance(master, when, tz)
        if overlaps(inst, tz, lo_ms, hi_ms):
            out.append(inst)
    return out


def overlaps(row: dict[str, Any], tz: tzinfo, lo_ms: int | None, hi_ms: int | None) -> bool:
    s, e = span_ms(row, tz)
    if lo_ms is not None and not (e > lo_ms or (s == e and s >= lo_ms)):
        return False
    if hi_ms is not None and not s < hi_ms:
        return False
    return True


def any_instance_in(master: dict[str, Any], tz: tzinfo, lo_ms: int | None, hi_ms: int | None) -> bool:
    if lo_ms is None and hi_ms is None:
        return True
    return bool(instances_of(master, tz, lo_ms, hi_ms))


# ---- rendering -------------------------------------------------------------------------------
def _person(value: dict[str, Any], cal_id: str) -> dict[str, Any]:
    out = {k: v for k, v in value.items() if k in ("id", "email", "displayName") and v}
    if (value.get("email") or "").lower() == cal_id.lower():
        out["self"] = True
    return out


def limited_view(ctx: ServiceContext, row: dict[str, Any], role: str) -> bool:
    """Whether the caller sees this event only as a busy block."""
    if role == "freeBusyReader":
        return True
    if role == "reader" and row["visibility"] in ("private", "confidential"):
        me = ctx.principal.email.lower()
        return not any((a.get("email") or "").lower() == me for a in row["attendees"])
    return False


def event_resource(ctx: ServiceContext, row: dict[str, Any], role: str, out_tz: tzinfo,
                   max_attendees: int | None = None) -> dict[str, Any]:  # fmt: skip
    out: dict[str, Any] = {"kind": "calendar#event", "etag": etag(row), "id": row["id"], "status": row["status"]}
    if limited_view(ctx, row, role):
        out["start"] = start_of(row).render(out_tz)
        out["end"] = end_of(row).render(out_tz)
        if row["recurring_event_id"]:
            out["recurringEventId"] = row["recurring_event_id"]
            out["originalStartTime"] = when_from_stored(row["original_start"]).render(out_tz)
        if row["transparency"] == "transparent":
            out["transparency"] = "transparent"
        out["eventType"] = row["event_type"]
        return out
    out.update(htmlLink=html_link(row), created=fmt_ms(row["created_ms"]), updated=fmt_ms(row["updated_ms"]))
    for key, col in (("summary", "summary"), ("description", "description"), ("location", "location"), ("colorId", "color_id")):
        if row[col]:
            out[key] = row[col]
    out["creator"] = _person(row["creator"], row["calendar_id"])
    out["organizer"] = _person(row["organizer"], row["calendar_id"])
    out["start"] = start_of(row).render(out_tz)
    out["end"] = end_of(row).render(out_tz)
    if row["recurrence"]:
        out["recurrence"] = list(row["recurrence"])
    if row["recurring_event_id"]:
        out["recurringEventId"] = row["recurring_event_id"]
        out["originalStartTime"] = when_from_stored(row["original_start"]).render(out_tz)
    if row["transparency"] == "transparent":
        out["transparency"] = "transparent"
    if row["visibility"] != "default":
        out["visibility"] = row["visibility"]
    out["iCalUID"] = row["ical_uid"]
    out["sequence"] = row["sequence"]
    attendees = _render_attendees(row)
    extra = row["extra"] or {}
    if attendees:
        mine = [a for a in attendees if a.get("self")]
        sees_guests = extra.get("guestsCanSeeOtherGuests", True) or is_organizer_copy(row)
        if not sees_guests:
            attendees = [a for a in attendees if a.get("self") or a.get("organizer")]
        if max_attendees is not None and len(attendees) > max_attendees:
            attendees = mine
            out["attendeesOmitted"] = True
        if attendees:
            out["attendees"] = attendees
    if row["extended_properties"]:
        out["extendedProperties"] = row["extended_properties"]
    out["reminders"] = row["reminders"] or {"useDefault": True}
    for key in PASS_THROUGH:
        if key in extra:
            out[key] = extra[key]
    out["eventType"] = row["event_type"]
    return out


def _render_attendees(row: dict[str, Any]) -> list[dict[str, Any]]:
    org = (row["organizer"].get("email") or "").lower()
    out = []
    for a in row["attendees"]:
        d = dict(a)
        email = (a.get("email") or "").lower()
        if email == org:
            d["organizer"] = True
        if email == row["calendar_id"].lower():
            d["self"] = True
        out.append(d)
    return out


# ---- building rows from request bodies -------------------------------------------------------
def check_event_id(event_id: str) -> None:
    if not _EVENT_ID.match(event_id):
        raise bad("Invalid resource id value.")


def row_to_input(row: dict[str, Any]) -> dict[str, Any]:
    """The writable fields of a stored row, as a request body would carry them."""
    out: dict[str, Any] = {
        "summary": row["summary"], "description": row["description"], "location": row["location"],
        "start": row["start"], "end": row["end"], "status": row["status"], "visibility": row["visibility"],
        "transparency": row["transparency"], "attendees": [dict(a) for a in row["attendees"]], "eventType": row["event_type"],
    }  # fmt: skip
    if row["recurrence"]:
        out["recurrence"] = list(row["recurrence"])
    if row["color_id"]:
        out["colorId"] = row["color_id"]
    if row["reminders"]:
        out["reminders"] = row["reminders"]
    if row["extended_properties"]:
        out["extendedProperties"] = row["extended_properties"]
    out.update(row["extra"] or {})
    return out


def merge_patch(current: dict[str, Any], patch: dict[str, Any]) -> dict[str, Any]:
    """PATCH semantics: given fields replace, null clears, extendedProperties merge per scope."""
    out = dict(current)
    for key, value in patch.items():
        if key == "extendedProperties" and isinstance(value, dict) and isinstance(out.get(key), dict):
            merged = {scope: dict(vals) for scope, vals in out[key].items()}
            for scope, vals in value.items():
                if vals is None:
                    merged.pop(scope, None)
                else:
                    merged.setdefault(scope, {}).update({k: v for k, v in vals.items()})
                    merged[scope] = {k: v for k, v in merged[scope].items() if v is not None}
            out[key] = merged
        elif value is None:
            out.pop(key, None)
        else:
            out[key] = value
    return out


def _attendees(value: Any, previous: list[dict[str, Any]], organizer_email: str) -> list[dict[str, Any]]:
    if value is None:
        return []
    if not isinstance(value, list):
        raise bad("Invalid attendees.")
    before = {(a.get("email") or "").lower(): a for a in previous}
    out: list[dict[str, Any]] = []
    seen: set[str] = set()
    for a in value:
        if not isinstance(a, dict) or not _EMAIL.match(str(a.get("email") or "")):
            raise bad("Invalid attendee email.")
        email = str(a["email"]).strip()
        key = email.lower()
        if key in seen:
            continue
        seen.add(key)
        d = {k: v for k, v in a.items() if k not in ("self", "organizer", "id") and v is not None}
        d["email"] = email
        status = d.get("responseStatus") or before.get(key, {}).get("responseStatus")
        if status is None:
            status = "accepted" if key == organizer_email.lower() else "needsAction"
        if status not in RESPONSE_STATUSES:
            raise bad(f"Invalid value for: responseStatus ({status})")
        d["responseStatus"] = status
        out.append(d)
    return out


def build_row(ctx: ServiceContext, cal: dict[str, Any], inp: dict[str, Any], *, prev: dict[str, Any] | None,
              event_id: str, organizer: dict[str, Any], creator: dict[str, Any], ical_uid: str) -> dict[str, Any]:  # fmt: skip
    """Validate a request body and turn it into a complete row for `cal`."""
    tz = cal_tz(cal)
    start = when_from_body(inp.get("start"), "start")
    end = when_from_body(inp.get("end"), "end")
    if start.all_day != end.all_day:
        raise bad("Invalid start time.")
    if to_ms(end.moment(tz)) < to_ms(start.moment(tz)) or (start.all_day and end.day == start.day):
        raise ServiceError(400, "The specified time range is empty.", reason="timeRangeEmpty")
    recurrence = inp.get("recurrence") or None
    is_exception = bool(prev and prev.get("recurring_event_id"))
    if recurrence is not None and not is_exception:
        if not isinstance(recurrence, list) or not all(isinstance(x, str) for x in recurrence):
            raise bad("Invalid recurrence rule.")
        if not start.all_day and not start.tz:
            raise bad("Missing time zone definition for start time.", "required")
        try:
            rec.build(recurrence, start)
        except rec.RecurrenceError:
            raise bad("Invalid recurrence rule.") from None
    else:
        recurrence = None
    for field, allowed in (("visibility", ("default", "public", "private", "confidential")),
                           ("transparency", ("opaque", "transparent")),
                           ("status", ("confirmed", "tentative", "cancelled"))):  # fmt: skip
        if inp.get(field) is not None and inp[field] not in allowed:
            raise bad(f"Invalid value for: {field}")
    color = inp.get("colorId")
    if color is not None and str(color) not in EVENT_COLORS:
        raise bad("Invalid color id.")
    reminders = inp.get("reminders")
    if reminders is not None:
        if not isinstance(reminders, dict):
            raise bad("Invalid reminders.")
        for o in reminders.get("overrides") or []:
            if not isinstance(o, dict) or o.get("method") not in ("email", "popup") or not isinstance(o.get("minutes"), int):
                raise bad("Invalid reminder method or minutes.")
    now = ctx.world.clock.now_ms()
    return {
        "calendar_id": cal["id"],
        "id": event_id,
        "owner": cal["owner"],
        "ical_uid": ical_uid,
        "status": inp.get("status") or "confirmed",
        "summary": str(inp.get("summary") or ""),
        "description": str(inp.get("description") or ""),
        "location": str(inp.get("location") or ""),
        "start": start.stored(),
        "end": end.stored(),
        "start_ms": to_ms(start.moment(tz)),
        "end_ms": to_ms(end.moment(tz)),
        "recurrence": recurrence,
        "recurring_event_id": prev["recurring_event_id"] if prev else None,
        "original_start": prev["original_start"] if prev else None,
        "organizer": organizer,
        "creator": creator,
        "attendees": _attendees(inp.get("attendees"), prev["attendees"] if prev else [], organizer.get("email", "")),
        "visibility": inp.get("visibility") or "default",
        "transparency": inp.get("transparency") or "opaque",
        "color_id": str(color) if color is not None else None,
        "reminders": reminders,
        "extended_properties": inp.get("extendedProperties") or None,
        "extra": {k: inp[k] for k in PASS_THROUGH if inp.get(k) is not None},
        "event_type": inp.get("eventType") or "default",
        "sequence": prev["sequence"] if prev else int(inp.get("sequence") or 0),
        "created_ms": prev["created_ms"] if prev else now,
        "updated_ms": now,
    }


def significant_change(old: dict[str, Any], new: dict[str, Any]) -> bool:
    return any(old[k] != new[k] for k in ("start", "end", "recurrence", "location"))


def shared_changed(old: dict[str, Any], new: dict[str, Any]) -> bool:
    return any(old[k] != new[k] for k in SHARED_COLUMNS if k not in ("sequence",))


# ---- storing, propagation and notifications ----------------------------------------------------
def save(world: World, row: dict[str, Any]) -> None:
    clean = {k: v for k, v in row.items() if not k.startswith("_")}
    key = {"calendar_id": clean["calendar_id"], "id": clean["id"]}
    if world.store.get(EVENTS.name, key) is None:
        world.store.insert(EVENTS.name, clean)
    else:
        world.store.update(EVENTS.name, key, {k: v for k, v in clean.items() if k not in key})


def when_text(row: dict[str, Any], tz: tzinfo) -> str:
    start, end = start_of(row), end_of(row)
    if start.all_day:
        return f"{start.day.isoformat()} (all day)"  # type: ignore[union-attr]
    return f"{fmt_rfc3339(start.moment(tz), tz)} - {fmt_rfc3339(end.moment(tz), tz)}"


def event_text(row: dict[str, Any], tz: tzinfo) -> str:
    lines = [f"Event: {row['summary'] or '(No title)'}", f"When: {when_text(row, tz)}"]
    if row["location"]:
        lines.append(f"Where: {row['location']}")
    if row["organizer"].get("email"):
        lines.append(f"Organizer: {row['organizer']['email']}")
    if row["attendees"]:
        lines.append("Guests: " + ", ".join(a["email"] for a in row["attendees"]))
    if row["description"]:
        lines += ["", row["description"]]
    return "\n".join(lines)


def notify(ctx: ServiceContext, row: dict[str, Any], emails: list[str], send_updates: str, subject: str, tz: tzinfo) -> None:
    """One delivery to the recipients this change reaches.

    Principals of the world always: the event lands on their calendar. Outside
    addresses only when `sendUpdates` is `all` or `externalOnly` (an email is sent).
    """
    me = ctx.principal.email.lower()
    recipients: list[str] = []
    for email in emails:
        if email.lower() in (me, row["calendar_id"].lower()):
            continue
        inside = principal_by_email(ctx.world, email) is not None
        if inside or send_updates in ("all", "externalOnly"):
            recipients.append(email)
    recipients = list(dict.fromkeys(recipients))
    if recipients:
        ctx.deliver(Delivery("calendar", ctx.principal.email, tuple(recipients), subject, event_text(row, tz), ref=row["id"]))


def copy_calendars(world: World, row: dict[str, Any]) -> list[str]:
    """Primary calendars (principal emails) that should hold a copy of an organizer's row."""
    if row["status"] == "cancelled" and not row["recurring_event_id"]:
        return []  # a cancelled exception still goes out: it hides that occurrence for every guest
    out = []
    for a in row["attendees"]:
        p = principal_by_email(world, a.get("email"))
        if p is not None and p.email.lower() != row["calendar_id"].lower():
            out.append(p.email)
    return list(dict.fromkeys(out))


def propagate(ctx: ServiceContext, row: dict[str, Any], old: dict[str, Any] | None, send_updates: str,
              action: str, tz: tzinfo, deliver: bool = True) -> None:  # fmt: skip
    """Sync attendee copies of an organizer's row and report who the change reached.

    action: "insert", "update" or "delete".
    """
    world = ctx.world
    wanted = copy_calendars(world, row)
    existing = [r for r in world.store.select(EVENTS.name, {"id": row["id"]}) if r["calendar_id"] != row["calendar_id"]]
    by_cal = {r["calendar_id"]: r for r in existing}
    now = world.clock.now_ms()
    for cal_id, copy in by_cal.items():
        if cal_id not in wanted and copy["status"] != "cancelled" and copy["ical_uid"] == row["ical_uid"]:
            world.store.update(EVENTS.name, {"calendar_id": cal_id, "id": row["id"]}, {"status": "cancelled", "updated_ms": now})
    for cal_id in wanted:
        p = principal_by_email(world, cal_id)
        assert p is not None
        copy = by_cal.get(cal_id)
        if copy is not None and copy["ical_uid"] != row["ical_uid"]:
            continue  # an unrelated event that happens to use the same id
        shared = {k: row[k] for k in SHARED_COLUMNS}
        target_cal = get_calendar(world, cal_id) or {"time_zone": "UTC"}
        s, e = span_ms(row, cal_tz(target_cal))
        if copy is None:
            new = {**row, **shared, "calendar_id": cal_id, "owner": p.id, "color_id": None, "reminders": None,
                   "extended_properties": _shared_only(row["extended_properties"]), "start_ms": s, "end_ms": e,
                   "updated_ms": now}  # fmt: skip
            save(world, new)
        else:
            ext = dict(copy["extended_properties"] or {})
            shared_ext = (row["extended_properties"] or {}).get("shared")
            if shared_ext is not None:
                ext["shared"] = shared_ext
            world.store.update(
                EVENTS.name, {"calendar_id": cal_id, "id": row["id"]},
                {**shared, "start_ms": s, "end_ms": e, "extended_properties": ext or None, "updated_ms": now},
            )  # fmt: skip
    if not deliver:
        return
    old_emails = [a["email"] for a in (old["attendees"] if old and old["status"] != "cancelled" else [])]
    new_emails = [a["email"] for a in row["attendees"]] if row["status"] != "cancelled" else []
    old_set, new_set = {e.lower() for e in old_emails}, {e.lower() for e in new_emails}
    title = row["summary"] or "(No title)"
    when = when_text(row, tz)
    if action == "delete" or row["status"] == "cancelled":
        notify(ctx, row, old_emails or new_emails, send_updates, f"Canceled event: {title} @ {when}", tz)
        return
    invited = [e for e in new_emails if e.lower() not in old_set]
    removed = [e for e in old_emails if e.lower() not in new_set]
    kept = [e for e in new_emails if e.lower() in old_set]
    notify(ctx, row, invited, send_updates, f"Invitation: {title} @ {when}", tz)
    if removed:
        notify(ctx, row, removed, send_updates, f"Canceled event: {title} @ {when}", tz)
    if kept and old is not None and _content_changed(old, row):
        notify(ctx, row, kept, send_updates, f"Updated invitation: {title} @ {when}", tz)


def _content_changed(old: dict[str, Any], new: dict[str, Any]) -> bool:
    return any(old[k] != new[k] for k in ("summary", "description", "location", "start", "end", "recurrence", "status", "visibility"))


def _shared_only(ext: dict[str, Any] | None) -> dict[str, Any] | None:
    if not ext or not ext.get("shared"):
        return None
    return {"shared": ext["shared"]}


def notify_owner(ctx: ServiceContext, cal: dict[str, Any], row: dict[str, Any], verb: str) -> None:
    """A writer putting content on someone else's calendar: it reaches that calendar's owner."""
    if cal["owner"] == ctx.principal.id:
        return
    owner = owner_email(ctx.world, cal)
    ctx.deliver(Delivery("calendar", ctx.principal.email, (owner,), f"{verb}: {row['summary'] or '(No title)'}",
                         event_text(row, cal_tz(cal)), ref=row["id"]))  # fmt: skip


def rsvp_propagate(ctx: ServiceContext, row: dict[str, Any], entry: dict[str, Any], send_updates: str) -> None:
    """An attendee's answer, copied to every calendar holding the event; the organizer hears of it."""
    world = ctx.world
    email = entry["email"].lower()
    fields = {k: entry[k] for k in ("responseStatus", "comment", "additionalGuests") if k in entry}
    now = world.clock.now_ms()
    for other in world.store.select(EVENTS.name, {"id": row["id"]}):
        if other["ical_uid"] != row["ical_uid"]:
            continue
        attendees = [dict(a, **fields) if (a.get("email") or "").lower() == email else a for a in other["attendees"]]
        if attendees != other["attendees"]:
            world.store.update(EVENTS.name, {"calendar_id": other["calendar_id"], "id": row["id"]}, {"attendees": attendees, "updated_ms": now})
    organizer = row["organizer"].get("email")
    if not organizer or organizer.lower() == email:
        return
    status = entry.get("responseStatus", "needsAction")
    verb = {"accepted": "Accepted", "declined": "Declined", "tentative": "Tentatively accepted"}.get(status, "Updated response")
    inside = principal_by_email(world, organizer) is not None
    if inside or send_updates in ("all", "externalOnly"):
        body = f"{entry['email']} has {status} the invitation to {row['summary'] or '(No title)'}."
        if entry.get("comment"):
            body += f"\n\n{entry['comment']}"
        ctx.deliver(Delivery("calendar", ctx.principal.email, (organizer,), f"{verb}: {row['summary'] or '(No title)'}", body, ref=row["id"]))


def resolve_send_updates(send_updates: str | None, send_notifications: bool | None) -> str:
    if send_updates:
        return send_updates
    if send_notifications is not None:
        return "all" if send_notifications else "none"
    return "none"


def valid_tz_or_400(name: str | None) -> None:
    if name is not None and not valid_zone(name):
        raise bad("Invalid time zone.", "invalid")


# ---- calendar list entries ---------------------------------------------------------------------
CALENDAR_COLORS = {
    "1": "#ac725e", "2": "#d06b64", "3": "#f83a22", "4": "#fa573c", "5": "#ff7537", "6": "#ffad46",
    "7": "#42d692", "8": "#16a765", "9": "#7bd148", "10": "#b3dc6c", "11": "#fbe983", "12": "#fad165",
    "13": "#92e1c0", "14": "#9fe1e7", "15": "#9fc6e7", "16": "#4986e7", "17": "#9a9cff", "18": "#b99aff",
    "19": "#c2c2c2", "20": "#cabdbf", "21": "#cca6ac", "22": "#f691b2", "23": "#cd74e6", "24": "#a47ae2",
}  # fmt: skip
EVENT_COLOR_VALUES = {
    "1": "#a4bdfc", "2": "#7ae7bf", "3": "#dbadff", "4": "#ff887c", "5": "#fbd75b", "6": "#ffb878",
    "7": "#46d6db", "8": "#e1e1e1", "9": "#5484ed", "10": "#51b749", "11": "#dc2127",
}  # fmt: skip
DEFAULT_COLOR = "14"


def new_list_entry(world: World, principal_id: str, cal_id: str, *, hidden: bool = False, color_id: str | None = None) -> dict[str, Any]:
    color = color_id or DEFAULT_COLOR
    row = {
        "principal": principal_id, "calendar_id": cal_id, "summary_override": None, "color_id": color,
        "background_color": CALENDAR_COLORS.get(color, "#9fe1e7"), "foreground_color": "#000000",
        "hidden": hidden, "selected": not hidden, "default_reminders": [], "notifications": [],
        "updated_ms": world.clock.now_ms(),
    }  # fmt: skip
    return row


def default_reminders(ctx: ServiceContext, cal: dict[str, Any]) -> list[dict[str, Any]]:
    """The caller's default reminders on `cal` (their calendar-list entry's; a popup 10 minutes before on their own primary)."""
    entry = ctx.world.store.get(CALENDAR_LIST.name, {"principal": ctx.principal.id, "calendar_id": cal["id"]})
    if entry is not None and entry["default_reminders"]:
        return list(entry["default_reminders"])
    return [{"method": "popup", "minutes": 10}] if cal["id"] == ctx.principal.email else []


def add_list_entry(world: World, principal_id: str, cal_id: str, **kw: Any) -> None:
    if world.store.get(CALENDAR_LIST.name, {"principal": principal_id, "calendar_id": cal_id}) is None:
        world.store.insert(CALENDAR_LIST.name, new_list_entry(world, principal_id, cal_id, **kw))


def nearest_color(hex_value: str) -> str:
    def rgb(h: str) -> tuple[int, int, int]:
        h = h.lstrip("#")
        return int(h[0:2], 16), int(h[2:4], 16), int(h[4:6], 16)

    target = rgb(hex_value)
    return min(CALENDAR_COLORS, key=lambda k: (sum((a - b) ** 2 for a, b in zip(rgb(CALENDAR_COLORS[k]), target)), int(k)))
