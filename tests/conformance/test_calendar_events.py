"""Calendar conformance: events CRUD, queries and errors through the official googleapiclient."""

import pytest
from googleapiclient.errors import HttpError

from tests.conformance.harness import assert_schema

ALICE = "alice@northwind.example"
BOB = "bob@northwind.example"

FIX = {
    "calendar": {
        "settings": [{"owner": "alice", "timezone": "America/New_York"}],
        "events": [
            {"id": "standup01", "calendar": "alice", "summary": "Standup", "description": "daily sync",
             "start": "2026-03-02T09:30:00", "end": "2026-03-02T09:45:00", "location": "Room 1"},
            {"id": "budget001", "calendar": "alice", "summary": "Budget review", "description": "Q3 numbers",
             "start": "2026-03-03T14:00:00", "end": "2026-03-03T15:00:00"},
            {"id": "offsite01", "calendar": "alice", "summary": "Offsite", "start": "2026-03-10", "end": "2026-03-12"},
            {"id": "bobprivate", "calendar": "bob", "summary": "Bob 1:1", "description": "secret",
             "start": "2026-03-02T10:00:00Z", "end": "2026-03-02T11:00:00Z"},
        ],
    }
}


def _err(exc: HttpError) -> tuple[int, str]:
    return exc.status_code, exc.error_details[0]["reason"] if exc.error_details else ""


def test_events_list_schema_and_own_events_only(served):
    served.start(FIX)
    cal = served.google("calendar")
    resp = cal.events().list(calendarId="primary").execute()
    assert_schema("calendar.events.list", resp)
    assert [e["id"] for e in resp["items"]] == ["standup01", "budget001", "offsite01"]
    assert resp["timeZone"] == "America/New_York" and resp["accessRole"] == "owner"
    assert resp["kind"] == "calendar#events" and "nextSyncToken" in resp


def test_events_get_renders_in_the_calendar_zone(served):
    served.start(FIX)
    ev = served.google("calendar").events().get(calendarId="primary", eventId="standup01").execute()
    assert_schema("calendar.events.get", ev)
    assert ev["start"] == {"dateTime": "2026-03-02T09:30:00-05:00", "timeZone": "America/New_York"}
    assert ev["organizer"] == {"email": ALICE, "displayName": "Alice Chen", "self": True}
    assert ev["iCalUID"] == "standup01@google.com" and ev["htmlLink"].startswith("https://www.google.com/calendar/event?eid=")
    assert ev["description"] == "daily sync" and ev["location"] == "Room 1"


def test_events_get_with_time_zone_parameter(served):
    served.start(FIX)
    ev = served.google("calendar").events().get(calendarId="primary", eventId="standup01", timeZone="Europe/Berlin").execute()
    assert ev["start"]["dateTime"] == "2026-03-02T15:30:00+01:00"


def test_all_day_event_shape(served):
    served.start(FIX)
    ev = served.google("calendar").events().get(calendarId=ALICE, eventId="offsite01").execute()
    assert_schema("calendar.events.get", ev)
    assert ev["start"] == {"date": "2026-03-10"} and ev["end"] == {"date": "2026-03-12"}


def test_events_insert_timed_event(served):
    world = served.start(FIX)
    cal = served.google("calendar")
    body = {"summary": "Design review", "description": "bring mocks",
            "start": {"dateTime": "2026-03-04T10:00:00", "timeZone": "America/New_York"},
            "end": {"dateTime": "2026-03-04T11:00:00", "timeZone": "America/New_York"}}
    ev = cal.events().insert(calendarId="primary", body=body).execute()
    assert_schema("calendar.events.insert", ev)
    assert ev["status"] == "confirmed" and ev["sequence"] == 0 and ev["creator"]["email"] == ALICE
    row = world.store.get("calendar_events", {"calendar_id": ALICE, "id": ev["id"]})
    assert row["start"] == {"dateTime": "2026-03-04T15:00:00Z", "timeZone": "America/New_York"}
    assert row["owner"] == "alice" and ev["created"] == ev["updated"]
    assert cal.events().get(calendarId="primary", eventId=ev["id"]).execute()["summary"] == "Design review"


def test_events_insert_is_deterministic(served):
    served.start(FIX)
    a = served.google("calendar").events().insert(calendarId="primary", body={
        "summary": "x", "start": {"date": "2026-03-05"}, "end": {"date": "2026-03-06"}}).execute()
    served.stop()
    served.start(FIX)
    b = served.google("calendar").events().insert(calendarId="primary", body={
        "summary": "x", "start": {"date": "2026-03-05"}, "end": {"date": "2026-03-06"}}).execute()
    assert a["id"] == b["id"] and a["etag"] == b["etag"] and a["created"] == b["created"]


def test_events_insert_with_client_id_and_duplicate(served):
    served.start(FIX)
    cal = served.google("calendar")
    body = {"id": "mevent123", "summary": "Mine", "start": {"date": "2026-03-05"}, "end": {"date": "2026-03-06"}}
    assert cal.events().insert(calendarId="primary", body=body).execute()["id"] == "mevent123"
    with pytest.raises(HttpError) as exc:
        cal.events().insert(calendarId="primary", body=body).execute()
    assert _err(exc.value) == (409, "duplicate")


def test_events_insert_invalid_id(served):
    served.start(FIX)
    with pytest.raises(HttpError) as exc:
        served.google("calendar").events().insert(calendarId="primary", body={
            "id": "Not_Valid!", "start": {"date": "2026-03-05"}, "end": {"date": "2026-03-06"}}).execute()
    assert _err(exc.value) == (400, "invalid")
    assert "Invalid resource id value." in str(exc.value)


def test_events_insert_missing_end(served):
    served.start(FIX)
    with pytest.raises(HttpError) as exc:
        served.google("calendar").events().insert(calendarId="primary", body={
            "summary": "x", "start": {"dateTime": "2026-03-05T10:00:00Z"}}).execute()
    assert _err(exc.value) == (400, "required") and "Missing end time." in str(exc.value)


def test_events_insert_empty_time_range(served):
    served.start(FIX)
    with pytest.raises(HttpError) as exc:
        served.google("calendar").events().insert(calendarId="primary", body={
            "start": {"dateTime": "2026-03-05T10:00:00Z"}, "end": {"dateTime": "2026-03-05T09:00:00Z"}}).execute()
    assert _err(exc.value) == (400, "timeRangeEmpty")


def test_events_insert_naive_time_needs_zone(served):
    served.start(FIX)
    with pytest.raises(HttpError) as exc:
        served.google("calendar").events().insert(calendarId="primary", body={
            "start": {"dateTime": "2026-03-05T10:00:00"}, "end": {"dateTime": "2026-03-05T11:00:00"}}).execute()
    assert _err(exc.value) == (400, "required") and "Missing time zone definition for start time." in str(exc.value)


def test_events_insert_invalid_zone(served):
    served.start(FIX)
    with pytest.raises(HttpError) as exc:
        served.google("calendar").events().insert(calendarId="primary", body={
            "start": {"dateTime": "2026-03-05T10:00:00", "timeZone": "Mars/Olympus"},
            "end": {"dateTime": "2026-03-05T11:00:00", "timeZone": "Mars/Olympus"}}).execute()
    assert _err(exc.value) == (400, "invalid")


def test_events_update_replaces_and_bumps_sequence(served):
    world = served.start(FIX)
    cal = served.google("calendar")
    ev = cal.events().get(calendarId="primary", eventId="budget001").execute()
    ev["summary"] = "Budget review (moved)"
    ev["start"] = {"dateTime": "2026-03-03T16:00:00-05:00"}
    ev["end"] = {"dateTime": "2026-03-03T17:00:00-05:00"}
    del ev["description"]
    out = cal.events().update(calendarId="primary", eventId="budget001", body=ev).execute()
    assert_schema("calendar.events.update", out)
    assert out["summary"] == "Budget review (moved)" and out["sequence"] == 1 and "description" not in out
    assert out["etag"] != ev["etag"] and out["updated"] > ev["updated"]
    row = world.store.get("calendar_events", {"calendar_id": ALICE, "id": "budget001"})
    assert row["description"] == "" and row["start"]["dateTime"] == "2026-03-03T21:00:00Z"


def test_events_patch_changes_only_given_fields(served):
    served.start(FIX)
    cal = served.google("calendar")
    out = cal.events().patch(calendarId="primary", eventId="standup01", body={"location": "Room 9"}).execute()
    assert_schema("calendar.events.patch", out)
    assert out["location"] == "Room 9" and out["summary"] == "Standup" and out["description"] == "daily sync"
    assert out["sequence"] == 1  # a location change is significant


def test_events_patch_extended_properties_merge(served):
    served.start(FIX)
    cal = served.google("calendar")
    cal.events().patch(calendarId="primary", eventId="standup01", body={"extendedProperties": {"private": {"a": "1"}}}).execute()
    out = cal.events().patch(calendarId="primary", eventId="standup01", body={"extendedProperties": {"private": {"b": "2"}}}).execute()
    assert out["extendedProperties"] == {"private": {"a": "1", "b": "2"}}
    found = cal.events().list(calendarId="primary", privateExtendedProperty="b=2").execute()
    assert [e["id"] for e in found["items"]] == ["standup01"]


def test_events_delete_then_get_shows_cancelled_and_second_delete_is_410(served):
    world = served.start(FIX)
    cal = served.google("calendar")
    assert cal.events().delete(calendarId="primary", eventId="budget001").execute() == ""
    assert world.store.get("calendar_events", {"calendar_id": ALICE, "id": "budget001"})["status"] == "cancelled"
    assert cal.events().get(calendarId="primary", eventId="budget001").execute()["status"] == "cancelled"
    assert "budget001" not in [e["id"] for e in cal.events().list(calendarId="primary").execute()["items"]]
    shown = cal.events().list(calendarId="primary", showDeleted=True).execute()
    assert "budget001" in [e["id"] for e in shown["items"]]
    with pytest.raises(HttpError) as exc:
        cal.events().delete(calendarId="primary", eventId="budget001").execute()
    assert _err(exc.value) == (410, "deleted")


def test_events_get_unknown_is_404(served):
    served.start(FIX)
    with pytest.raises(HttpError) as exc:
        served.google("calendar").events().get(calendarId="primary", eventId="nosuchevent").execute()
    assert _err(exc.value) == (404, "notFound") and "Not Found" in str(exc.value)


def test_events_list_time_window(served):
    served.start(FIX)
    cal = served.google("calendar")
    resp = cal.events().list(calendarId="primary", timeMin="2026-03-03T00:00:00-05:00", timeMax="2026-03-04T00:00:00-05:00").execute()
    assert [e["id"] for e in resp["items"]] == ["budget001"]
    # timeMin bounds the end (exclusive): an event ending exactly at timeMin is out
    resp = cal.events().list(calendarId="primary", timeMin="2026-03-02T09:45:00-05:00", timeMax="2026-03-03T00:00:00-05:00").execute()
    assert resp["items"] == []


def test_events_list_time_min_without_offset_is_400(served):
    served.start(FIX)
    with pytest.raises(HttpError) as exc:
        served.google("calendar").events().list(calendarId="primary", timeMin="2026-03-03T00:00:00").execute()
    assert exc.value.status_code == 400


def test_events_list_order_by_start_time_needs_single_events(served):
    served.start(FIX)
    cal = served.google("calendar")
    with pytest.raises(HttpError) as exc:
        cal.events().list(calendarId="primary", orderBy="startTime").execute()
    assert exc.value.status_code == 400 and "requested ordering is not available" in str(exc.value)
    resp = cal.events().list(calendarId="primary", orderBy="startTime", singleEvents=True).execute()
    assert [e["id"] for e in resp["items"]] == ["standup01", "budget001", "offsite01"]


def test_events_list_order_by_updated(served):
    served.start(FIX)
    cal = served.google("calendar")
    cal.events().patch(calendarId="primary", eventId="standup01", body={"summary": "Standup!"}).execute()
    resp = cal.events().list(calendarId="primary", orderBy="updated").execute()
    assert resp["items"][-1]["id"] == "standup01"


def test_events_list_q_searches_text_and_people(served):
    served.start(FIX)
    cal = served.google("calendar")
    assert [e["id"] for e in cal.events().list(calendarId="primary", q="q3").execute()["items"]] == ["budget001"]
    assert [e["id"] for e in cal.events().list(calendarId="primary", q='"daily sync"').execute()["items"]] == ["standup01"]
    assert cal.events().list(calendarId="primary", q="secret").execute()["items"] == []


def test_events_list_pagination(served):
    served.start(FIX)
    cal = served.google("calendar")
    first = cal.events().list(calendarId="primary", maxResults=2).execute()
    assert len(first["items"]) == 2 and "nextPageToken" in first and "nextSyncToken" not in first
    second = cal.events().list(calendarId="primary", maxResults=2, pageToken=first["nextPageToken"]).execute()
    assert [e["id"] for e in second["items"]] == ["offsite01"] and "nextPageToken" not in second


def test_events_list_updated_min_and_ical_uid(served):
    served.start(FIX)
    cal = served.google("calendar")
    patched = cal.events().patch(calendarId="primary", eventId="offsite01", body={"summary": "Offsite 2026"}).execute()
    resp = cal.events().list(calendarId="primary", updatedMin=patched["updated"]).execute()
    assert [e["id"] for e in resp["items"]] == ["offsite01"]
    resp = cal.events().list(calendarId="primary", iCalUID="standup01@google.com").execute()
    assert [e["id"] for e in resp["items"]] == ["standup01"]


def test_events_list_sync_token_returns_changes(served):
    served.start(FIX)
    cal = served.google("calendar")
    token = cal.events().list(calendarId="primary").execute()["nextSyncToken"]
    cal.events().delete(calendarId="primary", eventId="standup01").execute()
    changed = cal.events().list(calendarId="primary", syncToken=token).execute()
    assert_schema("calendar.events.list", changed)
    assert [(e["id"], e["status"]) for e in changed["items"]] == [("standup01", "cancelled")]
    with pytest.raises(HttpError) as exc:
        cal.events().list(calendarId="primary", syncToken="garbage!").execute()
    assert _err(exc.value) == (410, "fullSyncRequired")


def test_events_move_to_another_calendar(served):
    world = served.start({"calendar": {**FIX["calendar"], "calendars": [
        {"id": "team@group.calendar.google.com", "owner": "alice", "summary": "Team"}]}})
    cal = served.google("calendar")
    moved = cal.events().move(calendarId="primary", eventId="budget001", destination="team@group.calendar.google.com").execute()
    assert_schema("calendar.events.move", moved)
    assert moved["organizer"]["email"] == "team@group.calendar.google.com" and moved["organizer"]["self"] is True
    assert world.store.get("calendar_events", {"calendar_id": ALICE, "id": "budget001"}) is None
    assert world.store.get("calendar_events", {"calendar_id": "team@group.calendar.google.com", "id": "budget001"})["summary"] == "Budget review"


def test_events_quick_add_parses_against_the_world_clock(served):
    world = served.start(FIX)  # now = 2026-03-02T09:00Z, Monday; alice is in New York
    ev = served.google("calendar").events().quickAdd(calendarId="primary", text="Lunch with Bob tomorrow at 12pm").execute()
    assert_schema("calendar.events.quickAdd", ev)
    assert ev["summary"] == "Lunch with Bob"
    assert ev["start"] == {"dateTime": "2026-03-03T12:00:00-05:00", "timeZone": "America/New_York"}
    assert ev["end"]["dateTime"] == "2026-03-03T13:00:00-05:00"
    assert world.store.get("calendar_events", {"calendar_id": ALICE, "id": ev["id"]})["summary"] == "Lunch with Bob"


def test_events_quick_add_location_and_all_day(served):
    served.start(FIX)
    cal = served.google("calendar")
    ev = cal.events().quickAdd(calendarId="primary", text="Appointment at Somewhere on June 3rd 10am-10:25am").execute()
    assert (ev["summary"], ev["location"]) == ("Appointment", "Somewhere")
    assert ev["end"]["dateTime"] == "2026-06-03T10:25:00-04:00"
    ev = cal.events().quickAdd(calendarId="primary", text="Team offsite March 10").execute()
    assert ev["start"] == {"date": "2026-03-10"} and ev["end"] == {"date": "2026-03-11"}


def test_events_import_creates_private_copy_without_notifications(served):
    world = served.start(FIX)
    cal = served.google("calendar")
    body = {"iCalUID": "vendor-123@vendor.example", "summary": "Vendor call", "organizer": {"email": "sam@vendor.example"},
            "attendees": [{"email": BOB}, {"email": ALICE}],
            "start": {"dateTime": "2026-03-05T15:00:00Z"}, "end": {"dateTime": "2026-03-05T16:00:00Z"}}
    ev = cal.events().import_(calendarId="primary", body=body).execute()
    assert_schema("calendar.events.import", ev)
    assert ev["iCalUID"] == "vendor-123@vendor.example" and ev["organizer"] == {"email": "sam@vendor.example"}
    assert world.store.select("calendar_events", {"id": ev["id"]})[0]["calendar_id"] == ALICE
    assert len(world.store.select("calendar_events", {"id": ev["id"]})) == 1  # no copy for bob
    assert world.ledger.of_kind("delivery") == []
    again = cal.events().import_(calendarId="primary", body={**body, "summary": "Vendor call (v2)"}).execute()
    assert again["id"] == ev["id"] and again["summary"] == "Vendor call (v2)"


def test_events_import_requires_ical_uid(served):
    served.start(FIX)
    with pytest.raises(HttpError) as exc:
        served.google("calendar").events().import_(calendarId="primary", body={
            "start": {"date": "2026-03-05"}, "end": {"date": "2026-03-06"}}).execute()
    assert _err(exc.value) == (400, "required")


def test_max_attendees_omits_others(served):
    served.start(FIX)
    cal = served.google("calendar")
    ev = cal.events().insert(calendarId="primary", body={
        "summary": "Big", "attendees": [{"email": "x1@out.example"}, {"email": "x2@out.example"}, {"email": ALICE}],
        "start": {"date": "2026-03-05"}, "end": {"date": "2026-03-06"}}).execute()
    got = cal.events().get(calendarId="primary", eventId=ev["id"], maxAttendees=1).execute()
    assert_schema("calendar.events.get", got)
    assert got["attendeesOmitted"] is True and [a["email"] for a in got["attendees"]] == [ALICE]


def test_events_watch_and_channels_stop(served):
    world = served.start(FIX)
    cal = served.google("calendar")
    ch = cal.events().watch(calendarId="primary", body={"id": "chan-1", "type": "web_hook", "address": "https://hooks.example/cal"}).execute()
    assert_schema("calendar.events.watch", ch)
    assert ch["id"] == "chan-1" and ch["resourceUri"].endswith(f"/calendars/{ALICE}/events?alt=json")
    assert cal.channels().stop(body={"id": "chan-1", "resourceId": ch["resourceId"]}).execute() == ""
    assert world.store.select("calendar_channels") == []
    with pytest.raises(HttpError) as exc:
        cal.channels().stop(body={"id": "chan-1", "resourceId": ch["resourceId"]}).execute()
    assert exc.value.status_code == 404


def test_events_watch_needs_https(served):
    served.start(FIX)
    with pytest.raises(HttpError) as exc:
        served.google("calendar").events().watch(calendarId="primary", body={
            "id": "c2", "type": "web_hook", "address": "http://hooks.example/cal"}).execute()
    assert _err(exc.value) == (400, "push.webhookUrlNotHttps")


def test_events_list_partial_response_with_fields(served):
    served.start(FIX)
    resp = served.google("calendar").events().list(calendarId="primary", fields="items(id,summary),nextPageToken").execute()
    assert resp == {"items": [{"id": "standup01", "summary": "Standup"}, {"id": "budget001", "summary": "Budget review"},
                              {"id": "offsite01", "summary": "Offsite"}]}


def test_events_list_accepts_every_discovery_parameter(served):
    served.start(FIX)
    resp = served.google("calendar").events().list(
        calendarId="primary", alwaysIncludeEmail=True, showHiddenInvitations=True, eventTypes=["default", "focusTime"],
        maxAttendees=5, sharedExtendedProperty=[], timeZone="UTC").execute()
    assert_schema("calendar.events.list", resp)
    assert len(resp["items"]) == 3 and resp["items"][0]["start"]["dateTime"] == "2026-03-02T14:30:00Z"


def test_list_envelopes_carry_exactly_the_real_default_fields(served):
    served.start(FIX)
    cal = served.google("calendar")
    events = cal.events().list(calendarId="primary", maxResults=1).execute()
    assert set(events) == {"kind", "etag", "summary", "updated", "timeZone", "accessRole", "defaultReminders", "items", "nextPageToken"}
    last = cal.events().list(calendarId="primary").execute()
    assert set(last) - set(events) == {"nextSyncToken"} and "nextPageToken" not in last
    for method, kind in ((cal.calendarList().list, "calendar#calendarList"), (cal.acl().list, "calendar#acl"),
                         (cal.settings().list, "calendar#settings")):  # fmt: skip
        resp = method(**({"calendarId": "primary"} if kind == "calendar#acl" else {})).execute()
        assert set(resp) == {"kind", "etag", "items", "nextSyncToken"} and resp["kind"] == kind
