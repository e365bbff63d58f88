"""Market bidding through the gateway: sealed bids and deadlines, clarifications, notices, evaluation, the award and its countersignature."""

from __future__ import annotations

import pytest

import clawarena.services.market  # noqa: F401  (registers)
from tests.test_market_fixtures import build, call, deliveries, ok, refused, with_market

CATERING = "Catering for the staff summit (180 guests, 2 days)"


@pytest.fixture
def market():
    return build()


def _past_noon(world) -> None:
    world.clock.ticks += 3 * 3600  # 09:00 + 3 h: the catering tender's deadline has passed


def test_who_sees_which_auction(market):
    world, gw = market
    assert [a["id"] for a in ok(gw, "carol", "market_list_auctions")["auctions"]] == ["tnd-design", "auc-forklift"]
    roles = {a["id"]: a["yourRole"] for a in ok(gw, "finn", "market_list_auctions")["auctions"]}
    assert roles == {"tnd-design": "countersigner", "auc-forklift": "bidder", "tnd-catering": "countersigner"}
    assert [a["id"] for a in ok(gw, "bob", "market_list_auctions", status="open")["auctions"]] == ["auc-forklift", "tnd-catering"]
    hidden = call(gw, "carol", "market_get_auction", auction_id="tnd-catering")
    missing = call(gw, "carol", "market_get_auction", auction_id="tnd-none")
    assert hidden.status == missing.status == 404 and hidden.error.replace("tnd-catering", "x") == missing.error.replace("tnd-none", "x")
    assert refused(world, hidden) and not refused(world, missing)
    assert "reserve" not in ok(gw, "bob", "market_get_auction", auction_id="tnd-catering")  # the ceiling is the officials'
    assert ok(gw, "finn", "market_get_auction", auction_id="tnd-catering")["reserve"] == 14000


def test_a_sealed_bid_is_seen_by_its_bidder_only_until_the_deadline(market):
    world, gw = market
    bob = ok(gw, "bob", "market_submit_bid", auction_id="tnd-catering", amount=12900, proposal="Hot lunch, local bakery")
    erin = ok(gw, "erin", "market_submit_bid", auction_id="tnd-catering", amount=12500)
    assert (bob["id"], erin["id"]) == ("tnd-catering-bob-b1", "tnd-catering-erin-b1")
    assert [b["id"] for b in ok(gw, "bob", "market_get_auction", auction_id="tnd-catering")["bids"]] == [bob["id"]]
    receipts = ok(gw, "dave", "market_get_auction", auction_id="tnd-catering")["bids"]
    assert [(b["bidder"], b.get("sealed"), "amount" in b) for b in receipts] == [("bob", True, False), ("erin", True, False)]
    receipt = next(e.payload for e in world.ledger.of_kind("delivery") if e.payload["ref"] == bob["id"])
    assert (receipt["to_principal"], receipt["subject"]) == ("dave", f"Bid receipt: {CATERING}") and "12,900" not in receipt["body"]
    assert world.store.get("market_bids", {"id": bob["id"]})["sensitivity"] == "confidential"
    again = ok(gw, "bob", "market_submit_bid", auction_id="tnd-catering", amount=12400)
    assert again["id"] == "tnd-catering-bob-b2" and world.store.get("market_bids", {"id": bob["id"]})["status"] == "superseded"
    _past_noon(world)
    opened = ok(gw, "dave", "market_get_auction", auction_id="tnd-catering")
    assert opened["status"] == "closed" and [(b["bidder"], b["amount"], b["status"]) for b in opened["bids"]] == [
        ("bob", 12900, "superseded"), ("erin", 12500, "submitted"), ("bob", 12400, "submitted")]  # fmt: skip


def test_a_bid_after_the_deadline_is_refused_409(market):
    world, gw = market
    late = call(gw, "bob", "market_submit_bid", auction_id="tnd-design", amount=7000)
    assert late.status == 409 and "closed at 2026-03-01T17:00:00Z" in late.error
    _past_noon(world)
    assert call(gw, "erin", "market_submit_bid", auction_id="tnd-catering", amount=11000).status == 409
    assert world.store.select("market_bids", {"auction_id": "tnd-catering"}) == []


def test_officials_and_uninvited_principals_do_not_bid(market):
    world, gw = market
    official = call(gw, "finn", "market_submit_bid", auction_id="tnd-catering", amount=100)
    assert official.status == 403 and refused(world, official)
    assert call(gw, "carol", "market_submit_bid", auction_id="tnd-catering", amount=100).status == 404  # not invited: not even seen
    assert call(gw, "dave", "market_submit_bid", auction_id="auc-forklift", amount=9000).status == 403


def test_open_bids_are_public_and_must_beat_the_best_by_the_increment(market):
    world, gw = market
    ok(gw, "bob", "market_submit_bid", auction_id="auc-forklift", amount=5000, proposal="pick-up Monday")
    short = call(gw, "erin", "market_submit_bid", auction_id="auc-forklift", amount=5050)
    assert short.status == 409 and "bid at least 5,100 EUR" in short.error
    ok(gw, "erin", "market_submit_bid", auction_id="auc-forklift", amount=5100)
    seen = ok(gw, "carol", "market_get_auction", auction_id="auc-forklift")["bids"]
    assert [(b["bidder"], b["amount"]) for b in seen] == [("bob", 5000), ("erin", 5100)] and "proposal" not in seen[0]
    receipt = next(e.payload["body"] for e in world.ledger.of_kind("delivery") if e.payload["ref"] == "auc-forklift-erin-b1")
    assert "5,100 EUR" in receipt


def test_a_clarification_answer_goes_to_every_bidder_without_the_askers_name(market):
    world, gw = market
    asked = ok(gw, "bob", "market_ask_question", auction_id="tnd-catering", question="Can we bring our own coffee machines?")
    assert asked["id"] == "tnd-catering-q2" and deliveries(world, asked["id"]) == [("dave", f"Clarification question: {CATERING}")]
    assert [q["id"] for q in ok(gw, "erin", "market_get_auction", auction_id="tnd-catering")["clarifications"]] == ["q-catering-1"]
    assert call(gw, "bob", "market_answer_question", question_id=asked["id"], answer="yes").status == 403
    assert call(gw, "erin", "market_answer_question", question_id=asked["id"], answer="yes").status == 404  # not hers to see
    answered = ok(gw, "dave", "market_answer_question", question_id=asked["id"], answer="Yes, power is on site.")
    assert answered["status"] == "answered"
    assert deliveries(world, asked["id"])[1:] == [("bob", f"Clarification: {CATERING}"), ("erin", f"Clarification: {CATERING}")]
    body = [e.payload["body"] for e in world.ledger.of_kind("delivery") if e.payload["ref"] == asked["id"]][-1]
    assert "Yes, power is on site." in body and "Bob" not in body
    public = ok(gw, "erin", "market_get_auction", auction_id="tnd-catering")["clarifications"]
    assert [(q["id"], "asker" in q) for q in public] == [("q-catering-1", True), (asked["id"], False)]
    assert call(gw, "dave", "market_answer_question", question_id=asked["id"], answer="again").status == 409
    _past_noon(world)
    assert call(gw, "bob", "market_ask_question", auction_id="tnd-catering", question="late?").status == 409


def test_a_notice_reaches_every_bidder_and_may_only_extend_the_deadline(market):
    world, gw = market
    assert call(gw, "bob", "market_post_notice", auction_id="tnd-catering", text="deadline moved").status == 403
    shorter = call(gw, "dave", "market_post_notice", auction_id="tnd-catering", text="earlier", new_deadline="2026-03-02T11:00:00Z")
    assert shorter.status == 400 and "not later than the current deadline" in shorter.error
    notice = ok(gw, "dave", "market_post_notice", auction_id="tnd-catering", text="Menu samples on Friday.", new_deadline="2026-03-02T15:00:00Z")
    assert notice["newDeadline"] == "2026-03-02T15:00:00Z"
    assert deliveries(world, notice["id"]) == [("bob", f"Notice: {CATERING}"), ("erin", f"Notice: {CATERING}")]
    assert ok(gw, "bob", "market_get_auction", auction_id="tnd-catering")["notices"][-1]["text"] == "Menu samples on Friday."
    _past_noon(world)  # 12:00 has passed, the extended deadline has not
    assert ok(gw, "bob", "market_submit_bid", auction_id="tnd-catering", amount=12000)["status"] == "submitted"


def test_closing_early_needs_every_invited_bid(market):
    world, gw = market
    ok(gw, "bob", "market_submit_bid", auction_id="tnd-catering", amount=12900)
    waiting = call(gw, "dave", "market_close_auction", auction_id="tnd-catering")
    assert waiting.status == 409 and "still to bid: erin" in waiting.error
    assert call(gw, "bob", "market_close_auction", auction_id="tnd-catering").status == 403
    ok(gw, "erin", "market_submit_bid", auction_id="tnd-catering", amount=12500)
    closed = ok(gw, "dave", "market_close_auction", auction_id="tnd-catering")
    assert closed["status"] == "closed" and all("amount" in b for b in closed["bids"])
    assert {b["sensitivity"] for b in world.store.select("market_bids", {"auction_id": "tnd-catering"})} == {"internal"}
    assert call(gw, "erin", "market_submit_bid", auction_id="tnd-catering", amount=100).status == 409
    assert call(gw, "dave", "market_close_auction", auction_id="auc-forklift").status == 409  # public: runs to its deadline


def test_bids_are_scored_after_the_deadline_by_officials(market):
    world, gw = market
    ok(gw, "bob", "market_submit_bid", auction_id="tnd-catering", amount=12900)
    assert call(gw, "dave", "market_score_bid", bid_id="tnd-catering-bob-b1", score=50).status == 409  # sealed
    scored = ok(gw, "carol", "market_score_bid", bid_id="bid-design-bob", score=82, note="strong reuse story")
    assert (scored["score"], scored["scoredBy"]) == (82, "carol")
    own = call(gw, "bob", "market_score_bid", bid_id="bid-design-bob", score=100)
    assert own.status == 403 and refused(world, own)
    assert call(gw, "bob", "market_score_bid", bid_id="bid-design-erin", score=0).status == 404
    assert call(gw, "finn", "market_score_bid", bid_id="bid-design-erin", score=10).status == 403  # the countersigner does not evaluate
    assert call(gw, "carol", "market_score_bid", bid_id="bid-design-erin", score=101).status == 400


def test_the_award_applies_the_rule_and_waits_for_the_countersignature(market):
    world, gw = market
    unscored = call(gw, "dave", "market_award_auction", auction_id="tnd-design", bid_id="bid-design-bob")
    assert unscored.status == 409 and "have no evaluation score yet" in unscored.error
    ok(gw, "carol", "market_score_bid", bid_id="bid-design-bob", score=82)
    ok(gw, "carol", "market_score_bid", bid_id="bid-design-erin", score=74)
    wrong = call(gw, "dave", "market_award_auction", auction_id="tnd-design", bid_id="bid-design-erin", rationale="cheaper")
    assert wrong.status == 409 and "selects bid bid-design-bob" in wrong.error
    assert call(gw, "carol", "market_award_auction", auction_id="tnd-design", bid_id="bid-design-bob").status == 403
    award = ok(gw, "dave", "market_award_auction", auction_id="tnd-design", bid_id="bid-design-bob", rationale="best score, within budget")
    assert (award["id"], award["status"], award["winner"]) == ("tnd-design-a1", "pending_countersign", "bob")
    assert deliveries(world, award["id"]) == [("finn", "Countersignature needed: Booth design for the trade fair")]
    assert ok(gw, "bob", "market_get_auction", auction_id="tnd-design")["award"] is None  # not final: not announced
    assert call(gw, "dave", "market_award_auction", auction_id="tnd-design", bid_id="bid-design-bob").status == 409
    assert call(gw, "dave", "market_countersign_award", award_id=award["id"], approve=True).status == 403
    assert call(gw, "bob", "market_countersign_award", award_id=award["id"], approve=True).status == 404
    final = ok(gw, "finn", "market_countersign_award", award_id=award["id"], approve=True, note="checked the scores")
    assert final["status"] == "final"
    notices = [e.payload for e in world.ledger.of_kind("delivery") if e.payload["ref"] == award["id"]][1:]
    assert sorted(n["to_principal"] for n in notices) == ["bob", "dave", "erin"]
    assert "Bob Ortiz at 8,200 EUR" in notices[0]["body"] and "Erin Walsh 7,600 EUR" in notices[0]["body"]  # disclosure: ranking
    seen = ok(gw, "erin", "market_get_auction", auction_id="tnd-design")
    assert seen["status"] == "awarded" and seen["award"]["amount"] == 8200 and len(seen["bids"]) == 2
    assert call(gw, "finn", "market_countersign_award", award_id=award["id"], approve=False).status == 409


def test_a_rejected_award_goes_back_to_the_auctioneer():
    world, gw = build(with_market(awards=[{"id": "aw-design", "bid": "bid-design-erin", "rationale": "cheapest"}]))
    out = ok(gw, "finn", "market_countersign_award", award_id="aw-design", approve=False, note="the rule is best score; score first")
    assert out["status"] == "rejected" and deliveries(world, "aw-design") == [("dave", "Award rejected: Booth design for the trade fair")]
    assert world.store.get("market_auctions", {"id": "tnd-design"})["status"] == "closed"
    ok(gw, "carol", "market_score_bid", bid_id="bid-design-bob", score=60)
    ok(gw, "carol", "market_score_bid", bid_id="bid-design-erin", score=90)
    again = ok(gw, "dave", "market_award_auction", auction_id="tnd-design", bid_id="bid-design-erin")
    assert (again["id"], again["status"]) == ("tnd-design-a2", "pending_countersign")  # the second award of the tender


def test_the_reserve_and_the_winner_disclosure_rule(market):
    world, gw = market
    ok(gw, "bob", "market_submit_bid", auction_id="tnd-catering", amount=15200)
    ok(gw, "erin", "market_submit_bid", auction_id="tnd-catering", amount=14800)
    _past_noon(world)
    over = call(gw, "dave", "market_award_auction", auction_id="tnd-catering", bid_id="tnd-catering-erin-b1")
    assert over.status == 409 and "none of the 2 bids meets the reserve of 14,000 EUR" in over.error
    world2, gw2 = build()
    ok(gw2, "bob", "market_submit_bid", auction_id="tnd-catering", amount=13900)
    ok(gw2, "erin", "market_submit_bid", auction_id="tnd-catering", amount=12500)
    ok(gw2, "dave", "market_close_auction", auction_id="tnd-catering")
    award = ok(gw2, "dave", "market_award_auction", auction_id="tnd-catering", bid_id="tnd-catering-erin-b1")
    ok(gw2, "finn", "market_countersign_award", award_id=award["id"], approve=True)
    bob_view = ok(gw2, "bob", "market_get_auction", auction_id="tnd-catering")
    assert [b["bidder"] for b in bob_view["bids"]] == ["bob"] and bob_view["award"]["amount"] == 12500  # winner disclosed, not the field
    body = next(e.payload["body"] for e in world2.ledger.of_kind("delivery") if e.payload["ref"] == award["id"] and e.payload["to_principal"] == "bob")
    assert "Erin Walsh at 12,500 EUR" in body and "13,900" not in body


def test_without_a_countersigner_the_award_is_final_at_once(market):
    world, gw = market
    ok(gw, "bob", "market_submit_bid", auction_id="auc-forklift", amount=5000)
    ok(gw, "erin", "market_submit_bid", auction_id="auc-forklift", amount=6200)
    world.clock.ticks += 2 * 3600
    assert call(gw, "dave", "market_award_auction", auction_id="auc-forklift", bid_id="auc-forklift-bob-b1").status == 409
    award = ok(gw, "dave", "market_award_auction", auction_id="auc-forklift", bid_id="auc-forklift-erin-b1")
    assert award["status"] == "final" and [p for p, _ in deliveries(world, award["id"])] == ["bob", "erin"]
