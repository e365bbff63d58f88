"""Calendar conformance: recurring events, instances, exceptions and time zones (DST)."""

import pytest
from googleapiclient.errors import HttpError

from tests.conformance.harness import assert_schema

ALICE = "alice@northwind.example"
BOB = "bob@northwind.example"

WEEKLY = {
    "calendar": {
        "settings": [{"owner": "alice", "timezone": "America/New_York"}],
        "events": [
            # Mondays 09:00 New York; US DST starts Sunday 2026-03-08.
            {"id": "weekly01", "calendar": "alice", "summary": "Team sync", "description": "weekly",
             "start": "2026-03-02T09:00:00", "end": "2026-03-02T09:30:00", "time_zone": "America/New_York",
             "recurrence": ["RRULE:FREQ=WEEKLY;BYDAY=MO;COUNT=4"], "attendees": [BOB]},
            {"id": "daily001", "calendar": "alice", "summary": "Standup", "start": "2026-03-02T10:00:00",
             "end": "2026-03-02T10:15:00", "time_zone": "America/New_York",
             "recurrence": ["RRULE:FREQ=DAILY;UNTIL=20260306T235959Z", "EXDATE;TZID=America/New_York:20260304T100000"]},
            {"id": "single01", "calendar": "alice", "summary": "One-off", "start": "2026-03-03T12:00:00",
             "end": "2026-03-03T13:00:00"},
        ],
    }
}


def _ids(resp):
    return [e["id"] for e in resp["items"]]


def test_list_without_single_events_returns_the_master(served):
    served.start(WEEKLY)
    resp = served.google("calendar").events().list(calendarId="primary").execute()
    assert_schema("calendar.events.list", resp)
    master = next(e for e in resp["items"] if e["id"] == "weekly01")
    assert master["recurrence"] == ["RRULE:FREQ=WEEKLY;BYDAY=MO;COUNT=4"]
    assert master["start"] == {"dateTime": "2026-03-02T09:00:00-05:00", "timeZone": "America/New_York"}


def test_single_events_expands_across_dst_keeping_wall_clock(served):
    served.start(WEEKLY)
    resp = served.google("calendar").events().list(
        calendarId="primary", singleEvents=True, orderBy="startTime", q="Team sync", timeZone="UTC").execute()
    assert_schema("calendar.events.list", resp)
    starts = [e["start"]["dateTime"] for e in resp["items"]]
    # 09:00 EST is 14:00Z; after the switch 09:00 EDT is 13:00Z
    assert starts == ["2026-03-02T14:00:00Z", "2026-03-09T13:00:00Z", "2026-03-16T13:00:00Z", "2026-03-23T13:00:00Z"]
    first = resp["items"][0]
    assert first["id"] == "weekly01_20260302T140000Z" and first["recurringEventId"] == "weekly01"
    assert first["originalStartTime"] == {"dateTime": "2026-03-02T14:00:00Z", "timeZone": "America/New_York"}
    assert "recurrence" not in first and first["iCalUID"] == "weekly01@google.com"


def test_instances_render_in_local_time(served):
    served.start(WEEKLY)
    resp = served.google("calendar").events().instances(calendarId="primary", eventId="weekly01").execute()
    assert_schema("calendar.events.instances", resp)
    assert [e["start"]["dateTime"] for e in resp["items"]] == [
        "2026-03-02T09:00:00-05:00", "2026-03-09T09:00:00-04:00", "2026-03-16T09:00:00-04:00", "2026-03-23T09:00:00-04:00"]
    assert all(e["end"]["dateTime"].endswith(":30:00" + e["start"]["dateTime"][-6:]) for e in resp["items"])


def test_until_and_exdate(served):
    served.start(WEEKLY)
    resp = served.google("calendar").events().instances(calendarId="primary", eventId="daily001").execute()
    days = [e["start"]["dateTime"][:10] for e in resp["items"]]
    assert days == ["2026-03-02", "2026-03-03", "2026-03-05", "2026-03-06"]


def test_time_window_on_expanded_instances(served):
    served.start(WEEKLY)
    resp = served.google("calendar").events().list(
        calendarId="primary", singleEvents=True, orderBy="startTime",
        timeMin="2026-03-09T00:00:00-04:00", timeMax="2026-03-10T00:00:00-04:00").execute()
    assert _ids(resp) == ["weekly01_20260309T130000Z"]


def test_master_is_listed_when_any_instance_is_in_the_window(served):
    served.start(WEEKLY)
    resp = served.google("calendar").events().list(
        calendarId="primary", timeMin="2026-03-16T00:00:00Z", timeMax="2026-03-17T00:00:00Z").execute()
    assert _ids(resp) == ["weekly01"]


def test_get_one_instance_by_id(served):
    served.start(WEEKLY)
    ev = served.google("calendar").events().get(calendarId="primary", eventId="weekly01_20260316T130000Z").execute()
    assert_schema("calendar.events.get", ev)
    assert ev["recurringEventId"] == "weekly01" and ev["start"]["dateTime"] == "2026-03-16T09:00:00-04:00"
    with pytest.raises(HttpError) as exc:  # not an occurrence (Tuesday)
        served.google("calendar").events().get(calendarId="primary", eventId="weekly01_20260317T130000Z").execute()
    assert exc.value.status_code == 404


def test_patch_one_instance_makes_an_exception(served):
    world = served.start(WEEKLY)
    cal = served.google("calendar")
    out = cal.events().patch(calendarId="primary", eventId="weekly01_20260309T130000Z", body={
        "start": {"dateTime": "2026-03-09T11:00:00", "timeZone": "America/New_York"},
        "end": {"dateTime": "2026-03-09T11:30:00", "timeZone": "America/New_York"}, "summary": "Team sync (late)"}).execute()
    assert_schema("calendar.events.patch", out)
    assert out["recurringEventId"] == "weekly01" and out["originalStartTime"]["dateTime"] == "2026-03-09T09:00:00-04:00"
    row = world.store.get("calendar_events", {"calendar_id": ALICE, "id": "weekly01_20260309T130000Z"})
    assert row is not None and row["summary"] == "Team sync (late)"
    resp = cal.events().instances(calendarId="primary", eventId="weekly01").execute()
    assert [e["summary"] for e in resp["items"]] == ["Team sync", "Team sync (late)", "Team sync", "Team sync"]
    assert resp["items"][1]["start"]["dateTime"] == "2026-03-09T11:00:00-04:00"
    # without singleEvents, the master and its exception both come back
    listed = cal.events().list(calendarId="primary", q="sync").execute()
    assert sorted(_ids(listed)) == ["weekly01", "weekly01_20260309T130000Z"]


def test_delete_one_instance_cancels_only_that_occurrence(served):
    served.start(WEEKLY)
    cal = served.google("calendar")
    cal.events().delete(calendarId="primary", eventId="weekly01_20260316T130000Z").execute()
    resp = cal.events().instances(calendarId="primary", eventId="weekly01").execute()
    assert [e["start"]["dateTime"][:10] for e in resp["items"]] == ["2026-03-02", "2026-03-09", "2026-03-23"]
    shown = cal.events().instances(calendarId="primary", eventId="weekly01", showDeleted=True).execute()
    assert [e["status"] for e in shown["items"]] == ["confirmed", "confirmed", "cancelled", "confirmed"]
    # bob, a guest, loses that occurrence too
    bob = served.google("calendar", "bob").events().list(calendarId="primary", singleEvents=True, orderBy="startTime").execute()
    assert [e["start"]["dateTime"][:10] for e in bob["items"]] == ["2026-03-02", "2026-03-09", "2026-03-23"]


def test_delete_master_cancels_the_series(served):
    served.start(WEEKLY)
    cal = served.google("calendar")
    cal.events().delete(calendarId="primary", eventId="weekly01").execute()
    resp = cal.events().list(calendarId="primary", singleEvents=True, q="Team").execute()
    assert resp["items"] == []


def test_instances_original_start_and_paging(served):
    served.start(WEEKLY)
    cal = served.google("calendar")
    one = cal.events().instances(calendarId="primary", eventId="weekly01", originalStart="2026-03-16T09:00:00-04:00").execute()
    assert _ids(one) == ["weekly01_20260316T130000Z"]
    first = cal.events().instances(calendarId="primary", eventId="weekly01", maxResults=3).execute()
    rest = cal.events().instances(calendarId="primary", eventId="weekly01", maxResults=3, pageToken=first["nextPageToken"]).execute()
    assert len(first["items"]) == 3 and _ids(rest) == ["weekly01_20260323T130000Z"]


def test_insert_recurring_needs_a_time_zone(served):
    served.start(WEEKLY)
    with pytest.raises(HttpError) as exc:
        served.google("calendar").events().insert(calendarId="primary", body={
            "summary": "r", "recurrence": ["RRULE:FREQ=DAILY;COUNT=2"],
            "start": {"dateTime": "2026-03-05T10:00:00Z"}, "end": {"dateTime": "2026-03-05T11:00:00Z"}}).execute()
    assert exc.value.status_code == 400 and "Missing time zone definition for start time." in str(exc.value)


def test_insert_invalid_rule_is_400(served):
    served.start(WEEKLY)
    with pytest.raises(HttpError) as exc:
        served.google("calendar").events().insert(calendarId="primary", body={
            "summary": "r", "recurrence": ["RRULE:FREQ=SOMETIMES"],
            "start": {"dateTime": "2026-03-05T10:00:00", "timeZone": "UTC"},
            "end": {"dateTime": "2026-03-05T11:00:00", "timeZone": "UTC"}}).execute()
    assert exc.value.status_code == 400 and "Invalid recurrence rule." in str(exc.value)


def test_insert_recurring_with_local_until_and_rdate(served):
    served.start(WEEKLY)
    cal = served.google("calendar")
    ev = cal.events().insert(calendarId="primary", body={
        "summary": "Berlin call",
        "recurrence": ["RRULE:FREQ=WEEKLY;UNTIL=20260406", "RDATE;TZID=Europe/Berlin:20260401T170000"],
        "start": {"dateTime": "2026-03-23T17:00:00", "timeZone": "Europe/Berlin"},
        "end": {"dateTime": "2026-03-23T18:00:00", "timeZone": "Europe/Berlin"}}).execute()
    resp = cal.events().instances(calendarId="primary", eventId=ev["id"], timeZone="Europe/Berlin").execute()
    # EU DST starts 2026-03-29: 17:00 stays 17:00 local, the offset moves from +01:00 to +02:00
    assert [e["start"]["dateTime"] for e in resp["items"]] == [
        "2026-03-23T17:00:00+01:00", "2026-03-30T17:00:00+02:00", "2026-04-01T17:00:00+02:00", "2026-04-06T17:00:00+02:00"]


def test_all_day_recurring_event(served):
    served.start({"calendar": {"events": [
        {"id": "payday001", "calendar": "alice", "summary": "Payday", "start": "2026-03-31", "end": "2026-04-01",
         "recurrence": ["RRULE:FREQ=MONTHLY;BYMONTHDAY=-1;COUNT=3"]}]}})
    resp = served.google("calendar").events().list(calendarId="primary", singleEvents=True, orderBy="startTime").execute()
    assert [(e["id"], e["start"]) for e in resp["items"]] == [
        ("payday001_20260331", {"date": "2026-03-31"}), ("payday001_20260430", {"date": "2026-04-30"}),
        ("payday001_20260531", {"date": "2026-05-31"})]


def test_update_instance_keeps_series_link(served):
    served.start(WEEKLY)
    cal = served.google("calendar")
    inst = cal.events().get(calendarId="primary", eventId="weekly01_20260323T130000Z").execute()
    inst["description"] = "last one"
    out = cal.events().update(calendarId="primary", eventId=inst["id"], body=inst).execute()
    assert_schema("calendar.events.update", out)
    assert out["recurringEventId"] == "weekly01" and out["description"] == "last one" and "recurrence" not in out


def test_fixture_exception_replaces_its_instance(served):
    served.start({"calendar": {"events": [
        *WEEKLY["calendar"]["events"][:1],
        {"calendar": "alice", "recurring_event_id": "weekly01", "original_start": "2026-03-16T09:00:00",
         "time_zone": "America/New_York", "summary": "Team sync (moved)", "start": "2026-03-17T09:00:00",
         "end": "2026-03-17T09:30:00"}], "settings": WEEKLY["calendar"]["settings"]}})
    resp = served.google("calendar").events().instances(calendarId="primary", eventId="weekly01").execute()
    assert [e["start"]["dateTime"][:10] for e in resp["items"]] == ["2026-03-02", "2026-03-09", "2026-03-17", "2026-03-23"]
    assert resp["items"][2]["id"] == "weekly01_20260316T130000Z"
