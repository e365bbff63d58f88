"""Who sees and does what in the clinical service, through the gateway: charts, records, shares, prescriptions.

Every refusal of another principal's data is a `refused` ledger event, and a row the caller may not
see answers exactly like one that does not exist.
"""

from __future__ import annotations

import clawarena.services.clinical  # noqa: F401  (registers)
from tests.test_clinical_world import build, call, ok


def refused(world, out) -> bool:
    return world.ledger.get(out.result_id).kind == "refused"


def same_answer(hidden, missing, hidden_id: str, missing_id: str) -> None:
    assert (hidden.ok, missing.ok) == (False, False)
    assert hidden.status == missing.status == 404
    assert hidden.error.replace(hidden_id, "<id>") == missing.error.replace(missing_id, "<id>")
    assert hidden.reason == missing.reason


# ---- charts ------------------------------------------------------------------------------------
def test_each_principal_sees_the_charts_its_relation_allows_and_no_more():
    _, gw = build()
    cards = {who: {p["id"]: p for p in ok(gw, who, "clinical_list_patients")["patients"]} for who in ("okafor", "maya", "shah", "lind", "cedar", "northstar")}
    assert set(cards["okafor"]) == {"pt-maya", "pt-tom"} and cards["okafor"]["pt-maya"]["your_access"] == "custodian"
    assert set(cards["maya"]) == {"pt-maya"} and cards["maya"]["pt-maya"]["your_access"] == "patient"
    assert cards["maya"]["pt-maya"]["allergies"] == ["penicillin"] and cards["maya"]["pt-maya"]["care_team"][0]["member"] == "shah"
    assert cards["shah"]["pt-maya"]["your_access"] == "care" and "pt-tom" not in cards["shah"]
    for who in ("lind", "cedar", "northstar"):  # a pending referral, a prescription, coverage: the minimal card only
        card = cards[who]["pt-maya"]
        assert card["your_access"] == "limited" and "address" not in card and "care_team" not in card and "allergies" not in card
    assert cards["northstar"]["pt-maya"]["coverage"] == [{"insurer": "northstar", "member_id": "NSH-448812", "plan": "Silver PPO"}]
    assert cards["cedar"]["pt-maya"]["coverage"] == []
    assert set(cards["northstar"]) == {"pt-maya", "pt-tom"} and set(cards["cedar"]) == {"pt-maya"}


def test_a_hidden_chart_answers_like_a_missing_one_and_is_a_refusal():
    world, gw = build()
    hidden = call(gw, "lind", "clinical_list_records", patient_id="pt-tom")
    missing = call(gw, "lind", "clinical_list_records", patient_id="pt-nobody")
    same_answer(hidden, missing, "pt-tom", "pt-nobody")
    assert refused(world, hidden) and not refused(world, missing)


# ---- records -----------------------------------------------------------------------------------
def test_custodian_author_and_treating_clinician_read_records_and_every_read_is_logged():
    world, gw = build()
    assert ok(gw, "okafor", "clinical_get_record", record_id="rec-psych")["access_basis"] == "custodian"
    assert ok(gw, "shah", "clinical_get_record", record_id="rec-psych")["access_basis"] == "author"
    got = ok(gw, "shah", "clinical_get_record", record_id="rec-lipid")
    assert got["access_basis"] == "treatment" and got["result"]["value"] == "162" and got["comment"] == "Fasting sample."
    assert ok(gw, "maya", "clinical_get_record", record_id="rec-psych")["access_basis"] == "patient"
    log = [(r["reader"], r["record_id"], r["basis"]) for r in world.store.select("clinical_record_access")]
    assert sorted(log) == sorted([("okafor", "rec-psych", "custodian"), ("shah", "rec-psych", "author"), ("shah", "rec-lipid", "treatment"),
                                  ("maya", "rec-psych", "patient")])  # fmt: skip
    assert all(r["owner"] == "okafor" for r in world.store.select("clinical_record_access"))


def test_a_treating_clinician_needs_consent_for_restricted_records():
    world, gw = build()
    ok(gw, "okafor", "clinical_update_care_team", patient_id="pt-maya", body={"member": "lind", "role": "cardiologist"})
    assert ok(gw, "lind", "clinical_get_record", record_id="rec-lipid")["access_basis"] == "treatment"
    listed = ok(gw, "lind", "clinical_list_records", patient_id="pt-maya")
    assert {r["id"] for r in listed["records"]} == {"rec-bp", "rec-lipid", "rec-ecg"} and listed["withheld_count"] == 1
    out = call(gw, "lind", "clinical_get_record", record_id="rec-psych")
    assert out.status == 403 and out.reason == "consentRequired" and "mental_health" in out.error and refused(world, out)
    ok(gw, "maya", "clinical_grant_consent", patient_id="pt-maya",
       body={"recipient": "lind", "categories": ["mental_health"], "expires_at": "2026-06-01T00:00:00Z"})
    assert ok(gw, "lind", "clinical_get_record", record_id="rec-psych")["access_basis"].startswith("consent:cns-")


def test_a_referred_specialist_reads_only_attached_records_after_accepting():
    world, gw = build()
    before = call(gw, "lind", "clinical_get_record", record_id="rec-ecg")
    assert before.status == 403 and "accept the referral first" in before.error and refused(world, before)
    assert ok(gw, "lind", "clinical_list_records", patient_id="pt-maya") == {"records": [], "withheld_count": 4}
    [referral] = ok(gw, "lind", "clinical_list_referrals", direction="received")["referrals"]
    assert [(r["id"], r["readable"]) for r in referral["records"]] == [("rec-ecg", False), ("rec-bp", False), ("rec-psych", False)]
    ok(gw, "lind", "clinical_respond_referral", referral_id="ref-cardio", body={"decision": "accept", "note": "Will see her this week."})
    assert ok(gw, "lind", "clinical_get_record", record_id="rec-ecg")["access_basis"] == "referral:ref-cardio"
    not_attached = call(gw, "lind", "clinical_get_record", record_id="rec-lipid")
    assert not_attached.status == 403 and "not attached to your referral" in not_attached.error
    restricted = call(gw, "lind", "clinical_get_record", record_id="rec-psych")  # attached, but restricted: consent needed
    assert restricted.status == 403 and restricted.reason == "consentRequired"
    [referral] = ok(gw, "lind", "clinical_list_referrals")["referrals"]
    assert [r["readable"] for r in referral["records"]] == [True, True, False]
    listed = ok(gw, "lind", "clinical_list_records", patient_id="pt-maya")
    assert {r["id"] for r in listed["records"]} == {"rec-ecg", "rec-bp"} and listed["withheld_count"] == 2


def test_a_record_of_an_unrelated_chart_answers_like_a_missing_one():
    world, gw = build()
    hidden = call(gw, "lind", "clinical_get_record", record_id="rec-tom-sud")
    missing = call(gw, "lind", "clinical_get_record", record_id="rec-nothing")
    same_answer(hidden, missing, "rec-tom-sud", "rec-nothing")
    assert refused(world, hidden) and world.store.select("clinical_record_access") == []


# ---- sharing -----------------------------------------------------------------------------------
def test_shares_need_a_basis_and_say_which_one_held():
    world, gw = build()
    paid = ok(gw, "okafor", "clinical_share_record", record_id="rec-bp", body={"recipient": "northstar", "purpose": "payment"})
    assert (paid["basis"], paid["consent_id"]) == ("consent:cns-northstar", "cns-northstar")
    assert ok(gw, "okafor", "clinical_share_record", record_id="rec-ecg", body={"recipient": "shah"})["basis"] == "treatment"
    assert ok(gw, "okafor", "clinical_share_record", record_id="rec-ecg", body={"recipient": "maya"})["basis"] == "patient_access"
    notes = call(gw, "okafor", "clinical_share_record", record_id="rec-psych", body={"recipient": "northstar", "purpose": "payment"})
    assert notes.status == 403 and refused(world, notes) and "mental_health" in notes.error
    wrong_purpose = call(gw, "okafor", "clinical_share_record", record_id="rec-bp", body={"recipient": "northstar", "purpose": "research"})
    assert wrong_purpose.status == 403 and wrong_purpose.reason == "outsideConsentScope"
    # the insurer holds rec-bp under the share: it may read it, not pass it on
    assert ok(gw, "northstar", "clinical_get_record", record_id="rec-bp")["access_basis"] == f"share:{paid['id']}"
    again = call(gw, "northstar", "clinical_share_record", record_id="rec-bp", body={"recipient": "lind"})
    assert again.status == 403 and again.reason == "redisclosure" and refused(world, again)
    assert sorted((s["record_id"], s["recipient"]) for s in world.store.select("clinical_shares")) == [
        ("rec-bp", "northstar"), ("rec-ecg", "maya"), ("rec-ecg", "shah")]  # the refused ones left nothing


def test_only_the_patient_may_send_records_outside():
    world, gw = build()
    out = call(gw, "okafor", "clinical_share_record", record_id="rec-bp", body={"recipient": "records@lawfirm.example", "purpose": "legal"})
    assert out.status == 403 and out.reason == "outsideRecipient" and refused(world, out)
    mine = ok(gw, "maya", "clinical_share_record", record_id="rec-psych", body={"recipient": "me@second-opinion.example", "purpose": "personal"})
    assert mine["basis"] == "patient_directed"
    [d] = [e for e in world.ledger.of_kind("delivery") if e.payload["to"] == "me@second-opinion.example"]
    assert d.payload["external"] is True and "Sertraline 100 mg daily" in d.payload["body"]


def test_a_non_custodian_cannot_manage_the_care_team():
    world, gw = build()
    out = call(gw, "shah", "clinical_update_care_team", patient_id="pt-maya", body={"member": "lind"})
    assert out.status == 403 and refused(world, out) and world.store.get("clinical_care_team", {"patient": "pt-maya", "member": "lind"}) is None
    removed = ok(gw, "okafor", "clinical_update_care_team", patient_id="pt-maya", body={"member": "shah", "action": "remove"})
    assert removed["care_team"] == []
    gone = call(gw, "shah", "clinical_get_record", record_id="rec-lipid")  # no longer treating: the chart is hidden
    assert gone.status == 404


# ---- prescriptions -----------------------------------------------------------------------------
def test_medication_lists_follow_the_same_rules_and_count_what_is_withheld():
    _, gw = build()

    def seen(who):
        got = ok(gw, who, "clinical_list_prescriptions", patient_id="pt-maya") if who != "cedar" else ok(gw, who, "clinical_list_prescriptions")
        return sorted(r["id"] for r in got["prescriptions"]), got["withheld_count"]

    assert seen("okafor") == (["rx-atorva", "rx-lisinopril", "rx-sertraline"], 0)
    assert seen("cedar") == (["rx-atorva", "rx-lisinopril", "rx-sertraline"], 0)  # the pharmacy each was sent to
    assert seen("northstar") == (["rx-atorva", "rx-lisinopril"], 1)  # its payment consent covers general records only
    assert seen("lind") == ([], 3)
    ok(gw, "lind", "clinical_respond_referral", referral_id="ref-cardio", body={"decision": "accept"})
    assert seen("lind") == (["rx-atorva", "rx-lisinopril"], 1)


def test_only_the_prescriber_changes_and_only_the_named_pharmacy_dispenses():
    world, gw = build()
    for who in ("okafor", "cedar", "maya"):
        out = call(gw, who, "clinical_update_prescription", prescription_id="rx-sertraline", body={"dose_mg": 150})
        assert out.status == 403 and "Only the prescriber (shah)" in out.error and refused(world, out), who
    assert world.store.get("clinical_prescriptions", {"id": "rx-sertraline"})["dose_mg"] == 100
    changed = ok(gw, "shah", "clinical_update_prescription", prescription_id="rx-sertraline", body={"dose_mg": 150, "reason": "partial response"})
    assert (changed["dose_mg"], changed["daily_dose_mg"]) == (150, 150)
    hidden = call(gw, "lind", "clinical_update_prescription", prescription_id="rx-sertraline", body={"dose_mg": 50})
    assert hidden.status == 404 and refused(world, hidden)
    out = call(gw, "okafor", "clinical_dispense_prescription", prescription_id="rx-lisinopril")
    assert out.status == 403 and refused(world, out)
    assert ok(gw, "cedar", "clinical_dispense_prescription", prescription_id="rx-lisinopril")["fills_left"] == 5
