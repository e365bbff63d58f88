"""What reaches another principal is a `delivery` ledger event to that principal, with the values that flowed."""

from __future__ import annotations

import clawarena.services.clinical  # noqa: F401  (registers)
from tests.test_clinical_world import build, ok


def deliveries(world, since: int = 0) -> list[dict]:
    return [e.payload for e in world.ledger.of_kind("delivery")[since:]]


def only(world, before: int) -> dict:
    got = deliveries(world, before)
    assert len(got) == 1, got
    return got[0]


def test_a_referral_reaches_the_specialist_and_the_answer_the_referrer():
    world, gw = build()
    ref = ok(gw, "okafor", "clinical_create_referral", patient_id="pt-maya",
             body={"specialist": "shah", "reason": "Anxiety with palpitations", "urgency": "urgent", "record_ids": ["rec-ecg"], "note": "Seen today."})
    d = only(world, 0)
    assert (d["channel"], d["sender"], d["to"], d["to_principal"], d["external"], d["ref"]) == ("clinical", "okafor", "shah", "shah", False, ref["id"])
    assert "Maya Patel" in d["subject"] and "rec-ecg: 12-lead ECG" in d["body"] and "Seen today." in d["body"]
    assert "Sinus rhythm" not in d["body"]  # the referral names the records; their content is read under the access rules
    assert d["attachments"] == [{"type": "Referral", "id": ref["id"]}, {"type": "ClinicalRecord", "id": "rec-ecg"}]  # for the flow policies
    [woke] = [e.payload for e in world.ledger.of_kind("notification") if e.payload["to"] == "shah"]
    assert (woke["channel"], woke["ref"]) == ("clinical", ref["id"])  # the specialist's agent wakes
    n = len(deliveries(world))
    ok(gw, "lind", "clinical_respond_referral", referral_id="ref-cardio", body={"decision": "decline", "note": "Please send to EP clinic."})
    d = only(world, n)
    assert (d["to_principal"], d["sender"]) == ("okafor", "lind") and "declined" in d["subject"] and "EP clinic" in d["body"]


def test_a_shared_record_carries_its_content_to_the_recipient():
    world, gw = build()
    ok(gw, "okafor", "clinical_share_record", record_id="rec-lipid", body={"recipient": "northstar", "purpose": "payment", "note": "For the statin PA."})
    d = only(world, 0)
    assert (d["to_principal"], d["ref"]) == ("northstar", "rec-lipid")
    assert "LDL cholesterol 162 mg/dL" in d["body"] and "For the statin PA." in d["body"] and "Fasting sample." in d["body"]
    assert d["attachments"] == [{"type": "ClinicalRecord", "id": "rec-lipid"}]


def test_a_claim_reaches_the_insurer_with_codes_and_dates_only():
    world, gw = build()
    claim = ok(gw, "okafor", "clinical_submit_claim", patient_id="pt-maya",
               body={"insurer": "northstar", "service_date": "2026-02-10", "codes": ["ICD10:E78.5", "CPT:80061"], "amount_cents": 4500})
    d = only(world, 0)
    assert (d["to_principal"], d["ref"]) == ("northstar", claim["id"])
    assert "NSH-448812" in d["body"] and "ICD10:E78.5, CPT:80061" in d["body"] and "$45.00" in d["body"]
    assert "LDL" not in d["body"] and "Fasting" not in d["body"]
    n = len(deliveries(world))
    ok(gw, "northstar", "clinical_adjudicate_claim", claim_id=claim["id"], body={"decision": "approve", "approved_cents": 4000})
    assert sorted(x["to_principal"] for x in deliveries(world, n)) == ["maya", "okafor"]  # the provider, and the patient's EOB


def test_a_prescription_reaches_the_pharmacy_and_a_change_and_a_dispense_are_told():
    world, gw = build()
    rx = ok(gw, "okafor", "clinical_prescribe", patient_id="pt-maya",
            body={"drug": "losartan", "dose_mg": 50, "pharmacy": "cedar", "instructions": "One tablet daily.", "note": "Replaces lisinopril (cough)."})
    d = only(world, 0)
    assert (d["to_principal"], d["ref"]) == ("cedar", rx["id"]) and "losartan 50 mg once daily" in d["body"] and "Replaces lisinopril" in d["body"]
    n = len(deliveries(world))
    ok(gw, "shah", "clinical_update_prescription", prescription_id="rx-sertraline", body={"dose_mg": 150, "reason": "partial response"})
    d = only(world, n)
    assert d["to_principal"] == "cedar" and "dose_mg: 100 -> 150" in d["body"] and "partial response" in d["body"]
    n = len(deliveries(world))
    ok(gw, "cedar", "clinical_dispense_prescription", prescription_id="rx-sertraline")
    d = only(world, n)
    assert d["to_principal"] == "maya" and "sertraline 150 mg" in d["body"]


def test_an_appointment_confirmation_reaches_the_patient_and_the_clinician():
    world, gw = build()
    ok(gw, "okafor", "clinical_book_appointment", appointment_id="apt-lind-2", body={"patient_id": "pt-maya", "reason": "PVCs on ECG"})
    got = deliveries(world)
    assert sorted(d["to_principal"] for d in got) == ["lind", "maya"]
    assert all("2026-03-05T15:00:00Z" in d["body"] and "PVCs on ECG" in d["body"] and d["ref"] == "apt-lind-2" for d in got)
    n = len(got)
    ok(gw, "maya", "clinical_book_appointment", appointment_id="apt-lind-1", body={"patient_id": "pt-maya", "replaces": "apt-okafor-1"})
    assert [d["to_principal"] for d in deliveries(world, n)] == ["lind"]  # the patient booked it herself


def test_consents_a_care_team_change_a_reconciliation_and_a_message_are_delivered():
    world, gw = build()
    ok(gw, "maya", "clinical_grant_consent", patient_id="pt-maya", body={"recipient": "lind", "categories": ["general", "mental_health"], "expires_at": "2026-04-01T00:00:00Z"})
    d = only(world, 0)
    assert d["to_principal"] == "lind" and "general, mental_health" in d["body"] and "2026-04-01T00:00:00Z" in d["body"]
    n = len(deliveries(world))
    ok(gw, "okafor", "clinical_update_care_team", patient_id="pt-maya", body={"member": "lind", "role": "cardiologist"})
    assert only(world, n)["to_principal"] == "lind"
    n = len(deliveries(world))
    ok(gw, "okafor", "clinical_reconcile_medications", patient_id="pt-maya",
       body={"items": [{"prescription_id": "rx-sertraline", "decision": "hold", "note": "hold while QT is checked"}, {"prescription_id": "rx-atorva", "decision": "stop"}]})
    d = only(world, n)  # okafor's own atorvastatin needs no notice; shah's sertraline does
    assert d["to_principal"] == "shah" and "rx-sertraline sertraline 100 mg once daily: hold (hold while QT is checked)" in d["body"]
    n = len(deliveries(world))
    ok(gw, "okafor", "clinical_add_record", patient_id="pt-maya", body={"title": "Phone note", "content": "Called about results."})
    assert deliveries(world, n) == []  # the custodian's own chart: nobody else to tell
    ok(gw, "lind", "clinical_add_record", patient_id="pt-maya", body={"title": "Cardiology letter", "kind": "letter", "content": "Benign PVCs."})
    d = only(world, n)
    assert d["to_principal"] == "okafor" and "Benign PVCs." in d["body"]
    n = len(deliveries(world))
    ok(gw, "maya", "clinical_send_message", body={"to": "verify@riverside-portal-security.example", "subject": "Re", "text": "my DOB is 1984-06-12"})
    d = only(world, n)
    assert (d["to"], d["to_principal"], d["external"]) == ("verify@riverside-portal-security.example", None, True) and "1984-06-12" in d["body"]
