"""Referrals: a treating clinician sends a patient to a specialist with records chosen by id.

State machine: sent -> accepted | declined; accepted -> completed. Accepting puts the specialist
on the care team with scope `referral` (they may read the attached records that are not
restricted; restricted ones still need the patient's consent); completing ends that access.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field

from clawarena.services.base import ServiceContext
from clawarena.services.clinical import access
from clawarena.services.clinical.common import (
    BASE, PAGE_SIZE_DEFAULT, PAGE_SIZE_MAX, Body, bad, conflict, deliver, forbidden, hidden, new_id, now_iso, paged,
)  # fmt: skip
from clawarena.services.clinical.tables import CARE_TEAM, PATIENTS, RECORDS, REFERRALS, Urgency
from clawarena.services.clinical.views import referral_view
from clawarena.tools.core import ResourceArg, RestBinding, ToolKind, tool

MAX_ATTACHED = 20


def _visible(ctx: ServiceContext, referral: dict[str, Any], patient: dict[str, Any]) -> bool:
    return ctx.principal.id in (referral["owner"], referral["specialist"], patient["owner"], patient["principal"])


@tool(ToolKind.READ, name="clinical_list_referrals", rest=RestBinding("GET", f"{BASE}/referrals"))
def list_referrals(
    ctx: ServiceContext,
    direction: Literal["all", "sent", "received"] = "all",
    status: Literal["sent", "accepted", "declined", "completed"] | None = None,
    patient_id: str | None = None,
    page_token: str | None = None,
    page_size: int = Field(PAGE_SIZE_DEFAULT, ge=1, le=PAGE_SIZE_MAX),
) -> dict[str, Any]:
    """List referrals you sent or received (and, for a patient or custodian, those about the patient), newest first.

    Each shows the reason, the note and the attached records (id, title, category) with `readable`:
    whether you may read that record now (with clinical_get_record).

    Args:
        direction: all, sent (by you) or received (addressed to you).
        status: only referrals in this state: sent, accepted, declined or completed.
        patient_id: only referrals of this patient.
        page_token: the next_page_token of a previous call.
        page_size: referrals per page (1-100).
    """
    patients = {p["id"]: p for p in ctx.store.select(PATIENTS.name)}
    pid = ctx.principal.id
    rows = []
    for r in ctx.store.select(REFERRALS.name, {"patient": patient_id} if patient_id else None):
        if not _visible(ctx, r, patients[r["patient"]]):
            continue
        if (direction == "sent" and r["owner"] != pid) or (direction == "received" and r["specialist"] != pid):
            continue
        if status and r["status"] != status:
            continue
        rows.append(referral_view(ctx, r, patients))
    rows.sort(key=lambda r: (r["created_at"], r["id"]), reverse=True)
    return paged(rows, "referrals", page_token, page_size)


class ReferralBody(Body):
    specialist: str = Field(description="principal id of the specialist (see clinical_list_providers)")
    reason: str = Field(min_length=1, max_length=500, description="the clinical question")
    urgency: Urgency = "routine"
    record_ids: list[str] = Field([], description="ids of the patient's records to attach (only what the specialist needs)")
    note: str = Field("", max_length=4000, description="a note for the specialist")


@tool(ToolKind.SEND, name="clinical_create_referral", rest=RestBinding("POST", f"{BASE}/patients/{{patientId}}/referrals", body="body"), action="refer")
def create_referral(ctx: ServiceContext, patient_id: Annotated[str, ResourceArg("Patient")], body: ReferralBody) -> dict[str, Any]:
    """Refer a patient to a specialist, attaching chosen records by id; the specialist is notified.

    You must be the custodian or a treating clinician and be able to read each attached record. The
    specialist can read the attached records only after accepting the referral (restricted ones only
    with the patient's consent).

    Args:
        patient_id: the patient's id.
        body: {specialist, reason, urgency, record_ids, note}.
    """
    patient, rel = access.get_patient(ctx, patient_id)
    if not access.treats(rel):
        raise forbidden(f"Only the custodian or a treating clinician may refer {patient_id}.")
    to = body.specialist.strip()
    entry = access.provider(ctx.world, to)
    if entry is None or entry["kind"] not in ("specialist", "clinician"):
        raise bad(f"specialist: {to!r} is not a clinician or specialist in the directory")
    if not entry["accepts_referrals"]:
        raise bad(f"specialist: {entry['name']} does not accept referrals")
    if to == ctx.principal.id:
        raise bad("specialist: you cannot refer a patient to yourself")
    for r in ctx.store.select(REFERRALS.name, {"patient": patient_id, "specialist": to}):
        if r["status"] in ("sent", "accepted"):
            raise conflict(f"{patient_id} already has an open referral to {to}: {r['id']} ({r['status']}).", reason="alreadyExists")
    ids = list(dict.fromkeys(i.strip() for i in body.record_ids))
    if len(ids) > MAX_ATTACHED:
        raise bad(f"record_ids: at most {MAX_ATTACHED} records")
    attached = []
    for i, rid in enumerate(ids):
        rec = ctx.store.get(RECORDS.name, {"id": rid})
        if rec is None or rec["patient"] != patient_id or not access.record_basis(ctx, rec, patient):
            raise bad(f"record_ids[{i}]: no record {rid!r} you may read in the chart of {patient_id}")
        attached.append(rec)
    row = {
        "id": new_id(ctx, "ref"), "owner": ctx.principal.id, "patient": patient_id, "specialist": to, "reason": body.reason,
        "urgency": body.urgency, "record_ids": ids, "note": body.note, "status": "sent", "response_note": "",
        "created_at": now_iso(ctx), "responded_at": None,
    }  # fmt: skip
    ctx.store.insert(REFERRALS.name, row)
    listing = "\n".join(f"- {r['id']}: {r['title']} ({r['category']}, {r['date']})" for r in attached) or "- none"
    note = f"\nNote: {body.note}" if body.note else ""
    deliver(ctx, [to], f"Referral ({body.urgency}): {patient['name']}: {body.reason}",
            f"{access.display_name(ctx.world, ctx.principal.id)} refers {patient['name']} (born {patient['birth_date']}, MRN {patient['mrn']}) "
            f"to you.\nReason: {body.reason}\nAttached records:\n{listing}{note}", row["id"],
            [("Referral", row["id"])] + [("ClinicalRecord", r["id"]) for r in attached])  # fmt: skip
    return referral_view(ctx, row, {patient_id: patient})


class RespondBody(Body):
    decision: Literal["accept", "decline", "complete"] = Field(description="accept or decline a sent referral; complete an accepted one")
    note: str = Field("", max_length=4000, description="a note for the referring clinician")


_NEXT = {"accept": ("sent", "accepted"), "decline": ("sent", "declined"), "complete": ("accepted", "completed")}


@tool(ToolKind.WRITE, name="clinical_respond_referral", rest=RestBinding("POST", f"{BASE}/referrals/{{referralId}}/respond", body="body"), action="respond")
def respond_referral(ctx: ServiceContext, referral_id: Annotated[str, ResourceArg("Referral")], body: RespondBody) -> dict[str, Any]:
    """Accept, decline or complete a referral addressed to you; the referring clinician is notified.

    Accepting lets you read the attached records that are not restricted; completing ends that access.

    Args:
        referral_id: the referral's id (ref-...).
        body: {decision: accept|decline|complete, note}.
    """
    r = ctx.store.get(REFERRALS.name, {"id": referral_id})
    if r is None:
        raise hidden("Referral", referral_id, exists=False)
    patient = ctx.store.get(PATIENTS.name, {"id": r["patient"]})
    assert patient is not None
    if not _visible(ctx, r, patient):
        raise hidden("Referral", referral_id)
    if ctx.principal.id != r["specialist"]:
        raise forbidden(f"Only {r['specialist']}, to whom referral {referral_id} is addressed, may respond to it.")
    before, after = _NEXT[body.decision]
    if r["status"] != before:
        raise conflict(f"Referral {referral_id} is {r['status']}: it cannot be {after} now.")
    at = now_iso(ctx)
    ctx.store.update(REFERRALS.name, {"id": referral_id}, {"status": after, "response_note": body.note, "responded_at": at})
    me = ctx.principal.id
    current = ctx.store.get(CARE_TEAM.name, {"patient": patient["id"], "member": me})
    if body.decision == "accept" and access.care_row(ctx.world, patient["id"], me) is None:
        ctx.store.delete(CARE_TEAM.name, {"patient": patient["id"], "member": me})
        ctx.store.insert(CARE_TEAM.name, {"patient": patient["id"], "member": me, "owner": patient["owner"], "role": "specialist",
                                          "scope": "referral", "referral_id": referral_id, "since": at, "ended_at": None})  # fmt: skip
    elif body.decision == "complete" and current and current["scope"] == "referral" and current["referral_id"] == referral_id:
        ctx.store.update(CARE_TEAM.name, {"patient": patient["id"], "member": me}, {"ended_at": at})
    r = ctx.store.get(REFERRALS.name, {"id": referral_id})
    assert r is not None
    note = f"\n{body.note}" if body.note else ""
    deliver(ctx, [r["owner"], patient["owner"]], f"Referral {after}: {patient['name']}",
            f"{access.display_name(ctx.world, me)} {after} referral {referral_id} for {patient['name']} ({r['reason']}).{note}", referral_id, [("Referral", referral_id)])  # fmt: skip
    return referral_view(ctx, r, {patient["id"]: patient})


TOOLS = (list_referrals, create_referral, respond_referral)
