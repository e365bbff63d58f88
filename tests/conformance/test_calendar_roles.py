"""Calendar conformance: what each ACL role may do (freeBusyReader < reader < writer < owner), method by method.

Every write method is tried by alice with the role just below the one it needs (refused: nothing changes and
the ledger records a refusal) and with exactly that role (allowed). No role at all hides the calendar (404).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest
from googleapiclient.errors import HttpError

ALICE, BOB, CAROL = "alice@northwind.example", "bob@northwind.example", "carol@northwind.example"
TEAM = "bobteam@group.calendar.google.com"
ROLES = ("none", "freeBusyReader", "reader", "writer", "owner")
EVENT = {"summary": "x", "start": {"dateTime": "2026-03-05T10:00:00Z"}, "end": {"dateTime": "2026-03-05T11:00:00Z"}}
HOOK = {"type": "web_hook", "address": "https://h.example/x"}


def world(role: str) -> dict[str, Any]:
    acl = [] if role == "none" else [{"calendar": c, "role": role, "scope_value": ALICE} for c in ("bob", TEAM)]
    return {"calendar": {
        "calendars": [{"id": TEAM, "owner": "bob", "summary": "Bob's team"}],
        "acl": acl + [{"calendar": "bob", "role": "reader", "scope_value": CAROL}],
        "events": [
            {"id": "bobevent01", "calendar": "bob", "summary": "Interview", "start": "2026-03-03T10:00:00Z", "end": "2026-03-03T11:00:00Z"},
            {"id": "aliceev001", "calendar": "alice", "summary": "Focus", "start": "2026-03-03T12:00:00Z", "end": "2026-03-03T13:00:00Z"},
        ],
    }}  # fmt: skip


@dataclass(frozen=True)
class Rule:
    method: str
    call: Callable[[Any], Any]  # alice's calendar client -> the executed request
    needs: str  # the lowest ACL role that may do it


RULES = [
    Rule("events.list", lambda c: c.events().list(calendarId=BOB).execute(), "freeBusyReader"),
    Rule("events.get", lambda c: c.events().get(calendarId=BOB, eventId="bobevent01").execute(), "freeBusyReader"),
    Rule("calendarList.insert", lambda c: c.calendarList().insert(body={"id": TEAM}).execute(), "freeBusyReader"),
    Rule("events.watch", lambda c: c.events().watch(calendarId=BOB, body={"id": "w1", **HOOK}).execute(), "reader"),
    Rule("events.insert", lambda c: c.events().insert(calendarId=BOB, body=EVENT).execute(), "writer"),
    Rule("events.update", lambda c: c.events().update(calendarId=BOB, eventId="bobevent01", body=EVENT).execute(), "writer"),
    Rule("events.patch", lambda c: c.events().patch(calendarId=BOB, eventId="bobevent01", body={"summary": "y"}).execute(), "writer"),
    Rule("events.delete", lambda c: c.events().delete(calendarId=BOB, eventId="bobevent01").execute(), "writer"),
    Rule("events.quickAdd", lambda c: c.events().quickAdd(calendarId=BOB, text="Lunch tomorrow at noon").execute(), "writer"),
    Rule("events.import", lambda c: c.events().import_(calendarId=BOB, body={**EVENT, "iCalUID": "i1@example.com"}).execute(), "writer"),
    Rule("events.move(from theirs)", lambda c: c.events().move(calendarId=BOB, eventId="bobevent01", destination=ALICE).execute(), "writer"),
    Rule("events.move(to theirs)", lambda c: c.events().move(calendarId="primary", eventId="aliceev001", destination=BOB).execute(), "writer"),
    Rule("calendars.update", lambda c: c.calendars().update(calendarId=TEAM, body={"summary": "Mine"}).execute(), "owner"),
    Rule("calendars.patch", lambda c: c.calendars().patch(calendarId=TEAM, body={"description": "d"}).execute(), "owner"),
    Rule("calendars.clear", lambda c: c.calendars().clear(calendarId=BOB).execute(), "owner"),
    Rule("acl.list", lambda c: c.acl().list(calendarId=BOB).execute(), "owner"),
    Rule("acl.get", lambda c: c.acl().get(calendarId=BOB, ruleId=f"user:{CAROL}").execute(), "owner"),
    Rule("acl.insert", lambda c: c.acl().insert(calendarId=BOB, body={"role": "reader", "scope": {"type": "default"}}).execute(), "owner"),
    Rule("acl.update", lambda c: c.acl().update(calendarId=BOB, ruleId=f"user:{CAROL}",
                                                 body={"role": "writer", "scope": {"type": "user", "value": CAROL}}).execute(), "owner"),
    Rule("acl.patch", lambda c: c.acl().patch(calendarId=BOB, ruleId=f"user:{CAROL}", body={"role": "writer"}).execute(), "owner"),
    Rule("acl.delete", lambda c: c.acl().delete(calendarId=BOB, ruleId=f"user:{CAROL}").execute(), "owner"),
    Rule("acl.watch", lambda c: c.acl().watch(calendarId=BOB, body={"id": "w2", **HOOK}).execute(), "owner"),
]


def _below(role: str) -> str:
    return ROLES[ROLES.index(role) - 1]


@pytest.mark.parametrize("rule", RULES, ids=lambda r: r.method)
def test_the_role_below_is_refused(served, rule):
    role = _below(rule.needs)
    w = served.start(world(role))
    before, refused = w.state_hash(), len(w.ledger.of_kind("refused"))
    with pytest.raises(HttpError) as exc:
        rule.call(served.google("calendar"))
    if role == "none":
        assert exc.value.status_code == 404 and exc.value.error_details[0]["reason"] == "notFound"
    else:
        assert exc.value.status_code == 403 and exc.value.error_details[0]["reason"] == "requiredAccessLevel"
        assert f"You need to have {rule.needs} access to this calendar." in str(exc.value)
    assert w.state_hash() == before and len(w.ledger.of_kind("refused")) == refused + 1


@pytest.mark.parametrize("rule", RULES, ids=lambda r: r.method)
def test_the_role_needed_is_allowed(served, rule):
    served.start(world(rule.needs))
    rule.call(served.google("calendar"))


def test_only_the_data_owner_deletes_a_calendar(served):
    w = served.start(world("owner"))  # alice has the owner role on bob's team calendar, bob is its data owner
    with pytest.raises(HttpError) as exc:
        served.google("calendar").calendars().delete(calendarId=TEAM).execute()
    assert exc.value.status_code == 403 and w.store.get("calendar_calendars", {"id": TEAM}) is not None
    assert w.ledger.of_kind("refused")[-1].payload["tool"] == "calendar_calendars_delete"
    served.google("calendar", "bob").calendars().delete(calendarId=TEAM).execute()
    assert w.store.get("calendar_calendars", {"id": TEAM}) is None


def test_a_primary_calendar_is_never_deleted_even_by_its_owner(served):
    w = served.start(world("owner"))
    for who, cal in (("bob", "primary"), ("alice", BOB)):
        with pytest.raises(HttpError) as exc:
            served.google("calendar", who).calendars().delete(calendarId=cal).execute()
        assert exc.value.status_code == 400 and exc.value.error_details[0]["reason"] == "cannotDeletePrimaryCalendar"
    assert w.store.select("calendar_events", {"calendar_id": BOB})


def test_a_guest_with_writer_access_may_edit_the_organizers_copy_but_not_through_their_own(served):
    fixtures = world("writer")
    fixtures["calendar"]["events"].append({"id": "bobmeet001", "calendar": "bob", "summary": "Review", "attendees": [ALICE],
                                           "start": "2026-03-04T10:00:00Z", "end": "2026-03-04T11:00:00Z"})  # fmt: skip
    w = served.start(fixtures)
    api = served.google("calendar")
    with pytest.raises(HttpError) as exc:
        api.events().patch(calendarId="primary", eventId="bobmeet001", body={"summary": "Mine"}).execute()
    assert exc.value.error_details[0]["reason"] == "forbiddenForNonOrganizer"
    api.events().patch(calendarId=BOB, eventId="bobmeet001", body={"summary": "Renamed"}).execute()  # writer on bob's calendar
    assert w.store.get("calendar_events", {"calendar_id": ALICE, "id": "bobmeet001"})["summary"] == "Renamed"
