"""Request bodies, with the API's own camelCase field names (read-only fields are accepted and ignored)."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict
from pydantic.json_schema import SkipJsonSchema

# Fields clients echo back from a GET (read-only) or rarely set: accepted on the wire, left out of agents' schemas.
Quiet = SkipJsonSchema


class _Body(BaseModel):
    model_config = ConfigDict(extra="forbid")

    def given(self) -> dict[str, Any]:
        """The fields the caller sent (explicit nulls included), nested models as dicts."""
        return self.model_dump(exclude_unset=True)


class EventDateTime(_Body):
    """`{"dateTime": "2026-03-05T10:00:00-05:00", "timeZone": "America/New_York"}` or `{"date": "2026-03-05"}`."""

    date: str | None = None
    dateTime: str | None = None
    timeZone: str | None = None


class Attendee(_Body):
    """An attendee: `email` is required; `responseStatus` is needsAction, declined, tentative or accepted."""

    email: str | None = None
    displayName: str | None = None
    optional: bool | None = None
    responseStatus: Literal["needsAction", "declined", "tentative", "accepted"] | None = None
    comment: str | None = None
    additionalGuests: int | None = None
    resource: Quiet[bool | None] = None
    organizer: Quiet[bool | None] = None
    self: Quiet[bool | None] = None
    id: Quiet[str | None] = None
    asyncOperation: Quiet[str | None] = None


class Person(_Body):
    email: str | None = None
    displayName: str | None = None
    id: str | None = None
    self: bool | None = None


class Reminder(_Body):
    method: Literal["email", "popup"]
    minutes: int


class Reminders(_Body):
    useDefault: bool | None = None
    overrides: list[Reminder] | None = None


class ExtendedProperties(_Body):
    private: dict[str, str] | None = None
    shared: dict[str, str] | None = None


class Event(_Body):
    """A Calendar Event resource. Writable: summary, description, location, start, end, recurrence,
    attendees, colorId, visibility, transparency, reminders, status, extendedProperties, guestsCan*."""

    summary: str | None = None
    description: str | None = None
    location: str | None = None
    start: EventDateTime | None = None
    end: EventDateTime | None = None
    recurrence: list[str] | None = None
    attendees: list[Attendee] | None = None
    colorId: str | None = None
    status: Literal["confirmed", "tentative", "cancelled"] | None = None
    visibility: Literal["default", "public", "private", "confidential"] | None = None
    transparency: Literal["opaque", "transparent"] | None = None
    reminders: Reminders | None = None
    extendedProperties: ExtendedProperties | None = None
    guestsCanModify: bool | None = None
    guestsCanInviteOthers: bool | None = None
    guestsCanSeeOtherGuests: bool | None = None
    anyoneCanAddSelf: bool | None = None
    id: str | None = None
    iCalUID: str | None = None
    organizer: Person | None = None
    creator: Quiet[Person | None] = None
    sequence: Quiet[int | None] = None
    eventType: Quiet[str | None] = None
    source: Quiet[dict[str, Any] | None] = None
    attachments: Quiet[list[dict[str, Any]] | None] = None
    conferenceData: Quiet[dict[str, Any] | None] = None
    locked: Quiet[bool | None] = None
    gadget: Quiet[dict[str, Any] | None] = None
    endTimeUnspecified: Quiet[bool | None] = None
    privateCopy: Quiet[bool | None] = None
    focusTimeProperties: Quiet[dict[str, Any] | None] = None
    outOfOfficeProperties: Quiet[dict[str, Any] | None] = None
    workingLocationProperties: Quiet[dict[str, Any] | None] = None
    birthdayProperties: Quiet[dict[str, Any] | None] = None
    eventLabelId: Quiet[str | None] = None
    hangoutLink: Quiet[str | None] = None
    # read-only fields a client may echo back from a GET
    kind: Quiet[str | None] = None
    etag: Quiet[str | None] = None
    htmlLink: Quiet[str | None] = None
    created: Quiet[str | None] = None
    updated: Quiet[str | None] = None
    recurringEventId: Quiet[str | None] = None
    originalStartTime: Quiet[EventDateTime | None] = None
    attendeesOmitted: Quiet[bool | None] = None


class CalendarBody(_Body):
    """A Calendar resource: `summary` (required on insert), description, location, timeZone."""

    summary: str | None = None
    description: str | None = None
    location: str | None = None
    timeZone: str | None = None
    id: Quiet[str | None] = None
    kind: Quiet[str | None] = None
    etag: Quiet[str | None] = None
    dataOwner: Quiet[str | None] = None
    conferenceProperties: Quiet[dict[str, Any] | None] = None
    autoAcceptInvitations: Quiet[bool | None] = None
    workingHours: Quiet[dict[str, Any] | None] = None
    labelProperties: Quiet[dict[str, Any] | None] = None


class Notification(_Body):
    method: str
    type: str


class NotificationSettings(_Body):
    notifications: list[Notification] | None = None


class CalendarListEntryBody(_Body):
    """A calendar list entry: your own view of a calendar (colors, hidden, summaryOverride, reminders)."""

    id: str | None = None
    summaryOverride: str | None = None
    colorId: str | None = None
    backgroundColor: str | None = None
    foregroundColor: str | None = None
    hidden: bool | None = None
    selected: bool | None = None
    defaultReminders: list[Reminder] | None = None
    notificationSettings: Quiet[NotificationSettings | None] = None
    # read-only fields a client may echo back
    kind: Quiet[str | None] = None
    etag: Quiet[str | None] = None
    summary: Quiet[str | None] = None
    description: Quiet[str | None] = None
    location: Quiet[str | None] = None
    timeZone: Quiet[str | None] = None
    accessRole: Quiet[str | None] = None
    primary: Quiet[bool | None] = None
    deleted: Quiet[bool | None] = None
    dataOwner: Quiet[str | None] = None
    conferenceProperties: Quiet[dict[str, Any] | None] = None
    autoAcceptInvitations: Quiet[bool | None] = None


class AclScope(_Body):
    type: Literal["default", "user", "group", "domain"]
    value: str | None = None


class AclRuleBody(_Body):
    """A sharing rule: `role` (none, freeBusyReader, reader, writer, owner) and `scope` {type, value}."""

    role: Literal["none", "freeBusyReader", "reader", "writer", "owner"] | None = None
    scope: AclScope | None = None
    id: Quiet[str | None] = None
    kind: Quiet[str | None] = None
    etag: Quiet[str | None] = None


class FreeBusyItem(_Body):
    id: str


class FreeBusyRequest(_Body):
    """`timeMin`, `timeMax` (RFC 3339 with offset), `items`: [{"id": calendar id}], optional `timeZone`."""

    timeMin: str
    timeMax: str
    items: list[FreeBusyItem] = []
    timeZone: str | None = None
    groupExpansionMax: int | None = None
    calendarExpansionMax: int | None = None


class Channel(_Body):
    """A notification channel: `id`, `type` ("web_hook"), `address` (https URL), optional `token`, `expiration`."""

    id: str | None = None
    type: str | None = None
    address: str | None = None
    token: str | None = None
    expiration: str | None = None
    params: Quiet[dict[str, str] | None] = None
    payload: Quiet[bool | None] = None
    resourceId: str | None = None
    resourceUri: Quiet[str | None] = None
    kind: Quiet[str | None] = None
