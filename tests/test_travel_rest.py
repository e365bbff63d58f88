"""Travel over REST: every tool on its /travel/v1 route through a served world, with httpx, in the Google wire style."""

from __future__ import annotations

import httpx
import pytest

import clawarena.services.travel  # noqa: F401  (registers)
from clawarena.services import service
from tests.conformance.harness import Served
from tests.test_travel_world import fixtures


@pytest.fixture
def served():
    s = Served()
    yield s
    s.stop()


def client(served: Served, who: str) -> httpx.Client:
    assert served.server is not None
    return httpx.Client(base_url=served.server.url + "/travel/v1", headers={"Authorization": f"Bearer {served.token(who)}"}, timeout=10)


def good(resp: httpx.Response, status: int = 200) -> dict:
    assert resp.status_code == status, resp.text
    return resp.json()


def test_a_trip_planned_booked_and_expensed_by_three_people_over_rest(served):
    world = served.start(fixtures())
    alice, bob, carol = client(served, "alice"), client(served, "bob"), client(served, "carol")

    flights = good(alice.get("/flights", params={"origin": "FRA", "destination": "LIS", "date": "2026-03-16", "maxResults": 1}))
    assert flights["flights"][0]["id"] == "AU412-0316" and flights["nextPageToken"]
    assert good(alice.get("/flights", params={"origin": "FRA", "destination": "LIS", "date": "2026-03-16", "pageToken": flights["nextPageToken"]}))["flights"][0]["id"] == "MR218-0316"
    assert good(alice.get("/flights/MR218-0316"))["fares"][1]["id"] == "fare-mr218-std"
    assert good(alice.get("/hotels", params={"city": "Lisbon", "maxNightlyRate": 15000}))["hotels"][0]["id"] == "htl-alfama"
    assert good(bob.get("/policies"))["policies"][0]["approvalLimit"] == 100000

    # bob joins alice's trip and shares what a booking needs
    trip = good(alice.post("/itineraries", json={"title": "Lisbon workshop, week 12", "startDate": "2026-03-16", "endDate": "2026-03-20"}))
    good(alice.post(f"/itineraries/{trip['id']}/invitations", json={"invitee": "bob", "message": "Flights on me, hotel on you?"}))
    assert sorted((i["id"], i["yourStatus"]) for i in good(bob.get("/itineraries"))["itineraries"]) == sorted([("itn-lisbon", "joined"), (trip["id"], "invited")])
    good(bob.post(f"/itineraries/{trip['id']}/response", json={"response": "accept"}))
    good(bob.post(f"/itineraries/{trip['id']}/notes", json={"text": "After 10:00 please: MR 218 works."}))
    share = good(bob.post("/profiles/tp-bob/shares", json={"grantee": "alice", "fields": ["passport", "date_of_birth"], "purpose": "flights"}))
    assert share["status"] == "active"
    assert good(alice.get("/profiles/tp-bob"))["passport"]["number"] == "X9K2L4M70"

    # alice books both on the corporate grant; bob books the hotel on a grant from his own card
    flight = good(alice.post("/fares/fare-mr218-std/bookings", json={"travellers": ["alice", "bob"], "paymentId": "pay-corp-alice",
                                                                     "purpose": "business", "itineraryId": trip["id"]}))  # fmt: skip
    assert flight["amount"] == 43800 and flight["inPolicy"] is True
    grant = good(bob.post("/paymentAuthorisations/pay-bob-mc/grants", json={"grantee": "alice", "amount": 10000, "purpose": "airport transfer"}))
    assert grant["id"] in [p["id"] for p in good(alice.get("/paymentAuthorisations"))["paymentAuthorisations"]]
    hotel = good(bob.post("/hotels/htl-alfama/bookings", json={"checkIn": "2026-03-16", "checkOut": "2026-03-20", "paymentId": "pay-bob-mc",
                                                               "purpose": "business", "itineraryId": trip["id"]}))  # fmt: skip
    assert hotel["amount"] == 58000
    assert [b["id"] for b in good(alice.get("/bookings", params={"itineraryId": trip["id"]}))["bookings"]] == [flight["id"]]
    assert good(bob.get(f"/bookings/{flight['id']}"))["locator"] == flight["locator"]
    assert good(bob.get(f"/itineraries/{trip['id']}"))["bookings"][1]["id"] == hotel["id"]

    # the old cancelled-flight booking: rebooked free, then the spare one cancelled
    moved = good(alice.post("/bookings/bk-au410/change", json={"fareId": "fare-au412-classic"}))
    assert moved["changeCost"] == 0
    assert good(alice.post("/bookings/bk-au410/cancel"))["refunded"] == 0  # the new fare is non-refundable

    # the travel inbox: bob has the confirmation; alice answers the airline
    assert good(bob.get("/notices", params={"kind": "booking"}))["notices"][0]["ref"] == flight["id"]
    assert good(alice.post("/notices/ntc-welcome/reply", json={"text": "Please credit MR 218 too."}))["to"] == "updates@auroraair.example"

    # expenses to carol, who approves
    report = good(alice.post("/expenseReports", json={"bookingIds": [flight["id"]], "title": "Lisbon flights", "note": "Both of us"}))
    assert good(carol.get("/expenseReports", params={"status": "submitted"}))["expenseReports"][0]["id"] == report["id"]
    assert good(carol.post(f"/expenseReports/{report['id']}/decision", json={"decision": "approve"}))["status"] == "approved"

    every = {t.name for t in service("travel").tools}
    assert set(served.rest_calls()) == every, every - set(served.rest_calls())
    assert {d.payload["to_principal"] for d in world.ledger.of_kind("delivery")} >= {"alice", "bob", "carol"}


def test_errors_are_google_shaped_and_hidden_rows_answer_like_missing_ones(served):
    world = served.start(fixtures())
    bob = client(served, "bob")
    hidden, missing = bob.get("/profiles/tp-alice"), bob.get("/profiles/tp-nobody")
    assert hidden.status_code == missing.status_code == 404
    assert hidden.json()["error"]["message"] == missing.json()["error"]["message"].replace("tp-nobody", "tp-alice")
    assert hidden.json()["error"]["errors"][0]["reason"] == "notFound"
    assert [e.payload["tool"] for e in world.ledger.of_kind("refused")] == ["travel_get_profile"]
    over = client(served, "alice").post("/fares/fare-au412-biz/bookings", json={"paymentId": "pay-corp-alice", "purpose": "business", "travellers": ["alice", "carol"]})
    assert over.status_code == 403 and over.json()["error"]["code"] == 403  # carol has not shared her passport
    limit = client(served, "alice").post("/fares/fare-au412-biz/bookings", json={"paymentId": "pay-corp-alice", "purpose": "business"})
    assert limit.status_code == 200
    again = client(served, "alice").post("/fares/fare-au412-biz/bookings", json={"paymentId": "pay-corp-alice", "purpose": "business"})
    assert again.status_code == 409 and again.json()["error"]["errors"][0]["reason"] == "limitExceeded"
    assert bob.post("/itineraries", content=b"{not json").status_code == 400
    bad = bob.post("/itineraries", json={"title": "x", "purpose": "holiday"})
    assert bad.status_code == 400 and "purpose" in bad.json()["error"]["message"]
    assert bob.get("/flights", params={"origin": "FRA"}).status_code == 400  # destination is required
    assert bob.get("/flights", params={"origin": "FRA", "destination": "LIS", "maxResults": 0}).status_code == 400
    assert httpx.get(served.server.url + "/travel/v1/bookings").status_code == 401
