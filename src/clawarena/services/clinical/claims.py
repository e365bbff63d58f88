"""Claims and prior authorizations: codes and dates from the provider to the patient's insurer, never notes.

State machine: submitted -> approved | denied | info_requested; info_requested -> approved | denied.
Only an insurer on the patient's coverage receives a claim, and only that insurer decides it.
"""

from __future__ import annotations

import re
from typing import Annotated, Any, Literal

from pydantic import Field

from clawarena.services.base import ServiceContext
from clawarena.services.clinical import access
from clawarena.services.clinical.common import (
    BASE, PAGE_SIZE_DEFAULT, PAGE_SIZE_MAX, Body, bad, conflict, deliver, forbidden, hidden, new_id, now_iso, paged, parse_date,
)  # fmt: skip
from clawarena.services.clinical.tables import CLAIMS, CLINICIAN_KINDS, PATIENTS, ClaimKind
from clawarena.services.clinical.views import cents, claim_view
from clawarena.tools.core import ResourceArg, RestBinding, ToolKind, tool

CODE = re.compile(r"^(ICD10|CPT|HCPCS):[A-Z0-9][A-Z0-9.]{1,9}$")
MAX_AMOUNT_CENTS = 10_000_000


def check_codes(codes: list[str], kind: str, field: str = "codes") -> list[str]:
    out = []
    for i, code in enumerate(codes):
        code = code.strip().upper()
        if not CODE.match(code):
            raise bad(f"{field}[{i}]: {code!r} is not a code like ICD10:E11.9, CPT:99214 or HCPCS:J1100 (claims carry codes, not notes)")
        out.append(code)
    if not any(c.startswith("ICD10:") for c in out):
        raise bad(f"{field}: at least one diagnosis code (ICD10:...) is needed")
    if kind == "claim" and not any(c.startswith(("CPT:", "HCPCS:")) for c in out):
        raise bad(f"{field}: a claim needs at least one procedure code (CPT:... or HCPCS:...)")
    return list(dict.fromkeys(out))


def _visible(ctx: ServiceContext, claim: dict[str, Any], patient: dict[str, Any]) -> bool:
    return ctx.principal.id in (claim["owner"], claim["insurer"], patient["principal"], patient["owner"])


@tool(ToolKind.READ, name="clinical_list_claims", rest=RestBinding("GET", f"{BASE}/claims"))
def list_claims(
    ctx: ServiceContext,
    patient_id: str | None = None,
    status: Literal["submitted", "info_requested", "approved", "denied"] | None = None,
    page_token: str | None = None,
    page_size: int = Field(PAGE_SIZE_DEFAULT, ge=1, le=PAGE_SIZE_MAX),
) -> dict[str, Any]:
    """List claims and prior authorizations you submitted, that were sent to you as insurer, or that are about you as patient.

    Amounts are integer cents (14250 = $142.50).

    Args:
        patient_id: only this patient's claims.
        status: only submitted, info_requested, approved or denied ones.
        page_token: the next_page_token of a previous call.
        page_size: claims per page (1-100).
    """
    patients = {p["id"]: p for p in ctx.store.select(PATIENTS.name)}
    rows = [
        claim_view(ctx, c)
        for c in ctx.store.select(CLAIMS.name, {"patient": patient_id} if patient_id else None)
        if _visible(ctx, c, patients[c["patient"]]) and (status is None or c["status"] == status)
    ]
    rows.sort(key=lambda c: (c["submitted_at"], c["id"]), reverse=True)
    return paged(rows, "claims", page_token, page_size)


class ClaimBody(Body):
    insurer: str = Field(description="principal id of the patient's insurer (one on the patient's coverage)")
    kind: ClaimKind = Field("claim", description="claim (bill a service given) or prior_authorization (ask before a planned service)")
    service_date: str = Field(description="YYYY-MM-DD; a claim's service must not be in the future")
    codes: list[str] = Field(min_length=1, max_length=12, description="e.g. ['ICD10:F32.1', 'CPT:99214']")
    amount_cents: int = Field(ge=1, le=MAX_AMOUNT_CENTS, description="billed amount in integer cents")
    memo: str = Field("", max_length=80, description="a short claim note (at most 80 characters, no clinical notes)")


@tool(ToolKind.SEND, name="clinical_submit_claim", rest=RestBinding("POST", f"{BASE}/patients/{{patientId}}/claims", body="body"), action="claim")
def submit_claim(ctx: ServiceContext, patient_id: Annotated[str, ResourceArg("Patient")], body: ClaimBody) -> dict[str, Any]:
    """Submit a claim or a prior authorization request to the patient's insurer (the insurer is notified).

    A claim carries the member id, diagnosis and procedure codes, the date and the amount: never
    the notes. You must be the custodian or a treating clinician.

    Args:
        patient_id: the patient's id.
        body: {insurer, kind, service_date, codes, amount_cents, memo}.
    """
    patient, rel = access.get_patient(ctx, patient_id)
    if not access.treats(rel) or access.kind_of(ctx.world, ctx.principal.id) not in CLINICIAN_KINDS:
        raise forbidden(f"Only the custodian or a treating clinician may bill for {patient_id}.")
    insurer = body.insurer.strip()
    cover = next((c for c in patient["coverage"] if c["insurer"] == insurer), None)
    if cover is None:
        on_file = ", ".join(c["insurer"] for c in patient["coverage"]) or "none"
        raise bad(f"insurer: {insurer!r} does not cover {patient_id} (coverage on file: {on_file})")
    date = parse_date(body.service_date, "service_date")
    if body.kind == "claim" and date > now_iso(ctx)[:10]:
        raise bad("service_date: a claim bills a service already given; use kind prior_authorization for a planned one")
    codes = check_codes(body.codes, body.kind)
    for other in ctx.store.select(CLAIMS.name, {"patient": patient_id, "service_date": date, "kind": body.kind}):
        if other["status"] != "denied" and sorted(other["codes"]) == sorted(codes):
            raise conflict(f"Duplicate of {other['id']} ({other['status']}) for the same date and codes.", reason="duplicate")
    row = {
        "id": new_id(ctx, "clm"), "owner": ctx.principal.id, "patient": patient_id, "insurer": insurer, "member_id": cover["member_id"],
        "kind": body.kind, "service_date": date, "codes": codes, "amount_cents": body.amount_cents, "approved_cents": 0,
        "memo": body.memo, "status": "submitted", "decision_note": "", "submitted_at": now_iso(ctx), "decided_at": None,
    }  # fmt: skip
    ctx.store.insert(CLAIMS.name, row)
    label = "Prior authorization request" if body.kind == "prior_authorization" else "Claim"
    memo = f"\nMemo: {body.memo}" if body.memo else ""
    deliver(ctx, [insurer], f"{label} {row['id']}: member {cover['member_id']}, {date}",
            f"{label} from {access.display_name(ctx.world, ctx.principal.id)}\nMember: {patient['name']} (born {patient['birth_date']}), "
            f"member id {cover['member_id']}\nService date: {date}\nCodes: {', '.join(codes)}\nAmount: {cents(body.amount_cents)}{memo}", row["id"], [("Claim", row["id"])])  # fmt: skip
    return claim_view(ctx, row)


class DecisionBody(Body):
    decision: Literal["approve", "deny", "request_info"]
    approved_cents: int | None = Field(None, ge=1, le=MAX_AMOUNT_CENTS, description="amount allowed, in cents; default the billed amount")
    note: str = Field("", max_length=1000, description="the reason, or the information you need (required for request_info)")


_DECIDED = {"approve": "approved", "deny": "denied", "request_info": "info_requested"}


@tool(ToolKind.WRITE, name="clinical_adjudicate_claim", rest=RestBinding("POST", f"{BASE}/claims/{{claimId}}/adjudicate", body="body"), action="adjudicate")
def adjudicate_claim(ctx: ServiceContext, claim_id: Annotated[str, ResourceArg("Claim")], body: DecisionBody) -> dict[str, Any]:
    """Decide a claim or prior authorization sent to you as insurer: approve (with the allowed amount), deny, or ask for information.

    The provider is notified; so is the patient when the claim is approved or denied.

    Args:
        claim_id: the claim's id (clm-...).
        body: {decision: approve|deny|request_info, approved_cents, note}.
    """
    claim = ctx.store.get(CLAIMS.name, {"id": claim_id})
    if claim is None:
        raise hidden("Claim", claim_id, exists=False)
    patient = ctx.store.get(PATIENTS.name, {"id": claim["patient"]})
    assert patient is not None
    if not _visible(ctx, claim, patient):
        raise hidden("Claim", claim_id)
    if ctx.principal.id != claim["insurer"]:
        raise forbidden(f"Only the insurer ({claim['insurer']}) decides claim {claim_id}.")
    if claim["status"] not in ("submitted", "info_requested"):
        raise conflict(f"Claim {claim_id} is already {claim['status']}.")
    approved = 0
    if body.decision == "approve":
        approved = body.approved_cents or claim["amount_cents"]
        if approved > claim["amount_cents"]:
            raise bad(f"approved_cents: at most the billed {claim['amount_cents']}")
    elif body.approved_cents is not None:
        raise bad("approved_cents: only with decision approve")
    if body.decision == "request_info" and not body.note.strip():
        raise bad("note: say what information you need")
    status = _DECIDED[body.decision]
    ctx.store.update(CLAIMS.name, {"id": claim_id}, {"status": status, "approved_cents": approved, "decision_note": body.note, "decided_at": now_iso(ctx)})
    claim = ctx.store.get(CLAIMS.name, {"id": claim_id})
    assert claim is not None
    amount = f", allowed {cents(approved)}" if approved else ""
    note = f"\n{body.note}" if body.note else ""
    to = [claim["owner"]] + ([patient["principal"]] if status in ("approved", "denied") else [])
    deliver(ctx, to, f"{claim['kind'].replace('_', ' ').capitalize()} {claim_id} {status.replace('_', ' ')}",
            f"{access.display_name(ctx.world, ctx.principal.id)}: {claim_id} for {patient['name']} ({claim['service_date']}, "
            f"{', '.join(claim['codes'])}) is {status.replace('_', ' ')}{amount}.{note}", claim_id, [("Claim", claim_id)])  # fmt: skip
    return claim_view(ctx, claim)


TOOLS = (list_claims, submit_claim, adjudicate_claim)
