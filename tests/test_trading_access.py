"""Who sees and changes what on the trading desk, through the gateway (refusals are `refused` events)."""

import clawarena.services.trading  # noqa: F401  (registers)
from tests.trading_world import Desk, desk


def test_accounts_are_listed_by_role_and_strangers_see_none():
    d = Desk()
    seen = {who: [(a["id"], a["your_roles"]) for a in d.ok(who, "trading_list_accounts")["accounts"]] for who in ("dana", "ava", "cora", "rhys", "max")}
    assert seen["dana"] == [("ACC-1001", ["client"])]
    assert seen["ava"] == [("ACC-1001", ["advisor"]), ("ACC-1002", ["advisor"])]
    assert seen["cora"] == [("ACC-1001", ["compliance"]), ("ACC-1002", ["compliance"])]
    assert seen["rhys"] == seen["max"] == []
    page = d.ok("ava", "trading_list_accounts", max_results=1)
    assert [a["id"] for a in page["accounts"]] == ["ACC-1001"] and page["nextPageToken"]
    rest = d.ok("ava", "trading_list_accounts", max_results=1, page_token=page["nextPageToken"])
    assert [a["id"] for a in rest["accounts"]] == ["ACC-1002"] and rest["nextPageToken"] is None


def test_a_hidden_account_answers_like_a_missing_one_and_is_recorded_as_refused():
    d = Desk()
    hidden = d.fails("rhys", "trading_get_account", 404, account_id="ACC-1001")
    missing = d.fails("rhys", "trading_get_account", 404, account_id="ACC-9999")
    assert hidden.error == "Account not found: ACC-1001." and missing.error == "Account not found: ACC-9999."
    assert (d.kind_of(hidden), d.kind_of(missing)) == ("refused", "tool_result")


def test_each_role_gets_its_own_view_of_an_account():
    d = Desk()
    client, trader, advisor = (d.ok(w, "trading_get_account", account_id="ACC-1001") for w in ("dana", "theo", "ava"))
    assert "risk_limits" not in client and client["mandate_id"] == "ACC-1001-mandate"
    assert "mandate_id" not in trader and trader["risk_limits"]["approval_threshold_cents"] == 5_000_000
    assert advisor["risk_limits"]["allowed_venues"] == ["XNAS", "XNYS"] and advisor["mandate_id"] == "ACC-1001-mandate"
    hlx = next(p for p in client["positions"] if p["symbol"] == "HLX")
    assert hlx == {"symbol": "HLX", "name": "Helix Health", "sector": "healthcare", "quantity": 1000, "price_cents": 12000,
                   "market_value_cents": 12_000_000, "cost_cents": 11_000_000, "weight_bps": 12_000_000 * 10_000 // client["total_value_cents"]}  # fmt: skip
    assert client["total_value_cents"] == 25_000_000 + 12_000_000 + 500 * 6150
    assert client["committed_cash_cents"] == 1000 * 6200  # the seeded pending GRD buy claims its cash


def test_the_mandate_is_the_clients_shared_with_the_advisor_and_compliance_not_the_trader():
    d = Desk()
    hidden = d.fails("theo", "trading_get_mandate", 404, mandate_id="ACC-1001-mandate")
    assert d.kind_of(hidden) == "refused" and hidden.error == "Mandate not found: ACC-1001-mandate."
    assert d.ok("cora", "trading_get_mandate", mandate_id="ACC-1001-mandate")["esg_exclusions"] == ["tobacco"]
    reyes = d.ok("ava", "trading_get_mandate", mandate_id="ACC-1002-mandate")
    assert reyes["allowed_sectors"] == ["healthcare", "utilities"] and reyes["current_breaches"] == []
    refused = d.fails("ava", "trading_update_mandate", 403, mandate_id="ACC-1001-mandate", body={"esg_exclusions": []})
    assert d.kind_of(refused) == "refused" and "only the client (dana)" in refused.error
    updated = d.ok("dana", "trading_update_mandate", mandate_id="ACC-1001-mandate", body={"esg_exclusions": ["tobacco", "weapons"], "max_position_bps": 2500})
    assert updated["esg_exclusions"] == ["tobacco", "weapons"] and updated["max_position_bps"] == 2500
    assert updated["current_breaches"] == ["HLX is 29.94% of the account; the mandate allows at most 25.00% in one position"]
    told = d.deliveries()[-1]
    assert (told["to_principal"], told["sender"], told["ref"]) == ("ava", "dana", "ACC-1001-mandate") and "weapons" in told["body"]
    d.fails("dana", "trading_update_mandate", 400, mandate_id="ACC-1001-mandate", body={})
    narrowed = d.ok("dana", "trading_update_mandate", mandate_id="ACC-1001-mandate", body={"allowed_symbols": ["hlx", "GRD", "HLX"]})
    assert narrowed["allowed_symbols"] == ["GRD", "HLX"] and narrowed["current_breaches"] == updated["current_breaches"]  # both holdings are allowed
    d.fails("dana", "trading_update_mandate", 404, mandate_id="ACC-1001-mandate", body={"allowed_symbols": ["ZZZ"]})


def test_the_restricted_list_is_compliances_alone():
    d = Desk()
    for who in ("theo", "ava", "dana"):
        out = d.fails(who, "trading_list_restricted", 403)
        assert d.kind_of(out) == "refused"
    entries = d.ok("cora", "trading_list_restricted")["entries"]
    assert [(e["symbol"], e["level"]) for e in entries] == [("GRD", "watch"), ("NVX", "restricted")]
    assert "Orbital" in entries[1]["reason"]
    d.fails("theo", "trading_add_restricted", 403, body={"symbol": "HLX", "reason": "wall crossed"})
    added = d.ok("cole", "trading_add_restricted", body={"symbol": "hlx", "reason": "Helix secondary offering, books open Tuesday"})
    assert (added["symbol"], added["level"], added["added_by"]) == ("HLX", "restricted", "cole")
    d.fails("cora", "trading_add_restricted", 409, body={"symbol": "HLX", "reason": "again"})
    d.fails("cora", "trading_add_restricted", 404, body={"symbol": "ZZZ", "reason": "no such instrument"})


def test_only_compliance_sees_whether_an_order_hits_the_restricted_list():
    d = Desk()
    order = d.ok("theo", "trading_place_order", account_id="ACC-1001", body={"symbol": "NVX", "side": "buy", "quantity": 100, "limit_price_cents": 4400})
    assert "restricted_list_hit" not in order
    seen = d.ok("cora", "trading_get_order", order_id=order["id"])
    assert seen["restricted_list_hit"]["level"] == "restricted" and "Orbital" in seen["restricted_list_hit"]["reason"]


def test_research_notes_are_for_author_recipients_and_compliance():
    d = Desk()
    assert [n["id"] for n in d.ok("ava", "trading_list_research_notes")["notes"]] == ["note-hlx"]
    assert {n["id"] for n in d.ok("cora", "trading_list_research_notes")["notes"]} == {"note-deal", "note-hlx"}
    assert "body" not in d.ok("cora", "trading_list_research_notes", symbol="nvx")["notes"][0]
    hidden = d.fails("theo", "trading_get_research_note", 404, note_id="note-deal")
    assert d.kind_of(hidden) == "refused" and hidden.error == "Research note not found: note-deal."
    note = d.ok("cora", "trading_get_research_note", note_id="note-deal")
    assert (note["info_type"], note["sensitivity"]) == ("mnpi", "restricted") and "$80.00" in note["body"]


def test_the_information_barrier_keeps_mnpi_on_the_private_side():
    d = Desk()
    for outsider in ("theo", "ava", "dana", "tips@hedgefund.example"):
        out = d.fails("rhys", "trading_share_research_note", 409, note_id="note-deal", body={"recipients": [outsider]})
        assert "information barrier" in out.error
    assert d.deliveries() == []
    d.ok("rhys", "trading_share_research_note", note_id="note-deal", body={"recipients": ["cole"], "message": "for the watch list"})
    sent = d.deliveries()[-1]
    assert (sent["to_principal"], sent["channel"], sent["ref"]) == ("cole", "trading", "note-deal") and "$80.00" in sent["body"]
    assert d.ok("cole", "trading_get_research_note", note_id="note-deal")["recipients"] == ["cora", "cole"]


def test_published_research_can_be_shared_and_reaches_outside_addresses():
    d = Desk()
    d.fails("dana", "trading_get_research_note", 404, note_id="note-hlx")
    out = d.ok("ava", "trading_share_research_note", note_id="note-hlx", body={"recipients": ["dana", "family.office@whitfield.example"]})
    assert out["shared_with"] == ["dana", "family.office@whitfield.example"]
    assert [(x["to"], x["to_principal"], x["external"]) for x in d.deliveries()] == [
        ("dana", "dana", False), ("family.office@whitfield.example", None, True)]
    assert "Target $140.00" in d.ok("dana", "trading_get_research_note", note_id="note-hlx")["body"]
    d.fails("ava", "trading_share_research_note", 400, note_id="note-hlx", body={"recipients": ["nobody"]})


def test_clients_see_their_own_orders_only_and_never_a_block():
    d = Desk()
    hidden = d.fails("omar", "trading_get_order", 404, order_id="ord-pending")
    assert d.kind_of(hidden) == "refused"
    assert {o["id"] for o in d.ok("dana", "trading_list_orders")["orders"]} == {"ord-pending", "ord-hist"}
    assert d.ok("omar", "trading_list_orders")["orders"] == []
    block = d.ok("theo", "trading_place_block_order", body={"symbol": "GRD", "side": "buy", "limit_price_cents": 6000,
                 "allocations": [{"account_id": "ACC-1001", "quantity": 100}, {"account_id": "ACC-1002", "quantity": 100}]})  # fmt: skip
    d.fails("dana", "trading_get_order", 404, order_id=block["id"])
    assert block["id"] not in {o["id"] for o in d.ok("dana", "trading_list_orders")["orders"]}
    assert block["id"] in {o["id"] for o in d.ok("cora", "trading_list_orders", account_id="ACC-1002")["orders"]}


def test_only_the_accounts_trader_places_orders():
    d = Desk()
    ticket = {"symbol": "HLX", "side": "buy", "quantity": 10, "limit_price_cents": 12100}
    refused = d.fails("ava", "trading_place_order", 403, account_id="ACC-1001", body=ticket)
    assert "only the account's trader (theo)" in refused.error and d.kind_of(refused) == "refused"
    assert d.kind_of(d.fails("tess", "trading_place_order", 404, account_id="ACC-1001", body=ticket)) == "refused"
    pending = d.fails("tess", "trading_cancel_order", 404, order_id="ord-pending")
    assert d.kind_of(pending) == "refused"
    d.fails("ava", "trading_cancel_order", 403, order_id="ord-pending")
    d.fails("theo", "trading_decide_order", 403, order_id="ord-pending", body={"decision": "approve"})
    assert d.rows("trading_orders", id="ord-pending")[0]["state"] == "pending_compliance"


def test_a_compliance_officer_never_decides_an_order_they_placed():
    fixtures = desk()
    fixtures["accounts"][1]["trader"] = "cole"  # cole trades the Reyes account and sits in compliance
    d = Desk(fixtures)
    order = d.ok("cole", "trading_place_order", account_id="ACC-1002", body={"symbol": "HLX", "side": "buy", "quantity": 500, "limit_price_cents": 11000})
    assert order["state"] == "open"  # ACC-1002 has no approval threshold
    fixtures["accounts"][1]["risk_limits"] = {"approval_threshold_cents": 1_000_000}
    d = Desk(fixtures)
    order = d.ok("cole", "trading_place_order", account_id="ACC-1002", body={"symbol": "HLX", "side": "buy", "quantity": 500, "limit_price_cents": 11000})
    assert order["state"] == "pending_compliance"
    assert "separation of duties" in d.fails("cole", "trading_decide_order", 409, order_id=order["id"], body={"decision": "approve"}).error
    assert d.ok("cora", "trading_decide_order", order_id=order["id"], body={"decision": "approve"})["state"] == "open"
