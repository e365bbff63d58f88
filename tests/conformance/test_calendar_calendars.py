"""Calendar conformance: calendars, the calendar list, settings, colors and channels."""

import pytest
from googleapiclient.errors import HttpError

from tests.conformance.harness import assert_schema

ALICE = "alice@northwind.example"
BOB = "bob@northwind.example"
TEAM = "team@group.calendar.google.com"

FIX = {"calendar": {
    "settings": [{"owner": "alice", "timezone": "Europe/Berlin", "locale": "de", "week_start": 1, "format_24_hour_time": True}],
    "calendars": [{"id": TEAM, "owner": "alice", "summary": "Team", "description": "team rota"}],
    "events": [
        {"id": "teamev001", "calendar": TEAM, "summary": "Rota", "start": "2026-03-04", "end": "2026-03-05"},
        {"id": "mine00001", "calendar": "alice", "summary": "Dentist", "attendees": ["bob@northwind.example"],
         "start": "2026-03-04T08:00:00Z", "end": "2026-03-04T09:00:00Z"},
    ],
}}


def test_calendars_get_primary(served):
    served.start(FIX)
    cal = served.google("calendar").calendars().get(calendarId="primary").execute()
    assert_schema("calendar.calendars.get", cal)
    assert cal["id"] == ALICE and cal["summary"] == ALICE and cal["timeZone"] == "Europe/Berlin"
    assert "dataOwner" not in cal


def test_calendars_get_primary_without_any_fixture(served):
    served.start({})
    cal = served.google("calendar", "bob").calendars().get(calendarId="primary").execute()
    assert cal["id"] == BOB and cal["timeZone"] == "UTC"


def test_calendars_get_secondary(served):
    served.start(FIX)
    cal = served.google("calendar").calendars().get(calendarId=TEAM).execute()
    assert_schema("calendar.calendars.get", cal)
    assert cal["summary"] == "Team" and cal["dataOwner"] == ALICE and cal["description"] == "team rota"


def test_calendars_insert_creates_owned_calendar_and_list_entry(served):
    world = served.start(FIX)
    api = served.google("calendar")
    cal = api.calendars().insert(body={"summary": "Hiring", "timeZone": "America/Chicago"}).execute()
    assert_schema("calendar.calendars.insert", cal)
    assert cal["id"].endswith("@group.calendar.google.com") and cal["timeZone"] == "America/Chicago"
    assert world.store.get("calendar_calendars", {"id": cal["id"]})["owner"] == "alice"
    entry = api.calendarList().get(calendarId=cal["id"]).execute()
    assert entry["accessRole"] == "owner" and entry["summary"] == "Hiring"


def test_calendars_insert_needs_summary(served):
    served.start(FIX)
    with pytest.raises(HttpError) as exc:
        served.google("calendar").calendars().insert(body={"description": "x"}).execute()
    assert exc.value.status_code == 400


def test_calendars_update_and_patch(served):
    world = served.start(FIX)
    api = served.google("calendar")
    up = api.calendars().update(calendarId=TEAM, body={"summary": "Team B", "timeZone": "Asia/Tokyo"}).execute()
    assert_schema("calendar.calendars.update", up)
    assert up["summary"] == "Team B" and "description" not in up and up["timeZone"] == "Asia/Tokyo"
    patched = api.calendars().patch(calendarId=TEAM, body={"description": "new rota"}).execute()
    assert_schema("calendar.calendars.patch", patched)
    assert patched["summary"] == "Team B" and patched["description"] == "new rota"
    assert world.store.get("calendar_calendars", {"id": TEAM})["time_zone"] == "Asia/Tokyo"


def test_patching_primary_time_zone_changes_the_setting(served):
    served.start({})
    api = served.google("calendar")
    api.calendars().patch(calendarId="primary", body={"timeZone": "Australia/Sydney"}).execute()
    assert api.settings().get(setting="timezone").execute()["value"] == "Australia/Sydney"


def test_calendars_update_needs_owner(served):
    world = served.start({"calendar": {**FIX["calendar"], "acl": [{"calendar": TEAM, "role": "writer", "scope_value": BOB}]}})
    with pytest.raises(HttpError) as exc:
        served.google("calendar", "bob").calendars().patch(calendarId=TEAM, body={"summary": "mine now"}).execute()
    assert exc.value.status_code == 403 and world.ledger.of_kind("refused")


def test_calendars_delete_secondary(served):
    world = served.start(FIX)
    api = served.google("calendar")
    assert api.calendars().delete(calendarId=TEAM).execute() == ""
    assert world.store.get("calendar_calendars", {"id": TEAM}) is None
    assert world.store.select("calendar_events", {"calendar_id": TEAM}) == []
    assert TEAM not in [c["id"] for c in api.calendarList().list().execute()["items"]]


def test_calendars_delete_primary_is_refused_with_400(served):
    served.start(FIX)
    with pytest.raises(HttpError) as exc:
        served.google("calendar").calendars().delete(calendarId="primary").execute()
    assert exc.value.status_code == 400


def test_calendars_clear_primary(served):
    world = served.start(FIX)
    api = served.google("calendar")
    assert api.calendars().clear(calendarId="primary").execute() == ""
    assert world.store.select("calendar_events", {"calendar_id": ALICE}) == []
    assert world.store.get("calendar_events", {"calendar_id": BOB, "id": "mine00001"})["status"] == "cancelled"
    assert world.store.select("calendar_events", {"calendar_id": TEAM})  # other calendars stay
    with pytest.raises(HttpError):
        api.calendars().clear(calendarId=TEAM).execute()


def test_calendars_transfer_ownership(served):
    world = served.start({"calendar": {**FIX["calendar"], "admins": ["carol"]}})
    admin = served.google("calendar", "carol")  # a Workspace admin with no access of her own to the calendar
    assert admin.calendars().transferOwnership(calendarId=TEAM, newDataOwner=BOB, useAdminAccess=True).execute() == ""
    assert world.store.get("calendar_calendars", {"id": TEAM})["owner"] == "bob"
    assert served.google("calendar", "bob").calendars().get(calendarId=TEAM).execute()["dataOwner"] == BOB
    assert [d.payload["to"] for d in world.ledger.of_kind("delivery")] == [BOB]
    api = served.google("calendar")
    assert api.calendarList().get(calendarId=TEAM).execute()["accessRole"] == "owner"  # alice keeps access
    with pytest.raises(HttpError) as exc:
        admin.calendars().get(calendarId=TEAM).execute()  # admin access was for the transfer only
    assert exc.value.status_code == 404


def test_calendars_transfer_ownership_is_for_calendar_admins_only(served):
    world = served.start(FIX)
    api = served.google("calendar")  # alice is the data owner, but not an administrator
    before = world.state_hash()
    with pytest.raises(HttpError) as own:
        api.calendars().transferOwnership(calendarId=TEAM, newDataOwner=BOB, useAdminAccess=True).execute()
    with pytest.raises(HttpError) as missing:
        api.calendars().transferOwnership(calendarId="c_nosuch@group.calendar.google.com", newDataOwner=BOB, useAdminAccess=True).execute()
    assert own.value.status_code == 403 and own.value.error_details[0]["reason"] == "forbidden"
    assert own.value.content == missing.value.content  # refused before the calendar is looked up
    assert world.state_hash() == before and world.ledger.of_kind("refused")[-1].payload["tool"] == "calendar_calendars_transfer_ownership"


def test_calendars_transfer_ownership_needs_use_admin_access(served):
    world = served.start({"calendar": {**FIX["calendar"], "admins": ["carol"]}})
    with pytest.raises(HttpError) as exc:
        served.google("calendar", "carol").calendars().transferOwnership(calendarId=TEAM, newDataOwner=BOB, useAdminAccess=False).execute()
    assert exc.value.status_code == 400 and world.store.get("calendar_calendars", {"id": TEAM})["owner"] == "alice"


def test_calendar_admins_must_be_principals():
    from clawarena.services import services
    from clawarena.world.build import WorldBuildError, WorldFactory
    from tests.conformance.harness import world_scenario

    with pytest.raises(WorldBuildError, match=r"admins\[0\]: unknown principal 'mallory'"):
        WorldFactory(services()).build(world_scenario({"calendar": {"admins": ["mallory"]}}), 0)


def test_events_list_default_reminders_are_the_callers_list_entry(served):
    served.start(FIX)
    api = served.google("calendar")
    assert api.events().list(calendarId="primary").execute()["defaultReminders"] == [{"method": "popup", "minutes": 10}]
    mine = [{"method": "email", "minutes": 30}]
    api.calendarList().patch(calendarId=TEAM, body={"defaultReminders": mine}).execute()
    resp = api.events().list(calendarId=TEAM).execute()
    assert_schema("calendar.events.list", resp)
    assert resp["defaultReminders"] == mine == api.calendarList().get(calendarId=TEAM).execute()["defaultReminders"]


def test_calendar_list_list(served):
    served.start(FIX)
    resp = served.google("calendar").calendarList().list().execute()
    assert_schema("calendar.calendarList.list", resp)
    assert [(c["id"], c["accessRole"], c.get("primary", False)) for c in resp["items"]] == [(ALICE, "owner", True), (TEAM, "owner", False)]


def test_calendar_list_min_access_role_and_hidden(served):
    served.start({"calendar": {**FIX["calendar"], "acl": [{"calendar": "bob", "role": "reader", "scope_value": ALICE}]}})
    api = served.google("calendar")
    assert [c["id"] for c in api.calendarList().list(minAccessRole="owner").execute()["items"]] == [ALICE, TEAM]
    assert BOB in [c["id"] for c in api.calendarList().list(minAccessRole="reader").execute()["items"]]
    api.calendarList().patch(calendarId=BOB, body={"hidden": True}).execute()
    assert BOB not in [c["id"] for c in api.calendarList().list().execute()["items"]]
    assert BOB in [c["id"] for c in api.calendarList().list(showHidden=True).execute()["items"]]


def test_calendar_list_get(served):
    served.start(FIX)
    entry = served.google("calendar").calendarList().get(calendarId="primary").execute()
    assert_schema("calendar.calendarList.get", entry)
    assert entry["primary"] is True and entry["timeZone"] == "Europe/Berlin"


def test_calendar_list_insert_for_a_shared_calendar(served):
    world = served.start({"calendar": {"acl": [{"calendar": "bob", "role": "reader", "scope_value": ALICE}]}})
    api = served.google("calendar")
    api.calendarList().delete(calendarId=BOB).execute()
    assert BOB not in [c["id"] for c in api.calendarList().list().execute()["items"]]
    entry = api.calendarList().insert(body={"id": BOB, "summaryOverride": "Bob's"}).execute()
    assert_schema("calendar.calendarList.insert", entry)
    assert entry["summaryOverride"] == "Bob's" and entry["accessRole"] == "reader"
    assert world.store.get("calendar_list_entries", {"principal": "alice", "calendar_id": BOB}) is not None


def test_calendar_list_insert_unshared_is_refused(served):
    world = served.start({})
    with pytest.raises(HttpError) as exc:
        served.google("calendar").calendarList().insert(body={"id": BOB}).execute()
    assert exc.value.status_code == 404 and world.ledger.of_kind("refused")


def test_calendar_list_update_and_patch_colors(served):
    served.start(FIX)
    api = served.google("calendar")
    up = api.calendarList().update(calendarId=TEAM, body={"colorId": "3", "summaryOverride": "Rota"}).execute()
    assert_schema("calendar.calendarList.update", up)
    assert up["colorId"] == "3" and up["backgroundColor"] == "#f83a22" and up["summaryOverride"] == "Rota"
    patched = api.calendarList().patch(calendarId=TEAM, colorRgbFormat=True, body={"backgroundColor": "#4986e8", "foregroundColor": "#ffffff"}).execute()
    assert_schema("calendar.calendarList.patch", patched)
    assert patched["backgroundColor"] == "#4986e8" and patched["colorId"] == "16" and patched["summaryOverride"] == "Rota"


def test_calendar_list_delete_primary_is_400(served):
    served.start(FIX)
    with pytest.raises(HttpError) as exc:
        served.google("calendar").calendarList().delete(calendarId="primary").execute()
    assert exc.value.status_code == 400


def test_calendar_list_watch(served):
    served.start(FIX)
    ch = served.google("calendar").calendarList().watch(body={"id": "cl-1", "type": "web_hook", "address": "https://h.example/x"}).execute()
    assert_schema("calendar.calendarList.watch", ch)


def test_channel_ids_belong_to_their_opener(served):
    world = served.start(FIX)
    body = {"id": "shared-id", "type": "web_hook", "address": "https://h.example/x"}
    bob = served.google("calendar", "bob")
    bob.events().watch(calendarId="primary", body=body).execute()
    served.google("calendar").events().watch(calendarId="primary", body=body).execute()  # another's id says nothing
    errors = []
    for channel in ("shared-id-2", "shared-id"):
        with pytest.raises(HttpError) as exc:
            served.google("calendar", "carol").channels().stop(body={"id": channel}).execute()
        errors.append((exc.value.status_code, exc.value.content.replace(channel.encode(), b"<id>")))
    assert errors[0] == errors[1] and errors[0][0] == 404
    assert world.ledger.of_kind("refused")[-1].payload["tool"] == "calendar_channels_stop"
    assert bob.channels().stop(body={"id": "shared-id"}).execute() == ""
    assert [r["owner"] for r in world.store.select("calendar_channels", {"id": "shared-id"})] == ["alice"]


def test_settings_list_and_get(served):
    served.start(FIX)
    api = served.google("calendar")
    resp = api.settings().list().execute()
    assert_schema("calendar.settings.list", resp)
    values = {s["id"]: s["value"] for s in resp["items"]}
    assert values["timezone"] == "Europe/Berlin" and values["locale"] == "de" and values["weekStart"] == "1"
    assert values["format24HourTime"] == "true" and values["defaultEventLength"] == "60"
    one = api.settings().get(setting="weekStart").execute()
    assert_schema("calendar.settings.get", one)
    assert one == {"kind": "calendar#setting", "etag": one["etag"], "id": "weekStart", "value": "1"}
    with pytest.raises(HttpError) as exc:
        api.settings().get(setting="noSuchSetting").execute()
    assert exc.value.status_code == 404


def test_settings_are_per_principal(served):
    served.start(FIX)
    bob = served.google("calendar", "bob").settings().get(setting="timezone").execute()
    assert bob["value"] == "UTC"


def test_settings_watch(served):
    served.start(FIX)
    ch = served.google("calendar").settings().watch(body={"id": "s-1", "type": "web_hook", "address": "https://h.example/s"}).execute()
    assert_schema("calendar.settings.watch", ch)


def test_colors_get(served):
    served.start({})
    colors = served.google("calendar").colors().get().execute()
    assert_schema("calendar.colors.get", colors)
    assert len(colors["calendar"]) == 24 and len(colors["event"]) == 11 and colors["event"]["11"]["background"] == "#dc2127"


def test_event_color_must_exist(served):
    served.start(FIX)
    with pytest.raises(HttpError) as exc:
        served.google("calendar").events().patch(calendarId="primary", eventId="mine00001", body={"colorId": "42"}).execute()
    assert exc.value.status_code == 400
