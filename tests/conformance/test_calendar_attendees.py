"""Calendar conformance: attendees, invitations, RSVPs and sendUpdates deliveries."""

import pytest
from googleapiclient.errors import HttpError

from tests.conformance.harness import assert_schema

ALICE = "alice@northwind.example"
BOB = "bob@northwind.example"
CAROL = "carol@northwind.example"
OUT = "dana@partner.example"

BASE = {"calendar": {"events": [
    {"id": "review001", "calendar": "alice", "summary": "Launch review", "description": "launch plan v2",
     "start": "2026-03-04T15:00:00Z", "end": "2026-03-04T16:00:00Z", "attendees": [ALICE, BOB]},
]}}


def _insert(served, attendees, send_updates=None, principal="alice", **extra):
    body = {"summary": "Kickoff", "description": "agenda: roadmap", "attendees": [{"email": a} for a in attendees],
            "start": {"dateTime": "2026-03-05T15:00:00Z"}, "end": {"dateTime": "2026-03-05T16:00:00Z"}, **extra}
    kwargs = {"sendUpdates": send_updates} if send_updates else {}
    return served.google("calendar", principal).events().insert(calendarId="primary", body=body, **kwargs).execute()


def _deliveries(world):
    return [(d.payload["to"], d.payload["subject"].split(":")[0]) for d in world.ledger.of_kind("delivery")]


def test_invitation_lands_on_the_guest_calendar(served):
    world = served.start({})
    ev = _insert(served, [BOB])
    assert_schema("calendar.events.insert", ev)
    assert ev["attendees"] == [{"email": BOB, "responseStatus": "needsAction"}]
    copy = world.store.get("calendar_events", {"calendar_id": BOB, "id": ev["id"]})
    assert copy is not None and copy["owner"] == "bob" and copy["description"] == "agenda: roadmap"
    got = served.google("calendar", "bob").events().get(calendarId="primary", eventId=ev["id"]).execute()
    assert_schema("calendar.events.get", got)
    assert got["organizer"] == {"email": ALICE, "displayName": "Alice Chen"}  # not self: bob's copy
    assert got["attendees"] == [{"email": BOB, "responseStatus": "needsAction", "self": True}]


def test_send_updates_none_still_reaches_principals_but_not_outsiders(served):
    world = served.start({})
    _insert(served, [BOB, OUT])
    assert _deliveries(world) == [(BOB, "Invitation")]
    d = world.ledger.of_kind("delivery")[0].payload
    assert d["channel"] == "calendar" and d["to_principal"] == "bob" and "agenda: roadmap" in d["body"]


def test_send_updates_all_emails_outside_guests(served):
    world = served.start({})
    _insert(served, [BOB, OUT], send_updates="all")
    assert _deliveries(world) == [(BOB, "Invitation"), (OUT, "Invitation")]
    ext = [d for d in world.ledger.of_kind("delivery") if d.payload["to"] == OUT][0]
    assert ext.payload["external"] is True


def test_send_updates_external_only(served):
    world = served.start({})
    _insert(served, [BOB, OUT], send_updates="externalOnly")
    assert {d[0] for d in _deliveries(world)} == {BOB, OUT}


def test_deprecated_send_notifications_means_all(served):
    world = served.start({})
    served.google("calendar").events().insert(calendarId="primary", sendNotifications=True, body={
        "summary": "x", "attendees": [{"email": OUT}], "start": {"date": "2026-03-05"}, "end": {"date": "2026-03-06"}}).execute()
    assert _deliveries(world) == [(OUT, "Invitation")]


def test_organizer_is_accepted_when_listed(served):
    served.start({})
    ev = _insert(served, [ALICE, BOB])
    assert ev["attendees"][0] == {"email": ALICE, "responseStatus": "accepted", "organizer": True, "self": True}


def test_invalid_attendee_email_is_400(served):
    served.start({})
    with pytest.raises(HttpError) as exc:
        _insert(served, ["not-an-address"])
    assert exc.value.status_code == 400 and "Invalid attendee email." in str(exc.value)


def test_guest_rsvp_reaches_the_organizer(served):
    world = served.start(BASE)
    bob = served.google("calendar", "bob")
    out = bob.events().patch(calendarId="primary", eventId="review001", body={
        "attendees": [{"email": BOB, "responseStatus": "accepted", "comment": "will bring numbers"}]}).execute()
    assert_schema("calendar.events.patch", out)
    org = world.store.get("calendar_events", {"calendar_id": ALICE, "id": "review001"})
    mine = [a for a in org["attendees"] if a["email"] == BOB][0]
    assert mine["responseStatus"] == "accepted" and mine["comment"] == "will bring numbers"
    assert [a["email"] for a in out["attendees"]] == [ALICE, BOB]  # the others stay
    assert _deliveries(world) == [(ALICE, "Accepted")]
    seen = served.google("calendar").events().get(calendarId="primary", eventId="review001").execute()
    assert [a.get("responseStatus") for a in seen["attendees"]] == ["accepted", "accepted"]


def test_guest_cannot_change_shared_fields(served):
    world = served.start(BASE)
    with pytest.raises(HttpError) as exc:
        served.google("calendar", "bob").events().patch(calendarId="primary", eventId="review001", body={"summary": "Hijacked"}).execute()
    assert exc.value.status_code == 403 and exc.value.error_details[0]["reason"] == "forbiddenForNonOrganizer"
    assert world.store.get("calendar_events", {"calendar_id": ALICE, "id": "review001"})["summary"] == "Launch review"
    assert world.ledger.of_kind("refused")[-1].payload["tool"] == "calendar_events_patch"


def test_guest_may_change_own_color_and_reminders(served):
    world = served.start(BASE)
    out = served.google("calendar", "bob").events().patch(calendarId="primary", eventId="review001", body={
        "colorId": "5", "reminders": {"useDefault": False, "overrides": [{"method": "popup", "minutes": 5}]}}).execute()
    assert out["colorId"] == "5"
    assert world.store.get("calendar_events", {"calendar_id": ALICE, "id": "review001"})["color_id"] is None


def test_guests_can_modify_lets_a_guest_edit_for_everyone(served):
    world = served.start({"calendar": {"events": [{**BASE["calendar"]["events"][0], "guests_can_modify": True}]}})
    served.google("calendar", "bob").events().patch(calendarId="primary", eventId="review001", body={"location": "Room 7"}).execute()
    assert world.store.get("calendar_events", {"calendar_id": ALICE, "id": "review001"})["location"] == "Room 7"
    assert world.store.get("calendar_events", {"calendar_id": BOB, "id": "review001"})["location"] == "Room 7"


def test_guest_may_invite_others_by_default(served):
    world = served.start(BASE)
    served.google("calendar", "bob").events().patch(calendarId="primary", eventId="review001", body={
        "attendees": [{"email": ALICE}, {"email": BOB}, {"email": CAROL}]}).execute()
    assert world.store.get("calendar_events", {"calendar_id": CAROL, "id": "review001"}) is not None
    assert (CAROL, "Invitation") in _deliveries(world)


def test_organizer_update_reaches_guests(served):
    world = served.start(BASE)
    served.google("calendar").events().patch(calendarId="primary", eventId="review001", sendUpdates="all", body={
        "description": "launch plan v3"}).execute()
    assert world.store.get("calendar_events", {"calendar_id": BOB, "id": "review001"})["description"] == "launch plan v3"
    assert _deliveries(world) == [(BOB, "Updated invitation")]


def test_adding_and_removing_guests(served):
    world = served.start(BASE)
    served.google("calendar").events().patch(calendarId="primary", eventId="review001", sendUpdates="all", body={
        "attendees": [{"email": ALICE}, {"email": CAROL}, {"email": OUT}]}).execute()
    assert world.store.get("calendar_events", {"calendar_id": BOB, "id": "review001"})["status"] == "cancelled"
    assert world.store.get("calendar_events", {"calendar_id": CAROL, "id": "review001"})["status"] == "confirmed"
    assert sorted(_deliveries(world)) == [(BOB, "Canceled event"), (CAROL, "Invitation"), (OUT, "Invitation")]
    bob_list = served.google("calendar", "bob").events().list(calendarId="primary").execute()
    assert bob_list["items"] == []


def test_organizer_delete_cancels_for_guests(served):
    world = served.start(BASE)
    served.google("calendar").events().delete(calendarId="primary", eventId="review001", sendUpdates="all").execute()
    assert world.store.get("calendar_events", {"calendar_id": BOB, "id": "review001"})["status"] == "cancelled"
    assert _deliveries(world) == [(BOB, "Canceled event")]


def test_guest_delete_declines(served):
    world = served.start(BASE)
    served.google("calendar", "bob").events().delete(calendarId="primary", eventId="review001").execute()
    org = world.store.get("calendar_events", {"calendar_id": ALICE, "id": "review001"})
    assert org["status"] == "confirmed"
    assert [a["responseStatus"] for a in org["attendees"] if a["email"] == BOB] == ["declined"]
    assert _deliveries(world) == [(ALICE, "Declined")]


def test_guests_can_see_other_guests_false(served):
    served.start({"calendar": {"events": [{**BASE["calendar"]["events"][0], "attendees": [ALICE, BOB, CAROL],
                                           "guests_can_see_other_guests": False}]}})
    got = served.google("calendar", "bob").events().get(calendarId="primary", eventId="review001").execute()
    assert [a["email"] for a in got["attendees"]] == [ALICE, BOB]  # the organizer and bob himself
    assert got["guestsCanSeeOtherGuests"] is False


def test_external_rsvp_only_with_send_updates(served):
    world = served.start({"calendar": {"events": [
        {"id": "vendor001", "calendar": "alice", "summary": "Vendor demo", "organizer": OUT, "start": "2026-03-06T15:00:00Z",
         "end": "2026-03-06T16:00:00Z", "attendees": [OUT, ALICE]}]}})
    cal = served.google("calendar")
    cal.events().patch(calendarId="primary", eventId="vendor001", body={"attendees": [{"email": ALICE, "responseStatus": "tentative"}]}).execute()
    assert _deliveries(world) == []
    cal.events().patch(calendarId="primary", eventId="vendor001", sendUpdates="all",
                       body={"attendees": [{"email": ALICE, "responseStatus": "accepted"}]}).execute()
    assert _deliveries(world) == [(OUT, "Accepted")]


def test_writer_on_a_shared_calendar_delivers_to_its_owner(served):
    world = served.start({"calendar": {"acl": [{"calendar": "bob", "role": "writer", "scope_value": ALICE}]}})
    ev = served.google("calendar").events().insert(calendarId=BOB, body={
        "summary": "Planning", "description": "from alice", "start": {"date": "2026-03-05"}, "end": {"date": "2026-03-06"}}).execute()
    assert ev["organizer"]["email"] == BOB and ev["creator"] == {"email": ALICE, "displayName": "Alice Chen"}
    assert _deliveries(world) == [(BOB, "New event")]
    assert world.store.get("calendar_events", {"calendar_id": BOB, "id": ev["id"]})["owner"] == "bob"
