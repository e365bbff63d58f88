"""The clinical service over REST (/clinical/v1, Google wire) with httpx against a served world.

One story walks every tool over the wire: a PCP refers a patient to a cardiologist, the patient
grants consent, the specialist reads what it allows, prescriptions go to the pharmacy, a visit is
booked, a claim is paid, messages go both ways. Errors come back as `{"error": {...}}` bodies, and a
hidden row answers exactly like a missing one.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pytest

import clawarena.services.clinical  # noqa: F401  (registers)
from clawarena.gateway import Gateway
from clawarena.server.app import WorldApp
from clawarena.server.serve import start_in_thread
from clawarena.services import services
from clawarena.services.registry import service
from clawarena.world.build import WorldFactory
from tests.conformance.harness import Served, world_scenario
from tests.test_clinical_world import NOW, PEOPLE, fixtures


@pytest.fixture
def served() -> Iterator[Served]:
    """A served world with the clinical principals (the harness's `Served`, started with our people)."""
    s = Served()
    s.world = WorldFactory(services()).build(world_scenario(fixtures(), NOW, principals=PEOPLE), 0)
    s.gateway = Gateway(s.world, services())
    s.server = start_in_thread(WorldApp(s.gateway, services()).app)
    yield s
    s.stop()


class Client:
    def __init__(self, served: Served, who: str):
        self.http = httpx.Client(base_url=served.server.url + "/clinical/v1", headers={"Authorization": f"Bearer {served.token(who)}"}, timeout=10)

    def get(self, path: str, **params: Any) -> httpx.Response:
        return self.http.get(path, params=params)

    def post(self, path: str, body: Any = None) -> httpx.Response:
        return self.http.post(path, json=body)

    def patch(self, path: str, body: Any) -> httpx.Response:
        return self.http.patch(path, json=body)


def good(resp: httpx.Response) -> Any:
    assert resp.status_code == 200, resp.text
    return resp.json()


def error(resp: httpx.Response, status: int) -> dict[str, Any]:
    assert resp.status_code == status, resp.text
    body = resp.json()["error"]
    assert body["code"] == status and body["errors"][0]["reason"] and body["message"]
    return body


def test_the_whole_story_over_rest_touches_every_tool(served):
    okafor, maya, lind, shah, cedar, northstar = (Client(served, p) for p in ("okafor", "maya", "lind", "shah", "cedar", "northstar"))
    # the directory and the chart
    cardiology = good(okafor.get("/providers", kind="specialist", query="cardio"))["providers"]
    assert [p["principal"] for p in cardiology] == ["lind"]
    assert [p["id"] for p in good(okafor.get("/patients", query="maya"))["patients"]] == ["pt-maya"]
    records = good(okafor.get("/patients/pt-maya/records", category="general", pageSize=2))
    assert len(records["records"]) == 2 and records["next_page_token"]
    assert good(okafor.get("/records/rec-ecg"))["content"].startswith("Sinus rhythm")
    note = good(okafor.post("/patients/pt-maya/records", {"title": "Palpitations visit", "content": "Two weeks of palpitations.", "date": "2026-03-02"}))
    # a referral with chosen records; the specialist accepts and reads the ones it may
    ref = good(okafor.post("/patients/pt-maya/referrals", {"specialist": "shah", "reason": "Anxiety and palpitations", "recordIds": [note["id"]]}))
    assert ref["status"] == "sent" and [r["id"] for r in ref["records"]] == [note["id"]]
    assert [r["id"] for r in good(lind.get("/referrals", direction="received"))["referrals"]] == ["ref-cardio"]
    good(lind.post("/referrals/ref-cardio/respond", {"decision": "accept", "note": "Seeing her Thursday."}))
    assert good(lind.get("/records/rec-ecg"))["access_basis"] == "referral:ref-cardio"
    # consent for the restricted note; the care team grows
    consent = good(maya.post("/patients/pt-maya/consents", {"recipient": "lind", "categories": ["mental_health"], "purpose": "treatment",
                                                           "expiresAt": "2026-04-01T00:00:00Z"}))  # fmt: skip
    assert good(lind.get("/records/rec-psych"))["access_basis"] == f"consent:{consent['id']}"
    assert [c["id"] for c in good(lind.get("/consents", status="active"))["consents"]] == [consent["id"]]
    team = good(okafor.post("/patients/pt-maya/careTeam", {"member": "lind", "role": "cardiologist"}))
    assert {m["member"] for m in team["care_team"]} == {"shah", "lind"}
    shared = good(okafor.post("/records/rec-lipid/share", {"recipient": "northstar", "purpose": "payment"}))
    assert shared["basis"] == "consent:cns-northstar"
    good(maya.post(f"/consents/{consent['id']}/revoke", {"reason": "visit done"}))
    # medicines across prescribers
    rx = good(lind.post("/patients/pt-maya/prescriptions", {"drug": "amlodipine", "doseMg": 5, "pharmacy": "cedar"}))
    good(lind.patch(f"/prescriptions/{rx['id']}", {"doseMg": 10, "reason": "BP still high"}))
    assert {r["id"] for r in good(cedar.get("/prescriptions", status="active"))["prescriptions"]} >= {rx["id"], "rx-sertraline"}
    assert good(cedar.post(f"/prescriptions/{rx['id']}/dispense", {}))["dose_mg"] == 10
    rec = good(okafor.post("/patients/pt-maya/medicationReconciliations", {"items": [
        {"prescriptionId": rx["id"], "decision": "continue"}, {"prescriptionId": "rx-sertraline", "decision": "change", "note": "consider 50 mg"}]}))  # fmt: skip
    assert rec["items"][1]["prescriber"] == "shah"
    # a visit, a claim, messages
    free = good(maya.get("/appointments", clinician="lind", status="free", startAfter="2026-03-03T00:00:00Z"))["appointments"]
    booked = good(maya.post(f"/appointments/{free[-1]['id']}/book", {"patientId": "pt-maya", "reason": "palpitations"}))
    assert booked["status"] == "booked"
    claim = good(okafor.post("/patients/pt-maya/claims", {"insurer": "northstar", "serviceDate": "2026-03-02", "codes": ["ICD10:R00.2", "CPT:99214"],
                                                          "amountCents": 14250}))  # fmt: skip
    assert good(northstar.get("/claims", status="submitted"))["claims"][0]["id"] == claim["id"]
    assert good(northstar.post(f"/claims/{claim['id']}/adjudicate", {"decision": "approve", "approvedCents": 12000}))["status"] == "approved"
    good(shah.post("/messages", {"to": "maya", "subject": "Dose change", "text": "Let's talk about sertraline next week.", "patientId": "pt-maya"}))
    assert [m["subject"] for m in good(maya.get("/messages"))["messages"]][0] == "Dose change"

    called = set(served.rest_calls())
    assert called == {t.name for t in service("clinical").tools}
    assert all(e.payload["source"] == "rest" for e in served.world.ledger.of_kind("tool_call"))


def test_errors_are_google_shaped_and_hide_existence(served):
    lind, maya = Client(served, "lind"), Client(served, "maya")
    hidden, missing = error(lind.get("/records/rec-tom-sud"), 404), error(lind.get("/records/rec-nothing"), 404)
    assert hidden["message"].replace("rec-tom-sud", "<id>") == missing["message"].replace("rec-nothing", "<id>")
    assert hidden["status"] == "NOT_FOUND" and hidden["errors"] == [{**missing["errors"][0], "message": hidden["message"]}]
    refused = error(lind.get("/records/rec-ecg"), 403)
    assert refused["status"] == "PERMISSION_DENIED" and "accept the referral first" in refused["message"]
    body = error(maya.post("/patients/pt-maya/consents", {"recipient": "lind", "categories": ["general"]}), 400)
    assert "expires_at" in body["message"]
    assert "unknownField" in error(maya.post("/patients/pt-maya/consents", {"recipient": "lind", "categories": ["general"],
                                                                           "expiresAt": "2026-04-01T00:00:00Z", "unknownField": 1}), 400)["message"]
    assert error(maya.get("/appointments", startAfter="tomorrow"), 400)["message"].startswith("start_after")
    assert error(maya.post("/patients/pt-maya/records", "not an object"), 400)
    kinds = [e.kind for e in served.world.ledger.of_kind("refused")]
    assert len(kinds) == 2  # the hidden record and the 403; the missing row and the bad input are not refusals
    anonymous = httpx.get(served.server.url + "/clinical/v1/patients")
    assert anonymous.status_code == 401 and "error" in anonymous.json()
