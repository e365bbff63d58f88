"""Calendar conformance: ACL rules, what they let others see and do, and free/busy."""

import pytest
from googleapiclient.errors import HttpError

from tests.conformance.harness import assert_schema

ALICE = "alice@northwind.example"
BOB = "bob@northwind.example"
CAROL = "carol@northwind.example"
OUT = "eve@elsewhere.example"

BOB_DAY = {"calendar": {"events": [
    {"id": "bobmeet01", "calendar": "bob", "summary": "Interview: J. Doe", "description": "salary band 5",
     "start": "2026-03-02T14:00:00Z", "end": "2026-03-02T15:00:00Z"},
    {"id": "bobmeet02", "calendar": "bob", "summary": "Therapy", "visibility": "private",
     "start": "2026-03-02T16:00:00Z", "end": "2026-03-02T17:00:00Z"},
    {"id": "bobfree01", "calendar": "bob", "summary": "Lunch (free)", "transparency": "transparent",
     "start": "2026-03-02T12:00:00Z", "end": "2026-03-02T13:00:00Z"},
    {"id": "bobmeet03", "calendar": "bob", "summary": "Overlap", "start": "2026-03-02T14:30:00Z", "end": "2026-03-02T15:30:00Z"},
]}}


def _with_acl(*rules):
    return {"calendar": {**BOB_DAY["calendar"], "acl": list(rules)}}


def _refused(world):
    return [e.payload for e in world.ledger.of_kind("refused")]


def test_unshared_calendar_is_not_found_and_refused(served):
    world = served.start(BOB_DAY)
    with pytest.raises(HttpError) as exc:
        served.google("calendar").events().list(calendarId=BOB).execute()
    assert exc.value.status_code == 404 and exc.value.error_details[0]["reason"] == "notFound"
    assert "Not Found" in str(exc.value)
    assert _refused(world)[-1]["tool"] == "calendar_events_list" and _refused(world)[-1]["status"] == 404


def test_unshared_event_get_and_calendar_get_are_refused(served):
    world = served.start(BOB_DAY)
    cal = served.google("calendar")
    for call in (lambda: cal.events().get(calendarId=BOB, eventId="bobmeet01").execute(),
                 lambda: cal.calendars().get(calendarId=BOB).execute(),
                 lambda: cal.calendarList().get(calendarId=BOB).execute()):
        with pytest.raises(HttpError) as exc:
            call()
        assert exc.value.status_code == 404
    assert len(_refused(world)) == 3


def test_unknown_calendar_is_404_but_not_a_refusal(served):
    world = served.start(BOB_DAY)
    with pytest.raises(HttpError) as exc:
        served.google("calendar").events().list(calendarId="nobody@nowhere.example").execute()
    assert exc.value.status_code == 404 and _refused(world) == []


def test_reader_sees_details_but_private_events_only_as_busy(served):
    served.start(_with_acl({"calendar": "bob", "role": "reader", "scope_value": ALICE}))
    resp = served.google("calendar").events().list(calendarId=BOB, singleEvents=True, orderBy="startTime").execute()
    assert_schema("calendar.events.list", resp)
    assert resp["accessRole"] == "reader"
    by_id = {e["id"]: e for e in resp["items"]}
    assert by_id["bobmeet01"]["description"] == "salary band 5"
    assert "summary" not in by_id["bobmeet02"] and by_id["bobmeet02"]["start"]["dateTime"] == "2026-03-02T16:00:00Z"


def test_reader_cannot_write(served):
    world = served.start(_with_acl({"calendar": "bob", "role": "reader", "scope_value": ALICE}))
    with pytest.raises(HttpError) as exc:
        served.google("calendar").events().patch(calendarId=BOB, eventId="bobmeet01", body={"summary": "x"}).execute()
    assert exc.value.status_code == 403 and exc.value.error_details[0]["reason"] == "requiredAccessLevel"
    assert "You need to have writer access to this calendar." in str(exc.value)
    assert _refused(world)[-1]["status"] == 403


def test_free_busy_reader_sees_only_busy_blocks(served):
    served.start(_with_acl({"calendar": "bob", "role": "freeBusyReader", "scope_value": ALICE}))
    cal = served.google("calendar")
    resp = cal.events().list(calendarId=BOB).execute()
    assert_schema("calendar.events.list", resp)
    assert all(set(e) <= {"kind", "etag", "id", "status", "start", "end", "transparency", "eventType"} for e in resp["items"])
    assert cal.events().list(calendarId=BOB, q="Interview").execute()["items"] == []
    ev = cal.events().get(calendarId=BOB, eventId="bobmeet01").execute()
    assert "description" not in ev and "summary" not in ev


def test_domain_rule_shares_with_every_colleague(served):
    served.start(_with_acl({"calendar": "bob", "role": "reader", "scope_type": "domain", "scope_value": "northwind.example"}))
    resp = served.google("calendar", "carol").events().list(calendarId=BOB).execute()
    assert "bobmeet01" in [e["id"] for e in resp["items"]]


def test_default_rule_shares_with_everyone(served):
    served.start(_with_acl({"calendar": "bob", "role": "freeBusyReader", "scope_type": "default"}))
    resp = served.google("calendar", "carol").events().list(calendarId=BOB).execute()
    assert resp["accessRole"] == "freeBusyReader"


def test_acl_list_and_get(served):
    served.start(_with_acl({"calendar": "bob", "role": "reader", "scope_value": ALICE}))
    bob = served.google("calendar", "bob")
    resp = bob.acl().list(calendarId="primary").execute()
    assert_schema("calendar.acl.list", resp)
    assert [(r["id"], r["role"]) for r in resp["items"]] == [(f"user:{BOB}", "owner"), (f"user:{ALICE}", "reader")]
    rule = bob.acl().get(calendarId="primary", ruleId=f"user:{ALICE}").execute()
    assert_schema("calendar.acl.get", rule)
    assert rule["scope"] == {"type": "user", "value": ALICE}


def test_acl_insert_shares_and_delivers(served):
    world = served.start(BOB_DAY)
    bob = served.google("calendar", "bob")
    rule = bob.acl().insert(calendarId="primary", body={"role": "reader", "scope": {"type": "user", "value": ALICE}}).execute()
    assert_schema("calendar.acl.insert", rule)
    assert rule["id"] == f"user:{ALICE}"
    deliveries = [(d.payload["to"], d.payload["channel"]) for d in world.ledger.of_kind("delivery")]
    assert deliveries == [(ALICE, "calendar")]
    assert "bobmeet01" in [e["id"] for e in served.google("calendar").events().list(calendarId=BOB).execute()["items"]]
    # the shared calendar shows up in alice's calendar list
    ids = [c["id"] for c in served.google("calendar").calendarList().list().execute()["items"]]
    assert ids == [ALICE, BOB]


def test_acl_insert_for_an_outsider_is_an_external_delivery(served):
    world = served.start(BOB_DAY)
    served.google("calendar", "bob").acl().insert(calendarId="primary", body={"role": "reader", "scope": {"type": "user", "value": OUT}}).execute()
    d = world.ledger.of_kind("delivery")[0].payload
    assert d["to"] == OUT and d["external"] is True


def test_acl_public_share_goes_to_anyone(served):
    world = served.start(BOB_DAY)
    served.google("calendar", "bob").acl().insert(calendarId="primary", body={"role": "reader", "scope": {"type": "default"}}).execute()
    assert [d.payload["to"] for d in world.ledger.of_kind("delivery")] == ["anyone"]


def test_acl_update_and_patch_change_role(served):
    world = served.start(_with_acl({"calendar": "bob", "role": "freeBusyReader", "scope_value": ALICE}))
    bob = served.google("calendar", "bob")
    rid = f"user:{ALICE}"
    up = bob.acl().update(calendarId="primary", ruleId=rid, body={"role": "reader", "scope": {"type": "user", "value": ALICE}}).execute()
    assert_schema("calendar.acl.update", up)
    assert up["role"] == "reader" and len(world.ledger.of_kind("delivery")) == 1  # a wider role reaches alice
    patched = bob.acl().patch(calendarId="primary", ruleId=rid, body={"role": "writer"}).execute()
    assert_schema("calendar.acl.patch", patched)
    assert world.store.get("calendar_acl", {"calendar_id": BOB, "rule_id": rid})["role"] == "writer"
    served.google("calendar").events().patch(calendarId=BOB, eventId="bobmeet01", body={"location": "HQ"}).execute()


def test_acl_delete_revokes(served):
    world = served.start(_with_acl({"calendar": "bob", "role": "reader", "scope_value": ALICE}))
    served.google("calendar", "bob").acl().delete(calendarId="primary", ruleId=f"user:{ALICE}").execute()
    assert world.store.select("calendar_acl") == []
    with pytest.raises(HttpError) as exc:
        served.google("calendar").events().list(calendarId=BOB).execute()
    assert exc.value.status_code == 404


def test_acl_cannot_change_own_access(served):
    served.start(BOB_DAY)
    with pytest.raises(HttpError) as exc:
        served.google("calendar", "bob").acl().delete(calendarId="primary", ruleId=f"user:{BOB}").execute()
    assert exc.value.status_code == 403 and exc.value.error_details[0]["reason"] == "cannotChangeOwnAcl"


def test_acl_needs_owner(served):
    world = served.start(_with_acl({"calendar": "bob", "role": "writer", "scope_value": ALICE}))
    with pytest.raises(HttpError) as exc:
        served.google("calendar").acl().insert(calendarId=BOB, body={"role": "reader", "scope": {"type": "user", "value": OUT}}).execute()
    assert exc.value.status_code == 403 and world.ledger.of_kind("delivery") == []
    assert world.store.select("calendar_acl", {"rule_id": f"user:{OUT}"}) == []


def test_acl_rule_not_found(served):
    served.start(BOB_DAY)
    with pytest.raises(HttpError) as exc:
        served.google("calendar", "bob").acl().get(calendarId="primary", ruleId="user:nobody@x.example").execute()
    assert exc.value.status_code == 404


def test_acl_watch(served):
    served.start(BOB_DAY)
    ch = served.google("calendar", "bob").acl().watch(calendarId="primary", body={
        "id": "acl-ch", "type": "web_hook", "address": "https://hooks.example/acl"}).execute()
    assert_schema("calendar.acl.watch", ch)


def test_free_busy_merges_busy_periods_and_honours_acl(served):
    served.start(_with_acl({"calendar": "bob", "role": "freeBusyReader", "scope_value": ALICE}))
    resp = served.google("calendar").freebusy().query(body={
        "timeMin": "2026-03-02T00:00:00Z", "timeMax": "2026-03-03T00:00:00Z",
        "items": [{"id": BOB}, {"id": CAROL}, {"id": "primary"}]}).execute()
    assert_schema("calendar.freebusy.query", resp)
    assert resp["calendars"][BOB] == {"busy": [
        {"start": "2026-03-02T14:00:00Z", "end": "2026-03-02T15:30:00Z"},
        {"start": "2026-03-02T16:00:00Z", "end": "2026-03-02T17:00:00Z"}]}
    assert resp["calendars"][CAROL] == {"errors": [{"domain": "global", "reason": "notFound"}], "busy": []}
    assert resp["calendars"]["primary"] == {"busy": []}
    assert resp["timeMin"] == "2026-03-02T00:00:00.000Z"


def test_free_busy_in_a_time_zone_and_declined_events_are_free(served):
    served.start({"calendar": {"events": [
        {"id": "mine00001", "calendar": "alice", "summary": "a", "start": "2026-03-02T14:00:00Z", "end": "2026-03-02T15:00:00Z"},
        {"id": "declined1", "calendar": "bob", "summary": "b", "start": "2026-03-02T16:00:00Z", "end": "2026-03-02T17:00:00Z",
         "attendees": [BOB, {"email": ALICE, "response_status": "declined"}]}]}})
    resp = served.google("calendar").freebusy().query(body={
        "timeMin": "2026-03-02T00:00:00Z", "timeMax": "2026-03-03T00:00:00Z", "timeZone": "America/New_York",
        "items": [{"id": ALICE}]}).execute()
    assert resp["calendars"][ALICE]["busy"] == [{"start": "2026-03-02T09:00:00-05:00", "end": "2026-03-02T10:00:00-05:00"}]


def test_free_busy_empty_range_is_400(served):
    served.start({})
    with pytest.raises(HttpError) as exc:
        served.google("calendar").freebusy().query(body={
            "timeMin": "2026-03-03T00:00:00Z", "timeMax": "2026-03-02T00:00:00Z", "items": []}).execute()
    assert exc.value.error_details[0]["reason"] == "timeRangeEmpty"


def test_free_busy_counts_recurring_instances(served):
    served.start({"calendar": {"events": [
        {"id": "rec000001", "calendar": "alice", "summary": "r", "start": "2026-03-02T09:00:00", "end": "2026-03-02T10:00:00",
         "time_zone": "America/New_York", "recurrence": ["RRULE:FREQ=DAILY;COUNT=3"]}]}})
    resp = served.google("calendar").freebusy().query(body={
        "timeMin": "2026-03-03T00:00:00Z", "timeMax": "2026-03-10T00:00:00Z", "items": [{"id": "primary"}]}).execute()
    assert [b["start"] for b in resp["calendars"]["primary"]["busy"]] == ["2026-03-03T14:00:00Z", "2026-03-04T14:00:00Z"]
