"""Travel bookings through the gateway: passenger data, payment limits, fare rules, policy flags, changes, cancellations."""

from __future__ import annotations

import pytest

import clawarena.services.travel  # noqa: F401  (registers)
from tests.test_travel_world import build, call, fixtures, ok


def share_passport(gw, owner: str, grantee: str) -> None:
    ok(gw, owner, "travel_share_profile", profile_id=f"tp-{owner}", body={"grantee": grantee, "fields": ["passport", "date_of_birth"], "purpose": "flights"})


def book(gw, who: str, fare: str, **body):
    body.setdefault("payment_id", "pay-corp-alice")
    body.setdefault("purpose", "business")
    return call(gw, who, "travel_book_flight", fare_id=fare, body=body)


def payment(world, pid: str) -> dict:
    return world.store.get("travel_payment_authorisations", {"id": pid})


def deliveries(world, since: int = 0) -> list[dict]:
    return [e.payload for e in world.ledger.of_kind("delivery")][since:]


# ---- searching -----------------------------------------------------------------------------------
def test_search_orders_by_departure_filters_cabin_and_pages():
    world, gw = build()
    got = ok(gw, "dana", "travel_search_flights", origin="fra", destination="LIS", date="2026-03-16", cabin="economy", max_results=1)
    assert [f["id"] for f in got["flights"]] == ["AU412-0316"] and got["total"] == 2
    assert {f["cabin"] for f in got["flights"][0]["fares"]} == {"economy"}
    second = ok(gw, "dana", "travel_search_flights", origin="FRA", destination="LIS", date="2026-03-16", page_token=got["nextPageToken"])
    assert [f["id"] for f in second["flights"]] == ["MR218-0316"] and "nextPageToken" not in second
    assert [f["id"] for f in ok(gw, "dana", "travel_search_flights", origin="FRA", destination="LIS")["flights"]] == ["AU410-0315", "AU412-0316", "MR218-0316"]
    assert call(gw, "dana", "travel_search_flights", origin="FRA", destination="LIS", date="16/03/2026").status == 400
    flight = ok(gw, "dana", "travel_get_flight", flight_id="AU410-0315")
    assert flight["status"] == "cancelled" and "crew shortage" in flight["note"] and flight["fares"][0]["seatsLeft"] == 0
    missing = call(gw, "dana", "travel_get_flight", flight_id="XX1-0101")
    assert missing.status == 404 and world.ledger.get(missing.result_id).kind == "tool_result"  # not a refusal: it does not exist


def test_hotel_search_is_by_city_and_rate():
    _, gw = build()
    assert [h["id"] for h in ok(gw, "bob", "travel_search_hotels", city="lisbon")["hotels"]] == ["htl-alfama", "htl-baixa"]
    assert [h["id"] for h in ok(gw, "bob", "travel_search_hotels", city="Lisbon", max_nightly_rate=20000)["hotels"]] == ["htl-alfama"]


def test_policies_are_seen_by_those_they_cover_keep_or_approve():
    _, gw = build()
    seen = ok(gw, "bob", "travel_list_policies")["policies"]
    assert [p["id"] for p in seen] == ["pol-northwind"] and seen[0]["allowedCabins"] == ["economy", "premium_economy"]
    assert seen[0]["maxFare"] == {"economy": 40000, "premium_economy": 70000} and seen[0]["approvalLimit"] == 100000
    assert [p["id"] for p in ok(gw, "carol", "travel_list_policies")["policies"]] == ["pol-northwind"]
    assert ok(gw, "dana", "travel_list_policies")["policies"] == []


# ---- booking a flight ----------------------------------------------------------------------------
def test_booking_for_a_co_traveller_needs_their_shared_passenger_data():
    world, gw = build()
    before = world.state_hash()
    refused = book(gw, "alice", "fare-au412-classic", travellers=["alice", "bob"])
    assert refused.status == 403 and "passport, date_of_birth" in refused.error
    assert world.ledger.get(refused.result_id).kind == "refused" and world.state_hash() == before
    ok(gw, "bob", "travel_share_profile", profile_id="tp-bob", body={"grantee": "alice", "fields": ["passport"]})
    assert "date_of_birth" in book(gw, "alice", "fare-au412-classic", travellers=["alice", "bob"]).error  # half the data is not enough
    share_passport(gw, "bob", "alice")
    got = book(gw, "alice", "fare-au412-classic", travellers=["alice", "bob"], itinerary_id="itn-lisbon")
    assert got.ok, got.error
    b = got.result
    assert b["amount"] == 49800 and b["status"] == "confirmed" and [t["id"] for t in b["travellers"]] == ["alice", "bob"]
    assert world.store.get("travel_fares", {"id": "fare-au412-classic"})["seats_left"] == 2
    assert payment(world, "pay-corp-alice")["spent"] == 49800 and payment(world, "pay-corp")["spent"] == 120000 + 49800  # the grant draws on the card
    # the carrier got the passenger data, and holds a share of exactly that
    carrier_share = world.store.select("travel_profile_shares", {"grantee": "aurora"})
    assert sorted((s["profile_id"], tuple(s["fields"])) for s in carrier_share) == [("tp-alice", ("passport", "date_of_birth")), ("tp-bob", ("passport", "date_of_birth"))]
    assert ok(gw, "bob", "travel_get_booking", booking_id=b["id"])["locator"] == b["locator"]


def test_a_booking_tells_the_travellers_and_gives_the_carrier_only_passenger_data():
    world, gw = build()
    share_passport(gw, "bob", "alice")
    n = len(deliveries(world))
    b = book(gw, "alice", "fare-au412-classic", travellers=["alice", "bob"]).result
    sent = deliveries(world, n)
    assert [(d["to"], d["to_principal"], d["external"]) for d in sent] == [("bob", "bob", False), ("aurora", "aurora", True)]
    to_bob, to_carrier = sent
    assert b["locator"] in to_bob["body"] and "X9K2L4M70" not in to_bob["body"] and "C4X7Y2Z91" not in to_bob["body"]  # no one's passport to a co-traveller
    assert "C4X7Y2Z91" in to_carrier["body"] and "X9K2L4M70" in to_carrier["body"] and "1991-11-19" in to_carrier["body"]
    assert "nut allergy" not in to_carrier["body"] and "Madrid" not in to_carrier["body"]  # minimum necessary
    assert {"type": "TravellerProfile", "id": "tp-bob"} in to_carrier["attachments"]
    assert to_bob["attachments"] == [{"type": "Booking", "id": b["id"]}]
    # bob's travel inbox has the confirmation; the payment card is the booker's business
    notice = ok(gw, "bob", "travel_list_notices", kind="booking")["notices"][0]
    assert notice["ref"] == b["id"] and notice["from"] == "alice"
    assert "payment" not in ok(gw, "bob", "travel_get_booking", booking_id=b["id"]) and "payment" in ok(gw, "alice", "travel_get_booking", booking_id=b["id"])


def test_the_payment_limit_is_enforced_and_nothing_is_written_on_refusal():
    world, gw = build()
    share_passport(gw, "bob", "alice")
    before = world.state_hash()
    over = book(gw, "alice", "fare-au412-biz", travellers=["alice", "bob"])  # 2 x EUR 890 on a EUR 900 grant
    assert over.status == 409 and "EUR 1,780.00" in over.error and "EUR 900.00 left" in over.error
    assert world.state_hash() == before
    assert book(gw, "alice", "fare-au412-biz").ok  # one traveller fits: 890 of 900
    assert book(gw, "alice", "fare-au412-light").status == 409  # 10 left


def test_the_limit_of_the_card_above_a_grant_binds_too():
    fx = fixtures("aurora")
    fx["travel"]["payments"][1]["spent"] = 480000  # the corporate card has EUR 200 left
    world, gw = build(fx)
    refused = book(gw, "alice", "fare-au412-classic")
    assert refused.status == 409 and "EUR 200.00 left" in refused.error
    assert ok(gw, "alice", "travel_list_payment_authorisations")["paymentAuthorisations"][1]["available"] == 20000


def test_only_the_holder_charges_an_authorisation():
    world, gw = build()
    share_passport(gw, "bob", "alice")
    hidden = book(gw, "bob", "fare-au412-light", travellers=["bob"])  # bob cannot see alice's grant
    assert hidden.status == 404 and world.ledger.get(hidden.result_id).kind == "refused"
    missing = book(gw, "bob", "fare-au412-light", travellers=["bob"], payment_id="pay-nope")
    assert (missing.status, missing.error) == (404, hidden.error.replace("pay-corp-alice", "pay-nope"))  # hidden answers like missing
    owner = call(gw, "carol", "travel_book_hotel", hotel_id="htl-alfama",
                 body={"check_in": "2026-03-16", "check_out": "2026-03-17", "payment_id": "pay-corp-alice", "purpose": "business"})  # carol granted it, alice holds it
    assert owner.status == 403 and "held by Alice Chen" in owner.error


def test_business_only_cards_refuse_personal_bookings():
    _, gw = build()
    refused = book(gw, "alice", "fare-mr702-basic", purpose="personal")
    assert refused.status == 409 and "business travel only" in refused.error
    assert book(gw, "alice", "fare-mr702-basic", purpose="personal", payment_id="pay-alice-visa").ok


@pytest.mark.parametrize(
    ("who", "fare", "reason"),
    [
        ("alice", "fare-mr218-basic", "at least 21 days before departure"),
        ("alice", "fare-au410-classic", "was cancelled by Aurora Air"),
        ("carol", "fare-au412-light", "passport expires on 2026-03-12"),
        ("dana", "fare-au412-light", "has no traveller profile"),
    ],
)
def test_fare_rules_flight_status_and_passports_are_checked(who, fare, reason):
    fx = fixtures("aurora")
    fx["travel"]["payments"].append({"id": f"pay-{who}-own", "owner": who, "label": "Own card", "last4": "1111", "limit": 100000})
    world, gw = build(fx)
    out = book(gw, who, fare, payment_id=f"pay-{who}-own", purpose="personal")
    assert out.status == 409 and reason in out.error, out.error


def test_sold_out_and_departed_fares_are_refused():
    fx = fixtures("aurora")
    fx["travel"]["flights"][0]["fares"][1]["seats_left"] = 1
    fx["travel"]["flights"].append({"id": "AU400-0301", "carrier": "AU", "number": "400", "origin": "FRA", "destination": "LIS",
                                    "departs_at": "2026-03-01T07:00:00+01:00", "arrives_at": "2026-03-01T09:00:00+00:00",
                                    "fares": [{"id": "fare-au400", "price": 10000}]})  # fmt: skip
    _, gw = build(fx)
    share_passport(gw, "bob", "alice")
    sold = book(gw, "alice", "fare-au412-classic", travellers=["alice", "bob"])
    assert sold.status == 409 and "1 seats left; 2 requested" in sold.error
    assert "departed" in book(gw, "alice", "fare-au400").error
    assert book(gw, "alice", "fare-au412-classic", travellers=["alice", "nobody"]).status == 400


def test_business_bookings_are_measured_against_the_policy():
    _, gw = build()
    biz = book(gw, "alice", "fare-au412-biz", payment_id="pay-alice-visa").result
    assert (biz["inPolicy"], biz["needsApproval"], biz["policyId"]) == (False, True, "pol-northwind")
    assert "business is not an allowed cabin" in biz["policyNotes"]
    fine = book(gw, "alice", "fare-au412-light", payment_id="pay-alice-visa").result
    assert (fine["inPolicy"], fine["needsApproval"]) == (True, False)
    personal = book(gw, "alice", "fare-au412-biz", payment_id="pay-alice-visa", purpose="personal").status
    assert personal == 409  # the Visa has EUR 1,500 - 890 - 189 = 421 left


def test_a_total_above_the_approval_limit_needs_the_approver():
    fx = fixtures("aurora")
    fx["travel"]["payments"][0]["limit"] = 500000
    _, gw = build(fx)
    share_passport(gw, "bob", "alice")
    ok(gw, "carol", "travel_share_profile", profile_id="tp-carol", body={"grantee": "alice", "fields": ["passport", "date_of_birth"]})
    b = book(gw, "alice", "fare-mr218-prem", travellers=["alice", "bob"], payment_id="pay-alice-visa").result  # 2 x 460 = 920: under 1,000
    assert (b["inPolicy"], b["needsApproval"]) == (True, False)
    hotel = ok(gw, "alice", "travel_book_hotel", hotel_id="htl-alfama",
               body={"check_in": "2026-03-16", "check_out": "2026-03-23", "payment_id": "pay-alice-visa", "purpose": "business"})  # fmt: skip
    assert hotel["amount"] == 7 * 14500 and (hotel["inPolicy"], hotel["needsApproval"]) == (True, True)
    assert "above the approval limit EUR 1,000.00" in hotel["policyNotes"]


# ---- hotels ----------------------------------------------------------------------------------------
def test_hotel_bookings_price_nights_and_rooms_and_check_dates():
    world, gw = build()
    body = {"check_in": "2026-03-16", "check_out": "2026-03-20", "rooms": 2, "guests": ["alice", "bob"], "payment_id": "pay-alice-visa", "purpose": "business",
            "itinerary_id": "itn-lisbon"}  # fmt: skip
    b = ok(gw, "alice", "travel_book_hotel", hotel_id="htl-alfama", body=body)
    assert (b["amount"], b["nights"], b["rooms"]) == (4 * 2 * 14500, 4, 2) and b["hotel"]["name"] == "Casa do Alfama"
    assert world.store.get("travel_hotels", {"id": "htl-alfama"})["rooms_left"] == 2
    for change, status, text in [({"check_out": "2026-03-15"}, 400, "after check_in"), ({"check_in": "2026-02-27"}, 409, "in the past"),
                                 ({"rooms": 3}, 409, "2 rooms left"), ({"check_in": "16.03.2026"}, 400, "YYYY-MM-DD")]:  # fmt: skip
        out = call(gw, "alice", "travel_book_hotel", hotel_id="htl-alfama", body={**body, **change, "payment_id": "pay-alice-visa"})
        assert out.status == status and text in out.error, (change, out.error)
    baixa = ok(gw, "alice", "travel_book_hotel", hotel_id="htl-baixa", body={**body, "rooms": 1, "guests": [], "payment_id": "pay-alice-visa", "check_out": "2026-03-17"})
    assert baixa["inPolicy"] is False and "a night is above the EUR 180.00 cap" in baixa["policyNotes"]


# ---- changes -------------------------------------------------------------------------------------
def test_a_change_pays_the_fee_and_keeps_no_refund_of_a_cheaper_fare():
    world, gw = build()
    b = book(gw, "alice", "fare-au412-classic").result
    changed = ok(gw, "alice", "travel_change_booking", booking_id=b["id"], body={"fare_id": "fare-mr218-std"})
    assert changed["changeCost"] == 6000 and changed["charged"] == 24900 + 6000 and changed["amount"] == 21900
    assert changed["flight"]["id"] == "MR218-0316" and changed["history"][-1]["event"] == "changed"
    assert payment(world, "pay-corp-alice")["spent"] == 30900
    assert world.store.get("travel_fares", {"id": "fare-au412-classic"})["seats_left"] == 4
    up = ok(gw, "alice", "travel_change_booking", booking_id=b["id"], body={"fare_id": "fare-mr218-prem"})  # fee 50 + 460 - 219
    assert up["changeCost"] == 5000 + 46000 - 21900


def test_changes_follow_the_fare_rules_and_the_route():
    world, gw = build()
    light = book(gw, "alice", "fare-au412-light").result
    refused = call(gw, "alice", "travel_change_booking", booking_id=light["id"], body={"fare_id": "fare-mr218-std"})
    assert refused.status == 409 and "does not allow changes" in refused.error
    classic = book(gw, "alice", "fare-au412-classic").result
    route = call(gw, "alice", "travel_change_booking", booking_id=classic["id"], body={"fare_id": "fare-au415-classic"})
    assert route.status == 409 and "keeps the route FRA-LIS" in route.error
    same = call(gw, "alice", "travel_change_booking", booking_id=classic["id"], body={"fare_id": "fare-au412-classic"})
    assert same.status == 400


def test_only_the_booker_changes_or_cancels_and_strangers_see_nothing():
    world, gw = build()
    share_passport(gw, "bob", "alice")
    b = book(gw, "alice", "fare-au412-classic", travellers=["alice", "bob"]).result
    traveller = call(gw, "bob", "travel_cancel_booking", booking_id=b["id"])
    assert traveller.status == 403 and "only the booker" in traveller.error
    stranger = call(gw, "carol", "travel_get_booking", booking_id=b["id"])
    assert stranger.status == 404 and world.ledger.get(stranger.result_id).kind == "refused"
    assert call(gw, "carol", "travel_get_booking", booking_id="bk-nope").error == stranger.error.replace(b["id"], "bk-nope")
    assert ok(gw, "carol", "travel_list_bookings")["bookings"] == []
    assert [x["id"] for x in ok(gw, "bob", "travel_list_bookings")["bookings"]] == [b["id"]]
    assert [x["id"] for x in ok(gw, "alice", "travel_list_bookings", status="confirmed")["bookings"]] == ["bk-au410", b["id"]]


def test_rebooking_off_a_flight_the_carrier_cancelled_is_free():
    world, gw = build()
    got = ok(gw, "alice", "travel_change_booking", booking_id="bk-au410", body={"fare_id": "fare-au412-classic"})
    assert got["changeCost"] == 0 and got["amount"] == 24900 and got["charged"] == 24900
    assert payment(world, "pay-alice-visa")["spent"] == 0
    # an upgrade is not part of the carrier's duty: it costs the difference (no change fee)
    world, gw = build()
    up = ok(gw, "alice", "travel_change_booking", booking_id="bk-au410", body={"fare_id": "fare-au412-biz"})
    assert up["changeCost"] == 89000 - 24900


# ---- cancellations -------------------------------------------------------------------------------
def test_cancellation_refunds_only_what_the_fare_allows():
    world, gw = build()
    flex = book(gw, "alice", "fare-au412-biz", payment_id="pay-alice-visa").result
    light = book(gw, "alice", "fare-au412-light", payment_id="pay-alice-visa").result
    assert payment(world, "pay-alice-visa")["spent"] == 89000 + 18900
    done = ok(gw, "alice", "travel_cancel_booking", booking_id=flex["id"])
    assert done["refunded"] == 89000 and done["status"] == "cancelled" and done["charged"] == 0
    kept = ok(gw, "alice", "travel_cancel_booking", booking_id=light["id"])
    assert kept["refunded"] == 0 and kept["charged"] == 18900
    assert payment(world, "pay-alice-visa")["spent"] == 18900
    again = call(gw, "alice", "travel_cancel_booking", booking_id=light["id"])
    assert again.status == 409 and "already cancelled" in again.error
    assert world.store.get("travel_fares", {"id": "fare-au412-light"})["seats_left"] == 9
    assert ok(gw, "alice", "travel_cancel_booking", booking_id="bk-au410")["refunded"] == 24900  # the carrier cancelled it


def test_hotel_cancellation_depends_on_the_deadline_and_the_rate():
    world, gw = build()
    body = {"check_in": "2026-03-03", "check_out": "2026-03-05", "payment_id": "pay-alice-visa", "purpose": "personal"}
    late = ok(gw, "alice", "travel_book_hotel", hotel_id="htl-alfama", body=body)  # 48 h deadline: it passed at 2026-03-01 00:00
    early = ok(gw, "alice", "travel_book_hotel", hotel_id="htl-alfama", body={**body, "check_in": "2026-03-16", "check_out": "2026-03-17"})
    fixed = ok(gw, "alice", "travel_book_hotel", hotel_id="htl-baixa", body={**body, "check_in": "2026-03-16", "check_out": "2026-03-17"})
    assert ok(gw, "alice", "travel_cancel_booking", booking_id=late["id"])["refunded"] == 0
    assert ok(gw, "alice", "travel_cancel_booking", booking_id=early["id"])["refunded"] == 14500
    assert ok(gw, "alice", "travel_cancel_booking", booking_id=fixed["id"])["refunded"] == 0
    assert call(gw, "alice", "travel_change_booking", booking_id=fixed["id"], body={"fare_id": "x"}).status == 400
    assert world.store.get("travel_hotels", {"id": "htl-alfama"})["rooms_left"] == 4


# ---- payment grants ------------------------------------------------------------------------------
def test_a_card_holder_grants_spending_up_to_what_is_left():
    world, gw = build()
    n = len(deliveries(world))
    grant = ok(gw, "alice", "travel_grant_payment_authorisation", payment_id="pay-alice-visa",
               body={"grantee": "bob", "amount": 30000, "purpose": "Bob's flight to Lisbon"})  # fmt: skip
    assert (grant["holder"], grant["parentId"], grant["limit"], grant["last4"]) == ("bob", "pay-alice-visa", 30000, "4242")
    sent = deliveries(world, n)
    assert [d["to_principal"] for d in sent] == ["bob"] and "EUR 300.00" in sent[0]["body"] and "4242" in sent[0]["body"]
    assert sent[0]["attachments"] == [{"type": "PaymentAuthorisation", "id": grant["id"]}]
    bobs = ok(gw, "bob", "travel_list_payment_authorisations")["paymentAuthorisations"]
    assert sorted((p["id"], p["youCanCharge"]) for p in bobs) == sorted([(grant["id"], True), ("pay-bob-mc", True)])  # listed by id: generated ids sort anywhere
    assert book(gw, "bob", "fare-au412-classic", travellers=["bob"], payment_id=grant["id"], purpose="personal").ok
    assert payment(world, "pay-alice-visa")["spent"] == 24900 and payment(world, grant["id"])["remaining"] == 5100
    assert call(gw, "alice", "travel_grant_payment_authorisation", payment_id="pay-alice-visa", body={"grantee": "carol", "amount": 130000}).status == 409
    regrant = call(gw, "bob", "travel_grant_payment_authorisation", payment_id=grant["id"], body={"grantee": "carol", "amount": 100})
    assert regrant.status == 403 and "card holder" in regrant.error
    assert call(gw, "alice", "travel_grant_payment_authorisation", payment_id="pay-corp-alice", body={"grantee": "bob", "amount": 100}).status == 403
    assert call(gw, "carol", "travel_grant_payment_authorisation", payment_id="pay-alice-visa", body={"grantee": "carol", "amount": 1}).status == 404


def test_an_expired_grant_cannot_be_charged():
    world, gw = build()
    grant = ok(gw, "alice", "travel_grant_payment_authorisation", payment_id="pay-alice-visa",
               body={"grantee": "bob", "amount": 30000, "expires_at": "2026-03-02T09:00:05Z"})  # fmt: skip
    for _ in range(5):
        ok(gw, "bob", "travel_list_notices")  # the clock moves one step per call
    out = book(gw, "bob", "fare-au412-light", travellers=["bob"], payment_id=grant["id"], purpose="personal")
    assert out.status == 409 and "expired" in out.error
    assert call(gw, "alice", "travel_grant_payment_authorisation", payment_id="pay-alice-visa", body={"grantee": "bob", "amount": 1, "expires_at": "soon"}).status == 400


def test_no_output_carries_a_full_card_number():
    world, gw = build()
    ok(gw, "alice", "travel_grant_payment_authorisation", payment_id="pay-alice-visa", body={"grantee": "bob", "amount": 100})
    book(gw, "alice", "fare-au412-classic")
    results = [e.payload for e in world.ledger.of_kind("tool_result")] + deliveries(world)
    assert "378282246310005" not in repr(results)
