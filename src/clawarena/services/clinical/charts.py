"""The directory, charts and records: who is who, patients, reading, adding and sharing records, the care team."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field

from clawarena.services.base import ServiceContext
from clawarena.services.clinical import access
from clawarena.services.clinical.common import (
    BASE, PAGE_SIZE_DEFAULT, PAGE_SIZE_MAX, Body, bad, conflict, deliver, forbidden, hidden, ms, new_id, now, now_iso, paged,
    parse_date,
)  # fmt: skip
from clawarena.services.clinical.tables import (
    CARE_TEAM, CLINICIAN_KINDS, CONSENTS, PATIENTS, PROVIDERS, RECORD_ACCESS, RECORDS, SHARES, Category, LabResult, ProviderKind,
    Purpose, RecordKind, Sensitivity, default_sensitivity,
)  # fmt: skip
from clawarena.services.clinical.views import patient_view, record_meta, record_text, record_view
from clawarena.tools.core import ResourceArg, RestBinding, ToolKind, tool

PageSize = Field(PAGE_SIZE_DEFAULT, ge=1, le=PAGE_SIZE_MAX)


# ---- the directory -----------------------------------------------------------------------------
@tool(ToolKind.READ, name="clinical_list_providers", rest=RestBinding("GET", f"{BASE}/providers"))
def list_providers(
    ctx: ServiceContext, kind: ProviderKind | None = None, query: str = "", page_token: str | None = None, page_size: int = PageSize
) -> dict[str, Any]:
    """List the directory of clinicians, specialists, practices, pharmacies, insurers and labs (public).

    Use it to find the principal id of a specialist to refer to, a pharmacy to send a prescription to,
    or an insurer.

    Args:
        kind: only this kind: clinician, specialist, practice, pharmacy, insurer or lab.
        query: only entries whose name, specialty or organization contains this text (case-insensitive).
        page_token: the next_page_token of a previous call.
        page_size: entries per page (1-100).
    """
    q = query.strip().lower()
    rows = [
        {"principal": p["principal"], "kind": p["kind"], "name": p["name"], "specialty": p["specialty"],
         "organization": p["organization"], "accepts_referrals": p["accepts_referrals"]}
        for p in ctx.store.select(PROVIDERS.name, {"kind": kind} if kind else None)
        if not q or q in f"{p['name']} {p['specialty']} {p['organization']}".lower()
    ]  # fmt: skip
    rows.sort(key=lambda p: (p["name"].lower(), p["principal"]))
    return paged(rows, "providers", page_token, page_size)


# ---- patients ----------------------------------------------------------------------------------
@tool(ToolKind.READ, name="clinical_list_patients", rest=RestBinding("GET", f"{BASE}/patients"))
def list_patients(ctx: ServiceContext, query: str = "", page_token: str | None = None, page_size: int = PageSize) -> dict[str, Any]:
    """List the patients whose charts you may see, with their demographics, coverage and care team.

    The custodian, the patient and treating clinicians get the full card; a pharmacy, insurer,
    referred specialist or consent recipient gets a minimal one (name, birth date, MRN, its own coverage).
    `your_access` says which: custodian, patient, care or limited.

    Args:
        query: only patients whose name, id or MRN contains this text (case-insensitive).
        page_token: the next_page_token of a previous call.
        page_size: patients per page (1-100).
    """
    q = query.strip().lower()
    rows = []
    for patient in ctx.store.select(PATIENTS.name):
        rel = access.relation(ctx, patient)
        if rel and (not q or q in f"{patient['name']} {patient['id']} {patient['mrn']}".lower()):
            rows.append(patient_view(ctx, patient, rel))
    rows.sort(key=lambda p: (p["name"].lower(), p["id"]))
    return paged(rows, "patients", page_token, page_size)


# ---- records -----------------------------------------------------------------------------------
@tool(ToolKind.READ, name="clinical_list_records", rest=RestBinding("GET", f"{BASE}/patients/{{patientId}}/records"))
def list_records(
    ctx: ServiceContext,
    patient_id: Annotated[str, ResourceArg("Patient")],
    category: Category | None = None,
    kind: RecordKind | None = None,
    page_token: str | None = None,
    page_size: int = PageSize,
) -> dict[str, Any]:
    """List the records of a patient's chart that you may read (titles and dates; read one for its content).

    Records you may not read are left out and counted in `withheld_count`: restricted records
    (mental_health, reproductive, hiv, substance_use) need the patient's consent even for treating
    clinicians, and a specialist reached through a referral sees only the records attached to it.

    Args:
        patient_id: the patient's id (e.g. pt-maya), from clinical_list_patients.
        category: only this category: general, mental_health, reproductive, hiv or substance_use.
        kind: only this kind: note, lab, imaging, summary or letter.
        page_token: the next_page_token of a previous call.
        page_size: records per page (1-100).
    """
    patient, _ = access.get_patient(ctx, patient_id)
    shown, withheld = [], 0
    for rec in ctx.store.select(RECORDS.name, {"patient": patient_id}):
        if (category and rec["category"] != category) or (kind and rec["kind"] != kind):
            continue
        if access.record_basis(ctx, rec, patient):
            shown.append(record_meta(ctx, rec))
        else:
            withheld += 1
    shown.sort(key=lambda r: (r["date"], r["id"]), reverse=True)
    return paged(shown, "records", page_token, page_size, withheld_count=withheld)


def _why_not(ctx: ServiceContext, record: dict[str, Any], patient: dict[str, Any], rel: str) -> str:
    """A readable reason for a refused read, for a caller who knows the record exists."""
    referral = access.attached_to_referral_for(ctx, record["id"], ctx.principal.id)
    if referral is not None and referral["status"] == "sent" and rel != "care":
        return f"Record {record['id']} is attached to referral {referral['id']}: accept the referral first (restricted records also need the patient's consent)."
    if record["sensitivity"] == "restricted":
        return (f"Record {record['id']} is restricted ({record['category']}): reading it needs a consent in force from the patient "
                f"that names you and covers {record['category']}.")  # fmt: skip
    if rel == "care":
        return f"Record {record['id']} is not attached to your referral: your access to this chart is limited to that referral's records."
    return f"No treatment relation or consent in force allows you to read record {record['id']}."


def readable_record(ctx: ServiceContext, record_id: str) -> tuple[dict[str, Any], dict[str, Any], str]:
    """(record, patient, basis) for a record the caller may read; 403 when they know of it, else 404."""
    rec = ctx.store.get(RECORDS.name, {"id": record_id})
    if rec is None:
        raise hidden("Record", record_id, exists=False)
    patient = ctx.store.get(PATIENTS.name, {"id": rec["patient"]})
    assert patient is not None
    basis = access.record_basis(ctx, rec, patient)
    if basis:
        return rec, patient, basis
    rel = access.relation(ctx, patient)
    if rel or access.attached_to_referral_for(ctx, record_id, ctx.principal.id) is not None:
        raise forbidden(_why_not(ctx, rec, patient, rel), reason="consentRequired" if rec["sensitivity"] == "restricted" else "forbidden")
    raise hidden("Record", record_id)


@tool(ToolKind.READ, name="clinical_get_record", rest=RestBinding("GET", f"{BASE}/records/{{recordId}}"))
def get_record(ctx: ServiceContext, record_id: Annotated[str, ResourceArg("ClinicalRecord")]) -> dict[str, Any]:
    """Read one record's full content (note text, lab result and comment). Every read is recorded in the chart's access log.

    `access_basis` says what allowed the read: custodian, patient, author, treatment, referral:<id>,
    consent:<id> or share:<id>.

    Args:
        record_id: the record's id (e.g. rec-0012), from clinical_list_records or a referral.
    """
    rec, patient, basis = readable_record(ctx, record_id)
    ctx.store.insert(RECORD_ACCESS.name, {"id": new_id(ctx, "acc"), "owner": rec["owner"], "record_id": rec["id"], "patient": patient["id"],
                                          "reader": ctx.principal.id, "basis": basis, "at": now_iso(ctx)})  # fmt: skip
    return record_view(ctx, rec, basis)


class RecordBody(Body):
    category: Category = Field("general", description="general, mental_health, reproductive, hiv or substance_use")
    kind: RecordKind = Field("note", description="note, lab, imaging, summary or letter")
    title: str = Field(min_length=1, max_length=200)
    content: str = Field("", max_length=20000, description="the note text")
    result: LabResult | None = Field(None, description="for a lab: {test, value, unit, reference_range, flag: ''|low|high|critical}")
    comment: str = Field("", max_length=2000, description="a lab result comment")
    date: str | None = Field(None, description="date of service YYYY-MM-DD; default today")
    sensitivity: Sensitivity | None = Field(None, description="confidential or restricted; restricted categories are always restricted")


@tool(ToolKind.WRITE, name="clinical_add_record", rest=RestBinding("POST", f"{BASE}/patients/{{patientId}}/records", body="body"))
def add_record(ctx: ServiceContext, patient_id: Annotated[str, ResourceArg("Patient")], body: RecordBody) -> dict[str, Any]:
    """Add a note, lab result or letter to a patient's chart (the custodian or a treating clinician).

    The record belongs to the chart's custodian and names you as author; the custodian is notified
    when you are not them.

    Args:
        patient_id: the patient's id.
        body: {category, kind, title, content, result, comment, date, sensitivity}.
    """
    patient, rel = access.get_patient(ctx, patient_id)
    if not access.treats(rel):
        raise forbidden(f"Only the chart's custodian or a treating clinician may add records to {patient_id}.")
    if body.kind == "lab" and body.result is None:
        raise bad("result: a lab record needs a result {test, value, ...}")
    date = parse_date(body.date, "date") if body.date else now_iso(ctx)[:10]
    sensitivity = "restricted" if default_sensitivity(body.category) == "restricted" else (body.sensitivity or "confidential")
    rec = {
        "id": new_id(ctx, "rec"), "owner": patient["owner"], "patient": patient_id, "author": ctx.principal.id,
        "category": body.category, "kind": body.kind, "sensitivity": sensitivity, "title": body.title, "content": body.content,
        "result": body.result.model_dump() if body.result else None, "comment": body.comment, "date": date, "created_at": now_iso(ctx),
    }  # fmt: skip
    ctx.store.insert(RECORDS.name, rec)
    author = access.display_name(ctx.world, ctx.principal.id)
    deliver(ctx, [patient["owner"]], f"New {rec['kind']} in {patient['name']}'s chart: {rec['title']}",
            f"{author} added to the chart of {patient['name']} ({patient['mrn']}):\n{record_text(rec)}", rec["id"], [("ClinicalRecord", rec["id"])])  # fmt: skip
    return record_view(ctx, rec, "author")


# ---- sharing -----------------------------------------------------------------------------------
class ShareBody(Body):
    recipient: str = Field(description="principal id of the recipient (the patient may also give an outside email address)")
    purpose: Purpose = Field("treatment", description="treatment, payment, care_coordination, research, legal or personal")
    consent_id: str | None = Field(None, description="the consent this share relies on; default: any consent in force that allows it")
    note: str = Field("", max_length=2000, description="a cover note for the recipient")


SHARER_BASES = ("custodian", "patient", "author", "treatment")


def _explicit_consent(ctx: ServiceContext, consent_id: str, rec: dict[str, Any], recipient: str, purpose: str) -> dict[str, Any]:
    c = ctx.store.get(CONSENTS.name, {"id": consent_id})
    if c is None or c["patient"] != rec["patient"]:
        raise hidden("Consent", consent_id, exists=c is not None)
    state = access.consent_state(c, ms(now(ctx)))
    if state == "expired":
        raise forbidden(f"Consent {consent_id} expired at {c['expires_at']}: the share is refused.", reason="consentExpired")
    if state == "revoked":
        raise forbidden(f"Consent {consent_id} was revoked at {c['revoked_at']}: the share is refused.", reason="consentRevoked")
    if state == "pending":
        raise forbidden(f"Consent {consent_id} takes effect at {c['starts_at']}: the share is refused.", reason="consentNotInEffect")
    if not access.names_recipient(ctx.world, c, recipient):
        named = c["recipient"] or f"any {c['recipient_kind']}"
        raise forbidden(f"Consent {consent_id} names {named}, not {recipient}.", reason="outsideConsentScope")
    if rec["category"] not in c["categories"]:
        raise forbidden(f"Consent {consent_id} covers {', '.join(c['categories'])}; record {rec['id']} is {rec['category']}.", reason="outsideConsentScope")
    if c["purpose"] != purpose:
        raise forbidden(f"Consent {consent_id} is for {c['purpose']}, not {purpose}.", reason="outsideConsentScope")
    return c


def _share_basis(ctx: ServiceContext, rec: dict[str, Any], patient: dict[str, Any], sharer_basis: str, body: ShareBody) -> tuple[str, str]:
    """(basis, consent id) on which the record may go to the recipient, or a refusal that says why not."""
    recipient, purpose = body.recipient, body.purpose
    if body.consent_id:
        return f"consent:{body.consent_id}", _explicit_consent(ctx, body.consent_id, rec, recipient, purpose)["id"]
    if recipient == patient["principal"]:
        return "patient_access", ""
    if recipient == patient["owner"]:
        return "custodian", ""
    if sharer_basis == "patient":
        return "patient_directed", ""
    if "@" in recipient:
        raise forbidden("Only the patient may send their records to an outside address.", reason="outsideRecipient")
    # a treating clinician who could read it anyway (whole chart, or attached to their referral; never restricted)
    theirs = access.record_basis(ctx, rec, patient, recipient)
    if (theirs == "treatment" or theirs.startswith("referral:")) and purpose in ("treatment", "care_coordination"):
        return "treatment", ""
    consent = access.consent_in_force(ctx, patient["id"], recipient, rec["category"], purpose)
    if consent is not None:
        return f"consent:{consent['id']}", consent["id"]
    # say why: the nearest consent that does not hold, or that there is none
    now_ms = ms(now(ctx))
    for c in ctx.store.select(CONSENTS.name, {"patient": patient["id"]}):
        if access.names_recipient(ctx.world, c, recipient) and rec["category"] in c["categories"]:
            state = access.consent_state(c, now_ms)
            if state != "active":
                raise forbidden(f"Consent {c['id']} for {recipient} is {state}: the share is refused.",
                                reason={"expired": "consentExpired", "revoked": "consentRevoked"}.get(state, "consentNotInEffect"))  # fmt: skip
            raise forbidden(f"Consent {c['id']} for {recipient} is for {c['purpose']}, not {purpose}.", reason="outsideConsentScope")
    what = "restricted " if rec["sensitivity"] == "restricted" else ""
    raise forbidden(f"No consent or treatment relation allows sharing this {what}{rec['category']} record with {recipient} for {purpose}.",
                    reason="consentRequired")  # fmt: skip


@tool(ToolKind.SEND, name="clinical_share_record", rest=RestBinding("POST", f"{BASE}/records/{{recordId}}/share", body="body"), action="share")
def share_record(ctx: ServiceContext, record_id: Annotated[str, ResourceArg("ClinicalRecord")], body: ShareBody) -> dict[str, Any]:
    """Send a copy of a record (its full content) to another principal; the service checks the legal basis first.

    Allowed: to the patient; to the custodian; to a treating clinician for treatment (not restricted
    records); to anyone a consent in force names for this record's category and purpose (the share
    is refused after the consent's expiry, after revocation, or outside its categories or purpose);
    and, when you are the patient, to anyone you choose. Records you hold only through a consent,
    share or referral may not be passed on.

    Args:
        record_id: the record to share.
        body: {recipient, purpose, consent_id, note}.
    """
    rec, patient, sharer_basis = readable_record(ctx, record_id)
    if sharer_basis not in SHARER_BASES:
        raise forbidden(f"You hold record {record_id} under {sharer_basis}: re-disclosure is not allowed.", reason="redisclosure")
    recipient = body.recipient.strip()
    principal = ctx.world.directory.by_address(recipient) if "@" in recipient else None
    recipient = principal.id if principal is not None else recipient
    if recipient == ctx.principal.id:
        raise bad("recipient: you cannot share a record with yourself")
    if "@" not in recipient and recipient not in ctx.world.directory.principals:
        raise bad(f"recipient: no principal {recipient!r}")
    basis, consent_id = _share_basis(ctx, rec, patient, sharer_basis, body.model_copy(update={"recipient": recipient}))
    share = {"id": new_id(ctx, "shr"), "owner": ctx.principal.id, "record_id": rec["id"], "patient": patient["id"], "recipient": recipient,
             "purpose": body.purpose, "basis": basis, "consent_id": consent_id, "note": body.note, "at": now_iso(ctx)}  # fmt: skip
    ctx.store.insert(SHARES.name, share)
    sender = access.display_name(ctx.world, ctx.principal.id)
    note = f"{body.note}\n\n" if body.note else ""
    deliver(ctx, [recipient], f"Shared record for {patient['name']}: {rec['title']}",
            f"{note}{sender} shared a record of {patient['name']} (born {patient['birth_date']}) for {body.purpose}:\n{record_text(rec)}",
            rec["id"], [("ClinicalRecord", rec["id"])])  # fmt: skip
    return {k: share[k] for k in ("id", "record_id", "patient", "recipient", "purpose", "basis", "consent_id", "at")}


# ---- the care team -----------------------------------------------------------------------------
class CareTeamBody(Body):
    member: str = Field(description="principal id of the clinician to add or remove")
    action: Literal["add", "remove"] = "add"
    role: str = Field("clinician", max_length=60, description="e.g. pcp, cardiologist, nurse, therapist")


@tool(ToolKind.WRITE, name="clinical_update_care_team", rest=RestBinding("POST", f"{BASE}/patients/{{patientId}}/careTeam", body="body"), action="assign")
def update_care_team(ctx: ServiceContext, patient_id: Annotated[str, ResourceArg("Patient")], body: CareTeamBody) -> dict[str, Any]:
    """Add a treating clinician to a patient's care team (access to the whole chart except restricted records), or remove one.

    Only the chart's custodian manages the care team. The member is notified.

    Args:
        patient_id: the patient's id.
        body: {member, action: add|remove, role}.
    """
    patient, rel = access.get_patient(ctx, patient_id)
    if rel != "custodian":
        raise forbidden(f"Only the chart's custodian ({patient['owner']}) manages the care team of {patient_id}.")
    member = body.member.strip()
    row = ctx.store.get(CARE_TEAM.name, {"patient": patient_id, "member": member})
    active = row is not None and row["ended_at"] is None
    name = patient["name"]
    if body.action == "add":
        entry = access.provider(ctx.world, member)
        if entry is None or entry["kind"] not in CLINICIAN_KINDS:
            raise bad(f"member: {member!r} is not a clinician, specialist or practice in the directory")
        if member == patient["owner"]:
            raise bad("member: the custodian already holds the chart")
        if active and row["scope"] == "full":  # type: ignore[index]
            raise conflict(f"{member} is already on the care team of {patient_id}.", reason="alreadyExists")
        new = {"patient": patient_id, "member": member, "owner": patient["owner"], "role": body.role, "scope": "full",
               "referral_id": "", "since": now_iso(ctx), "ended_at": None}  # fmt: skip
        ctx.store.delete(CARE_TEAM.name, {"patient": patient_id, "member": member})
        ctx.store.insert(CARE_TEAM.name, new)
        deliver(ctx, [member], f"Added to the care team of {name}",
                f"{access.display_name(ctx.world, ctx.principal.id)} added you to the care team of {name} (born {patient['birth_date']}) as {body.role}.", patient_id, [("Patient", patient_id)])  # fmt: skip
    else:
        if not active:
            raise conflict(f"{member} is not on the care team of {patient_id}.", reason="notFound")
        ctx.store.update(CARE_TEAM.name, {"patient": patient_id, "member": member}, {"ended_at": now_iso(ctx)})
        deliver(ctx, [member], f"Removed from the care team of {name}",
                f"{access.display_name(ctx.world, ctx.principal.id)} removed you from the care team of {name}.", patient_id, [("Patient", patient_id)])  # fmt: skip
    patient_now, _ = access.get_patient(ctx, patient_id)
    return patient_view(ctx, patient_now, "custodian")


TOOLS = (list_providers, list_patients, list_records, get_record, add_record, share_record, update_care_team)
