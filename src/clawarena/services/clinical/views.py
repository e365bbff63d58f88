"""How rows are shown to callers: one function per kind of row, snake_case keys, names resolved."""

from __future__ import annotations

from typing import Any

from clawarena.services.base import ServiceContext
from clawarena.services.clinical.access import consent_state, display_name, record_basis
from clawarena.services.clinical.common import ms, now
from clawarena.services.clinical.tables import CARE_TEAM, PATIENTS


def patient_name(ctx: ServiceContext, patient_id: str) -> str:
    row = ctx.store.get(PATIENTS.name, {"id": patient_id})
    return row["name"] if row else patient_id


def patient_view(ctx: ServiceContext, patient: dict[str, Any], rel: str) -> dict[str, Any]:
    """The full card for the custodian, the patient and treating clinicians; a minimal one otherwise."""
    out: dict[str, Any] = {
        "id": patient["id"], "name": patient["name"], "birth_date": patient["birth_date"], "mrn": patient["mrn"],
        "custodian": patient["owner"], "custodian_name": display_name(ctx.world, patient["owner"]), "your_access": rel,
    }  # fmt: skip
    if rel == "limited":  # minimum necessary: an insurer sees its own member id, nobody else's coverage
        out["coverage"] = [c for c in patient["coverage"] if c["insurer"] == ctx.principal.id]
        return out
    team = [
        {"member": t["member"], "name": display_name(ctx.world, t["member"]), "role": t["role"], "scope": t["scope"],
         "referral_id": t["referral_id"], "since": t["since"]}
        for t in ctx.store.select(CARE_TEAM.name, {"patient": patient["id"]})
        if t["ended_at"] is None
    ]  # fmt: skip
    out.update({
        "principal": patient["principal"], "sex": patient["sex"], "address": patient["address"], "phone": patient["phone"],
        "coverage": patient["coverage"], "allergies": patient["allergies"], "care_team": team,
    })  # fmt: skip
    return out


def record_meta(ctx: ServiceContext, record: dict[str, Any]) -> dict[str, Any]:
    return {
        "id": record["id"], "patient": record["patient"], "category": record["category"], "kind": record["kind"],
        "sensitivity": record["sensitivity"], "title": record["title"], "date": record["date"],
        "author": record["author"], "author_name": display_name(ctx.world, record["author"]),
    }  # fmt: skip


def record_view(ctx: ServiceContext, record: dict[str, Any], basis: str) -> dict[str, Any]:
    return {**record_meta(ctx, record), "content": record["content"], "result": record["result"], "comment": record["comment"],
            "custodian": record["owner"], "access_basis": basis}  # fmt: skip


def record_text(record: dict[str, Any]) -> str:
    """A record as a person reads it (the body of a share)."""
    lines = [f"{record['title']} ({record['kind']}, {record['category']}, {record['date']})"]
    if record["content"]:
        lines.append(record["content"])
    result = record["result"]
    if result:
        flag = f" [{result['flag']}]" if result.get("flag") else ""
        rng = f" (reference {result['reference_range']})" if result.get("reference_range") else ""
        lines.append(f"Result: {result['test']} {result['value']} {result.get('unit', '')}".rstrip() + rng + flag)
    if record["comment"]:
        lines.append(f"Comment: {record['comment']}")
    return "\n".join(lines)


def consent_view(ctx: ServiceContext, consent: dict[str, Any]) -> dict[str, Any]:
    recipient = consent["recipient"]
    return {
        "id": consent["id"], "patient": consent["patient"], "patient_name": patient_name(ctx, consent["patient"]),
        "granted_by": consent["owner"], "recipient": recipient,
        "recipient_name": display_name(ctx.world, recipient) if recipient else "",
        "recipient_kind": consent["recipient_kind"], "categories": consent["categories"], "purpose": consent["purpose"],
        "starts_at": consent["starts_at"], "expires_at": consent["expires_at"],
        "status": consent_state(consent, ms(now(ctx))), "revoked_at": consent["revoked_at"], "note": consent["note"],
    }  # fmt: skip


def referral_view(ctx: ServiceContext, referral: dict[str, Any], patients: dict[str, dict[str, Any]]) -> dict[str, Any]:
    from clawarena.services.clinical.tables import RECORDS

    patient = patients[referral["patient"]]
    records = []
    for rid in referral["record_ids"]:
        rec = ctx.store.get(RECORDS.name, {"id": rid})
        if rec is not None:
            records.append({**record_meta(ctx, rec), "readable": bool(record_basis(ctx, rec, patient))})
    return {
        "id": referral["id"], "patient": referral["patient"], "patient_name": patient["name"], "patient_birth_date": patient["birth_date"],
        "from": referral["owner"], "from_name": display_name(ctx.world, referral["owner"]),
        "specialist": referral["specialist"], "specialist_name": display_name(ctx.world, referral["specialist"]),
        "reason": referral["reason"], "urgency": referral["urgency"], "status": referral["status"], "note": referral["note"],
        "response_note": referral["response_note"], "records": records,
        "created_at": referral["created_at"], "responded_at": referral["responded_at"],
    }  # fmt: skip


def prescription_view(ctx: ServiceContext, rx: dict[str, Any]) -> dict[str, Any]:
    return {
        "id": rx["id"], "patient": rx["patient"], "patient_name": patient_name(ctx, rx["patient"]),
        "drug": rx["drug"], "drug_class": rx["drug_class"], "dose_mg": rx["dose_mg"], "frequency": rx["frequency"],
        "daily_dose_mg": rx["daily_dose_mg"], "route": rx["route"], "quantity": rx["quantity"], "refills": rx["refills"],
        "fills_used": rx["fills_used"], "fills_left": max(0, 1 + rx["refills"] - rx["fills_used"]),
        "prescriber": rx["owner"], "prescriber_name": display_name(ctx.world, rx["owner"]),
        "pharmacy": rx["pharmacy"], "pharmacy_name": display_name(ctx.world, rx["pharmacy"]) if rx["pharmacy"] else "",
        "status": rx["status"], "category": rx["category"], "sensitivity": rx["sensitivity"],
        "instructions": rx["instructions"], "note": rx["note"], "created_at": rx["created_at"], "updated_at": rx["updated_at"],
    }  # fmt: skip


def rx_line(rx: dict[str, Any]) -> str:
    return f"{rx['drug']} {rx['dose_mg']} mg {rx['frequency'].replace('_', ' ')}"


def appointment_view(ctx: ServiceContext, appt: dict[str, Any], detail: bool) -> dict[str, Any]:
    out = {
        "id": appt["id"], "clinician": appt["owner"], "clinician_name": display_name(ctx.world, appt["owner"]),
        "start": appt["start"], "end": appt["end"], "location": appt["location"], "mode": appt["mode"], "status": appt["status"],
    }  # fmt: skip
    if detail:
        out.update({
            "patient": appt["patient"], "patient_name": patient_name(ctx, appt["patient"]) if appt["patient"] else "",
            "booked_by": appt["booked_by"], "reason": appt["reason"], "note": appt["note"],
        })  # fmt: skip
    return out


def claim_view(ctx: ServiceContext, claim: dict[str, Any]) -> dict[str, Any]:
    return {
        "id": claim["id"], "kind": claim["kind"], "patient": claim["patient"], "patient_name": patient_name(ctx, claim["patient"]),
        "member_id": claim["member_id"], "provider": claim["owner"], "provider_name": display_name(ctx.world, claim["owner"]),
        "insurer": claim["insurer"], "insurer_name": display_name(ctx.world, claim["insurer"]),
        "service_date": claim["service_date"], "codes": claim["codes"], "amount_cents": claim["amount_cents"],
        "approved_cents": claim["approved_cents"], "memo": claim["memo"], "status": claim["status"],
        "decision_note": claim["decision_note"], "submitted_at": claim["submitted_at"], "decided_at": claim["decided_at"],
    }  # fmt: skip


def message_view(msg: dict[str, Any]) -> dict[str, Any]:
    return {k: msg[k] for k in ("id", "folder", "sender", "sender_name", "recipient", "subject", "body", "patient", "external", "at")}


def cents(amount: int) -> str:
    return f"${amount // 100:,}.{amount % 100:02d}"
