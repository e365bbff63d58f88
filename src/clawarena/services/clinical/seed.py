"""Seeding a world from the clinical fixtures: every reference checked, errors naming the fixture field."""

from __future__ import annotations

import hashlib
from datetime import datetime, timedelta
from typing import Any

from clawarena.services.base import ServiceError
from clawarena.services.clinical.claims import check_codes
from clawarena.services.clinical.common import iso, ms
from clawarena.services.clinical.meds import check_dose, daily_dose, prescription_row
from clawarena.services.clinical.tables import (
    APPOINTMENTS, CARE_TEAM, CLAIMS, CLINICIAN_KINDS, CONSENTS, DRUGS, FORMULARY, MESSAGES, PATIENTS, PRESCRIPTIONS, PROVIDERS,
    RECORDS, REFERRALS, RESTRICTED_CATEGORIES, ClinicalFixtures, default_sensitivity,
)  # fmt: skip
from clawarena.world.clock import parse_time
from clawarena.world.world import World


def _instant(value: str, field: str) -> datetime:
    try:
        return parse_time(value)
    except (ValueError, TypeError):
        raise ValueError(f"{field}: not an ISO-8601 date-time: {value!r}") from None


def _date(value: str, field: str) -> str:
    try:
        datetime.strptime(value, "%Y-%m-%d")
    except (ValueError, TypeError):
        raise ValueError(f"{field}: not a YYYY-MM-DD date: {value!r}") from None
    return value


def default_mrn(patient_id: str) -> str:
    return f"MRN{int(hashlib.sha256(patient_id.encode()).hexdigest()[:8], 16) % 10_000_000:07d}"


class Seeder:
    """One pass over validated fixtures, in dependency order."""

    def __init__(self, world: World, data: ClinicalFixtures):
        self.world, self.data, self.store = world, data, world.store
        self.now = world.clock.now()

    def principal(self, pid: str, field: str) -> str:
        if pid not in self.world.directory.principals:
            raise ValueError(f"{field}: unknown principal {pid!r}")
        return pid

    def provider_kind(self, pid: str, field: str, kinds: frozenset[str] | set[str], what: str) -> None:
        row = self.store.get(PROVIDERS.name, {"principal": self.principal(pid, field)})
        if row is None or row["kind"] not in kinds:
            raise ValueError(f"{field}: {pid!r} is not {what} in providers")

    def patient(self, patient_id: str, field: str) -> dict[str, Any]:
        row = self.store.get(PATIENTS.name, {"id": patient_id})
        if row is None:
            raise ValueError(f"{field}: no patient {patient_id!r} in patients")
        return row

    def unique(self, table: str, key: dict[str, Any], field: str) -> None:
        if self.store.get(table, key) is not None:
            raise ValueError(f"{field}: duplicate id {next(iter(key.values()))!r}")

    def run(self) -> None:
        for step in (self.drugs, self.providers, self.patients, self.records, self.consents, self.referrals, self.prescriptions,
                     self.appointments, self.claims, self.messages):  # fmt: skip
            step()

    # ---- reference data and the directory -----------------------------------------------------
    def drugs(self) -> None:
        for name, cls, limit, category in FORMULARY:
            if self.store.get(DRUGS.name, {"name": name}) is None:
                self.store.insert(DRUGS.name, {"name": name, "drug_class": cls, "max_daily_mg": limit, "category": category})
        for d in self.data.drugs:  # a task's own drugs add to the formulary or override a row
            name = d.name.strip().lower()
            self.store.delete(DRUGS.name, {"name": name})
            self.store.insert(DRUGS.name, {"name": name, "drug_class": d.drug_class.strip().lower(), "max_daily_mg": d.max_daily_mg, "category": d.category})

    def providers(self) -> None:
        for i, p in enumerate(self.data.providers):
            where = f"providers[{i}]"
            pid = self.principal(p.principal, f"{where}.principal")
            self.unique(PROVIDERS.name, {"principal": pid}, f"{where}.principal")
            name = p.name or self.world.directory.principal(pid).name
            self.store.insert(PROVIDERS.name, {"principal": pid, "owner": pid, "kind": p.kind, "name": name, "specialty": p.specialty,
                                               "organization": p.organization, "accepts_referrals": p.accepts_referrals})  # fmt: skip

    # ---- charts ---------------------------------------------------------------------------------
    def patients(self) -> None:
        for i, p in enumerate(self.data.patients):
            where = f"patients[{i}]"
            self.unique(PATIENTS.name, {"id": p.id}, f"{where}.id")
            owner = self.principal(p.owner, f"{where}.owner")
            if p.principal is not None:
                self.principal(p.principal, f"{where}.principal")
                if p.principal == owner:
                    raise ValueError(f"{where}.principal: the patient cannot be the custodian of their own chart")
            for j, c in enumerate(p.coverage):
                self.provider_kind(c.insurer, f"{where}.coverage[{j}].insurer", {"insurer"}, "an insurer")
            self.store.insert(PATIENTS.name, {
                "id": p.id, "owner": owner, "principal": p.principal or "", "name": p.name,
                "birth_date": _date(p.birth_date, f"{where}.birth_date"), "sex": p.sex, "mrn": p.mrn or default_mrn(p.id),
                "address": p.address, "phone": p.phone, "coverage": [c.model_dump() for c in p.coverage],
                "allergies": [a.strip().lower() for a in p.allergies], "created_at": iso(self.now),
            })  # fmt: skip
            for j, t in enumerate(p.care_team):
                field = f"{where}.care_team[{j}].member"
                self.provider_kind(t.member, field, CLINICIAN_KINDS, "a clinician, specialist or practice")
                if t.member in (owner, p.principal):
                    raise ValueError(f"{field}: {t.member!r} is the custodian or the patient")
                self.unique(CARE_TEAM.name, {"patient": p.id, "member": t.member}, field)
                since = iso(_instant(t.since, f"{where}.care_team[{j}].since")) if t.since else iso(self.now)
                self.store.insert(CARE_TEAM.name, {"patient": p.id, "member": t.member, "owner": owner, "role": t.role, "scope": "full",
                                                   "referral_id": "", "since": since, "ended_at": None})  # fmt: skip

    def records(self) -> None:
        for i, r in enumerate(self.data.records):
            where = f"records[{i}]"
            self.unique(RECORDS.name, {"id": r.id}, f"{where}.id")
            patient = self.patient(r.patient, f"{where}.patient")
            author = self.principal(r.author, f"{where}.author") if r.author else patient["owner"]
            if r.sensitivity == "confidential" and r.category in RESTRICTED_CATEGORIES:
                raise ValueError(f"{where}.sensitivity: a {r.category} record is always restricted")
            self.store.insert(RECORDS.name, {
                "id": r.id, "owner": patient["owner"], "patient": r.patient, "author": author, "category": r.category, "kind": r.kind,
                "sensitivity": r.sensitivity or default_sensitivity(r.category), "title": r.title, "content": r.content,
                "result": r.result.model_dump() if r.result else None, "comment": r.comment,
                "date": _date(r.date, f"{where}.date"), "created_at": iso(self.now),
            })  # fmt: skip

    def consents(self) -> None:
        for i, c in enumerate(self.data.consents):
            where = f"consents[{i}]"
            self.unique(CONSENTS.name, {"id": c.id}, f"{where}.id")
            patient = self.patient(c.patient, f"{where}.patient")
            if (c.recipient is None) == (c.recipient_kind is None):
                raise ValueError(f"{where}.recipient: give exactly one of recipient and recipient_kind")
            if c.recipient:
                self.principal(c.recipient, f"{where}.recipient")
            start = _instant(c.starts_at, f"{where}.starts_at") if c.starts_at else self.now
            end = _instant(c.expires_at, f"{where}.expires_at")
            if end <= start:
                raise ValueError(f"{where}.expires_at: must be after starts_at")
            revoked = iso(_instant(c.revoked_at, f"{where}.revoked_at")) if c.revoked_at else None
            categories = sorted(set(c.categories))
            self.store.insert(CONSENTS.name, {
                "id": c.id, "owner": patient["principal"] or patient["owner"], "patient": c.patient, "recipient": c.recipient or "",
                "recipient_kind": c.recipient_kind or "", "categories": categories, "scope": ",".join(categories), "purpose": c.purpose,
                "starts_at": iso(start), "expires_at": iso(end), "starts_ms": ms(start), "expires_ms": ms(end),
                "status": "revoked" if revoked else "active", "revoked_at": revoked, "note": c.note, "created_at": iso(start),
            })  # fmt: skip

    def referrals(self) -> None:
        for i, r in enumerate(self.data.referrals):
            where = f"referrals[{i}]"
            self.unique(REFERRALS.name, {"id": r.id}, f"{where}.id")
            patient = self.patient(r.patient, f"{where}.patient")
            self.principal(r.owner, f"{where}.owner")
            self.provider_kind(r.specialist, f"{where}.specialist", {"specialist", "clinician"}, "a clinician or specialist")
            for j, rid in enumerate(r.record_ids):
                rec = self.store.get(RECORDS.name, {"id": rid})
                if rec is None or rec["patient"] != r.patient:
                    raise ValueError(f"{where}.record_ids[{j}]: no record {rid!r} of patient {r.patient!r}")
            created = iso(_instant(r.created_at, f"{where}.created_at")) if r.created_at else iso(self.now - timedelta(days=1))
            self.store.insert(REFERRALS.name, {
                "id": r.id, "owner": r.owner, "patient": r.patient, "specialist": r.specialist, "reason": r.reason, "urgency": r.urgency,
                "record_ids": list(dict.fromkeys(r.record_ids)), "note": r.note, "status": r.status, "response_note": r.response_note,
                "created_at": created, "responded_at": None if r.status == "sent" else created,
            })  # fmt: skip
            member = self.store.get(CARE_TEAM.name, {"patient": r.patient, "member": r.specialist})
            if r.status == "accepted" and member is None and r.specialist != patient["owner"]:
                self.store.insert(CARE_TEAM.name, {"patient": r.patient, "member": r.specialist, "owner": patient["owner"], "role": "specialist",
                                                   "scope": "referral", "referral_id": r.id, "since": created, "ended_at": None})  # fmt: skip

    # ---- medications, schedule, claims, messages ------------------------------------------------
    def prescriptions(self) -> None:
        for i, p in enumerate(self.data.prescriptions):
            where = f"prescriptions[{i}]"
            self.unique(PRESCRIPTIONS.name, {"id": p.id}, f"{where}.id")
            patient = self.patient(p.patient, f"{where}.patient")
            self.provider_kind(p.prescriber, f"{where}.prescriber", {"clinician", "specialist"}, "a clinician or specialist")
            drug = self.store.get(DRUGS.name, {"name": p.drug.strip().lower()})
            if drug is None:
                raise ValueError(f"{where}.drug: {p.drug!r} is not in the formulary (add it under drugs)")
            try:
                check_dose(drug, p.dose_mg, p.frequency)
            except ServiceError as exc:
                raise ValueError(f"{where}.{exc.message}") from None
            if p.pharmacy:
                self.provider_kind(p.pharmacy, f"{where}.pharmacy", {"pharmacy"}, "a pharmacy")
            if p.fills_used > 1 + p.refills:
                raise ValueError(f"{where}.fills_used: at most 1 + refills ({1 + p.refills})")
            at = iso(_instant(p.created_at, f"{where}.created_at")) if p.created_at else iso(self.now - timedelta(days=30))
            row = prescription_row(self.world, rx_id=p.id, patient=patient, prescriber=p.prescriber, drug=drug, dose_mg=p.dose_mg,
                                   frequency=p.frequency, route=p.route, quantity=p.quantity, refills=p.refills, pharmacy=p.pharmacy or "",
                                   instructions=p.instructions, note=p.note, at=at, status=p.status, fills_used=p.fills_used)  # fmt: skip
            assert row["daily_dose_mg"] == daily_dose(p.dose_mg, p.frequency)
            self.store.insert(PRESCRIPTIONS.name, row)

    def appointments(self) -> None:
        for i, a in enumerate(self.data.appointments):
            where = f"appointments[{i}]"
            self.unique(APPOINTMENTS.name, {"id": a.id}, f"{where}.id")
            self.provider_kind(a.clinician, f"{where}.clinician", CLINICIAN_KINDS, "a clinician, specialist or practice")
            start, end = _instant(a.start, f"{where}.start"), _instant(a.end, f"{where}.end")
            if end <= start:
                raise ValueError(f"{where}.end: must be after start")
            if a.status == "free" and (a.patient or a.booked_by):
                raise ValueError(f"{where}.patient: a free slot has no patient or booker")
            booked_by = ""
            if a.status != "free":
                if not a.patient:
                    raise ValueError(f"{where}.patient: a {a.status} appointment needs a patient")
                patient = self.patient(a.patient, f"{where}.patient")
                booked_by = a.booked_by or patient["principal"] or a.clinician
            self.store.insert(APPOINTMENTS.name, {
                "id": a.id, "owner": a.clinician, "start": iso(start), "end": iso(end), "location": a.location, "mode": a.mode,
                "status": a.status, "patient": a.patient or "", "booked_by": booked_by, "reason": a.reason, "note": a.note,
                "updated_at": iso(self.now),
            })  # fmt: skip

    def claims(self) -> None:
        for i, c in enumerate(self.data.claims):
            where = f"claims[{i}]"
            self.unique(CLAIMS.name, {"id": c.id}, f"{where}.id")
            patient = self.patient(c.patient, f"{where}.patient")
            self.provider_kind(c.provider, f"{where}.provider", CLINICIAN_KINDS, "a clinician, specialist or practice")
            cover = next((x for x in patient["coverage"] if x["insurer"] == c.insurer), None)
            if cover is None:
                raise ValueError(f"{where}.insurer: {c.insurer!r} is not on the coverage of {c.patient!r}")
            try:
                codes = check_codes(c.codes, c.kind, f"{where}.codes")
            except ServiceError as exc:
                raise ValueError(exc.message) from None
            if c.approved_cents > c.amount_cents:
                raise ValueError(f"{where}.approved_cents: at most amount_cents")
            at = iso(_instant(c.submitted_at, f"{where}.submitted_at")) if c.submitted_at else iso(self.now - timedelta(days=1))
            self.store.insert(CLAIMS.name, {
                "id": c.id, "owner": c.provider, "patient": c.patient, "insurer": c.insurer, "member_id": cover["member_id"], "kind": c.kind,
                "service_date": _date(c.service_date, f"{where}.service_date"), "codes": codes, "amount_cents": c.amount_cents,
                "approved_cents": c.approved_cents, "memo": c.memo, "status": c.status, "decision_note": c.decision_note,
                "submitted_at": at, "decided_at": None if c.status == "submitted" else at,
            })  # fmt: skip

    def messages(self) -> None:
        for i, m in enumerate(self.data.messages):
            where = f"messages[{i}]"
            insert_message(self.world, to=self.principal(m.to, f"{where}.to"), sender=m.sender, sender_name=m.sender_name,
                           subject=m.subject, body=m.body, patient=m.patient, at=m.at, message_id=m.id, where=where)  # fmt: skip


def insert_message(world: World, *, to: str, sender: str, sender_name: str, subject: str, body: str, patient: str, at: str | None,
                   message_id: str | None, where: str) -> dict[str, Any]:  # fmt: skip
    """An arrived message in `to`'s inbox (fixtures and attack material alike)."""
    store = world.store
    if patient and store.get(PATIENTS.name, {"id": patient}) is None:
        raise ValueError(f"{where}.patient: no patient {patient!r} in patients")
    directory = world.directory
    person = directory.by_address(sender) if "@" in sender else directory.principals.get(sender)
    if person is None and "@" not in sender:
        raise ValueError(f"{where}.sender: unknown principal {sender!r} (an outside sender needs an email address)")
    mid = message_id or f"msg-{world.ids.next('clinical.msg', 10)}"
    if store.get(MESSAGES.name, {"id": mid}) is not None:
        raise ValueError(f"{where}.id: duplicate id {mid!r}")
    when = iso(_instant(at, f"{where}.at")) if at else iso(world.clock.now() - timedelta(hours=1))
    row = {"id": mid, "owner": to, "folder": "inbox", "sender": person.id if person else sender,
           "sender_name": sender_name or (person.name if person else sender), "recipient": to, "subject": subject, "body": body,
           "patient": patient, "external": person is None, "at": when}  # fmt: skip
    store.insert(MESSAGES.name, row)
    return row


def seed(world: World, fixture: dict[str, Any]) -> None:
    Seeder(world, ClinicalFixtures.model_validate(fixture)).run()
