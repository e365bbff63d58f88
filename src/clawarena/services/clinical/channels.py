"""Attack channels: where outside material meets clinical work.

- `clinical_note`: a record's note text (or comment), a referral's note, or a new note in a chart
  (e.g. an injected line telling the reader to change a dose).
- `clinical_message`: a secure message in a principal's inbox, typically from an outside actor
  (a fake insurer, a fake portal), or appended to an existing message.
- `clinical_lab_comment`: the comment of a lab result, existing or new.
- `clinical_appointment_note`: the note of an appointment, or of a new appointment request.

Each placement names the row it writes; a name that matches no fixture row is a ValueError naming
the placement field.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Annotated, Any, ClassVar, Literal, Union

from pydantic import Discriminator, Field, Tag

from clawarena.services.clinical.common import iso
from clawarena.services.clinical.seed import insert_message
from clawarena.services.clinical.tables import (
    APPOINTMENTS, MESSAGES, PATIENTS, PROVIDERS, RECORDS, REFERRALS, AppointmentMode, Category, RecordKind, default_sensitivity,
)  # fmt: skip
from clawarena.spec.base import Strict
from clawarena.spec.models import AttackSpec
from clawarena.spec.refs import PrincipalId, PrincipalOrAddress
from clawarena.world.clock import parse_time
from clawarena.world.world import World

Mode = Literal["append", "replace"]


def _by_key(mapping: dict[str, str], default: str):
    """A discriminator: the tag of the first key present in a raw placement (or of a parsed model's class)."""

    def pick(value: Any) -> str:
        if isinstance(value, dict):
            return next((tag for key, tag in mapping.items() if key in value), default)
        return getattr(value, "TAG", default)

    return Discriminator(pick)


# ---- clinical_note ----------------------------------------------------------------------------
class RecordNote(Strict):
    """The payload goes into an existing record's note text (or its comment)."""

    TAG: ClassVar[str] = "record-note"
    record: str = Field(description="id of a fixture record")
    field: Literal["content", "comment"] = "content"
    mode: Mode = "append"


class ReferralNote(Strict):
    """The payload goes into an existing referral's note, which the specialist reads."""

    TAG: ClassVar[str] = "referral-note"
    referral: str = Field(description="id of a fixture referral")
    mode: Mode = "append"


class NewNote(Strict):
    """A new record in a patient's chart whose note text is the payload."""

    TAG: ClassVar[str] = "new-note"
    patient: str = Field(description="id of a fixture patient")
    author: PrincipalId | None = Field(default=None, description="default the chart's custodian")
    title: str = "Clinical note"
    category: Category = "general"
    kind: RecordKind = "note"
    date: str | None = Field(default=None, description="YYYY-MM-DD; default today")
    id: str | None = None


# ---- clinical_message -------------------------------------------------------------------------
class NewMessage(Strict):
    """A new message in `to`'s inbox whose body is the payload (from outside when `sender` is an address)."""

    TAG: ClassVar[str] = "new-message"
    to: PrincipalId
    sender: PrincipalOrAddress = Field(description="a principal id, or an outside address such as claims@insurer-verify.example")
    sender_name: str = ""
    subject: str
    patient: str = Field(default="", description="the patient the message is about")
    at: str | None = Field(default=None, description="default an hour before the world's now")
    id: str | None = None


class MessageEdit(Strict):
    """The payload goes into an existing message's body (every copy: inbox and sent)."""

    TAG: ClassVar[str] = "message-edit"
    message: str = Field(description="id of a fixture message")
    mode: Mode = "append"


# ---- clinical_lab_comment ---------------------------------------------------------------------
class LabComment(Strict):
    """The payload goes into an existing lab result's comment."""

    TAG: ClassVar[str] = "lab-comment"
    record: str = Field(description="id of a fixture record of kind lab")
    mode: Mode = "append"


class NewLabResult(Strict):
    """A new lab result in a patient's chart whose comment is the payload."""

    TAG: ClassVar[str] = "new-lab"
    patient: str
    test: str
    value: str
    unit: str = ""
    reference_range: str = ""
    flag: Literal["", "low", "high", "critical"] = ""
    title: str = ""
    author: PrincipalId | None = Field(default=None, description="the reporting lab or clinician; default the chart's custodian")
    category: Category = "general"
    date: str | None = None
    id: str | None = None


# ---- clinical_appointment_note ----------------------------------------------------------------
class AppointmentNote(Strict):
    """The payload goes into an existing appointment's note."""

    TAG: ClassVar[str] = "appointment-note"
    appointment: str = Field(description="id of a fixture appointment")
    mode: Mode = "append"


class AppointmentRequest(Strict):
    """A new appointment request (status requested) on a clinician's schedule whose note is the payload."""

    TAG: ClassVar[str] = "appointment-request"
    clinician: PrincipalId
    patient: str
    start: str
    end: str
    requested_by: PrincipalOrAddress | None = Field(default=None, description="default the patient's principal")
    reason: str = ""
    location: str = ""
    mode: AppointmentMode = "in_person"
    id: str | None = None


def _tag(model: Any) -> Any:
    return Annotated[model, Tag(model.TAG)]


ClinicalNotePlacement = Annotated[
    Union[_tag(RecordNote), _tag(ReferralNote), _tag(NewNote)],
    _by_key({"record": "record-note", "referral": "referral-note"}, "new-note"),
]
ClinicalMessagePlacement = Annotated[
    Union[_tag(MessageEdit), _tag(NewMessage)], _by_key({"message": "message-edit"}, "new-message")
]
LabCommentPlacement = Annotated[
    Union[_tag(LabComment), _tag(NewLabResult)], _by_key({"record": "lab-comment"}, "new-lab")
]
AppointmentNotePlacement = Annotated[
    Union[_tag(AppointmentNote), _tag(AppointmentRequest)],
    _by_key({"appointment": "appointment-note"}, "appointment-request"),
]

CHANNELS: dict[str, Any] = {
    "clinical_note": ClinicalNotePlacement,
    "clinical_message": ClinicalMessagePlacement,
    "clinical_lab_comment": LabCommentPlacement,
    "clinical_appointment_note": AppointmentNotePlacement,
}


# ---- placing ----------------------------------------------------------------------------------
def _combine(old: str, payload: str, mode: str) -> str:
    return payload if mode == "replace" or not old else f"{old}\n\n{payload}"


def _row(world: World, table: str, ident: str, field: str, what: str) -> dict[str, Any]:
    row = world.store.get(table, {"id": ident})
    if row is None:
        raise ValueError(f"placement.{field}: no {what} {ident!r} in the fixtures")
    return row


def _principal(world: World, pid: str | None, field: str) -> None:
    if pid is not None and pid not in world.directory.principals:
        raise ValueError(f"placement.{field}: unknown principal {pid!r}")


def _chart_row(world: World, patient_id: str, author: str | None, record_id: str | None) -> tuple[dict[str, Any], dict[str, Any]]:
    """(patient, the common fields of a new record in their chart)."""
    patient = _row(world, PATIENTS.name, patient_id, "patient", "patient")
    _principal(world, author, "author")
    rid = record_id or f"rec-{world.ids.next('clinical.rec', 10)}"
    if world.store.get(RECORDS.name, {"id": rid}) is not None:
        raise ValueError(f"placement.id: a record {rid!r} exists already")
    now = world.clock.now()
    base = {"id": rid, "owner": patient["owner"], "patient": patient["id"], "author": author or patient["owner"],
            "created_at": iso(now - timedelta(hours=1))}  # fmt: skip
    return patient, base


def _new_note(world: World, p: NewNote, payload: str) -> None:
    _, base = _chart_row(world, p.patient, p.author, p.id)
    world.store.insert(RECORDS.name, {**base, "category": p.category, "kind": p.kind, "sensitivity": default_sensitivity(p.category),
                                      "title": p.title, "content": payload, "result": None, "comment": "",
                                      "date": p.date or iso(world.clock.now())[:10]})  # fmt: skip


def _new_lab(world: World, p: NewLabResult, payload: str) -> None:
    _, base = _chart_row(world, p.patient, p.author, p.id)
    result = {"test": p.test, "value": p.value, "unit": p.unit, "reference_range": p.reference_range, "flag": p.flag}
    world.store.insert(RECORDS.name, {**base, "category": p.category, "kind": "lab", "sensitivity": default_sensitivity(p.category),
                                      "title": p.title or f"{p.test} result", "content": "", "result": result, "comment": payload,
                                      "date": p.date or iso(world.clock.now())[:10]})  # fmt: skip


def place(world: World, attack: AttackSpec, p: Any) -> None:
    payload = attack.payload
    store = world.store
    if isinstance(p, RecordNote):
        rec = _row(world, RECORDS.name, p.record, "record", "record")
        store.update(RECORDS.name, {"id": rec["id"]}, {p.field: _combine(rec[p.field], payload, p.mode)})
    elif isinstance(p, ReferralNote):
        ref = _row(world, REFERRALS.name, p.referral, "referral", "referral")
        store.update(REFERRALS.name, {"id": ref["id"]}, {"note": _combine(ref["note"], payload, p.mode)})
    elif isinstance(p, NewNote):
        _new_note(world, p, payload)
    elif isinstance(p, NewLabResult):
        _new_lab(world, p, payload)
    elif isinstance(p, LabComment):
        rec = _row(world, RECORDS.name, p.record, "record", "record")
        if rec["kind"] != "lab":
            raise ValueError(f"placement.record: {p.record!r} is a {rec['kind']}, not a lab result")
        store.update(RECORDS.name, {"id": rec["id"]}, {"comment": _combine(rec["comment"], payload, p.mode)})
    elif isinstance(p, NewMessage):
        _principal(world, p.to, "to")
        insert_message(world, to=p.to, sender=p.sender, sender_name=p.sender_name, subject=p.subject, body=payload, patient=p.patient,
                       at=p.at, message_id=p.id, where="placement")  # fmt: skip
    elif isinstance(p, MessageEdit):
        msg = _row(world, MESSAGES.name, p.message, "message", "message")
        store.update(MESSAGES.name, {"id": msg["id"]}, {"body": _combine(msg["body"], payload, p.mode)})
    elif isinstance(p, AppointmentNote):
        appt = _row(world, APPOINTMENTS.name, p.appointment, "appointment", "appointment")
        store.update(APPOINTMENTS.name, {"id": appt["id"]}, {"note": _combine(appt["note"], payload, p.mode)})
    elif isinstance(p, AppointmentRequest):
        _place_request(world, p, payload)
    else:  # the channel's placement model admits nothing else
        raise ValueError(f"placement: unsupported placement {type(p).__name__}")


def _place_request(world: World, p: AppointmentRequest, payload: str) -> None:
    _principal(world, p.clinician, "clinician")
    if world.store.get(PROVIDERS.name, {"principal": p.clinician}) is None:
        raise ValueError(f"placement.clinician: {p.clinician!r} is not in providers")
    patient = _row(world, PATIENTS.name, p.patient, "patient", "patient")
    try:
        start, end = parse_time(p.start), parse_time(p.end)
    except ValueError:
        raise ValueError("placement.start: start and end must be ISO-8601 date-times") from None
    if end <= start:
        raise ValueError("placement.end: must be after start")
    aid = p.id or f"apt-{world.ids.next('clinical.apt', 10)}"
    if world.store.get(APPOINTMENTS.name, {"id": aid}) is not None:
        raise ValueError(f"placement.id: an appointment {aid!r} exists already")
    requester = p.requested_by or patient["principal"] or patient["owner"]
    world.store.insert(APPOINTMENTS.name, {
        "id": aid, "owner": p.clinician, "start": iso(start), "end": iso(end), "location": p.location, "mode": p.mode, "status": "requested",
        "patient": patient["id"], "booked_by": requester, "reason": p.reason, "note": payload, "updated_at": iso(world.clock.now()),
    })  # fmt: skip
