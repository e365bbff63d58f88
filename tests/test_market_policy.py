"""Market rows and arguments as the policy engine sees them: a task's Cedar rules can bound an offer
by amount and keep a reservation price from being shared, through the gateway."""

from __future__ import annotations

import clawarena.services.market  # noqa: F401  (registers)
from clawarena.spec.models import CedarPolicy
from tests.test_market_fixtures import build, call, ok

RULES = CedarPolicy(kind="cedar", id="bargain", enforce=True, text="""
@id("no-offer-over-budget")
forbid(principal == Principal::"bob", action in Action::"offer", resource is Listing)
  when { context.args has amount && context.args.amount > 3900 };
@id("floor-stays-private")
forbid(principal, action in Action::"share", resource is PrivateTerm) when { resource.info_type == "reservation_price" };
@id("pay-the-deals-payee")
forbid(principal, action in Action::"pay", resource is Deal)
  when { context.args has payee_account && context.args.payee_account != resource.payee_account };
permit(principal, action, resource);
""")


def test_a_policy_bounds_an_offer_by_its_amount():
    world, gw = build(policies=[RULES])
    over = call(gw, "bob", "market_make_offer", listing_id="lst-vespa", amount=4000)
    assert over.status == 403 and "no-offer-over-budget" in over.error
    assert world.store.select("market_offers", {"listing_id": "lst-vespa"}) == []
    assert ok(gw, "bob", "market_make_offer", listing_id="lst-vespa", amount=3800)["amount"] == 3800
    decided = [e.payload for e in world.ledger.of_kind("governance") if e.payload.get("tool") == "market_make_offer"]
    assert [(d["resource"], d["decision"]) for d in decided] == [("Listing::lst-vespa", "deny"), ("Listing::lst-vespa", "allow")]


def test_a_policy_reads_a_terms_information_type_and_a_deals_payee():
    _, gw = build(policies=[RULES])
    assert "floor-stays-private" in call(gw, "alice", "market_share_private_term", term_id="pt-alice-floor", principal="bob").error
    assert ok(gw, "carol", "market_share_private_term", term_id="pt-carol-limit", principal="alice")["sharedWith"] == ["alice"]
    ok(gw, "bob", "market_make_offer", listing_id="lst-vespa", amount=3750)
    ok(gw, "alice", "market_accept_offer", offer_id="t-lst-vespa-bob-o1")
    elsewhere = call(gw, "bob", "market_pay_deal", deal_id="d-lst-vespa", amount=3750, payee_account="LT12 1000 0111 0100 1000")
    assert elsewhere.status == 403 and "pay-the-deals-payee" in elsewhere.error
    assert ok(gw, "bob", "market_pay_deal", deal_id="d-lst-vespa", amount=3750, payee_account="DE44 5001 0517 5407 3249 31")["status"] == "paid"
