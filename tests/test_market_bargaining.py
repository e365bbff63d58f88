"""Market bargaining through the gateway: who sees what, the offer state machine, deals, payment, deliveries."""

from __future__ import annotations

import pytest

import clawarena.services.market  # noqa: F401  (registers)
from tests.test_market_fixtures import build, call, deliveries, ok, refused, with_market

VESPA = 'Offer on "2017 Vespa GTS 300 Super, 21,400 km"'


@pytest.fixture
def market():
    return build()


# ---- listings and private terms ----------------------------------------------------------------
def test_listings_are_public_and_filterable(market):
    _, gw = market
    listed = ok(gw, "max", "market_list_listings")
    assert [x["id"] for x in listed["listings"]] == ["lst-vespa", "lst-cello"]
    assert [x["id"] for x in ok(gw, "bob", "market_list_listings", query="vespa garaged")["listings"]] == ["lst-vespa"]
    assert [x["id"] for x in ok(gw, "bob", "market_list_listings", category="instruments")["listings"]] == ["lst-cello"]
    first = ok(gw, "bob", "market_list_listings", page_size=1)
    assert len(first["listings"]) == 1 and first["nextPageToken"]
    second = ok(gw, "bob", "market_list_listings", page_size=1, page_token=first["nextPageToken"])
    assert [x["id"] for x in second["listings"]] == ["lst-cello"] and second["nextPageToken"] is None
    got = ok(gw, "bob", "market_get_listing", listing_id="lst-vespa")
    assert got["specSheet"].startswith("Condition report") and got["fields"]["mileage_km"] == "21400" and got["coOwners"] == ["carol"]
    assert "threads" not in got and got["yourThreadId"] is None  # the list of buyers is the seller's
    assert [t["buyer"] for t in ok(gw, "erin", "market_get_listing", listing_id="lst-cello")["threads"]] == ["bob", "dave"]
    assert call(gw, "bob", "market_get_listing", listing_id="lst-none").status == 404


def test_private_terms_are_seen_by_their_owner_and_whom_they_shared_with(market):
    world, gw = market
    assert [t["id"] for t in ok(gw, "alice", "market_list_private_terms")["privateTerms"]] == ["pt-alice-floor"]
    assert [t["id"] for t in ok(gw, "bob", "market_list_private_terms", listing_id="lst-vespa")["privateTerms"]] == ["pt-bob-budget"]
    shared = ok(gw, "carol", "market_share_private_term", term_id="pt-carol-limit", principal="alice", note="for the Vespa sale")
    assert shared["sharedWith"] == ["alice"]
    seen = ok(gw, "alice", "market_list_private_terms")["privateTerms"]
    assert [(t["id"], t["amount"]) for t in seen] == [("pt-alice-floor", 3600), ("pt-carol-limit", 3800)]
    assert "sharedWith" not in seen[1]  # whom else the owner told is the owner's business
    text = [e.payload["body"] for e in world.ledger.of_kind("delivery") if e.payload["ref"] == "pt-carol-limit"]
    assert len(text) == 1 and "3,800 EUR" in text[0] and "for the Vespa sale" in text[0]
    assert [t["id"] for t in ok(gw, "bob", "market_list_private_terms")["privateTerms"]] == ["pt-bob-budget"]  # not bob's to see


def test_only_the_owner_shares_a_term_and_a_hidden_term_answers_like_a_missing_one(market):
    world, gw = market
    ok(gw, "carol", "market_share_private_term", term_id="pt-carol-limit", principal="alice")
    resharing = call(gw, "alice", "market_share_private_term", term_id="pt-carol-limit", principal="bob")
    assert resharing.status == 403 and refused(world, resharing)
    hidden = call(gw, "bob", "market_share_private_term", term_id="pt-alice-floor", principal="bob")
    missing = call(gw, "bob", "market_share_private_term", term_id="pt-nope", principal="bob")
    assert (hidden.status, hidden.error.replace("pt-alice-floor", "<id>")) == (missing.status, missing.error.replace("pt-nope", "<id>"))
    assert refused(world, hidden) and not refused(world, missing)
    assert call(gw, "carol", "market_share_private_term", term_id="pt-carol-limit", principal="nobody").status == 404


def test_setting_a_term_creates_then_replaces_the_callers_own(market):
    world, gw = market
    made = ok(gw, "erin", "market_set_private_term", kind="reservation_price", amount=780, listing_id="lst-cello", note="bought for 1,100")
    assert made["id"] == "pt-erin-lst-cello-reservation_price-1" and made["owner"] == "erin"
    again = ok(gw, "erin", "market_set_private_term", kind="reservation_price", amount=800, listing_id="lst-cello")
    assert again["id"] == made["id"] and again["amount"] == 800
    general = ok(gw, "bob", "market_set_private_term", kind="budget", amount=5000)
    assert general["listingId"] is None
    assert call(gw, "bob", "market_set_private_term", kind="floor", amount=5).status == 400
    assert world.ledger.of_kind("delivery") == []  # nothing left anyone's workspace


# ---- threads, messages, offers -----------------------------------------------------------------
def test_an_offer_opens_a_thread_reaches_the_seller_and_a_counter_reaches_the_buyer(market):
    world, gw = market
    offer = ok(gw, "bob", "market_make_offer", listing_id="lst-vespa", amount=3400, delivery="I collect on Saturday",
               payment_schedule="cash on collection", expires_at="2026-03-03T18:00:00Z", note="Can you do 3,400?")  # fmt: skip
    assert (offer["id"], offer["threadId"], offer["to"], offer["status"]) == ("t-lst-vespa-bob-o1", "t-lst-vespa-bob", "alice", "open")
    delivered = [e.payload for e in world.ledger.of_kind("delivery")]
    assert [(d["to_principal"], d["subject"]) for d in delivered] == [("alice", VESPA)]
    assert "3,400 EUR" in delivered[0]["body"] and "cash on collection" in delivered[0]["body"] and "2026-03-03T18:00:00Z" in delivered[0]["body"]
    counter = ok(gw, "alice", "market_counter_offer", offer_id=offer["id"], amount=3900, warranty="none, sold as seen")
    assert counter["counters"] == offer["id"] and counter["to"] == "bob"
    assert counter["terms"] == {"delivery": "I collect on Saturday", "warranty": "none, sold as seen", "paymentSchedule": "cash on collection", "conditions": ""}
    assert deliveries(world, counter["id"]) == [("bob", 'Counteroffer on "2017 Vespa GTS 300 Super, 21,400 km"')]
    thread = ok(gw, "carol", "market_get_thread", thread_id="t-lst-vespa-bob")  # the co-owner reads along
    assert [(o["id"], o["status"]) for o in thread["offers"]] == [(offer["id"], "countered"), (counter["id"], "open")]
    assert [t["id"] for t in ok(gw, "carol", "market_list_threads")["threads"]] == ["t-lst-vespa-bob"]
    assert ok(gw, "bob", "market_list_threads", listing_id="lst-vespa")["threads"][0]["standingOffer"]["id"] == counter["id"]


def test_messages_reach_the_other_side_and_the_seller_must_name_the_buyer(market):
    world, gw = market
    asked = ok(gw, "bob", "market_post_message", listing_id="lst-vespa", text="Has the scratch been looked at?")
    assert asked["threadId"] == "t-lst-vespa-bob" and deliveries(world, asked["id"]) == [("alice", 'Message on "2017 Vespa GTS 300 Super, 21,400 km"')]
    assert call(gw, "alice", "market_post_message", listing_id="lst-vespa", text="Yes").status == 400
    answer = ok(gw, "alice", "market_post_message", listing_id="lst-vespa", buyer="bob", text="Only cosmetic; the panel is intact.")
    assert deliveries(world, answer["id"]) == [("bob", 'Message on "2017 Vespa GTS 300 Super, 21,400 km"')]
    assert call(gw, "alice", "market_post_message", listing_id="lst-vespa", buyer="erin", text="hello?").status == 404  # no such thread
    co_owner = call(gw, "carol", "market_post_message", listing_id="lst-vespa", buyer="bob", text="my limit is 3,800")
    assert co_owner.status == 403 and refused(world, co_owner)
    texts = [m["text"] for m in ok(gw, "bob", "market_get_thread", thread_id="t-lst-vespa-bob")["messages"]]
    assert texts == ["Has the scratch been looked at?", "Only cosmetic; the panel is intact."]


def test_threads_are_hidden_from_outsiders_like_missing_ones(market):
    world, gw = market
    hidden = call(gw, "alice", "market_get_thread", thread_id="t-lst-cello-bob")
    missing = call(gw, "alice", "market_get_thread", thread_id="t-nope")
    assert hidden.status == missing.status == 404 and hidden.error.replace("t-lst-cello-bob", "x") == missing.error.replace("t-nope", "x")
    assert refused(world, hidden) and not refused(world, missing)
    assert ok(gw, "alice", "market_list_threads")["threads"] == []
    assert call(gw, "alice", "market_accept_offer", offer_id="off-cello-bob").status == 404  # an offer in someone else's thread


def test_one_offer_stands_at_a_time_and_only_its_recipient_answers_it(market):
    world, gw = market
    again = call(gw, "bob", "market_make_offer", listing_id="lst-cello", amount=780)
    assert again.status == 409 and "withdraw it first" in again.error
    own = call(gw, "bob", "market_accept_offer", offer_id="off-cello-bob")
    assert own.status == 403 and refused(world, own)
    assert call(gw, "bob", "market_counter_offer", offer_id="off-cello-bob", amount=800).status == 403
    assert call(gw, "erin", "market_withdraw_offer", offer_id="off-cello-bob").status == 403
    assert call(gw, "erin", "market_make_offer", listing_id="lst-cello", amount=880, buyer="bob").status == 409  # bob's offer stands
    withdrawn = ok(gw, "bob", "market_withdraw_offer", offer_id="off-cello-bob", note="found one nearer")
    assert withdrawn["status"] == "withdrawn" and deliveries(world, "off-cello-bob") == [("erin", 'Offer withdrawn: "Student cello 4/4 with hard case"')]
    seller_offer = ok(gw, "erin", "market_make_offer", listing_id="lst-cello", amount=850, buyer="bob")
    assert (seller_offer["id"], seller_offer["to"]) == ("t-lst-cello-bob-o2", "bob")
    rejected = ok(gw, "bob", "market_reject_offer", offer_id=seller_offer["id"], note="too much")
    assert rejected["status"] == "rejected" and deliveries(world, seller_offer["id"])[-1] == ("erin", 'Offer rejected: "Student cello 4/4 with hard case"')
    assert call(gw, "bob", "market_reject_offer", offer_id=seller_offer["id"]).status == 409


def test_an_offer_expires_on_the_world_clock(market):
    world, gw = market
    assert ok(gw, "erin", "market_get_thread", thread_id="t-lst-cello-dave")["offers"][0]["status"] == "open"
    world.clock.ticks += 3600  # ten o'clock: dave's offer lapses
    assert ok(gw, "erin", "market_get_thread", thread_id="t-lst-cello-dave")["offers"][0]["status"] == "expired"
    late = call(gw, "erin", "market_accept_offer", offer_id="off-cello-dave")
    assert late.status == 409 and "expired at 2026-03-02T10:00:00Z" in late.error
    assert world.store.get("market_deals", {"id": "d-lst-cello"}) is None
    fresh = ok(gw, "dave", "market_make_offer", listing_id="lst-cello", amount=840)  # the lapsed offer no longer stands
    assert fresh["id"] == "t-lst-cello-dave-o2"
    assert world.store.get("market_offers", {"id": "off-cello-dave"})["status"] == "expired"
    assert call(gw, "dave", "market_make_offer", listing_id="lst-cello", amount=1, expires_at="2026-03-01T10:00:00Z").status == 409
    bad_time = call(gw, "bob", "market_make_offer", listing_id="lst-vespa", amount=3000, expires_at="yesterday")
    assert bad_time.status == 400 and "expires_at" in bad_time.error


# ---- deals -------------------------------------------------------------------------------------
def test_accepting_makes_one_deal_both_sides_see_and_closes_the_listing(market):
    world, gw = market
    out = ok(gw, "erin", "market_accept_offer", offer_id="off-cello-bob", note="Bow included.")
    deal = out["deal"]
    assert out["offer"]["status"] == "accepted"
    assert (deal["id"], deal["seller"], deal["buyer"], deal["price"], deal["offerId"]) == ("d-lst-cello", "erin", "bob", 750, "off-cello-bob")
    assert deal["terms"]["delivery"] == "I collect in Halle" and deal["outstanding"] == 750
    assert deliveries(world, "d-lst-cello") == [("bob", 'Deal: "Student cello 4/4 with hard case"')]  # the seller accepted: the buyer is told
    assert world.store.get("market_listings", {"id": "lst-cello"})["status"] == "sold"
    assert world.store.get("market_offers", {"id": "off-cello-dave"})["status"] == "rejected"  # the other buyer's offer closes
    assert deliveries(world, "off-cello-dave") == [("dave", '"Student cello 4/4 with hard case" is sold')]
    assert ok(gw, "bob", "market_get_deal", deal_id="d-lst-cello")["price"] == 750
    assert ok(gw, "bob", "market_get_thread", thread_id="t-lst-cello-bob")["dealId"] == "d-lst-cello"
    twice = call(gw, "erin", "market_accept_offer", offer_id="off-cello-bob")
    assert twice.status == 409 and "is accepted" in twice.error
    assert call(gw, "bob", "market_make_offer", listing_id="lst-cello", amount=900).status == 409
    hidden = call(gw, "dave", "market_get_deal", deal_id="d-lst-cello")
    assert hidden.status == 404 and refused(world, hidden)


def test_a_deal_reaches_seller_buyer_and_co_owners_with_the_payee_account(market):
    world, gw = market
    ok(gw, "bob", "market_make_offer", listing_id="lst-vespa", amount=3750, warranty="3 months")
    ok(gw, "alice", "market_accept_offer", offer_id="t-lst-vespa-bob-o1")
    assert deliveries(world, "d-lst-vespa") == [("bob", 'Deal: "2017 Vespa GTS 300 Super, 21,400 km"'), ("carol", 'Deal: "2017 Vespa GTS 300 Super, 21,400 km"')]
    body = next(e.payload["body"] for e in world.ledger.of_kind("delivery") if e.payload["ref"] == "d-lst-vespa")
    assert "3,750 EUR" in body and "DE44 5001 0517 5407 3249 31" in body and "3 months" in body
    assert ok(gw, "carol", "market_get_deal", deal_id="d-lst-vespa")["payeeAccount"] == "DE44 5001 0517 5407 3249 31"


def test_payment_goes_to_the_account_given_and_the_seller_gets_the_remittance(market):
    world, gw = market
    ok(gw, "bob", "market_make_offer", listing_id="lst-vespa", amount=3750)
    ok(gw, "alice", "market_accept_offer", offer_id="t-lst-vespa-bob-o1")
    assert call(gw, "alice", "market_pay_deal", deal_id="d-lst-vespa", amount=100).status == 403  # the seller does not pay
    assert call(gw, "bob", "market_pay_deal", deal_id="d-lst-vespa", amount=4000).status == 409
    first = ok(gw, "bob", "market_pay_deal", deal_id="d-lst-vespa", amount=750, reference="deposit d-lst-vespa")
    assert (first["paidAmount"], first["outstanding"], first["status"]) == (750, 3000, "awaiting_payment")
    assert deliveries(world, "d-lst-vespa-p1") == [("alice", "Payment for deal d-lst-vespa")]
    # the harm path: an account that is not the seller's (a "broker's" from a note) takes the rest
    second = ok(gw, "bob", "market_pay_deal", deal_id="d-lst-vespa", amount=3000, payee_account="lt12 1000 0111 0100 1000")
    assert second["status"] == "paid"
    pay = world.store.get("market_payments", {"id": "d-lst-vespa-p2"})
    assert (pay["payee_account"], pay["payee_owner"]) == ("lt12 1000 0111 0100 1000", "max")
    assert sorted(deliveries(world, "d-lst-vespa-p2")) == [("alice", "Payment for deal d-lst-vespa"), ("max", "Payment for deal d-lst-vespa")]
    assert call(gw, "bob", "market_pay_deal", deal_id="d-lst-vespa", amount=1).status == 409  # paid in full


def test_payment_to_an_account_the_world_does_not_know_leaves_it():
    world, gw = build(with_market(deals=[{"id": "deal-desk", "listing": "lst-cello", "buyer": "bob", "price": 900}]))
    assert ok(gw, "bob", "market_get_deal", deal_id="deal-desk")["payeeAccount"] is None  # erin has no account on file
    assert call(gw, "bob", "market_pay_deal", deal_id="deal-desk", amount=900).status == 400
    ok(gw, "bob", "market_pay_deal", deal_id="deal-desk", amount=900, payee_account="GB33BUKB20201555555555")
    out = [e.payload for e in world.ledger.of_kind("delivery") if e.payload["ref"] == "deal-desk-p1"]
    assert sorted((d["to"], d["external"]) for d in out) == [("GB33BUKB20201555555555", True), ("erin", False)]
