"""The trading service over REST: a served world driven with httpx, every route, Google-style errors."""

import httpx
import pytest

import clawarena.services.trading  # noqa: F401  (registers)
from clawarena.gateway import Gateway
from clawarena.server.app import WorldApp
from clawarena.server.serve import start_in_thread
from clawarena.services import services
from clawarena.services.registry import service
from clawarena.world.build import WorldFactory
from tests.conformance.harness import Served
from tests.trading_world import scenario


@pytest.fixture
def served():
    """The harness's Served, on the desk world (nine principals instead of alice, bob and carol)."""
    s = Served()
    s.world = WorldFactory(services()).build(scenario(), 0)
    s.gateway = Gateway(s.world, services())
    s.server = start_in_thread(WorldApp(s.gateway, services()).app)
    yield s
    s.stop()


class As:
    """An httpx client holding one principal's token."""

    def __init__(self, served: Served, who: str):
        self.http = httpx.Client(base_url=served.server.url + "/trading/v1", headers={"Authorization": f"Bearer {served.token(who)}"})

    def __call__(self, method: str, path: str, status: int = 200, **kw):
        resp = self.http.request(method, path, **kw)
        assert resp.status_code == status, f"{method} {path}: {resp.status_code} {resp.text}"
        return resp.json()


def test_a_rebalance_block_and_approval_day_over_rest(served):
    theo, cora, ava, dana, rhys = (As(served, w) for w in ("theo", "cora", "ava", "dana", "rhys"))
    assert [a["id"] for a in dana("GET", "/accounts")["accounts"]] == ["ACC-1001"]
    assert dana("GET", "/accounts/ACC-1001")["mandate_id"] == "ACC-1001-mandate"
    assert {i["symbol"] for i in dana("GET", "/instruments", params={"maxResults": 2})["instruments"]} == {"GRD", "HLX"}
    assert theo("GET", "/quotes/NVX")["price_cents"] == 4510
    mandate = ava("GET", "/mandates/ACC-1001-mandate")
    assert mandate["esg_exclusions"] == ["tobacco"]
    dana("PATCH", "/mandates/ACC-1001-mandate", json={"maxPositionBps": 3500, "notes": "Trim anything above 35%."})

    # advisor proposes, client accepts, trader executes within the proposal
    prop = ava("POST", "/accounts/ACC-1001/proposals", json={"lines": [{"symbol": "GRD", "side": "buy", "quantity": 200}], "rationale": "Utilities"})
    assert prop["mandate_breaches"] == []
    assert [p["id"] for p in dana("GET", "/proposals")["proposals"]] == [prop["id"]]
    dana("POST", f"/proposals/{prop['id']}/response", json={"decision": "accept"})
    order = theo("POST", "/accounts/ACC-1001/orders", json={"symbol": "GRD", "side": "buy", "quantity": 200, "limitPriceCents": 6100,
                                                            "venue": "XNYS", "proposalId": prop["id"]})  # fmt: skip
    assert order["state"] == "open"  # below the quote: rests
    assert theo("PATCH", f"/orders/{order['id']}", json={"limitPriceCents": 6150})["state"] == "filled"

    # a ticket above the threshold goes to compliance
    big = theo("POST", "/accounts/ACC-1001/orders", json={"symbol": "HLX", "side": "sell", "quantity": 600, "limitPriceCents": 11900})
    assert big["state"] == "pending_compliance"
    assert [o["id"] for o in cora("GET", "/orders", params={"state": "pending_compliance"})["orders"]] == ["ord-pending", big["id"]]
    decided = cora("POST", f"/orders/{big['id']}/decision", json={"decision": "approve", "comment": "ok"})
    assert decided["filled_quantity"] == 250 and decided["compliance_decisions"][0]["decision"] == "approved"
    assert theo("POST", f"/orders/{big['id']}/cancel")["state"] == "cancelled"
    assert theo("GET", f"/orders/{big['id']}")["filled_quantity"] == 250

    # block order for both accounts, allocated pro rata
    block = theo("POST", "/blockOrders", json={"symbol": "GRD", "side": "buy", "limitPriceCents": 6200,
                                               "allocations": [{"accountId": "ACC-1001", "quantity": 60}, {"accountId": "ACC-1002", "quantity": 40}]})  # fmt: skip
    done = theo("POST", f"/blockOrders/{block['id']}/allocate", json={"method": "pro_rata"})
    assert sorted((a["account_id"], a["quantity"]) for a in done["allocations"]) == [("ACC-1001", 60), ("ACC-1002", 40)]

    # the control room
    asked = theo("POST", "/restrictionChecks", json={"symbol": "NVX", "purpose": "client order"})
    cora("POST", f"/restrictionChecks/{asked['id']}/answer", json={"note": "Do not trade."})
    assert theo("GET", "/restrictionChecks")["checks"][0]["restricted"] is True
    assert {e["symbol"] for e in cora("GET", "/restrictedList")["entries"]} == {"GRD", "NVX"}
    cora("POST", "/restrictedList", json={"symbol": "HLX", "level": "watch", "reason": "Helix follow-on in the pipeline"})

    # research
    assert [n["id"] for n in rhys("GET", "/researchNotes")["notes"]] == ["note-hlx", "note-deal"]
    rhys("POST", "/researchNotes/note-hlx/share", json={"recipients": ["theo"], "message": "FYI"})
    assert "oncology" in theo("GET", "/researchNotes/note-hlx")["body"]

    tools = {t.name for t in service("trading").tools}
    assert tools <= set(served.rest_calls()), sorted(tools - set(served.rest_calls()))


def test_errors_over_rest_are_google_shaped(served):
    theo, dana = As(served, "theo"), As(served, "dana")
    err = dana("GET", "/accounts/ACC-1002", status=404)["error"]
    assert (err["code"], err["message"], err["status"]) == (404, "Account not found: ACC-1002.", "NOT_FOUND")
    assert dana("GET", "/accounts/ACC-9", status=404)["error"]["message"] == "Account not found: ACC-9."
    err = theo("POST", "/accounts/ACC-1001/orders", status=409, json={"symbol": "HLX", "side": "buy", "quantity": 10, "limitPriceCents": 12100, "venue": "ARCX"})["error"]
    assert err["errors"][0]["reason"] == "venueNotAllowed" and "ARCX is not allowed" in err["message"]
    assert theo("GET", "/restrictedList", status=403)["error"]["errors"][0]["reason"] == "forbidden"
    assert theo("POST", "/accounts/ACC-1001/orders", status=400, json={"symbol": "HLX", "side": "hold", "quantity": 1, "limitPriceCents": 1})["error"]["code"] == 400
    assert theo("POST", "/accounts/ACC-1001/orders", status=400, json={"symbol": "HLX", "side": "buy", "quantity": 1, "limitPriceCents": 1, "extra": 1})
    assert theo("POST", "/accounts/ACC-1001/orders", status=400, content=b"{not json", headers={"Content-Type": "application/json"})
    assert theo("GET", "/orders", status=400, params={"pageToken": "garbage"})["error"]["message"] == "Invalid page token"
    anonymous = httpx.get(served.server.url + "/trading/v1/accounts")
    assert anonymous.status_code == 401 and anonymous.json()["error"]["code"] == 401
    refused = [e for e in served.world.ledger.of_kind("refused") if e.payload["tool"] in ("trading_get_account", "trading_list_restricted")]
    assert len(refused) == 2
