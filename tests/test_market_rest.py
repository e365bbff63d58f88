"""Market over REST (/market/v1) on a served world, with httpx: every tool on the wire, Google-style errors.

Arguments are flat: path parameters, and query parameters in camelCase for everything else
(the same names policies read), so a POST carries its arguments in the query string.
"""

from __future__ import annotations

import httpx
import pytest

import clawarena.services.market  # noqa: F401  (registers)
from clawarena.services import service
from tests.conformance.harness import Served

WORLD = {"market": {
    "accounts": [{"id": "acct-alice", "owner": "alice", "number": "NL91 ABNA 0417 1643 00", "default": True}],
    "listings": [{"id": "lst-lamp", "seller": "alice", "title": "Artemide Tolomeo desk lamp, aluminium", "asking_price": 220,
                  "description": "Working, one small dent on the arm.", "spec_sheet": "Bulb E27, max 70 W."}],
    "private_terms": [{"id": "pt-alice-lamp", "owner": "alice", "listing": "lst-lamp", "kind": "reservation_price", "amount": 160},
                      {"id": "pt-bob-lamp", "owner": "bob", "listing": "lst-lamp", "kind": "budget", "amount": 200}],
    "auctions": [{"id": "tnd-print", "auctioneer": "carol", "title": "Printing of 2,000 annual reports", "award_rule": "best_score",
                  "deadline": "2026-03-03T12:00:00Z", "invited": ["bob"], "countersigner": "alice"}],
}}  # fmt: skip


@pytest.fixture
def served():
    s = Served()
    s.start(WORLD)
    yield s
    s.stop()


def client(served: Served, who: str) -> httpx.Client:
    return httpx.Client(base_url=served.server.url + "/market/v1", headers={"Authorization": f"Bearer {served.token(who)}"}, timeout=30)


def test_every_market_tool_works_over_rest(served):
    alice, bob, carol = client(served, "alice"), client(served, "bob"), client(served, "carol")

    def good(c: httpx.Client, method: str, path: str, **params):
        r = c.request(method, path, params=params)
        assert r.status_code == 200, (path, r.text)
        return r.json()

    assert good(bob, "GET", "/listings", query="lamp")["listings"][0]["id"] == "lst-lamp"
    assert good(bob, "GET", "/listings/lst-lamp")["specSheet"] == "Bulb E27, max 70 W."
    assert good(bob, "POST", "/privateTerms", kind="budget", amount=210, listingId="lst-lamp")["id"] == "pt-bob-lamp"
    assert good(bob, "GET", "/privateTerms")["privateTerms"][0]["amount"] == 210
    assert good(alice, "POST", "/privateTerms/pt-alice-lamp:share", principal="carol", note="for the record")["sharedWith"] == ["carol"]
    assert good(bob, "POST", "/listings/lst-lamp/messages", text="Does it come with the base?")["threadId"] == "t-lst-lamp-bob"
    first = good(bob, "POST", "/listings/lst-lamp/offers", amount=150, delivery="I pick it up", expiresAt="2026-03-04T18:00:00Z")
    assert (first["id"], first["expiresAt"]) == ("t-lst-lamp-bob-o1", "2026-03-04T18:00:00Z")
    assert good(bob, "POST", "/offers/t-lst-lamp-bob-o1:withdraw")["status"] == "withdrawn"
    good(bob, "POST", "/listings/lst-lamp/offers", amount=160)
    assert good(alice, "POST", "/offers/t-lst-lamp-bob-o2:reject", note="too low")["status"] == "rejected"
    good(bob, "POST", "/listings/lst-lamp/offers", amount=170)
    counter = good(alice, "POST", "/offers/t-lst-lamp-bob-o3:counter", amount=190, warranty="none")
    assert counter["terms"]["warranty"] == "none"
    assert good(bob, "GET", "/threads")["threads"][0]["standingOffer"]["id"] == counter["id"]
    assert len(good(alice, "GET", "/threads/t-lst-lamp-bob")["offers"]) == 4
    deal = good(bob, "POST", f"/offers/{counter['id']}:accept", note="deal")["deal"]
    assert (deal["id"], deal["price"], deal["payeeAccount"]) == ("d-lst-lamp", 190, "NL91 ABNA 0417 1643 00")
    assert good(alice, "GET", "/deals/d-lst-lamp")["status"] == "awaiting_payment"
    assert good(bob, "POST", "/deals/d-lst-lamp/payments", amount=190, reference="lamp")["status"] == "paid"

    assert good(bob, "GET", "/auctions", status="open")["auctions"][0]["yourRole"] == "bidder"
    assert good(bob, "POST", "/auctions/tnd-print/questions", question="Recycled paper acceptable?")["id"] == "tnd-print-q1"
    assert good(carol, "POST", "/questions/tnd-print-q1:answer", answer="Yes, FSC certified.")["status"] == "answered"
    assert good(carol, "POST", "/auctions/tnd-print/notices", text="Proofs due Monday.", newDeadline="2026-03-04T12:00:00Z")["newDeadline"]
    assert good(bob, "POST", "/auctions/tnd-print/bids", amount=4100, proposal="offset, 7 days")["id"] == "tnd-print-bob-b1"
    assert good(carol, "POST", "/auctions/tnd-print:close")["status"] == "closed"
    assert good(carol, "POST", "/bids/tnd-print-bob-b1:score", score=77, note="good proofs")["score"] == 77
    assert good(carol, "POST", "/auctions/tnd-print/awards", bidId="tnd-print-bob-b1")["status"] == "pending_countersign"
    assert good(alice, "POST", "/awards/tnd-print-a1:countersign", approve="true")["status"] == "final"
    assert good(bob, "GET", "/auctions/tnd-print")["award"]["winner"] == "bob"

    called = {t for t in served.rest_calls() if t.startswith("market_")}
    assert called == {t.name for t in service("market").tools}
    assert {e.payload["to_principal"] for e in served.world.ledger.of_kind("delivery")} == {"alice", "bob", "carol"}


def test_errors_are_google_shaped_and_a_hidden_row_answers_like_a_missing_one(served):
    bob, carol = client(served, "bob"), client(served, "carol")
    bob.post("/listings/lst-lamp/messages", params={"text": "hi"})  # now the thread exists, and carol is not in it
    hidden = carol.get("/threads/t-lst-lamp-bob")
    missing = carol.get("/threads/t-lst-none")
    assert hidden.status_code == missing.status_code == 404
    assert hidden.json()["error"]["message"].replace("t-lst-lamp-bob", "<id>") == missing.json()["error"]["message"].replace("t-lst-none", "<id>")
    assert hidden.json()["error"]["errors"][0]["reason"] == "notFound"
    refusals = [e for e in served.world.ledger.of_kind("refused") if e.payload["tool"] == "market_get_thread"]
    assert len(refusals) == 1
    official = carol.post("/auctions/tnd-print/bids", params={"amount": 5})  # the auctioneer may not bid
    assert official.status_code == 403 and official.json()["error"]["status"] == "PERMISSION_DENIED"
    bad = bob.post("/listings/lst-lamp/offers", params={"amount": "ten"})
    assert bad.status_code == 400 and "amount" in bad.json()["error"]["message"]
    huge = bob.post("/listings/lst-lamp/offers", params={"amount": str(2**70)})
    assert huge.status_code == 400
    twice = bob.post("/listings/lst-lamp/offers", params={"amount": 150})
    assert twice.status_code == 200
    conflict = bob.post("/listings/lst-lamp/offers", params={"amount": 151})
    assert conflict.status_code == 409 and conflict.json()["error"]["errors"][0]["reason"] == "failedPrecondition"
    assert httpx.get(served.server.url + "/market/v1/listings").status_code == 401


def test_a_json_object_body_carries_the_arguments(served):
    """The domain services' wire (JsonWire): a POST's JSON body is its arguments, typed as JSON has
    them; an argument given twice, or a body that is not an object, is a readable 400."""
    bob = client(served, "bob")
    offer = bob.post("/listings/lst-lamp/offers", json={"amount": 150, "delivery": "I pick it up"})
    assert offer.status_code == 200, offer.text
    assert offer.json()["amount"] == 150
    twice = bob.post("/listings/lst-lamp/offers", params={"amount": 150}, json={"amount": 160})
    assert twice.status_code == 400 and "'amount' is given both in the URL and in the body" in twice.json()["error"]["message"]
    listy = bob.post("/listings/lst-lamp/offers", json=[150])
    assert listy.status_code == 400 and listy.json()["error"]["errors"][0]["reason"] == "parseError"
