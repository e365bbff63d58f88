"""Who may see and do what in the clinical domain: the rules every tool asks.

A chart is visible in full to its custodian, to the patient (when a principal) and to the treating
clinicians on the care team; in part (name, birth date, MRN, member id) to a principal with a
narrower tie (a pharmacy holding one of the patient's prescriptions, an insurer covering them, a
specialist with a pending referral, a consent recipient, the recipient of a shared record).

A record's content is readable, and every read is recorded, on one of these bases (first that holds):
custodian, patient, author, share:<id> (it was shared with the reader), treatment (care team with the
whole chart, not restricted), referral:<id> (care team through an accepted referral, only the records
attached to it, not restricted), consent:<id> (a consent in force naming the reader or the reader's
kind and covering the record's category). Restricted records (mental health, reproductive, HIV,
substance use) therefore need the patient's consent even for treating clinicians.
"""

from __future__ import annotations

from typing import Any

from clawarena.services.base import ServiceContext
from clawarena.services.clinical.common import hidden, ms, now
from clawarena.services.clinical.tables import CARE_TEAM, CONSENTS, PATIENTS, PRESCRIPTIONS, PROVIDERS, REFERRALS, SHARES
from clawarena.world.world import World

# ---- the directory ---------------------------------------------------------------------------


def provider(world: World, principal_id: str) -> dict[str, Any] | None:
    return world.store.get(PROVIDERS.name, {"principal": principal_id})


def kind_of(world: World, principal_id: str) -> str:
    row = provider(world, principal_id)
    return row["kind"] if row else ""


def display_name(world: World, principal_id: str) -> str:
    row = provider(world, principal_id)
    if row:
        return row["name"]
    person = world.directory.principals.get(principal_id)
    return person.name if person else principal_id


# ---- patients --------------------------------------------------------------------------------


def care_row(world: World, patient_id: str, member: str) -> dict[str, Any] | None:
    """The member's active care-team row for the patient, if any."""
    row = world.store.get(CARE_TEAM.name, {"patient": patient_id, "member": member})
    return row if row and row["ended_at"] is None else None


def consent_state(consent: dict[str, Any], now_ms: int) -> str:
    """active, pending (not yet in effect), expired or revoked."""
    if consent["status"] == "revoked":
        return "revoked"
    if now_ms < consent["starts_ms"]:
        return "pending"
    if now_ms >= consent["expires_ms"]:
        return "expired"
    return "active"


def names_recipient(world: World, consent: dict[str, Any], principal_id: str) -> bool:
    if consent["recipient"]:
        return consent["recipient"] == principal_id
    return bool(consent["recipient_kind"]) and consent["recipient_kind"] == kind_of(world, principal_id)


def consent_in_force(ctx: ServiceContext, patient_id: str, principal_id: str, category: str, purpose: str | None = None) -> dict[str, Any] | None:
    """The first consent (by id) in force now naming the principal and covering the category (and purpose)."""
    now_ms = ms(now(ctx))
    for c in ctx.store.select(CONSENTS.name, {"patient": patient_id}):
        if consent_state(c, now_ms) != "active" or category not in c["categories"]:
            continue
        if purpose is not None and c["purpose"] != purpose:
            continue
        if names_recipient(ctx.world, c, principal_id):
            return c
    return None


def relation(ctx: ServiceContext, patient: dict[str, Any], principal_id: str | None = None) -> str:
    """custodian, patient, care, limited or "" (no tie): how much of the chart the principal sees."""
    pid = principal_id or ctx.principal.id
    store = ctx.store
    if patient["owner"] == pid:
        return "custodian"
    if patient["principal"] and patient["principal"] == pid:
        return "patient"
    if care_row(ctx.world, patient["id"], pid):
        return "care"
    kind = kind_of(ctx.world, pid)
    if kind == "insurer" and any(c["insurer"] == pid for c in patient["coverage"]):
        return "limited"
    if kind == "pharmacy" and store.select(PRESCRIPTIONS.name, {"patient": patient["id"], "pharmacy": pid}):
        return "limited"
    if any(r["status"] == "sent" for r in store.select(REFERRALS.name, {"patient": patient["id"], "specialist": pid})):
        return "limited"
    if store.select(SHARES.name, {"patient": patient["id"], "recipient": pid}):
        return "limited"
    now_ms = ms(now(ctx))
    for c in store.select(CONSENTS.name, {"patient": patient["id"]}):
        if consent_state(c, now_ms) == "active" and names_recipient(ctx.world, c, pid):
            return "limited"
    return ""


def get_patient(ctx: ServiceContext, patient_id: str) -> tuple[dict[str, Any], str]:
    """The patient row and the caller's relation to it; 404 (identical for hidden and missing) otherwise."""
    patient = ctx.store.get(PATIENTS.name, {"id": patient_id})
    if patient is None:
        raise hidden("Patient", patient_id, exists=False)
    rel = relation(ctx, patient)
    if not rel:
        raise hidden("Patient", patient_id)
    return patient, rel


def treats(rel: str) -> bool:
    """Custodian or a treating clinician: may add to the chart, refer, prescribe, bill, reconcile."""
    return rel in ("custodian", "care")


# ---- records ---------------------------------------------------------------------------------


def record_basis(ctx: ServiceContext, record: dict[str, Any], patient: dict[str, Any], principal_id: str | None = None) -> str:
    """Why the principal may read the record's content, or "" when nothing allows it (see the module doc)."""
    pid = principal_id or ctx.principal.id
    if record["owner"] == pid:
        return "custodian"
    if patient["principal"] and patient["principal"] == pid:
        return "patient"
    if record["author"] == pid:
        return "author"
    share = ctx.store.get(SHARES.name, {"record_id": record["id"], "recipient": pid})
    if share is not None:
        return f"share:{share['id']}"
    care = care_row(ctx.world, patient["id"], pid)
    if care is not None and record["sensitivity"] != "restricted":
        if care["scope"] == "full":
            return "treatment"
        referral = ctx.store.get(REFERRALS.name, {"id": care["referral_id"]})
        if referral is not None and record["id"] in referral["record_ids"]:
            return f"referral:{referral['id']}"
    consent = consent_in_force(ctx, patient["id"], pid, record["category"])
    if consent is not None:
        return f"consent:{consent['id']}"
    return ""


def attached_to_referral_for(ctx: ServiceContext, record_id: str, principal_id: str) -> dict[str, Any] | None:
    """A referral addressed to the principal that attaches the record (so they know it exists)."""
    for r in ctx.store.select(REFERRALS.name, {"specialist": principal_id}):
        if record_id in r["record_ids"]:
            return r
    return None


# ---- prescriptions ---------------------------------------------------------------------------


def prescription_visible(ctx: ServiceContext, rx: dict[str, Any], patient: dict[str, Any], rel: str) -> bool:
    """Prescriber, patient, custodian and the dispensing pharmacy always; treating clinicians unless the
    prescription is restricted (then, as anyone else, with a consent covering its category)."""
    pid = ctx.principal.id
    if rx["owner"] == pid or rx["pharmacy"] == pid or rel in ("custodian", "patient"):
        return True
    if rel == "care" and rx["sensitivity"] != "restricted":
        return True
    return consent_in_force(ctx, patient["id"], pid, rx["category"]) is not None
