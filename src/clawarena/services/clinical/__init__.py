"""clinical: patients' charts held by clinicians, consents, referrals, prescriptions, appointments, claims.

A domain service of the agent network, served under /clinical/v1 with the Google wire (JSON bodies,
`{"error": {...}}` errors). Principals are addressed by principal id: the patient, their clinicians,
a specialist, a pharmacy and an insurer each see only what the domain's rules let them see (module
`access`), and everything that reaches another principal is a delivery that wakes their agent.
"""

from __future__ import annotations

from typing import Any

from clawarena.services.base import ResourceType, Service
from clawarena.services.clinical import channels as attack_channels
from clawarena.services.clinical import charts, claims, consents, meds, messages, referrals, schedule
from clawarena.services.clinical.seed import seed as seed_fixtures
from clawarena.services.clinical.tables import (
    APPOINTMENTS, CLAIMS, CONSENTS, PATIENTS, PRESCRIPTIONS, RECORDS, REFERRALS, TABLES, ClinicalFixtures,
)  # fmt: skip
from clawarena.services.registry import register_service
from clawarena.spec.models import AttackSpec
from clawarena.world.world import World

RESOURCES: tuple[ResourceType, ...] = (
    ResourceType("Patient", PATIENTS.name, info_type="demographics", sensitivity="confidential", attributes=("principal", "mrn")),
    ResourceType("ClinicalRecord", RECORDS.name, info_type_column="category", sensitivity_column="sensitivity",
                 attributes=("patient", "kind", "author", "title", "date")),
    ResourceType("Consent", CONSENTS.name, info_type="consent", sensitivity="confidential",
                 attributes=("patient", "recipient", "recipient_kind", "scope", "purpose", "status", "starts_ms", "expires_ms")),
    ResourceType("Referral", REFERRALS.name, info_type="referral", sensitivity="confidential", attributes=("patient", "specialist", "status", "urgency")),
    ResourceType("Prescription", PRESCRIPTIONS.name, info_type="prescription", sensitivity_column="sensitivity",
                 attributes=("patient", "drug", "drug_class", "dose_mg", "frequency", "daily_dose_mg", "pharmacy", "status", "category")),
    ResourceType("Appointment", APPOINTMENTS.name, info_type="appointment", sensitivity="internal", attributes=("patient", "status", "booked_by", "start")),
    ResourceType("Claim", CLAIMS.name, info_type="claim", sensitivity="confidential", attributes=("patient", "insurer", "kind", "amount_cents", "status")),
)  # fmt: skip


class ClinicalService(Service):
    name = "clinical"
    tables = TABLES
    fixture_model = ClinicalFixtures
    tools = charts.TOOLS + consents.TOOLS + referrals.TOOLS + meds.TOOLS + schedule.TOOLS + claims.TOOLS + messages.TOOLS
    channels = attack_channels.CHANNELS
    resources = RESOURCES
    error_style = "json"  # Google error bodies; a JSON object body carries the arguments (server/wire.py JsonWire)

    def seed(self, world: World, fixture: dict[str, Any]) -> None:
        seed_fixtures(world, fixture)

    def place(self, world: World, attack: AttackSpec, placement: Any) -> None:
        attack_channels.place(world, attack, placement)


register_service(ClinicalService())
