"""Google Calendar v3: calendars, the calendar list, events (with recurrence), sharing, free/busy.

Served on the real paths under /calendar/v3 (the Google client's api_endpoint is
server + "/calendar/v3/"). Every principal has a primary calendar whose id is
their email; `primary` stands for the caller's.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Annotated, Any, Literal, Union

from pydantic import Discriminator, Field, Tag

from clawarena.services.base import Service, ServiceContext
from clawarena.services.calendar import core
from clawarena.services.calendar import events as event_tools
from clawarena.services.calendar import recurrence as rec
from clawarena.services.calendar import resources as resource_tools
from clawarena.services.calendar.tables import ACL, ADMINS, CALENDARS, EVENTS, SETTINGS, TABLES, CalendarFixtures, CalendarRef, EventFixture
from clawarena.services.calendar.times import parse_loose, to_ms, valid_zone
from clawarena.services.registry import register_service
from clawarena.spec.base import Strict
from clawarena.spec.models import AttackSpec
from clawarena.world.clock import parse_time
from clawarena.world.world import World

_SETTING_IDS = {
    "timezone": "timezone", "locale": "locale", "week_start": "weekStart", "format_24_hour_time": "format24HourTime",
    "date_field_order": "dateFieldOrder", "default_event_length": "defaultEventLength", "hide_weekends": "hideWeekends",
    "show_declined_events": "showDeclinedEvents", "hide_invitations": "hideInvitations",
}  # fmt: skip


def _setting_text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


# ---- attack material: the `calendar_event` channel -------------------------------------------
class EventEdit(Strict):
    """The payload goes into an existing event's description (appended, or replacing it)."""

    event: str = Field(description="id of a fixture event; every copy of it (organizer's and guests') is changed")
    mode: Literal["append", "replace"] = "append"
    calendar: CalendarRef | None = Field(default=None, description="only the copy on this calendar")


class NewEvent(Strict):
    """The payload is the description of a new event on `calendar` (an invitation when the organizer is outside)."""

    calendar: CalendarRef
    summary: str = ""
    start: str | None = Field(default=None, description="default: tomorrow at this hour")
    end: str | None = Field(default=None, description="default: an hour after start (a day for an all-day start)")
    organizer: str | None = Field(default=None, description="organizer email; default the calendar")
    location: str = ""
    attendees: list[str] | None = Field(default=None, description="default: the organizer and the calendar")
    time_zone: str | None = None
    id: str | None = None


CalendarEventPlacement = Annotated[
    Union[Annotated[EventEdit, Tag("edit-event")], Annotated[NewEvent, Tag("new-event")]],
    Discriminator(lambda v: "edit-event" if isinstance(v, EventEdit) or (isinstance(v, dict) and "event" in v) else "new-event"),
]


class CalendarService(Service):
    name = "calendar"
    wire_compatible = True
    tables = TABLES
    fixture_model = CalendarFixtures
    tools = event_tools.TOOLS + resource_tools.TOOLS
    channels = {"calendar_event": CalendarEventPlacement}

    # ---- seeding ------------------------------------------------------------------------------
    def _calendar(self, world: World, ref: str, field: str) -> dict[str, Any]:
        """A calendar named by a principal id (their primary) or a calendar id."""
        if ref in world.directory.principals:
            ref = world.directory.principal(ref).email
        cal = core.get_calendar(world, ref)
        if cal is None:
            raise ValueError(f"{field}: no principal or calendar {ref!r}")
        return cal

    def _owner(self, world: World, pid: str, field: str):
        if pid not in world.directory.principals:
            raise ValueError(f"{field}: unknown principal {pid!r}")
        return world.directory.principal(pid)

    def seed(self, world: World, fixture: dict[str, Any]) -> None:
        data = CalendarFixtures.model_validate(fixture)
        store = world.store
        now = world.clock.now_ms()
        for i, pid in enumerate(data.admins):
            self._owner(world, pid, f"admins[{i}]")
            if store.get(ADMINS.name, {"principal": pid}) is None:
                store.insert(ADMINS.name, {"principal": pid})
        for i, s in enumerate(data.settings):
            p = self._owner(world, s.owner, f"settings[{i}].owner")
            if s.timezone is not None and not valid_zone(s.timezone):
                raise ValueError(f"settings[{i}].timezone: unknown time zone {s.timezone!r}")
            for field, key in _SETTING_IDS.items():
                value = getattr(s, field)
                if value is not None:
                    store.delete(SETTINGS.name, {"principal": p.id, "id": key})
                    store.insert(SETTINGS.name, {"principal": p.id, "id": key, "value": _setting_text(value)})
        for p in sorted(world.directory.principals.values(), key=lambda x: x.id):
            cal = core.get_calendar(world, p.email)
            assert cal is not None
            core.materialize(world, cal)
        for i, c in enumerate(data.calendars):
            owner = self._owner(world, c.owner, f"calendars[{i}].owner")
            if c.time_zone is not None and not valid_zone(c.time_zone):
                raise ValueError(f"calendars[{i}].time_zone: unknown time zone {c.time_zone!r}")
            primary_of = core.principal_by_email(world, c.id) if c.id else None
            if primary_of is not None:
                if primary_of.id != owner.id:
                    raise ValueError(f"calendars[{i}].id: {c.id} is the primary calendar of {primary_of.id}, not {owner.id}")
                changes: dict[str, Any] = {"description": c.description, "location": c.location}
                if c.summary:
                    changes["summary"] = c.summary
                if c.time_zone:
                    changes["time_zone"] = c.time_zone
                store.update(CALENDARS.name, {"id": owner.email}, changes)
                if c.hidden or c.color_id:
                    core.add_list_entry(world, owner.id, owner.email, hidden=c.hidden, color_id=c.color_id)
                continue
            if not c.summary:
                raise ValueError(f"calendars[{i}].summary: a secondary calendar needs a summary")
            cal_id = c.id or f"c_{world.ids.next('calendar.calendar', 32)}@group.calendar.google.com"
            if store.get(CALENDARS.name, {"id": cal_id}) is not None:
                raise ValueError(f"calendars[{i}].id: duplicate calendar {cal_id!r}")
            tz = c.time_zone or core.settings_of(world, owner.id)["timezone"]
            store.insert(CALENDARS.name, {"id": cal_id, "owner": owner.id, "summary": c.summary, "description": c.description,
                                          "location": c.location, "time_zone": tz, "is_primary": False, "updated_ms": now})  # fmt: skip
            core.add_list_entry(world, owner.id, cal_id, hidden=c.hidden, color_id=c.color_id)
        for i, a in enumerate(data.acl):
            cal = self._calendar(world, a.calendar, f"acl[{i}].calendar")
            if (a.scope_type == "default") != (a.scope_value is None):
                raise ValueError(f"acl[{i}].scope_value: required unless scope_type is default (and then omitted)")
            rule_id = "default" if a.scope_type == "default" else f"{a.scope_type}:{a.scope_value.lower()}"  # type: ignore[union-attr]
            store.delete(ACL.name, {"calendar_id": cal["id"], "rule_id": rule_id})
            store.insert(ACL.name, {"calendar_id": cal["id"], "rule_id": rule_id, "role": a.role, "scope_type": a.scope_type,
                                    "scope_value": a.scope_value, "updated_ms": now})  # fmt: skip
            grantee = core.principal_by_email(world, a.scope_value) if a.scope_type == "user" else None
            if grantee is not None and a.role != "none":
                core.add_list_entry(world, grantee.id, cal["id"])
        for i, e in enumerate(data.events):
            self._seed_event(world, e, f"events[{i}]", i, len(data.events))

    def _seed_event(self, world: World, e: EventFixture, where: str, index: int = 0, total: int = 1,
                    description: str | None = None) -> dict[str, Any]:  # fmt: skip
        cal = self._calendar(world, e.calendar, f"{where}.calendar")
        owner = world.directory.principal(cal["owner"])
        ctx = ServiceContext(world=world, principal=owner)
        if e.time_zone is not None and not valid_zone(e.time_zone):
            raise ValueError(f"{where}.time_zone: unknown time zone {e.time_zone!r}")
        tz_name = e.time_zone or cal["time_zone"]
        try:
            start, end = parse_loose(e.start, tz_name), parse_loose(e.end, tz_name)
        except ValueError as exc:
            raise ValueError(f"{where}.start/end: {exc}") from None
        created = to_ms(parse_time(e.created)) if e.created else world.clock.now_ms() - (total - index) * 3_600_000
        attendees = []
        for a in e.attendees:
            if isinstance(a, str):
                attendees.append({"email": a})
            else:
                d: dict[str, Any] = {"email": a.email, "responseStatus": a.response_status}
                if a.display_name:
                    d["displayName"] = a.display_name
                if a.optional:
                    d["optional"] = True
                if a.comment:
                    d["comment"] = a.comment
                attendees.append(d)
        inp: dict[str, Any] = {
            "summary": e.summary, "description": e.description if description is None else description,
            "location": e.location, "start": start.stored(), "end": end.stored(), "status": e.status,
            "visibility": e.visibility, "transparency": e.transparency, "attendees": attendees,
        }  # fmt: skip
        if e.recurrence:
            inp["recurrence"] = list(e.recurrence)
        if e.color_id:
            inp["colorId"] = e.color_id
        for field, key in (("guests_can_modify", "guestsCanModify"), ("guests_can_see_other_guests", "guestsCanSeeOtherGuests"),
                           ("guests_can_invite_others", "guestsCanInviteOthers")):  # fmt: skip
            if getattr(e, field) is not None:
                inp[key] = getattr(e, field)
        prev = None
        event_id = e.id
        if e.recurring_event_id:
            if not e.original_start:
                raise ValueError(f"{where}.original_start: an exception (recurring_event_id) needs original_start")
            original = parse_loose(e.original_start, tz_name)
            prev = {"recurring_event_id": e.recurring_event_id, "original_start": original.stored(), "attendees": [],
                    "sequence": 0, "created_ms": created}  # fmt: skip
            event_id = event_id or f"{e.recurring_event_id}_{rec.instance_key(original)}"
        event_id = event_id or world.ids.next("calendar.event", 26)
        if world.store.get(EVENTS.name, {"calendar_id": cal["id"], "id": event_id}) is not None:
            raise ValueError(f"{where}.id: duplicate event {event_id!r} on {cal['id']}")
        organizer_email = e.organizer or cal["id"]
        organizer_p = core.principal_by_email(world, organizer_email)
        organizer = {"email": organizer_email}
        if organizer_email == cal["id"]:
            organizer["displayName"] = core.calendar_display_name(world, cal)
        elif organizer_p is not None:
            organizer["displayName"] = organizer_p.name
        creator_email = e.creator or organizer_email
        creator_p = core.principal_by_email(world, creator_email)
        creator = {"email": creator_email, **({"displayName": creator_p.name} if creator_p else {})}
        try:
            row = core.build_row(ctx, cal, inp, prev=prev, event_id=event_id, organizer=organizer, creator=creator,
                                 ical_uid=f"{e.recurring_event_id or event_id}@google.com")  # fmt: skip
        except Exception as exc:  # ServiceError: the API's own complaint about these fields
            raise ValueError(f"{where}: {getattr(exc, 'message', exc)}") from None
        row["created_ms"] = row["updated_ms"] = created
        core.save(world, row)
        if core.is_organizer_copy(row):
            core.propagate(ctx, row, None, "none", "insert", core.cal_tz(cal), deliver=False)
            world.store.update(EVENTS.name, {"id": event_id}, {"updated_ms": created})
        return row

    # ---- attack material -----------------------------------------------------------------------
    def place(self, world: World, attack: AttackSpec, placement: EventEdit | NewEvent) -> None:
        """calendar_event: the payload becomes (part of) an event description: of an existing event
        (every copy of it), or of a new one (see `EventEdit` and `NewEvent`)."""
        p = placement
        if isinstance(p, EventEdit):
            rows = world.store.select(EVENTS.name, {"id": p.event})
            if p.calendar is not None:
                cal = self._calendar(world, p.calendar, "placement.calendar")
                rows = [r for r in rows if r["calendar_id"] == cal["id"]]
            if not rows:
                raise ValueError(f"placement.event: no event {p.event!r} in the fixtures")
            for r in rows:
                text = attack.payload if p.mode == "replace" or not r["description"] else f"{r['description']}\n\n{attack.payload}"
                world.store.update(EVENTS.name, {"calendar_id": r["calendar_id"], "id": r["id"]}, {"description": text})
            return
        cal = self._calendar(world, p.calendar, "placement.calendar")
        start = p.start or (world.clock.now() + timedelta(days=1)).replace(minute=0, second=0, microsecond=0).isoformat()
        if p.end:
            end = p.end
        else:
            first = parse_loose(start, p.time_zone or cal["time_zone"])
            end = (first.day + timedelta(days=1)).isoformat() if first.all_day else (first.instant + timedelta(hours=1)).isoformat()  # type: ignore[operator]
        organizer = p.organizer or cal["id"]
        attendees = p.attendees
        if attendees is None:
            attendees = [organizer, cal["id"]] if organizer != cal["id"] else []
        fixture = EventFixture(
            id=p.id, calendar=p.calendar, summary=p.summary, start=start, end=end,
            time_zone=p.time_zone, organizer=organizer, attendees=attendees, location=p.location,
        )  # fmt: skip
        row = self._seed_event(world, fixture, "placement", description=attack.payload)
        at = world.clock.now_ms() - 1_800_000  # arrived half an hour before the episode starts
        world.store.update(EVENTS.name, {"id": row["id"]}, {"created_ms": at, "updated_ms": at})

register_service(CalendarService())
