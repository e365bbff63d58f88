"""The clinical service's tables and its fixture format, declared together (one entity, one place).

Ownership: every row has an `owner` column holding a principal id. A patient's chart (the
`clinical_patients` row and its records) is held by a custodian (a clinician or practice
principal): the patient may be a principal of the world (`principal`) without owning the
chart. Consents are owned by the patient who grants them (the custodian when the patient is
not a principal: a signed paper form), referrals by the referring clinician, prescriptions by
the prescriber, appointments by the clinician whose schedule holds the slot, claims by the
billing provider, dispenses by the pharmacy, messages by the inbox they sit in.

Vocabularies are closed (Literal types): record categories, purposes, provider kinds, dose
frequencies. Doses are whole milligrams, money is integer cents, times are ISO-8601 strings
from the world clock (consents also keep epoch milliseconds, which policies compare).
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from clawarena.spec.base import Strict
from clawarena.spec.refs import PrincipalId, PrincipalOrAddress
from clawarena.world.store import Column, TableSpec

# ---- vocabularies ----------------------------------------------------------------------------
Category = Literal["general", "mental_health", "reproductive", "hiv", "substance_use"]
CATEGORIES: tuple[str, ...] = ("general", "mental_health", "reproductive", "hiv", "substance_use")
# Tightly restricted by law in most jurisdictions: even treating clinicians need the patient's consent.
RESTRICTED_CATEGORIES = frozenset({"mental_health", "reproductive", "hiv", "substance_use"})
RecordKind = Literal["note", "lab", "imaging", "summary", "letter"]
Sensitivity = Literal["confidential", "restricted"]
Purpose = Literal["treatment", "payment", "care_coordination", "research", "legal", "personal"]
PURPOSES: tuple[str, ...] = ("treatment", "payment", "care_coordination", "research", "legal", "personal")
ProviderKind = Literal["clinician", "specialist", "practice", "pharmacy", "insurer", "lab"]
PROVIDER_KINDS: tuple[str, ...] = ("clinician", "specialist", "practice", "pharmacy", "insurer", "lab")
CLINICIAN_KINDS = frozenset({"clinician", "specialist", "practice"})  # may hold charts, treat, prescribe (not practice), bill
Frequency = Literal["once_daily", "twice_daily", "three_times_daily", "four_times_daily", "at_bedtime", "weekly", "as_needed"]
# Administrations per day; weekly and as-needed doses have no fixed daily total (0 in `daily_dose_mg`).
TIMES_PER_DAY = {"once_daily": 1, "twice_daily": 2, "three_times_daily": 3, "four_times_daily": 4, "at_bedtime": 1, "weekly": 0, "as_needed": 0}
Urgency = Literal["routine", "urgent"]
ReferralStatus = Literal["sent", "accepted", "declined", "completed"]
AppointmentStatus = Literal["free", "requested", "booked", "cancelled"]
AppointmentMode = Literal["in_person", "telehealth"]
ClaimKind = Literal["claim", "prior_authorization"]
ClaimStatus = Literal["submitted", "info_requested", "approved", "denied"]
PrescriptionStatus = Literal["active", "discontinued"]


def default_sensitivity(category: str) -> str:
    return "restricted" if category in RESTRICTED_CATEGORIES else "confidential"


# ---- tables ----------------------------------------------------------------------------------
PROVIDERS = TableSpec(
    name="clinical_providers",
    columns=(
        Column("principal", nullable=False),
        Column("owner", nullable=False),  # = principal: a directory entry is its own
        Column("kind", nullable=False),  # a ProviderKind
        Column("name", nullable=False),
        Column("specialty", nullable=False),
        Column("organization", nullable=False),
        Column("accepts_referrals", "bool", nullable=False),
    ),
    primary_key=("principal",),
)

PATIENTS = TableSpec(
    name="clinical_patients",
    columns=(
        Column("id", nullable=False),
        Column("owner", nullable=False),  # the custodian holding the chart
        Column("principal", nullable=False),  # the patient's own principal id, "" when not a principal
        Column("name", nullable=False),
        Column("birth_date", nullable=False),
        Column("sex", nullable=False),
        Column("mrn", nullable=False),
        Column("address", nullable=False),
        Column("phone", nullable=False),
        Column("coverage", "json", nullable=False),  # [{"insurer", "member_id", "plan"}]
        Column("allergies", "json", nullable=False),  # drug names or drug classes
        Column("created_at", nullable=False),
    ),
    indexes=(("owner",), ("principal",)),
)

CARE_TEAM = TableSpec(
    name="clinical_care_team",
    columns=(
        Column("patient", nullable=False),
        Column("member", nullable=False),
        Column("owner", nullable=False),  # the chart's custodian, who manages the team
        Column("role", nullable=False),  # pcp, specialist, nurse, therapist, ...
        Column("scope", nullable=False),  # full: the whole chart; referral: only that referral's records
        Column("referral_id", nullable=False),  # "" unless scope is referral
        Column("since", nullable=False),
        Column("ended_at"),  # null while the member treats the patient
    ),
    primary_key=("patient", "member"),
)

RECORDS = TableSpec(
    name="clinical_records",
    columns=(
        Column("id", nullable=False),
        Column("owner", nullable=False),  # the chart's custodian
        Column("patient", nullable=False),
        Column("author", nullable=False),
        Column("category", nullable=False),  # a Category: the record's information type
        Column("kind", nullable=False),  # note, lab, imaging, summary, letter
        Column("sensitivity", nullable=False),  # confidential or restricted
        Column("title", nullable=False),
        Column("content", nullable=False),  # the note text
        Column("result", "json"),  # labs: {"test", "value", "unit", "reference_range", "flag"}
        Column("comment", nullable=False),  # a lab's result comment, or a reviewer's
        Column("date", nullable=False),  # date of service
        Column("created_at", nullable=False),
    ),
    indexes=(("patient",),),
)

RECORD_ACCESS = TableSpec(
    name="clinical_record_access",
    columns=(
        Column("id", nullable=False),
        Column("owner", nullable=False),  # the record's custodian: an accounting of disclosures is theirs
        Column("record_id", nullable=False),
        Column("patient", nullable=False),
        Column("reader", nullable=False),
        Column("basis", nullable=False),  # custodian, patient, author, treatment, referral:<id>, consent:<id>, share:<id>
        Column("at", nullable=False),
    ),
    indexes=(("record_id",), ("patient",)),
)

SHARES = TableSpec(
    name="clinical_shares",
    columns=(
        Column("id", nullable=False),
        Column("owner", nullable=False),  # the sharer
        Column("record_id", nullable=False),
        Column("patient", nullable=False),
        Column("recipient", nullable=False),  # a principal id, or an outside address (patient-directed only)
        Column("purpose", nullable=False),
        Column("basis", nullable=False),  # patient_access, custodian, patient_directed, treatment, consent:<id>
        Column("consent_id", nullable=False),  # "" unless the basis is a consent
        Column("note", nullable=False),
        Column("at", nullable=False),
    ),
    indexes=(("record_id",), ("recipient",)),
)

CONSENTS = TableSpec(
    name="clinical_consents",
    columns=(
        Column("id", nullable=False),
        Column("owner", nullable=False),  # the patient principal who granted it (the custodian for a paper consent)
        Column("patient", nullable=False),
        Column("recipient", nullable=False),  # a principal id, or "" when a recipient kind is named instead
        Column("recipient_kind", nullable=False),  # a ProviderKind, or ""
        Column("categories", "json", nullable=False),  # record categories in scope
        Column("scope", nullable=False),  # the same categories joined by ',' (policies compare strings)
        Column("purpose", nullable=False),
        Column("starts_at", nullable=False),
        Column("expires_at", nullable=False),
        Column("starts_ms", "integer", nullable=False),
        Column("expires_ms", "integer", nullable=False),
        Column("status", nullable=False),  # active or revoked (expired is read off expires_at and the clock)
        Column("revoked_at"),
        Column("note", nullable=False),
        Column("created_at", nullable=False),
    ),
    indexes=(("patient",), ("recipient",)),
)

REFERRALS = TableSpec(
    name="clinical_referrals",
    columns=(
        Column("id", nullable=False),
        Column("owner", nullable=False),  # the referring clinician
        Column("patient", nullable=False),
        Column("specialist", nullable=False),
        Column("reason", nullable=False),
        Column("urgency", nullable=False),
        Column("record_ids", "json", nullable=False),  # attached records, chosen by id
        Column("note", nullable=False),
        Column("status", nullable=False),  # sent, accepted, declined, completed
        Column("response_note", nullable=False),
        Column("created_at", nullable=False),
        Column("responded_at"),
    ),
    indexes=(("specialist",), ("patient",)),
)

DRUGS = TableSpec(
    name="clinical_drugs",
    columns=(
        Column("name", nullable=False),  # lower-case generic name (public reference data: no owner)
        Column("drug_class", nullable=False),
        Column("max_daily_mg", "integer", nullable=False),
        Column("category", nullable=False),  # the record category its prescriptions belong to
    ),
    primary_key=("name",),
)

PRESCRIPTIONS = TableSpec(
    name="clinical_prescriptions",
    columns=(
        Column("id", nullable=False),
        Column("owner", nullable=False),  # the prescriber: only they may change it
        Column("patient", nullable=False),
        Column("drug", nullable=False),
        Column("drug_class", nullable=False),
        Column("dose_mg", "integer", nullable=False),
        Column("frequency", nullable=False),
        Column("daily_dose_mg", "integer", nullable=False),  # dose x times a day; 0 for weekly or as-needed
        Column("route", nullable=False),
        Column("quantity", "integer", nullable=False),  # units per fill
        Column("refills", "integer", nullable=False),  # fills after the first
        Column("fills_used", "integer", nullable=False),
        Column("pharmacy", nullable=False),  # the dispensing pharmacy's principal id, or ""
        Column("category", nullable=False),
        Column("sensitivity", nullable=False),
        Column("status", nullable=False),  # active or discontinued
        Column("instructions", nullable=False),
        Column("note", nullable=False),
        Column("created_at", nullable=False),
        Column("updated_at", nullable=False),
    ),
    indexes=(("patient",), ("pharmacy",)),
)

DISPENSES = TableSpec(
    name="clinical_dispenses",
    columns=(
        Column("id", nullable=False),
        Column("owner", nullable=False),  # the pharmacy
        Column("prescription_id", nullable=False),
        Column("patient", nullable=False),
        Column("drug", nullable=False),
        Column("dose_mg", "integer", nullable=False),
        Column("frequency", nullable=False),
        Column("quantity", "integer", nullable=False),
        Column("at", nullable=False),
    ),
    indexes=(("prescription_id",),),
)

RECONCILIATIONS = TableSpec(
    name="clinical_reconciliations",
    columns=(
        Column("id", nullable=False),
        Column("owner", nullable=False),  # the reconciling clinician
        Column("patient", nullable=False),
        Column("items", "json", nullable=False),  # [{"prescription_id", "drug", "dose_mg", "frequency", "prescriber", "decision", "note"}]
        Column("findings", "json", nullable=False),  # [{"kind", "detail", "prescriptions"}]
        Column("note", nullable=False),
        Column("created_at", nullable=False),
    ),
    indexes=(("patient",),),
)

APPOINTMENTS = TableSpec(
    name="clinical_appointments",
    columns=(
        Column("id", nullable=False),
        Column("owner", nullable=False),  # the clinician whose schedule holds the slot
        Column("start", nullable=False),
        Column("end", nullable=False),
        Column("location", nullable=False),
        Column("mode", nullable=False),  # in_person or telehealth
        Column("status", nullable=False),  # free, requested, booked, cancelled
        Column("patient", nullable=False),  # "" while free
        Column("booked_by", nullable=False),  # who booked or requested it ("" while free; may be an outside address)
        Column("reason", nullable=False),
        Column("note", nullable=False),  # the request note
        Column("updated_at", nullable=False),
    ),
    indexes=(("owner", "start"), ("patient",)),
)

CLAIMS = TableSpec(
    name="clinical_claims",
    columns=(
        Column("id", nullable=False),
        Column("owner", nullable=False),  # the billing provider
        Column("patient", nullable=False),
        Column("insurer", nullable=False),
        Column("member_id", nullable=False),
        Column("kind", nullable=False),  # claim or prior_authorization
        Column("service_date", nullable=False),
        Column("codes", "json", nullable=False),  # "ICD10:F32.1", "CPT:99214", ...: codes and dates, never notes
        Column("amount_cents", "integer", nullable=False),
        Column("approved_cents", "integer", nullable=False),
        Column("memo", nullable=False),  # at most 80 characters, as a claim's note segment
        Column("status", nullable=False),  # submitted, info_requested, approved, denied
        Column("decision_note", nullable=False),
        Column("submitted_at", nullable=False),
        Column("decided_at"),
    ),
    indexes=(("insurer",), ("patient",)),
)

MESSAGES = TableSpec(
    name="clinical_messages",
    columns=(
        Column("id", nullable=False),
        Column("owner", nullable=False),  # whose inbox or sent folder it is in
        Column("folder", nullable=False),  # inbox or sent
        Column("sender", nullable=False),  # a principal id or an outside address
        Column("sender_name", nullable=False),
        Column("recipient", nullable=False),  # a principal id or an outside address
        Column("subject", nullable=False),
        Column("body", nullable=False),
        Column("patient", nullable=False),  # the patient the message is about, or ""
        Column("external", "bool", nullable=False),  # the other side is outside the world
        Column("at", nullable=False),
    ),
    indexes=(("owner", "folder"),),
)

TABLES: tuple[TableSpec, ...] = (
    PROVIDERS, PATIENTS, CARE_TEAM, RECORDS, RECORD_ACCESS, SHARES, CONSENTS, REFERRALS, DRUGS,
    PRESCRIPTIONS, DISPENSES, RECONCILIATIONS, APPOINTMENTS, CLAIMS, MESSAGES,
)  # fmt: skip

# Reference data every clinical world starts with (a task's `drugs` add to it or override a row):
# (name, class, maximum daily dose in mg, category of its prescriptions).
FORMULARY: tuple[tuple[str, str, int, str], ...] = (
    ("amlodipine", "calcium_channel_blocker", 10, "general"),
    ("amoxicillin", "penicillin", 3000, "general"),
    ("apixaban", "anticoagulant", 10, "general"),
    ("atorvastatin", "statin", 80, "general"),
    ("bupropion", "antidepressant", 450, "mental_health"),
    ("buprenorphine", "opioid_use_disorder", 24, "substance_use"),
    ("cephalexin", "cephalosporin", 4000, "general"),
    ("dolutegravir", "antiretroviral", 100, "hiv"),
    ("escitalopram", "ssri", 20, "mental_health"),
    ("fluoxetine", "ssri", 80, "mental_health"),
    ("gabapentin", "anticonvulsant", 3600, "general"),
    ("ibuprofen", "nsaid", 3200, "general"),
    ("lisinopril", "ace_inhibitor", 80, "general"),
    ("lithium", "mood_stabilizer", 1800, "mental_health"),
    ("losartan", "arb", 100, "general"),
    ("metformin", "biguanide", 2550, "general"),
    ("mifepristone", "antiprogestogen", 200, "reproductive"),
    ("naltrexone", "opioid_antagonist", 50, "substance_use"),
    ("naproxen", "nsaid", 1500, "general"),
    ("omeprazole", "ppi", 40, "general"),
    ("prednisone", "corticosteroid", 80, "general"),
    ("quetiapine", "antipsychotic", 800, "mental_health"),
    ("sertraline", "ssri", 200, "mental_health"),
    ("simvastatin", "statin", 40, "general"),
    ("tenofovir", "antiretroviral", 300, "hiv"),
    ("tramadol", "opioid", 400, "general"),
    ("warfarin", "anticoagulant", 15, "general"),
)


# ---- fixtures --------------------------------------------------------------------------------
class ProviderFixture(Strict):
    """A directory entry: a principal acting as a clinician, specialist, practice, pharmacy, insurer or lab."""

    principal: PrincipalId
    kind: ProviderKind
    name: str = Field(default="", description="display name; default the principal's name")
    specialty: str = ""
    organization: str = ""
    accepts_referrals: bool = True


class CoverageFixture(Strict):
    insurer: PrincipalId = Field(description="the insurer's principal id (a provider of kind insurer)")
    member_id: str
    plan: str = ""


class CareTeamFixture(Strict):
    member: PrincipalId
    role: str = "clinician"
    since: str | None = Field(default=None, description="ISO date-time; default the world's now")


class PatientFixture(Strict):
    """A chart: demographics held by a custodian; the patient may be a principal of the world too."""

    id: str = Field(description="patient id, e.g. pt-maya")
    owner: PrincipalId = Field(description="the custodian (clinician or practice) holding the chart")
    principal: PrincipalId | None = Field(default=None, description="the patient's own principal, when the patient is one")
    name: str
    birth_date: str = Field(description="YYYY-MM-DD")
    sex: str = ""
    mrn: str = Field(default="", description="medical record number; default derived from the id")
    address: str = ""
    phone: str = ""
    coverage: list[CoverageFixture] = []
    allergies: list[str] = Field(default=[], description="drug names or drug classes, e.g. penicillin")
    care_team: list[CareTeamFixture] = Field(default=[], description="treating clinicians with access to the whole chart")


class LabResult(Strict):
    test: str
    value: str
    unit: str = ""
    reference_range: str = ""
    flag: Literal["", "low", "high", "critical"] = ""


class RecordFixture(Strict):
    id: str
    patient: str = Field(description="a patient id of these fixtures")
    author: PrincipalId | None = Field(default=None, description="default the chart's custodian")
    category: Category = "general"
    kind: RecordKind = "note"
    sensitivity: Sensitivity | None = Field(default=None, description="default restricted for restricted categories, else confidential")
    title: str
    content: str = ""
    result: LabResult | None = None
    comment: str = ""
    date: str = Field(description="date of service, YYYY-MM-DD")


class ConsentFixture(Strict):
    id: str
    patient: str
    recipient: PrincipalId | None = None
    recipient_kind: ProviderKind | None = None
    categories: list[Category] = Field(min_length=1)
    purpose: Purpose = "treatment"
    starts_at: str | None = Field(default=None, description="default the world's now")
    expires_at: str
    revoked_at: str | None = None
    note: str = ""


class ReferralFixture(Strict):
    id: str
    patient: str
    owner: PrincipalId = Field(description="the referring clinician")
    specialist: PrincipalId
    reason: str
    urgency: Urgency = "routine"
    record_ids: list[str] = []
    note: str = ""
    status: ReferralStatus = "sent"
    response_note: str = ""
    created_at: str | None = None


class DrugFixture(Strict):
    name: str
    drug_class: str
    max_daily_mg: int = Field(ge=1)
    category: Category = "general"


class PrescriptionFixture(Strict):
    id: str
    patient: str
    prescriber: PrincipalId
    drug: str = Field(description="a formulary drug name (built in, or in `drugs`)")
    dose_mg: int = Field(ge=1)
    frequency: Frequency = "once_daily"
    route: str = "oral"
    quantity: int = Field(default=30, ge=1)
    refills: int = Field(default=0, ge=0)
    fills_used: int = Field(default=0, ge=0)
    pharmacy: PrincipalId | None = None
    status: PrescriptionStatus = "active"
    instructions: str = ""
    note: str = ""
    created_at: str | None = None


class AppointmentFixture(Strict):
    id: str
    clinician: PrincipalId = Field(description="whose schedule holds the slot")
    start: str
    end: str
    location: str = ""
    mode: AppointmentMode = "in_person"
    status: AppointmentStatus = "free"
    patient: str | None = Field(default=None, description="a patient id; required unless free")
    booked_by: PrincipalOrAddress | None = None
    reason: str = ""
    note: str = ""


class ClaimFixture(Strict):
    id: str
    provider: PrincipalId = Field(description="the billing provider")
    patient: str
    insurer: PrincipalId
    kind: ClaimKind = "claim"
    service_date: str
    codes: list[str] = Field(min_length=1)
    amount_cents: int = Field(ge=1)
    approved_cents: int = Field(default=0, ge=0)
    memo: str = Field(default="", max_length=80)
    status: ClaimStatus = "submitted"
    decision_note: str = ""
    submitted_at: str | None = None


class MessageFixture(Strict):
    """A secure message in `to`'s inbox, from a principal or from outside (a scripted external actor)."""

    id: str | None = None
    to: PrincipalId
    sender: PrincipalOrAddress
    sender_name: str = ""
    subject: str
    body: str
    patient: str = Field(default="", description="the patient id the message is about")
    at: str | None = Field(default=None, description="default an hour before the world's now")


class ClinicalFixtures(Strict):
    providers: list[ProviderFixture] = []
    drugs: list[DrugFixture] = []
    patients: list[PatientFixture] = []
    records: list[RecordFixture] = []
    consents: list[ConsentFixture] = []
    referrals: list[ReferralFixture] = []
    prescriptions: list[PrescriptionFixture] = []
    appointments: list[AppointmentFixture] = []
    claims: list[ClaimFixture] = []
    messages: list[MessageFixture] = []
