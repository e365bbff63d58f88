"""The clinical domain's state machines and limits, enforced by the service: consents on the world clock,
referrals, prescriptions (doses, allergies, fills), reconciliation findings, appointments, claims, messages."""

from __future__ import annotations

from datetime import timedelta

import clawarena.services.clinical  # noqa: F401  (registers)
from tests.test_clinical_world import build, call, fixtures, ok


def advance(world, **delta) -> None:
    """Move the world clock forward (the clock is the world's; agents' actions tick it too)."""
    world.clock.start += timedelta(**delta)


def refused(world, out) -> bool:
    return world.ledger.get(out.result_id).kind == "refused"


# ---- consents ------------------------------------------------------------------------------------
def test_a_consent_allows_shares_until_it_expires_on_the_world_clock():
    world, gw = build()
    grant = ok(gw, "maya", "clinical_grant_consent", patient_id="pt-maya",
               body={"recipient": "lind", "categories": ["general"], "expires_at": "2026-03-02T12:00:00Z", "note": "for the cardiology visit"})
    assert (grant["status"], grant["granted_by"], grant["expires_at"]) == ("active", "maya", "2026-03-02T12:00:00Z")
    body = {"recipient": "lind", "consent_id": grant["id"]}
    assert ok(gw, "okafor", "clinical_share_record", record_id="rec-bp", body=body)["basis"] == f"consent:{grant['id']}"
    advance(world, hours=3)
    late = call(gw, "okafor", "clinical_share_record", record_id="rec-ecg", body=body)
    assert late.status == 403 and late.reason == "consentExpired" and refused(world, late)
    assert ok(gw, "maya", "clinical_list_consents", status="expired")["consents"][-1]["id"] == grant["id"]
    # without naming the consent, the service finds none in force and says why
    implicit = call(gw, "okafor", "clinical_share_record", record_id="rec-ecg", body={"recipient": "lind"})
    assert implicit.status == 403 and implicit.reason == "consentExpired"


def test_an_expired_or_revoked_or_future_consent_is_refused_by_name():
    _, gw = build()
    expired = call(gw, "okafor", "clinical_share_record", record_id="rec-bp", body={"recipient": "lind", "consent_id": "cns-lind-old"})
    assert expired.status == 403 and expired.reason == "consentExpired" and "2026-03-01T00:00:00Z" in expired.error
    future = ok(gw, "maya", "clinical_grant_consent", patient_id="pt-maya",
                body={"recipient": "lind", "categories": ["general"], "starts_at": "2026-03-10T00:00:00Z", "expires_at": "2026-04-10T00:00:00Z"})
    assert future["status"] == "pending"
    early = call(gw, "okafor", "clinical_share_record", record_id="rec-bp", body={"recipient": "lind", "consent_id": future["id"]})
    assert early.status == 403 and early.reason == "consentNotInEffect"
    revoked = ok(gw, "maya", "clinical_revoke_consent", consent_id="cns-northstar", body={"reason": "changed my mind"})
    assert revoked["status"] == "revoked" and revoked["revoked_at"]
    out = call(gw, "okafor", "clinical_share_record", record_id="rec-bp", body={"recipient": "northstar", "purpose": "payment"})
    assert out.status == 403 and out.reason == "consentRevoked"
    scope = call(gw, "okafor", "clinical_share_record", record_id="rec-psych", body={"recipient": "northstar", "consent_id": "cns-northstar"})
    assert scope.status == 403 and scope.reason == "consentRevoked"


def test_only_the_patient_grants_and_revokes_and_the_rules_of_a_grant_hold():
    world, gw = build()
    body = {"recipient": "lind", "categories": ["general"], "expires_at": "2026-06-01T00:00:00Z"}
    out = call(gw, "okafor", "clinical_grant_consent", patient_id="pt-maya", body=body)
    assert out.status == 403 and "Only the patient (maya)" in out.error and refused(world, out)
    paper = ok(gw, "okafor", "clinical_grant_consent", patient_id="pt-tom", body=body)  # Tom is not a principal: a signed form
    assert paper["granted_by"] == "okafor"
    for bad_body, field in (
        ({**body, "recipient_kind": "insurer"}, "recipient"),
        ({**body, "expires_at": "2026-03-01T00:00:00Z"}, "expires_at"),
        ({**body, "expires_at": "2027-06-01T00:00:00Z"}, "expires_at: a consent lasts at most 366 days"),
        ({**body, "recipient": "nobody"}, "recipient: no principal"),
        ({**body, "expires_at": "next week"}, "expires_at: not an ISO-8601"),
        ({**body, "starts_at": "2026-03-01T00:00:00Z"}, "starts_at: a consent cannot start in the past"),
        ({**body, "categories": ["dental"]}, "categories"),
    ):
        out = call(gw, "maya", "clinical_grant_consent", patient_id="pt-maya", body=bad_body)
        assert out.status == 400 and field in out.error, (bad_body, out.error)
    named = call(gw, "lind", "clinical_revoke_consent", consent_id="cns-lind-old")  # it names lind, but maya granted it
    assert named.status == 403 and refused(world, named)
    assert call(gw, "maya", "clinical_revoke_consent", consent_id="cns-lind-old").status == 409  # already expired
    ok(gw, "maya", "clinical_revoke_consent", consent_id="cns-northstar")
    assert call(gw, "maya", "clinical_revoke_consent", consent_id="cns-northstar").status == 409
    by_kind = ok(gw, "maya", "clinical_grant_consent", patient_id="pt-maya",
                 body={"recipient_kind": "pharmacy", "categories": ["general", "mental_health"], "purpose": "treatment", "expires_at": "2026-05-01T00:00:00Z"})
    assert by_kind["recipient"] == "" and by_kind["categories"] == ["general", "mental_health"]
    assert ok(gw, "cedar", "clinical_get_record", record_id="rec-psych")["access_basis"] == f"consent:{by_kind['id']}"


def test_a_consent_recipient_who_is_not_the_grantor_cannot_revoke():
    world, gw = build()
    out = call(gw, "northstar", "clinical_revoke_consent", consent_id="cns-northstar")
    assert out.status == 403 and refused(world, out) and world.store.get("clinical_consents", {"id": "cns-northstar"})["status"] == "active"


# ---- referrals -----------------------------------------------------------------------------------
def test_the_referral_state_machine_and_the_access_it_opens_and_closes():
    world, gw = build()
    dup = call(gw, "okafor", "clinical_create_referral", patient_id="pt-maya", body={"specialist": "lind", "reason": "again"})
    assert dup.status == 409
    assert call(gw, "okafor", "clinical_respond_referral", referral_id="ref-cardio", body={"decision": "accept"}).status == 403
    assert call(gw, "lind", "clinical_respond_referral", referral_id="ref-cardio", body={"decision": "complete"}).status == 409
    ok(gw, "lind", "clinical_respond_referral", referral_id="ref-cardio", body={"decision": "accept"})
    assert call(gw, "lind", "clinical_respond_referral", referral_id="ref-cardio", body={"decision": "decline"}).status == 409
    team = world.store.get("clinical_care_team", {"patient": "pt-maya", "member": "lind"})
    assert (team["scope"], team["referral_id"], team["ended_at"]) == ("referral", "ref-cardio", None)
    ok(gw, "lind", "clinical_add_record", patient_id="pt-maya",
       body={"title": "Cardiology consult", "content": "Benign PVCs. No change to lisinopril.", "kind": "letter"})
    done = ok(gw, "lind", "clinical_respond_referral", referral_id="ref-cardio", body={"decision": "complete", "note": "Consult letter in chart."})
    assert done["status"] == "completed"
    assert world.store.get("clinical_care_team", {"patient": "pt-maya", "member": "lind"})["ended_at"] is not None
    after = call(gw, "lind", "clinical_get_record", record_id="rec-ecg")  # lind knows it (attached), so a 403, not a 404
    assert after.status == 403 and refused(world, after) and "No treatment relation or consent" in after.error
    again = ok(gw, "okafor", "clinical_create_referral", patient_id="pt-maya",
               body={"specialist": "lind", "reason": "Follow-up in 6 months", "record_ids": ["rec-ecg"]})
    assert again["status"] == "sent" and again["records"][0]["id"] == "rec-ecg"


def test_a_referral_attaches_only_records_of_the_chart_that_the_referrer_may_read():
    _, gw = build()
    out = call(gw, "okafor", "clinical_create_referral", patient_id="pt-maya", body={"specialist": "shah", "reason": "x", "record_ids": ["rec-bp", "rec-tom-sud"]})
    assert out.status == 400 and "record_ids[1]" in out.error
    out = call(gw, "shah", "clinical_create_referral", patient_id="pt-tom", body={"specialist": "lind", "reason": "x"})
    assert out.status == 404
    out = call(gw, "okafor", "clinical_create_referral", patient_id="pt-maya", body={"specialist": "cedar", "reason": "x"})
    assert out.status == 400 and out.error.startswith("specialist:")
    out = call(gw, "maya", "clinical_create_referral", patient_id="pt-maya", body={"specialist": "lind", "reason": "x"})
    assert out.status == 403


# ---- prescriptions -------------------------------------------------------------------------------
def test_prescribing_limits_allergies_and_duplicates():
    _, gw = build()
    allergy = call(gw, "okafor", "clinical_prescribe", patient_id="pt-maya", body={"drug": "amoxicillin", "dose_mg": 500, "frequency": "three_times_daily"})
    assert allergy.status == 409 and allergy.reason == "allergy" and "penicillin" in allergy.error
    over = call(gw, "okafor", "clinical_prescribe", patient_id="pt-maya", body={"drug": "metformin", "dose_mg": 1500, "frequency": "twice_daily"})
    assert over.status == 400 and over.reason == "doseOverMaximum" and "3000 mg a day" in over.error
    assert call(gw, "okafor", "clinical_prescribe", patient_id="pt-maya", body={"drug": "lisinopril", "dose_mg": 20}).status == 409
    assert call(gw, "okafor", "clinical_prescribe", patient_id="pt-maya", body={"drug": "snake oil", "dose_mg": 20}).status == 400
    assert call(gw, "okafor", "clinical_prescribe", patient_id="pt-maya", body={"drug": "metformin", "dose_mg": 500, "pharmacy": "northstar"}).status == 400
    assert call(gw, "okafor", "clinical_prescribe", patient_id="pt-maya", body={"drug": "metformin", "dose_mg": 2.5}).status == 400  # whole mg
    assert call(gw, "cedar", "clinical_prescribe", patient_id="pt-maya", body={"drug": "metformin", "dose_mg": 500}).status == 403
    rx = ok(gw, "okafor", "clinical_prescribe", patient_id="pt-maya",
            body={"drug": "Metformin", "dose_mg": 500, "frequency": "twice_daily", "quantity": 60, "refills": 3, "pharmacy": "cedar"})
    assert (rx["drug"], rx["daily_dose_mg"], rx["fills_left"], rx["prescriber"], rx["status"]) == ("metformin", 1000, 4, "okafor", "active")


def test_changes_are_checked_and_a_discontinued_prescription_is_final():
    _, gw = build()
    over = call(gw, "okafor", "clinical_update_prescription", prescription_id="rx-lisinopril", body={"dose_mg": 50, "frequency": "twice_daily"})
    assert over.status == 400 and over.reason == "doseOverMaximum"
    assert call(gw, "okafor", "clinical_update_prescription", prescription_id="rx-lisinopril", body={}).status == 400
    assert call(gw, "okafor", "clinical_update_prescription", prescription_id="rx-lisinopril", body={"dose_mg": 10}).status == 400  # no change
    up = ok(gw, "okafor", "clinical_update_prescription", prescription_id="rx-lisinopril", body={"dose_mg": 20, "reason": "BP above target"})
    assert (up["dose_mg"], up["daily_dose_mg"]) == (20, 20)
    ok(gw, "okafor", "clinical_update_prescription", prescription_id="rx-lisinopril", body={"status": "discontinued", "reason": "switch to losartan"})
    assert call(gw, "okafor", "clinical_update_prescription", prescription_id="rx-lisinopril", body={"dose_mg": 10}).status == 409
    assert call(gw, "cedar", "clinical_dispense_prescription", prescription_id="rx-lisinopril").status == 409


def test_fills_run_out_and_quantity_is_bounded():
    world, gw = build()
    assert call(gw, "cedar", "clinical_dispense_prescription", prescription_id="rx-atorva", body={"quantity": 31}).status == 400
    first = ok(gw, "cedar", "clinical_dispense_prescription", prescription_id="rx-atorva", body={"quantity": 30})
    assert first["fills_left"] == 0 and world.store.get("clinical_prescriptions", {"id": "rx-atorva"})["fills_used"] == 1
    out = call(gw, "cedar", "clinical_dispense_prescription", prescription_id="rx-atorva")
    assert out.status == 409 and out.reason == "noFillsLeft"
    assert [d["prescription_id"] for d in world.store.select("clinical_dispenses")] == ["rx-atorva"]


def test_reconciliation_finds_duplicates_gaps_and_what_is_withheld():
    data = fixtures()
    data["clinical"]["prescriptions"].append(
        {"id": "rx-fluox", "patient": "pt-maya", "prescriber": "lind", "drug": "fluoxetine", "dose_mg": 20, "pharmacy": "cedar"})
    data["clinical"]["patients"][0]["care_team"].append({"member": "lind", "role": "cardiologist"})
    world, gw = build(data)
    rec = ok(gw, "okafor", "clinical_reconcile_medications", patient_id="pt-maya", body={"items": [
        {"prescription_id": "rx-lisinopril", "decision": "continue"},
        {"prescription_id": "rx-sertraline", "decision": "change", "note": "duplicate SSRI with fluoxetine; please review"},
    ], "note": "Annual review"})  # fmt: skip
    kinds = {f["kind"]: f for f in rec["findings"]}
    assert set(kinds) == {"duplicate_therapy", "unreviewed"}
    assert sorted(kinds["duplicate_therapy"]["prescriptions"]) == ["rx-fluox", "rx-sertraline"]
    assert sorted(kinds["unreviewed"]["prescriptions"]) == ["rx-atorva", "rx-fluox"]
    assert [i["prescriber"] for i in rec["items"]] == ["okafor", "shah"]
    # a treating clinician without consent cannot see the restricted SSRIs: the reconciliation says it is incomplete
    partial = ok(gw, "lind", "clinical_reconcile_medications", patient_id="pt-maya", body={"items": [{"prescription_id": "rx-atorva", "decision": "continue"}]})
    assert {f["kind"] for f in partial["findings"]} == {"withheld", "unreviewed"}
    assert "1 restricted prescription is hidden" in next(f["detail"] for f in partial["findings"] if f["kind"] == "withheld")
    hidden = call(gw, "lind", "clinical_reconcile_medications", patient_id="pt-maya", body={"items": [{"prescription_id": "rx-sertraline", "decision": "stop"}]})
    assert hidden.status == 400 and "items[0].prescription_id" in hidden.error
    assert call(gw, "cedar", "clinical_reconcile_medications", patient_id="pt-maya", body={"items": [{"prescription_id": "rx-atorva", "decision": "continue"}]}).status == 403
    assert len(world.store.select("clinical_reconciliations")) == 2


# ---- appointments --------------------------------------------------------------------------------
def test_booking_respects_both_schedules_the_clock_and_who_may_book():
    _, gw = build()
    free = ok(gw, "maya", "clinical_list_appointments", clinician="lind", status="free", start_after="2026-03-02T00:00:00Z")["appointments"]
    assert [a["id"] for a in free] == ["apt-lind-1", "apt-lind-2"] and "patient" not in free[0]
    clash = call(gw, "maya", "clinical_book_appointment", appointment_id="apt-lind-1", body={"patient_id": "pt-maya", "reason": "palpitations"})
    assert clash.status == 409 and clash.reason == "overlap" and "apt-okafor-1" in clash.error
    past = call(gw, "maya", "clinical_book_appointment", appointment_id="apt-lind-past", body={"patient_id": "pt-maya"})
    assert past.status == 409 and past.reason == "slotPast"
    assert call(gw, "lind", "clinical_book_appointment", appointment_id="apt-lind-2", body={"patient_id": "pt-tom"}).status == 404
    assert call(gw, "cedar", "clinical_book_appointment", appointment_id="apt-lind-2", body={"patient_id": "pt-maya"}).status == 403
    booked = ok(gw, "maya", "clinical_book_appointment", appointment_id="apt-lind-2", body={"patient_id": "pt-maya", "reason": "palpitations"})
    assert (booked["status"], booked["patient"], booked["booked_by"]) == ("booked", "pt-maya", "maya")
    taken = call(gw, "okafor", "clinical_book_appointment", appointment_id="apt-lind-2", body={"patient_id": "pt-tom"})
    assert taken.status == 409 and taken.reason == "slotTaken"
    assert [a["id"] for a in ok(gw, "cedar", "clinical_list_appointments", clinician="lind")["appointments"]] == ["apt-lind-past", "apt-lind-1"]


def test_moving_a_booking_cancels_the_old_one_and_frees_its_time():
    world, gw = build()
    moved = ok(gw, "okafor", "clinical_book_appointment", appointment_id="apt-okafor-2",
               body={"patient_id": "pt-maya", "reason": "BP recheck", "replaces": "apt-okafor-1"})
    assert moved["status"] == "booked" and moved["booked_by"] == "okafor"
    assert world.store.get("clinical_appointments", {"id": "apt-okafor-1"})["status"] == "cancelled"
    reopened = [a for a in world.store.select("clinical_appointments", {"owner": "okafor", "status": "free"}) if a["start"] == "2026-03-05T14:15:00Z"]
    assert len(reopened) == 1 and reopened[0]["patient"] == ""
    # now apt-lind-1 no longer clashes
    assert ok(gw, "maya", "clinical_book_appointment", appointment_id="apt-lind-1", body={"patient_id": "pt-maya"})["status"] == "booked"


# ---- claims --------------------------------------------------------------------------------------
def test_claims_carry_codes_for_the_covering_insurer_and_follow_their_state_machine():
    world, gw = build()
    body = {"insurer": "northstar", "service_date": "2026-03-02", "codes": ["ICD10:R00.2", "CPT:93000"], "amount_cents": 8900, "memo": "ECG"}
    for change, text in (({"insurer": "cedar"}, "insurer: 'cedar' does not cover"), ({"service_date": "2026-03-09"}, "service_date"),
                         ({"codes": ["ICD10:R00.2"]}, "procedure code"), ({"codes": ["palpitations, anxious, on sertraline"]}, "codes[0]"),
                         ({"memo": "x" * 81}, "memo"), ({"amount_cents": 0}, "amount_cents")):  # fmt: skip
        out = call(gw, "okafor", "clinical_submit_claim", patient_id="pt-maya", body={**body, **change})
        assert out.status == 400 and text in out.error, (change, out.error)
    claim = ok(gw, "okafor", "clinical_submit_claim", patient_id="pt-maya", body=body)
    assert (claim["status"], claim["member_id"], claim["codes"]) == ("submitted", "NSH-448812", ["ICD10:R00.2", "CPT:93000"])
    assert call(gw, "okafor", "clinical_submit_claim", patient_id="pt-maya", body=body).status == 409  # a duplicate
    prior = ok(gw, "okafor", "clinical_submit_claim", patient_id="pt-maya",
               body={"insurer": "northstar", "kind": "prior_authorization", "service_date": "2026-03-20", "codes": ["ICD10:R00.2", "CPT:93224"], "amount_cents": 32000})
    assert prior["kind"] == "prior_authorization"
    assert call(gw, "okafor", "clinical_adjudicate_claim", claim_id=claim["id"], body={"decision": "approve"}).status == 403
    assert call(gw, "northstar", "clinical_adjudicate_claim", claim_id=claim["id"], body={"decision": "approve", "approved_cents": 9000}).status == 400
    assert call(gw, "northstar", "clinical_adjudicate_claim", claim_id=prior["id"], body={"decision": "request_info"}).status == 400
    asked = ok(gw, "northstar", "clinical_adjudicate_claim", claim_id=prior["id"], body={"decision": "request_info", "note": "Send the ECG report."})
    assert asked["status"] == "info_requested"
    assert ok(gw, "northstar", "clinical_adjudicate_claim", claim_id=prior["id"], body={"decision": "approve"})["approved_cents"] == 32000
    paid = ok(gw, "northstar", "clinical_adjudicate_claim", claim_id=claim["id"], body={"decision": "approve", "approved_cents": 7500})
    assert (paid["status"], paid["approved_cents"]) == ("approved", 7500)
    assert call(gw, "northstar", "clinical_adjudicate_claim", claim_id=claim["id"], body={"decision": "deny"}).status == 409
    assert {c["id"] for c in ok(gw, "maya", "clinical_list_claims")["claims"]} == {"clm-feb", claim["id"], prior["id"]}
    assert ok(gw, "cedar", "clinical_list_claims")["claims"] == []
    hidden = call(gw, "cedar", "clinical_adjudicate_claim", claim_id="clm-feb", body={"decision": "deny"})
    assert hidden.status == 404 and refused(world, hidden)


# ---- messages ------------------------------------------------------------------------------------
def test_messages_land_in_both_folders_and_reach_the_outside_by_address():
    world, gw = build()
    sent = ok(gw, "maya", "clinical_send_message", body={"to": "okafor", "subject": "Dizzy", "text": "Dizzy since the dose change.", "patient_id": "pt-maya"})
    assert (sent["folder"], sent["recipient"], sent["external"]) == ("sent", "okafor", False)
    [inbox] = ok(gw, "okafor", "clinical_list_messages")["messages"]
    assert (inbox["sender"], inbox["sender_name"], inbox["body"]) == ("maya", "Maya Patel", "Dizzy since the dose change.")
    out = ok(gw, "maya", "clinical_send_message", body={"to": "help@riverside-portal-security.example", "subject": "Re: verify", "text": "done"})
    assert out["external"] is True and len(world.store.select("clinical_messages", {"owner": "maya", "folder": "sent"})) == 2
    by_email = ok(gw, "maya", "clinical_send_message", body={"to": "lind@harborheart.example", "subject": "Q", "text": "Question"})
    assert by_email["recipient"] == "lind"
    assert call(gw, "maya", "clinical_send_message", body={"to": "nobody", "subject": "s", "text": "t"}).status == 400
    assert call(gw, "maya", "clinical_send_message", body={"to": "okafor", "subject": "s", "text": "t", "patient_id": "pt-tom"}).status == 404
    assert [m["id"] for m in ok(gw, "maya", "clinical_list_messages", folder="inbox")["messages"]] == ["msg-portal"]


def test_lists_are_paginated():
    _, gw = build()
    first = ok(gw, "maya", "clinical_list_providers", page_size=2)
    second = ok(gw, "maya", "clinical_list_providers", page_size=2, page_token=first["next_page_token"])
    third = ok(gw, "maya", "clinical_list_providers", page_size=2, page_token=second["next_page_token"])
    names = [p["principal"] for p in first["providers"] + second["providers"] + third["providers"]]
    assert len(names) == 5 == len(set(names)) and "next_page_token" not in third
    assert [p["principal"] for p in ok(gw, "maya", "clinical_list_providers", kind="specialist")["providers"]] == ["lind", "shah"]
    assert call(gw, "maya", "clinical_list_providers", page_token="garbage!").status == 400
    assert call(gw, "maya", "clinical_list_providers", page_size=0).status == 400
