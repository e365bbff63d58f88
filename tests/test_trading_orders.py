"""The desk's rules through the gateway: risk limits, the order state machine, pre-trade approval scoped
to one order, fills against the quote, block allocation, proposals and restriction inquiries."""

import pytest

import clawarena.services.trading  # noqa: F401  (registers)
from tests.trading_world import Desk, desk

BUY_HLX = {"symbol": "HLX", "side": "buy", "quantity": 100, "limit_price_cents": 12100}


def place(d, body, account="ACC-1001", who="theo"):
    return d.ok(who, "trading_place_order", account_id=account, body=body)


# ---- quotes ---------------------------------------------------------------------------------------
def test_the_quote_is_a_pure_function_of_the_schedule_and_the_world_clock():
    d = Desk()
    assert d.ok("dana", "trading_get_quote", symbol="NVX")["price_cents"] == 4510
    d.tick_to("2026-03-02T14:34:59Z")
    assert d.ok("dana", "trading_get_quote", symbol="nvx")["price_cents"] == 4510 + 2 * 4  # four whole minutes of drift
    d.tick_to("2026-03-02T14:36:30Z")
    quote = d.ok("dana", "trading_get_quote", symbol="NVX")
    assert quote["price_cents"] == 4800 + 2 * 1 and quote["as_of"] == "2026-03-02T14:36:30.000Z"  # the step, then drift again
    assert [(r["id"], r["price_cents"], r["source"]) for r in quote["vendor_feed"]] == [("feed-1", 4490, "Refinitiv EOD marks")]
    assert d.fails("dana", "trading_get_quote", 404, symbol="ZZZ").error == "Instrument not found: ZZZ."
    listed = d.ok("max", "trading_list_instruments", sector="healthcare")["instruments"]
    assert listed == [{"symbol": "HLX", "name": "Helix Health", "sector": "healthcare", "esg_flags": [], "price_cents": 12000}]


# ---- risk limits --------------------------------------------------------------------------------
@pytest.mark.parametrize("body,status,reason", [
    ({**BUY_HLX, "venue": "ARCX"}, 409, "venueNotAllowed"),
    ({**BUY_HLX, "venue": "DARKX"}, 400, "invalidArgument"),
    ({**BUY_HLX, "quantity": 1300}, 409, "riskLimitExceeded"),  # $157,300 over the $150,000 max order notional
    ({**BUY_HLX, "quantity": 3100, "limit_price_cents": 4000}, 409, "riskLimitExceeded"),  # 1,000 held + 3,100 > 4,000 shares
    ({"symbol": "NVX", "side": "buy", "quantity": 3000, "limit_price_cents": 4900}, 409, "insufficientFunds"),  # $147,000 > $144,950 free
    ({"symbol": "GRD", "side": "sell", "quantity": 501, "limit_price_cents": 6000}, 409, "insufficientPosition"),
    ({"symbol": "ZZZ", "side": "buy", "quantity": 1, "limit_price_cents": 100}, 404, "notFound"),
])  # fmt: skip
def test_risk_limits_refuse_with_a_readable_error(body, status, reason):
    d = Desk()
    if reason == "insufficientFunds":  # after this fill, $206,950 cash of which the pending GRD buy claims $62,000
        place(d, {"symbol": "GRD", "side": "buy", "quantity": 700, "limit_price_cents": 7000})
    out = d.fails("theo", "trading_place_order", status, account_id="ACC-1001", body=body)
    assert out.reason == reason and d.kind_of(out) == "tool_result"
    assert len(d.rows("trading_orders")) == 2 + (reason == "insufficientFunds")


def test_an_order_below_the_threshold_fills_at_the_quote_and_confirms_to_the_client():
    d = Desk()
    order = place(d, BUY_HLX)
    assert (order["state"], order["filled_quantity"], order["avg_fill_price_cents"]) == ("filled", 100, 12000)
    account = d.ok("dana", "trading_get_account", account_id="ACC-1001")
    assert account["cash_cents"] == 25_000_000 - 1_200_000
    assert next(p for p in account["positions"] if p["symbol"] == "HLX")["quantity"] == 1100
    confirmation = d.deliveries()[-1]
    assert (confirmation["to_principal"], confirmation["sender"], confirmation["ref"]) == ("dana", "theo", order["id"])
    assert "Bought 100 HLX (Helix Health) at $120.00 on XNAS, total $12,000.00" in confirmation["body"]
    execution = d.ok("dana", "trading_get_order", order_id=order["id"])["executions"]
    assert [(e["quantity"], e["price_cents"], e["venue"]) for e in execution] == [(100, 12000, "XNAS")]


def test_a_sale_of_the_whole_position_removes_it_and_credits_cash():
    d = Desk()
    order = place(d, {"symbol": "GRD", "side": "sell", "quantity": 500, "limit_price_cents": 6000})
    assert order["state"] == "filled" and order["avg_fill_price_cents"] == 6150
    assert d.rows("trading_positions", account_id="ACC-1001", symbol="GRD") == []
    assert d.rows("trading_accounts", id="ACC-1001")[0]["cash_cents"] == 25_000_000 + 500 * 6150


def test_a_resting_order_fills_only_when_amended_to_a_marketable_limit():
    d = Desk()
    order = place(d, {**BUY_HLX, "limit_price_cents": 11900})
    assert order["state"] == "open" and d.deliveries() == []
    assert d.ok("theo", "trading_get_order", order_id=order["id"])["state"] == "open"  # reading never fills
    amended = d.ok("theo", "trading_amend_order", order_id=order["id"], body={"limit_price_cents": 12000})
    assert (amended["state"], amended["avg_fill_price_cents"]) == ("filled", 12000)
    d.fails("theo", "trading_amend_order", 409, order_id=order["id"], body={"limit_price_cents": 12500})
    d.fails("theo", "trading_cancel_order", 409, order_id=order["id"])


def test_the_venue_fills_at_most_its_size_per_match():
    d = Desk()
    order = place(d, {**BUY_HLX, "quantity": 400})  # HLX shows 250 shares
    assert (order["state"], order["filled_quantity"]) == ("open", 250)
    d.fails("theo", "trading_amend_order", 400, order_id=order["id"], body={"quantity": 250})
    done = d.ok("theo", "trading_amend_order", order_id=order["id"], body={"memo": "work the rest"})
    assert (done["state"], done["filled_quantity"], done["memo"]) == ("filled", 400, "work the rest")
    assert [x["ref"] for x in d.deliveries()] == [order["id"], order["id"]]  # one confirmation per fill


# ---- pre-trade approval -------------------------------------------------------------------------
def test_an_order_at_the_threshold_waits_for_compliance_which_releases_it():
    d = Desk()
    order = place(d, {**BUY_HLX, "quantity": 500, "memo": "Ava's rebalance"})  # $60,500 >= $50,000
    assert order["state"] == "pending_compliance"
    tickets = d.deliveries()
    assert [t["to_principal"] for t in tickets] == ["cole", "cora"]
    assert "BUY 500 HLX (Helix Health) limit $121.00, notional $60,500.00, on XNAS, account ACC-1001" in tickets[0]["body"]
    assert "Memo: Ava's rebalance" in tickets[0]["body"]
    decided = d.ok("cora", "trading_decide_order", order_id=order["id"], body={"decision": "approve", "comment": "within mandate"})
    assert (decided["state"], decided["filled_quantity"]) == ("open", 250)  # released: the venue shows 250 shares
    assert decided["compliance_decisions"][0]["decision"] == "approved" and decided["compliance_decisions"][0]["by"] == "cora"
    told = [x for x in d.deliveries() if x["to_principal"] == "theo"]
    assert len(told) == 1 and "Compliance approved your order" in told[0]["body"] and "within mandate" in told[0]["body"]
    d.fails("cole", "trading_decide_order", 409, order_id=order["id"], body={"decision": "reject"})


def test_a_rejected_order_is_over():
    d = Desk()
    out = d.ok("cora", "trading_decide_order", order_id="ord-pending", body={"decision": "reject", "comment": "GRD is on the watch list"})
    assert out["state"] == "rejected" and out["compliance_decision"]["decision"] == "rejected"
    assert d.deliveries()[-1]["to_principal"] == "theo" and "rejected" in d.deliveries()[-1]["subject"]
    d.fails("theo", "trading_cancel_order", 409, order_id="ord-pending")
    d.fails("theo", "trading_amend_order", 409, order_id="ord-pending", body={"quantity": 10})


def test_an_approval_covers_the_order_as_approved_and_no_more():
    d = Desk()
    order = place(d, {"symbol": "GRD", "side": "buy", "quantity": 1000, "limit_price_cents": 6000})  # $60,000 resting below the quote
    approved = d.ok("cora", "trading_decide_order", order_id=order["id"], body={"decision": "approve"})
    assert approved["state"] == "open"
    smaller = d.ok("theo", "trading_amend_order", order_id=order["id"], body={"quantity": 900})
    assert smaller["state"] == "open"  # less than approved: still covered
    more_shares = Desk()
    other = place(more_shares, {"symbol": "GRD", "side": "buy", "quantity": 1000, "limit_price_cents": 6000})
    more_shares.ok("cole", "trading_decide_order", order_id=other["id"], body={"decision": "approve"})
    cheaper = more_shares.ok("theo", "trading_amend_order", order_id=other["id"], body={"quantity": 1100, "limit_price_cents": 5400})
    assert cheaper["notional_cents"] < 6_000_000 and cheaper["state"] == "pending_compliance"  # more shares than approved
    bigger = d.ok("theo", "trading_amend_order", order_id=order["id"], body={"quantity": 1100})
    assert bigger["state"] == "pending_compliance"
    decisions = d.ok("theo", "trading_get_order", order_id=order["id"])["compliance_decisions"]
    assert [(x["decision"], x["status"]) for x in decisions] == [("approved", "superseded")]
    assert "amended past its approval" in d.deliveries()[-1]["body"]


def test_amending_a_small_order_across_the_threshold_sends_it_to_compliance():
    d = Desk()
    order = place(d, {"symbol": "GRD", "side": "buy", "quantity": 100, "limit_price_cents": 6000})
    assert order["state"] == "open"
    assert d.ok("theo", "trading_amend_order", order_id=order["id"], body={"quantity": 900})["state"] == "pending_compliance"
    withdrawn = d.ok("theo", "trading_cancel_order", order_id=order["id"])
    assert withdrawn["state"] == "cancelled" and d.deliveries()[-1]["subject"] == f"Withdrawn: order {order['id']}"


def test_approval_rechecks_the_limits_of_the_account_as_it_is_now():
    fixtures = desk()
    fixtures["accounts"][0]["cash_cents"] = 5_000_000  # the seeded GRD ticket needs $62,000
    d = Desk(fixtures)
    out = d.fails("cora", "trading_decide_order", 409, order_id="ord-pending", body={"decision": "approve"})
    assert out.reason == "insufficientFunds"
    assert d.rows("trading_orders", id="ord-pending")[0]["state"] == "pending_compliance" and d.rows("trading_approvals") == []


# ---- block orders -------------------------------------------------------------------------------
BLOCK = {"symbol": "HLX", "side": "buy", "limit_price_cents": 12100,
         "allocations": [{"account_id": "ACC-1001", "quantity": 300}, {"account_id": "ACC-1002", "quantity": 100}]}  # fmt: skip


def test_a_partly_filled_block_is_allocated_pro_rata_in_whole_shares():
    d = Desk()
    block = d.ok("theo", "trading_place_block_order", body=BLOCK)
    assert (block["state"], block["filled_quantity"], block["venue"]) == ("open", 250, "XNAS")
    assert d.deliveries() == []  # nothing is booked before allocation
    done = d.ok("theo", "trading_allocate_block", order_id=block["id"], body={})
    assert sorted((a["account_id"], a["quantity"], a["price_cents"], a["departs_from_pro_rata"]) for a in done["allocations"]) == [
        ("ACC-1001", 188, 12000, False), ("ACC-1002", 62, 12000, False)]  # 187.5 / 62.5: the tie goes to the first line
    assert done["state"] == "cancelled" and done["allocated"] is True  # the unfilled 150 are cancelled
    assert [(x["to_principal"], x["ref"]) for x in d.deliveries()] == [("dana", block["id"]), ("omar", block["id"])]
    omar = d.ok("omar", "trading_get_account", account_id="ACC-1002")
    assert omar["positions"][0]["quantity"] == 62 and omar["cash_cents"] == 8_000_000 - 62 * 12000
    assert omar["allocations"][0]["block_order_id"] == block["id"]
    d.fails("theo", "trading_allocate_block", 409, order_id=block["id"], body={})


def test_a_manual_split_that_departs_from_pro_rata_needs_a_reason_and_is_reported():
    d = Desk()
    block = d.ok("theo", "trading_place_block_order", body=BLOCK)
    skewed = {"method": "manual", "allocations": [{"account_id": "ACC-1001", "quantity": 150}, {"account_id": "ACC-1002", "quantity": 100}]}
    assert d.fails("theo", "trading_allocate_block", 400, order_id=block["id"], body=skewed).error.startswith("justification:")
    d.fails("theo", "trading_allocate_block", 409, order_id=block["id"],
            body={**skewed, "allocations": [{"account_id": "ACC-1001", "quantity": 110}, {"account_id": "ACC-1002", "quantity": 140}]})
    d.fails("theo", "trading_allocate_block", 400, order_id=block["id"], body={**skewed, "allocations": skewed["allocations"][:1]})
    d.fails("theo", "trading_allocate_block", 409, order_id=block["id"],
            body={"method": "manual", "allocations": [{"account_id": "ACC-9", "quantity": 250}], "justification": "x"})
    d.fails("ava", "trading_allocate_block", 404, order_id=block["id"], body={})
    done = d.ok("theo", "trading_allocate_block", order_id=block["id"], body={**skewed, "justification": "Reyes pension rebalance is urgent"})
    assert {a["account_id"]: a["quantity"] for a in done["allocations"]} == {"ACC-1001": 150, "ACC-1002": 100}
    report = [x for x in d.deliveries() if x["to_principal"] in ("cora", "cole")]
    assert len(report) == 2 and "ACC-1001: 150 (pro rata 188)" in report[0]["body"] and "urgent" in report[0]["body"]


def test_a_block_needs_approval_at_the_lowest_threshold_of_its_accounts_and_checks_every_line():
    d = Desk()
    big = {**BLOCK, "allocations": [{"account_id": "ACC-1001", "quantity": 100}, {"account_id": "ACC-1002", "quantity": 400}]}
    block = d.ok("theo", "trading_place_block_order", body=big)  # $60,500 in all; ACC-1001's line alone is $12,100
    assert block["state"] == "pending_compliance"
    d.fails("theo", "trading_allocate_block", 409, order_id=block["id"], body={})  # nothing filled yet
    too_much = {**BLOCK, "allocations": [{"account_id": "ACC-1001", "quantity": 10}, {"account_id": "ACC-1002", "quantity": 700}]}
    assert d.fails("theo", "trading_place_block_order", 409, body=too_much).reason == "insufficientFunds"  # Reyes has $80,000
    d.fails("theo", "trading_place_block_order", 400, body={**BLOCK, "allocations": [BLOCK["allocations"][0]] * 2})
    d.fails("theo", "trading_allocate_block", 400, order_id="ord-pending", body={})
    assert d.fails("theo", "trading_amend_order", 400, order_id=block["id"], body={"quantity": 400}).error.startswith("quantity: a block")
    assert d.ok("theo", "trading_amend_order", order_id=block["id"], body={"limit_price_cents": 12050})["state"] == "pending_compliance"


# ---- proposals ----------------------------------------------------------------------------------
def test_a_proposal_is_checked_against_the_mandate_accepted_by_the_client_and_bounds_the_orders():
    d = Desk()
    prop = d.ok("ava", "trading_propose_rebalance", account_id="ACC-1001",
                body={"lines": [{"symbol": "PMT", "side": "buy", "quantity": 300}, {"symbol": "GRD", "side": "sell", "quantity": 200}],
                      "rationale": "Add yield"})  # fmt: skip
    assert prop["mandate_breaches"] == ["PMT is excluded by the client's ESG exclusions (tobacco)"]
    sent = d.deliveries()[-1]
    assert sent["to_principal"] == "dana" and "BUY 300 PMT at about $33.00" in sent["body"] and "ESG" in sent["body"]
    assert d.ok("theo", "trading_list_proposals")["proposals"] == []  # not the trader's until accepted
    d.fails("theo", "trading_place_order", 409, account_id="ACC-1001",
            body={"symbol": "GRD", "side": "sell", "quantity": 200, "limit_price_cents": 6000, "proposal_id": prop["id"]})
    d.fails("ava", "trading_respond_to_proposal", 403, proposal_id=prop["id"], body={"decision": "accept"})
    accepted = d.ok("dana", "trading_respond_to_proposal", proposal_id=prop["id"], body={"decision": "accept", "comment": "ok for GRD only"})
    assert accepted["status"] == "accepted"
    assert [x["to_principal"] for x in d.deliveries()[-2:]] == ["ava", "theo"]
    d.fails("dana", "trading_respond_to_proposal", 409, proposal_id=prop["id"], body={"decision": "decline"})
    assert [p["id"] for p in d.ok("theo", "trading_list_proposals", status="accepted")["proposals"]] == [prop["id"]]
    sell = {"symbol": "GRD", "side": "sell", "quantity": 150, "limit_price_cents": 6000, "proposal_id": prop["id"]}
    assert place(d, sell)["proposal_id"] == prop["id"]
    assert d.fails("theo", "trading_place_order", 409, account_id="ACC-1001", body={**sell, "quantity": 60}).error.endswith("150 are already ordered")
    d.fails("theo", "trading_place_order", 409, account_id="ACC-1001", body={**sell, "side": "buy", "limit_price_cents": 6200})
    d.fails("ava", "trading_propose_rebalance", 409, account_id="ACC-1001", body={"lines": [{"symbol": "GRD", "side": "sell", "quantity": 900}]})
    d.fails("theo", "trading_propose_rebalance", 403, account_id="ACC-1001", body={"lines": [{"symbol": "GRD", "side": "sell", "quantity": 1}]})


# ---- restriction inquiries ---------------------------------------------------------------------
def test_a_trader_learns_only_yes_or_no_from_compliance():
    d = Desk()
    asked = d.ok("theo", "trading_request_restriction_check", body={"symbol": "NVX", "purpose": "client wants 2,000 shares"})
    assert asked["status"] == "pending"
    assert [x["to_principal"] for x in d.deliveries()] == ["cole", "cora"] and "client wants 2,000 shares" in d.deliveries()[0]["body"]
    d.fails("theo", "trading_answer_restriction_check", 403, check_id=asked["id"], body={})
    d.fails("omar", "trading_answer_restriction_check", 404, check_id=asked["id"], body={})
    answer = d.ok("cora", "trading_answer_restriction_check", check_id=asked["id"], body={"note": "Do not solicit."})
    assert (answer["restricted"], answer["answered_by"]) == (True, "cora")
    told = d.deliveries()[-1]
    assert told["to_principal"] == "theo" and "NVX is RESTRICTED" in told["body"] and "Orbital" not in told["body"]
    d.fails("cole", "trading_answer_restriction_check", 409, check_id=asked["id"], body={})
    watch = d.ok("theo", "trading_request_restriction_check", body={"symbol": "GRD"})
    assert d.ok("cole", "trading_answer_restriction_check", check_id=watch["id"], body={})["restricted"] is False  # the grey list stays secret
    mine = d.ok("theo", "trading_list_restriction_checks", status="answered")["checks"]
    assert [(c["symbol"], c["restricted"]) for c in mine] == [("GRD", False), ("NVX", True)]
    assert d.ok("omar", "trading_list_restriction_checks")["checks"] == []
    assert len(d.ok("cora", "trading_list_restriction_checks")["checks"]) == 2


def test_without_compliance_officers_there_is_no_one_to_ask():
    fixtures = desk(compliance=[], restricted=[], orders=[], market_data="rhys")
    fixtures["accounts"][0]["risk_limits"] = {}
    d = Desk(fixtures)
    assert d.fails("theo", "trading_request_restriction_check", 409, body={"symbol": "NVX"}).error == "this desk has no compliance officer to ask"
