"""Calendar's tables and fixture format.

Ownership: a calendar has one data owner (a principal); events live on a
calendar (`calendar_id`) and carry the calendar owner's id in `owner`; the
ACL table says who else may see or change a calendar. A principal's primary
calendar has their email as id and exists even when no row was seeded (it is
materialized on first write).
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from clawarena.spec.base import Strict
from clawarena.spec.refs import PrincipalId, PrincipalRef
from clawarena.world.store import Column, TableSpec

CALENDARS = TableSpec(
    name="calendar_calendars",
    columns=(
        Column("id", nullable=False),
        Column("owner", nullable=False),  # principal id of the data owner
        Column("summary", nullable=False),
        Column("description", nullable=False),
        Column("location", nullable=False),
        Column("time_zone", nullable=False),
        Column("is_primary", "bool", nullable=False),
        Column("updated_ms", "integer", nullable=False),
    ),
)

CALENDAR_LIST = TableSpec(
    name="calendar_list_entries",
    columns=(
        Column("principal", nullable=False),
        Column("calendar_id", nullable=False),
        Column("summary_override"),
        Column("color_id", nullable=False),
        Column("background_color", nullable=False),
        Column("foreground_color", nullable=False),
        Column("hidden", "bool", nullable=False),
        Column("selected", "bool", nullable=False),
        Column("default_reminders", "json", nullable=False),
        Column("notifications", "json", nullable=False),
        Column("updated_ms", "integer", nullable=False),
    ),
    primary_key=("principal", "calendar_id"),
)

ACL = TableSpec(
    name="calendar_acl",
    columns=(
        Column("calendar_id", nullable=False),
        Column("rule_id", nullable=False),  # user:<email>, group:<email>, domain:<domain>, default
        Column("role", nullable=False),  # none, freeBusyReader, reader, writer, owner
        Column("scope_type", nullable=False),
        Column("scope_value"),
        Column("updated_ms", "integer", nullable=False),
    ),
    primary_key=("calendar_id", "rule_id"),
)

EVENTS = TableSpec(
    name="calendar_events",
    columns=(
        Column("calendar_id", nullable=False),
        Column("id", nullable=False),
        Column("owner", nullable=False),  # principal id owning the calendar this copy is on
        Column("ical_uid", nullable=False),
        Column("status", nullable=False),  # confirmed, tentative, cancelled
        Column("summary", nullable=False),
        Column("description", nullable=False),
        Column("location", nullable=False),
        Column("start", "json", nullable=False),  # {"date"} or {"dateTime" (UTC), "timeZone"?}
        Column("end", "json", nullable=False),
        Column("start_ms", "integer", nullable=False),  # instant, all-day taken in the calendar's zone
        Column("end_ms", "integer", nullable=False),
        Column("recurrence", "json"),  # RRULE/EXRULE/RDATE/EXDATE lines, masters only
        Column("recurring_event_id"),  # exceptions of a recurring series
        Column("original_start", "json"),
        Column("organizer", "json", nullable=False),  # {"email", "displayName"?}
        Column("creator", "json", nullable=False),
        Column("attendees", "json", nullable=False),  # EventAttendee dicts
        Column("visibility", nullable=False),
        Column("transparency", nullable=False),
        Column("color_id"),
        Column("reminders", "json"),
        Column("extended_properties", "json"),
        Column("extra", "json", nullable=False),  # other Event fields, passed through
        Column("event_type", nullable=False),
        Column("sequence", "integer", nullable=False),
        Column("created_ms", "integer", nullable=False),
        Column("updated_ms", "integer", nullable=False),
    ),
    primary_key=("calendar_id", "id"),
    indexes=(("calendar_id", "start_ms"), ("owner",), ("id",)),
)

SETTINGS = TableSpec(
    name="calendar_settings",
    columns=(Column("principal", nullable=False), Column("id", nullable=False), Column("value", nullable=False)),
    primary_key=("principal", "id"),
)

CHANNELS = TableSpec(
    name="calendar_channels",
    columns=(
        Column("id", nullable=False),
        Column("owner", nullable=False),
        Column("resource_id", nullable=False),
        Column("resource_uri", nullable=False),
        Column("type", nullable=False),
        Column("address", nullable=False),
        Column("token"),
        Column("expiration_ms", "integer", nullable=False),
        Column("params", "json"),
    ),
    primary_key=("owner", "id"),  # channel ids are the client's own: one principal's never collides with another's
)

# Google Workspace administrators with the Manage Calendars privilege (the only callers of calendars.transferOwnership).
ADMINS = TableSpec(name="calendar_admins", columns=(Column("principal", nullable=False),), primary_key=("principal",))

TABLES = (CALENDARS, CALENDAR_LIST, ACL, EVENTS, SETTINGS, CHANNELS, ADMINS)

Role = Literal["none", "freeBusyReader", "reader", "writer", "owner"]
# A calendar named by a principal id (their primary) or a calendar id (an address, or a fixture calendar's id).
CalendarRef = Annotated[str, PrincipalRef(address_ok=True, declared_in="calendars.id")]


class CalendarFixture(Strict):
    """A secondary calendar (primary calendars exist for every principal; configure them here too).

    Fields:
        id: calendar id; default `c_<hex>@group.calendar.google.com`. Use a principal's email to describe
            their primary calendar (its summary, description, time zone).
        owner: principal id of the calendar's data owner.
        summary: the calendar's title (default: the owner's email for a primary, else required).
        description, location: free text.
        time_zone: IANA zone, e.g. "Europe/Berlin"; default the owner's `timezone` setting, else UTC.
        hidden: hide it in the owner's calendar list.
        color_id: calendar color id "1".."24" in the owner's calendar list.
    """

    id: str | None = None
    owner: PrincipalId = Field(description="principal id of the data owner")
    summary: str | None = None
    description: str = ""
    location: str = ""
    time_zone: str | None = Field(default=None, description="IANA zone; default the owner's timezone setting")
    hidden: bool = False
    color_id: str | None = None


class AttendeeFixture(Strict):
    """An event attendee.

    Fields:
        email: the attendee's address (a principal's email makes the event appear on their primary calendar).
        display_name: shown name.
        response_status: needsAction (default), declined, tentative or accepted.
        optional: an optional attendee.
        comment: the attendee's response comment.
    """

    email: str
    display_name: str | None = None
    response_status: Literal["needsAction", "declined", "tentative", "accepted"] = "needsAction"
    optional: bool = False
    comment: str | None = None


class EventFixture(Strict):
    """An event on a calendar.

    Fields:
        id: event id (base32hex: lowercase a-v and digits, 5-1024 chars); default generated.
        calendar: a principal id (their primary calendar) or a calendar id.
        summary, description, location: the event's text.
        start, end: ISO "2026-03-05T10:00:00-05:00" / "2026-03-05T10:00:00" (then `time_zone` is needed),
            or a date "2026-03-05" for an all-day event (end date exclusive).
        time_zone: IANA zone of start and end (required for recurring timed events).
        recurrence: RRULE / EXDATE / RDATE lines, e.g. ["RRULE:FREQ=WEEKLY;BYDAY=MO;COUNT=10"].
        attendees: addresses or attendee objects; principals among them get a copy on their primary calendar.
        organizer: organizer email; default the calendar (its owner's email for a primary). An outside
            organizer makes this an invitation received from them.
        creator: creator email; default the organizer.
        status: confirmed, tentative or cancelled.
        visibility: default, public, private or confidential.
        transparency: opaque (busy, default) or transparent (free).
        color_id: event color "1".."11".
        recurring_event_id, original_start: make this row an exception of a recurring event
            (original_start is the instance's original start in the same form as `start`).
        guests_can_modify, guests_can_see_other_guests, guests_can_invite_others: guest permissions.
        created: ISO time the event was created/updated; default an hour before the world's now.
    """

    id: str | None = None
    calendar: CalendarRef = Field(description="principal id (primary calendar) or calendar id")
    summary: str = ""
    description: str = ""
    location: str = ""
    start: str
    end: str
    time_zone: str | None = None
    recurrence: list[str] = []
    attendees: list[str | AttendeeFixture] = []
    organizer: str | None = None
    creator: str | None = None
    status: Literal["confirmed", "tentative", "cancelled"] = "confirmed"
    visibility: Literal["default", "public", "private", "confidential"] = "default"
    transparency: Literal["opaque", "transparent"] = "opaque"
    color_id: str | None = None
    recurring_event_id: str | None = None
    original_start: str | None = None
    guests_can_modify: bool | None = None
    guests_can_see_other_guests: bool | None = None
    guests_can_invite_others: bool | None = None
    created: str | None = None


class AclFixture(Strict):
    """A sharing rule on a calendar.

    Fields:
        calendar: a principal id (their primary calendar) or a calendar id.
        role: none, freeBusyReader, reader, writer or owner.
        scope_type: user (default), group, domain or default (everyone).
        scope_value: the address (user, group) or domain; omitted for `default`.
    """

    calendar: CalendarRef
    role: Literal["none", "freeBusyReader", "reader", "writer", "owner"]
    scope_type: Literal["user", "group", "domain", "default"] = "user"
    scope_value: str | None = None


class SettingsFixture(Strict):
    """One principal's calendar settings (all optional; unset ones keep Google's defaults).

    Fields:
        owner: principal id.
        timezone: IANA zone of the principal (and of their primary calendar); default UTC.
        locale: e.g. "en", "de"; default "en".
        week_start: 0 Sunday, 1 Monday, 6 Saturday; default 0.
        format_24_hour_time: 24-hour clock; default false.
        date_field_order: MDY, DMY or YMD; default MDY.
        default_event_length: minutes; default 60 (also quickAdd's duration).
        hide_weekends, show_declined_events, hide_invitations: booleans.
    """

    owner: PrincipalId
    timezone: str | None = None
    locale: str | None = None
    week_start: Literal[0, 1, 6] | None = None
    format_24_hour_time: bool | None = None
    date_field_order: Literal["MDY", "DMY", "YMD"] | None = None
    default_event_length: int | None = Field(default=None, ge=1)
    hide_weekends: bool | None = None
    show_declined_events: bool | None = None
    hide_invitations: bool | None = None


class CalendarFixtures(Strict):
    """Seed data of the calendar service: calendars, events, sharing rules, settings and calendar administrators."""

    admins: list[PrincipalId] = Field(default=[], description="principal ids of Workspace administrators with the Manage Calendars "
                              "privilege: they alone may transfer a secondary calendar of their organisation")  # fmt: skip
    settings: list[SettingsFixture] = []
    calendars: list[CalendarFixture] = []
    acl: list[AclFixture] = []
    events: list[EventFixture] = []
