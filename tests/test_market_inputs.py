"""Hostile arguments to every market tool: a readable 4xx, never a crash (a 500 would end a trial as an error)."""

from __future__ import annotations

from typing import Any

import pytest

import clawarena.services.market  # noqa: F401  (registers)
from clawarena.services import service
from tests.test_market_fixtures import build

# One valid call per tool on the shared fixtures; each argument is then replaced by hostile values.
VALID: dict[str, dict[str, Any]] = {
    "market_list_listings": {"query": "vespa", "category": "scooters", "seller": "alice", "status": "any", "page_size": 5, "page_token": None},
    "market_get_listing": {"listing_id": "lst-vespa"},
    "market_list_private_terms": {"listing_id": "lst-vespa"},
    "market_set_private_term": {"kind": "budget", "amount": 3000, "listing_id": "lst-vespa", "note": "n"},
    "market_share_private_term": {"term_id": "pt-bob-budget", "principal": "alice", "note": "n"},
    "market_list_threads": {"listing_id": "lst-cello", "page_size": 5, "page_token": None},
    "market_get_thread": {"thread_id": "t-lst-cello-bob"},
    "market_post_message": {"listing_id": "lst-cello", "text": "hello", "buyer": ""},
    "market_make_offer": {"listing_id": "lst-vespa", "amount": 3000, "delivery": "d", "warranty": "w", "payment_schedule": "p",
                          "conditions": "c", "expires_at": "2026-03-05T10:00:00Z", "note": "n", "buyer": ""},
    "market_counter_offer": {"offer_id": "off-cello-bob", "amount": 800, "delivery": "d", "warranty": None, "payment_schedule": None,
                             "conditions": None, "expires_at": "", "note": ""},
    "market_accept_offer": {"offer_id": "off-cello-bob", "note": ""},
    "market_reject_offer": {"offer_id": "off-cello-bob", "note": ""},
    "market_withdraw_offer": {"offer_id": "off-cello-bob", "note": ""},
    "market_get_deal": {"deal_id": "d-lst-cello"},
    "market_pay_deal": {"deal_id": "d-lst-cello", "amount": 10, "payee_account": "", "reference": ""},
    "market_list_auctions": {"status": "any", "page_size": 5, "page_token": None},
    "market_get_auction": {"auction_id": "tnd-catering"},
    "market_submit_bid": {"auction_id": "tnd-catering", "amount": 12000, "proposal": "p"},
    "market_ask_question": {"auction_id": "tnd-catering", "question": "q?"},
    "market_answer_question": {"question_id": "q-catering-1", "answer": "a"},
    "market_post_notice": {"auction_id": "tnd-catering", "text": "t", "new_deadline": "2026-03-02T13:00:00Z"},
    "market_close_auction": {"auction_id": "tnd-catering"},
    "market_score_bid": {"bid_id": "bid-design-bob", "score": 50, "note": ""},
    "market_award_auction": {"auction_id": "tnd-design", "bid_id": "bid-design-bob", "rationale": ""},
    "market_countersign_award": {"award_id": "aw-x", "approve": True, "note": ""},
}  # fmt: skip
CALLER = {"market_accept_offer": "erin", "market_reject_offer": "erin", "market_counter_offer": "erin", "market_withdraw_offer": "bob",
          "market_answer_question": "dave", "market_post_notice": "dave", "market_close_auction": "dave", "market_score_bid": "carol",
          "market_award_auction": "dave", "market_countersign_award": "finn", "market_share_private_term": "bob", "market_post_message": "bob"}  # fmt: skip
HOSTILE = ["", " ", "\x00", "nul\x00in", "x" * 70_000, "../../etc/passwd", "2026-13-45T99:99:99Z", "9" * 5000, "-1", "NaN", "😀" * 50,
           0, -1, 2**63, -(2**63) - 1, 10**30, 1.5, True, None, [], {}, ["a"], {"a": 1}]  # fmt: skip


def test_every_tool_has_a_valid_call_here():
    assert set(VALID) == {t.name for t in service("market").tools}


@pytest.mark.parametrize("tool", sorted(VALID))
def test_hostile_arguments_get_a_4xx_and_never_crash(tool):
    _, gw = build()
    for name in VALID[tool]:
        for value in HOSTILE:
            out = gw.call_as_principal(CALLER.get(tool, "bob"), tool, {**VALID[tool], name: value})
            assert gw.fault is None, (tool, name, repr(value)[:40], gw.fault)
            assert out.ok or 400 <= out.status < 500, (tool, name, repr(value)[:40], out.status, out.error)
    out = gw.call_as_principal(CALLER.get(tool, "bob"), tool, {**VALID[tool], "unexpected": 1})
    assert out.status == 400 and "unexpected" in out.error
