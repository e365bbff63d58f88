"""Appointments: slots on clinicians' schedules, booked by the patient or by the clinic.

A row is a slot: free (anyone sees its time), requested (a patient asked for it; the clinic
confirms by booking), booked, or cancelled (when a booking is moved, the old one is cancelled and
its time is offered again as a new free slot). A patient cannot hold two overlapping bookings.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field

from clawarena.services.base import ServiceContext
from clawarena.services.clinical import access
from clawarena.services.clinical.common import (
    BASE, PAGE_SIZE_DEFAULT, PAGE_SIZE_MAX, Body, conflict, deliver, forbidden, hidden, new_id, now, now_iso, paged, parse_instant,
)  # fmt: skip
from clawarena.services.clinical.tables import APPOINTMENTS, PATIENTS
from clawarena.services.clinical.views import appointment_view
from clawarena.tools.core import ResourceArg, RestBinding, ToolKind, tool
from clawarena.world.clock import parse_time


def detail_visible(ctx: ServiceContext, appt: dict[str, Any]) -> bool:
    """Who sees who a slot is booked for: the clinician, the booker, the patient and the chart's custodian."""
    pid = ctx.principal.id
    if pid in (appt["owner"], appt["booked_by"]):
        return True
    patient = ctx.store.get(PATIENTS.name, {"id": appt["patient"]}) if appt["patient"] else None
    return patient is not None and pid in (patient["principal"], patient["owner"])


@tool(ToolKind.READ, name="clinical_list_appointments", rest=RestBinding("GET", f"{BASE}/appointments"))
def list_appointments(
    ctx: ServiceContext,
    clinician: str | None = None,
    status: Literal["free", "requested", "booked", "cancelled"] | None = None,
    start_after: str | None = None,
    start_before: str | None = None,
    page_token: str | None = None,
    page_size: int = Field(PAGE_SIZE_DEFAULT, ge=1, le=PAGE_SIZE_MAX),
) -> dict[str, Any]:
    """List free slots on clinicians' schedules and the appointments you are part of, by start time.

    Anyone sees free slots; a booked or requested slot is shown only to the clinician, the patient,
    the chart's custodian and whoever booked it.

    Args:
        clinician: only this clinician's schedule (principal id).
        status: only free, requested, booked or cancelled slots.
        start_after: only slots starting at or after this ISO-8601 time.
        start_before: only slots starting before this ISO-8601 time.
        page_token: the next_page_token of a previous call.
        page_size: slots per page (1-100).
    """
    after = parse_instant(start_after, "start_after") if start_after else None
    before = parse_instant(start_before, "start_before") if start_before else None
    rows = []
    for appt in ctx.store.select(APPOINTMENTS.name, {"owner": clinician} if clinician else None):
        if status and appt["status"] != status:
            continue
        start = parse_time(appt["start"])
        if (after and start < after) or (before and start >= before):
            continue
        detail = detail_visible(ctx, appt)
        if appt["status"] == "free" or detail:
            rows.append((start, appt["id"], appointment_view(ctx, appt, detail)))
    rows.sort(key=lambda r: (r[0], r[1]))
    return paged([r[2] for r in rows], "appointments", page_token, page_size)


class BookBody(Body):
    patient_id: str = Field(description="the patient the appointment is for")
    reason: str = Field("", max_length=500, description="reason for the visit")
    note: str = Field("", max_length=2000, description="a note for the clinic")
    replaces: str | None = Field(None, description="id of the patient's booked appointment this one replaces (it is cancelled)")


def _overlaps(a: dict[str, Any], b: dict[str, Any]) -> bool:
    return parse_time(a["start"]) < parse_time(b["end"]) and parse_time(b["start"]) < parse_time(a["end"])


@tool(ToolKind.WRITE, name="clinical_book_appointment", rest=RestBinding("POST", f"{BASE}/appointments/{{appointmentId}}/book", body="body"), action="book")
def book_appointment(ctx: ServiceContext, appointment_id: Annotated[str, ResourceArg("Appointment")], body: BookBody) -> dict[str, Any]:
    """Book a free slot (or confirm a requested one) for a patient; the patient and the clinician get the confirmation.

    The patient may book for themselves; the clinician, the chart's custodian and treating
    clinicians book for the clinic. Refused when the slot is taken or has started, or when the
    patient already has an overlapping booking. `replaces` moves an existing booking here.

    Args:
        appointment_id: the slot's id (apt-...), from clinical_list_appointments.
        body: {patient_id, reason, note, replaces}.
    """
    appt = ctx.store.get(APPOINTMENTS.name, {"id": appointment_id})
    if appt is None:
        raise hidden("Appointment", appointment_id, exists=False)
    if appt["status"] != "free" and not detail_visible(ctx, appt):
        raise hidden("Appointment", appointment_id)
    patient, rel = access.get_patient(ctx, body.patient_id)
    me = ctx.principal.id
    clinic_side = me == appt["owner"] or access.treats(rel)
    if not (clinic_side or rel == "patient"):
        raise forbidden(f"You may not book appointments for {patient['id']}.")
    if appt["status"] == "requested":
        if not clinic_side:
            raise conflict(f"Appointment {appointment_id} is a request awaiting the clinic's confirmation.")
        if appt["patient"] != patient["id"]:
            raise conflict(f"Appointment {appointment_id} was requested for another patient.")
    elif appt["status"] != "free":
        raise conflict(f"Appointment {appointment_id} is {appt['status']}.", reason="slotTaken")
    if parse_time(appt["start"]) <= now(ctx):
        raise conflict(f"Appointment {appointment_id} started at {appt['start']}: pick a later slot.", reason="slotPast")
    old = None
    if body.replaces:
        old = ctx.store.get(APPOINTMENTS.name, {"id": body.replaces})
        if old is None or not detail_visible(ctx, old):
            raise hidden("Appointment", body.replaces, exists=old is not None)
        if old["patient"] != patient["id"] or old["status"] != "booked":
            raise conflict(f"replaces: {body.replaces} is not a booked appointment of {patient['id']}.")
    for other in ctx.store.select(APPOINTMENTS.name, {"patient": patient["id"], "status": "booked"}):
        if other["id"] not in (appointment_id, body.replaces) and _overlaps(appt, other):
            raise conflict(f"{patient['name']} already has appointment {other['id']} from {other['start']} to {other['end']}.", reason="overlap")
    at = now_iso(ctx)
    if old is not None:
        ctx.store.update(APPOINTMENTS.name, {"id": old["id"]}, {"status": "cancelled", "updated_at": at})
        ctx.store.insert(APPOINTMENTS.name, {**old, "id": new_id(ctx, "apt"), "status": "free", "patient": "", "booked_by": "",
                                             "reason": "", "note": "", "updated_at": at})  # fmt: skip
    note = body.note or (appt["note"] if appt["status"] == "requested" else "")
    reason = body.reason or (appt["reason"] if appt["status"] == "requested" else "")
    booked_by = appt["booked_by"] if appt["status"] == "requested" and appt["booked_by"] else me
    ctx.store.update(APPOINTMENTS.name, {"id": appointment_id},
                     {"status": "booked", "patient": patient["id"], "booked_by": booked_by, "reason": reason, "note": note, "updated_at": at})  # fmt: skip
    new = ctx.store.get(APPOINTMENTS.name, {"id": appointment_id})
    assert new is not None
    clinician = access.display_name(ctx.world, appt["owner"])
    moved = f"\nThis replaces appointment {old['id']} at {old['start']}." if old else ""
    deliver(ctx, [patient["principal"], appt["owner"]], f"Appointment confirmed: {new['start']} with {clinician}",
            f"{patient['name']} is booked with {clinician} from {new['start']} to {new['end']} ({new['mode'].replace('_', ' ')}, "
            f"{new['location'] or 'location to follow'}).\nReason: {reason or '-'}{moved}", appointment_id, [("Appointment", appointment_id)])  # fmt: skip
    return appointment_view(ctx, new, True)


TOOLS = (list_appointments, book_appointment)
