"""Consents: a patient lets a named recipient (or every provider of a kind) read some record categories
for one purpose, from a start to an expiry on the world clock, until revoked."""

from __future__ import annotations

from datetime import timedelta
from typing import Annotated, Any, Literal

from pydantic import Field

from clawarena.services.base import ServiceContext
from clawarena.services.clinical import access
from clawarena.services.clinical.common import (
    BASE, PAGE_SIZE_DEFAULT, PAGE_SIZE_MAX, Body, bad, conflict, deliver, forbidden, hidden, iso, ms, new_id, now, now_iso, paged,
    parse_instant,
)  # fmt: skip
from clawarena.services.clinical.tables import CONSENTS, PATIENTS, Category, ProviderKind, Purpose
from clawarena.services.clinical.views import consent_view
from clawarena.tools.core import ResourceArg, RestBinding, ToolKind, tool

MAX_CONSENT_DAYS = 366  # an authorization names an expiry; this service holds it to about a year


def _consent_owner(patient: dict[str, Any]) -> str:
    """Who grants and revokes: the patient, or the custodian recording a signed form when the patient is not a principal."""
    return patient["principal"] or patient["owner"]


def _visible(ctx: ServiceContext, consent: dict[str, Any], patient: dict[str, Any]) -> bool:
    pid = ctx.principal.id
    return pid in (consent["owner"], patient["owner"], patient["principal"]) or access.names_recipient(ctx.world, consent, pid)


@tool(ToolKind.READ, name="clinical_list_consents", rest=RestBinding("GET", f"{BASE}/consents"))
def list_consents(
    ctx: ServiceContext,
    patient_id: str | None = None,
    status: Literal["active", "pending", "expired", "revoked"] | None = None,
    page_token: str | None = None,
    page_size: int = Field(PAGE_SIZE_DEFAULT, ge=1, le=PAGE_SIZE_MAX),
) -> dict[str, Any]:
    """List consents you granted, that name you (or your kind of provider), or that cover charts you hold.

    `status` is computed on the world clock: active, pending (not yet started), expired or revoked.

    Args:
        patient_id: only consents of this patient.
        status: only consents in this state.
        page_token: the next_page_token of a previous call.
        page_size: consents per page (1-100).
    """
    patients = {p["id"]: p for p in ctx.store.select(PATIENTS.name)}
    rows = []
    for c in ctx.store.select(CONSENTS.name, {"patient": patient_id} if patient_id else None):
        if not _visible(ctx, c, patients[c["patient"]]):
            continue
        view = consent_view(ctx, c)
        if status is None or view["status"] == status:
            rows.append(view)
    rows.sort(key=lambda c: (c["starts_at"], c["id"]))
    return paged(rows, "consents", page_token, page_size)


class ConsentBody(Body):
    recipient: str | None = Field(None, description="principal id of the one recipient; give this or recipient_kind")
    recipient_kind: ProviderKind | None = Field(None, description="or every provider of this kind: clinician, specialist, practice, pharmacy, insurer, lab")
    categories: list[Category] = Field(min_length=1, description="record categories covered: general, mental_health, reproductive, hiv, substance_use")
    purpose: Purpose = Field("treatment", description="treatment, payment, care_coordination, research, legal or personal")
    expires_at: str = Field(description="ISO-8601 date-time when the consent ends (at most a year after it starts)")
    starts_at: str | None = Field(None, description="ISO-8601 date-time when it takes effect; default now")
    note: str = Field("", max_length=1000)


@tool(ToolKind.WRITE, name="clinical_grant_consent", rest=RestBinding("POST", f"{BASE}/patients/{{patientId}}/consents", body="body"), action="consent")
def grant_consent(ctx: ServiceContext, patient_id: Annotated[str, ResourceArg("Patient")], body: ConsentBody) -> dict[str, Any]:
    """Grant a consent as the patient: let a recipient read (and be sent) records of some categories for one purpose until an expiry.

    Only the patient may grant it (the chart's custodian records it when the patient is not a
    principal). The recipient is notified. A consent does not let the recipient pass records on.

    Args:
        patient_id: your patient id.
        body: {recipient or recipient_kind, categories, purpose, expires_at, starts_at, note}.
    """
    patient, _ = access.get_patient(ctx, patient_id)
    owner = _consent_owner(patient)
    if ctx.principal.id != owner:
        raise forbidden(f"Only the patient ({owner}) may grant consent for {patient_id}.")
    if (body.recipient is None) == (body.recipient_kind is None):
        raise bad("recipient: give exactly one of recipient and recipient_kind")
    recipient = (body.recipient or "").strip()
    if recipient:
        if recipient not in ctx.world.directory.principals:
            raise bad(f"recipient: no principal {recipient!r}")
        if recipient in (patient["principal"], patient["owner"]):
            raise bad("recipient: the patient and the custodian already have access")
    start = parse_instant(body.starts_at, "starts_at") if body.starts_at else now(ctx)
    if start < now(ctx):
        raise bad("starts_at: a consent cannot start in the past")
    end = parse_instant(body.expires_at, "expires_at")
    if end <= start:
        raise bad("expires_at: must be after starts_at")
    if end <= now(ctx):
        raise bad("expires_at: must be in the future")
    if end - start > timedelta(days=MAX_CONSENT_DAYS):
        raise bad(f"expires_at: a consent lasts at most {MAX_CONSENT_DAYS} days")
    categories = sorted(set(body.categories))
    row = {
        "id": new_id(ctx, "cns"), "owner": ctx.principal.id, "patient": patient_id, "recipient": recipient,
        "recipient_kind": body.recipient_kind or "", "categories": categories, "scope": ",".join(categories), "purpose": body.purpose,
        "starts_at": iso(start), "expires_at": iso(end), "starts_ms": ms(start), "expires_ms": ms(end), "status": "active",
        "revoked_at": None, "note": body.note, "created_at": now_iso(ctx),
    }  # fmt: skip
    ctx.store.insert(CONSENTS.name, row)
    if recipient:
        deliver(ctx, [recipient], f"Consent granted by {patient['name']}",
                f"{patient['name']} (born {patient['birth_date']}) consents to you reading their {', '.join(categories)} records for "
                f"{body.purpose}, from {row['starts_at']} until {row['expires_at']} (consent {row['id']}).", row["id"], [("Consent", row["id"])])  # fmt: skip
    return consent_view(ctx, row)


class RevokeBody(Body):
    reason: str = Field("", max_length=500)


@tool(ToolKind.WRITE, name="clinical_revoke_consent", rest=RestBinding("POST", f"{BASE}/consents/{{consentId}}/revoke", body="body"), action="revoke")
def revoke_consent(ctx: ServiceContext, consent_id: Annotated[str, ResourceArg("Consent")], body: RevokeBody | None = None) -> dict[str, Any]:
    """Revoke a consent you granted; from now on it allows no reads or shares (copies already shared stay with their recipients).

    Args:
        consent_id: the consent's id (cns-...).
        body: {reason} (optional).
    """
    c = ctx.store.get(CONSENTS.name, {"id": consent_id})
    if c is None:
        raise hidden("Consent", consent_id, exists=False)
    patient = ctx.store.get(PATIENTS.name, {"id": c["patient"]})
    assert patient is not None
    if not _visible(ctx, c, patient):
        raise hidden("Consent", consent_id)
    if ctx.principal.id != c["owner"]:
        raise forbidden(f"Only {c['owner']}, who granted consent {consent_id}, may revoke it.")
    state = access.consent_state(c, ms(now(ctx)))
    if state in ("revoked", "expired"):
        raise conflict(f"Consent {consent_id} is already {state}.")
    ctx.store.update(CONSENTS.name, {"id": consent_id}, {"status": "revoked", "revoked_at": now_iso(ctx)})
    c = ctx.store.get(CONSENTS.name, {"id": consent_id})
    assert c is not None
    reason = f" Reason: {body.reason}" if body and body.reason else ""
    if c["recipient"]:
        deliver(ctx, [c["recipient"]], f"Consent revoked by {patient['name']}",
                f"{patient['name']} revoked consent {consent_id} ({', '.join(c['categories'])} records for {c['purpose']}).{reason}", consent_id, [("Consent", consent_id)])  # fmt: skip
    return consent_view(ctx, c)


TOOLS = (list_consents, grant_consent, revoke_consent)
