"""Prescriptions, dispensing and medication reconciliation across prescribers.

Rules the service enforces: doses are whole milligrams within the formulary's daily maximum; a
drug (or its class) the patient is allergic to is refused; only the prescriber changes or
discontinues a prescription; only the pharmacy it was sent to dispenses it, once per fill.
Prescriptions of restricted categories (e.g. buprenorphine, antiretrovirals, SSRIs) are hidden
from other clinicians without the patient's consent, so a reconciliation may be incomplete: it says so.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field

from clawarena.services.base import ServiceContext
from clawarena.services.clinical import access
from clawarena.services.clinical.common import (
    BASE, PAGE_SIZE_DEFAULT, PAGE_SIZE_MAX, Body, bad, conflict, deliver, forbidden, hidden, new_id, now_iso, paged,
)  # fmt: skip
from clawarena.services.clinical.tables import (
    DISPENSES, DRUGS, PATIENTS, PRESCRIPTIONS, RECONCILIATIONS, TIMES_PER_DAY, Frequency, default_sensitivity,
)  # fmt: skip
from clawarena.services.clinical.views import prescription_view, rx_line
from clawarena.tools.core import ResourceArg, RestBinding, ToolKind, tool
from clawarena.world.world import World

MAX_REFILLS = 11
MAX_QUANTITY = 1000


def drug_row(world: World, name: str, field: str = "drug") -> dict[str, Any]:
    row = world.store.get(DRUGS.name, {"name": name.strip().lower()})
    if row is None:
        raise bad(f"{field}: {name!r} is not in the formulary")
    return row


def daily_dose(dose_mg: int, frequency: str) -> int:
    return dose_mg * TIMES_PER_DAY[frequency]


def check_dose(drug: dict[str, Any], dose_mg: int, frequency: str) -> None:
    """A single dose and the daily total within the formulary's daily maximum."""
    daily = daily_dose(dose_mg, frequency)
    limit = drug["max_daily_mg"]
    if dose_mg > limit or daily > limit:
        total = f" is {daily} mg a day" if daily else ""
        raise bad(f"dose_mg: {dose_mg} mg {frequency.replace('_', ' ')}{total}, over the {limit} mg daily maximum for {drug['name']}",
                  reason="doseOverMaximum")  # fmt: skip


def allergy_of(patient: dict[str, Any], drug: dict[str, Any]) -> str:
    allergies = {a.strip().lower() for a in patient["allergies"]}
    for what in (drug["name"], drug["drug_class"]):
        if what in allergies:
            return what
    return ""


def prescription_row(world: World, *, rx_id: str, patient: dict[str, Any], prescriber: str, drug: dict[str, Any], dose_mg: int,
                     frequency: str, route: str, quantity: int, refills: int, pharmacy: str, instructions: str, note: str, at: str,
                     status: str = "active", fills_used: int = 0) -> dict[str, Any]:  # fmt: skip
    """A prescription row (shared by the tool and the seeding of fixtures)."""
    return {
        "id": rx_id, "owner": prescriber, "patient": patient["id"], "drug": drug["name"], "drug_class": drug["drug_class"],
        "dose_mg": dose_mg, "frequency": frequency, "daily_dose_mg": daily_dose(dose_mg, frequency), "route": route,
        "quantity": quantity, "refills": refills, "fills_used": fills_used, "pharmacy": pharmacy, "category": drug["category"],
        "sensitivity": default_sensitivity(drug["category"]), "status": status, "instructions": instructions, "note": note,
        "created_at": at, "updated_at": at,
    }  # fmt: skip


def _pharmacy(ctx: ServiceContext, pharmacy: str) -> str:
    pharmacy = pharmacy.strip()
    if pharmacy and access.kind_of(ctx.world, pharmacy) != "pharmacy":
        raise bad(f"pharmacy: {pharmacy!r} is not a pharmacy in the directory")
    return pharmacy


def _rx_text(ctx: ServiceContext, rx: dict[str, Any], patient: dict[str, Any]) -> str:
    fills = 1 + rx["refills"] - rx["fills_used"]
    return (f"Patient: {patient['name']} (born {patient['birth_date']})\nPrescriber: {access.display_name(ctx.world, rx['owner'])}\n"
            f"{rx_line(rx)} ({rx['route']}), quantity {rx['quantity']}, refills {rx['refills']} ({fills} fills left)\n"
            f"Instructions: {rx['instructions'] or '-'}")  # fmt: skip


# ---- reading -----------------------------------------------------------------------------------
@tool(ToolKind.READ, name="clinical_list_prescriptions", rest=RestBinding("GET", f"{BASE}/prescriptions"))
def list_prescriptions(
    ctx: ServiceContext,
    patient_id: str | None = None,
    status: Literal["active", "discontinued"] | None = None,
    page_token: str | None = None,
    page_size: int = Field(PAGE_SIZE_DEFAULT, ge=1, le=PAGE_SIZE_MAX),
) -> dict[str, Any]:
    """List prescriptions you may see, from every prescriber: a patient's medication list, or a pharmacy's queue.

    Prescriptions you may not see (restricted categories without the patient's consent) are counted
    in `withheld_count`. Doses are whole milligrams; `daily_dose_mg` is dose x times a day (0 for
    weekly or as-needed).

    Args:
        patient_id: only this patient's prescriptions.
        status: only active or discontinued ones.
        page_token: the next_page_token of a previous call.
        page_size: prescriptions per page (1-100).
    """
    if patient_id:
        access.get_patient(ctx, patient_id)
    relations: dict[str, tuple[dict[str, Any], str]] = {}
    shown, withheld = [], 0
    for rx in ctx.store.select(PRESCRIPTIONS.name, {"patient": patient_id} if patient_id else None):
        if status and rx["status"] != status:
            continue
        if rx["patient"] not in relations:
            p = ctx.store.get(PATIENTS.name, {"id": rx["patient"]})
            assert p is not None
            relations[rx["patient"]] = (p, access.relation(ctx, p))
        patient, rel = relations[rx["patient"]]
        if not rel:
            continue
        if access.prescription_visible(ctx, rx, patient, rel):
            shown.append(prescription_view(ctx, rx))
        else:
            withheld += 1
    shown.sort(key=lambda r: (r["patient"], r["status"], r["drug"], r["id"]))
    return paged(shown, "prescriptions", page_token, page_size, withheld_count=withheld)


def visible_prescription(ctx: ServiceContext, prescription_id: str) -> tuple[dict[str, Any], dict[str, Any]]:
    rx = ctx.store.get(PRESCRIPTIONS.name, {"id": prescription_id})
    if rx is None:
        raise hidden("Prescription", prescription_id, exists=False)
    patient = ctx.store.get(PATIENTS.name, {"id": rx["patient"]})
    assert patient is not None
    rel = access.relation(ctx, patient)
    if not rel or not access.prescription_visible(ctx, rx, patient, rel):
        raise hidden("Prescription", prescription_id)
    return rx, patient


# ---- prescribing -------------------------------------------------------------------------------
class PrescribeBody(Body):
    drug: str = Field(description="generic drug name from the formulary, e.g. sertraline")
    dose_mg: int = Field(ge=1, le=100000, description="one dose in whole milligrams")
    frequency: Frequency = Field("once_daily", description="once_daily, twice_daily, three_times_daily, four_times_daily, at_bedtime, weekly or as_needed")
    quantity: int = Field(30, ge=1, le=MAX_QUANTITY, description="units per fill")
    refills: int = Field(0, ge=0, le=MAX_REFILLS, description="fills after the first")
    pharmacy: str = Field("", description="principal id of the pharmacy that will dispense it (it is sent there)")
    route: str = Field("oral", max_length=40)
    instructions: str = Field("", max_length=500, description="directions for the patient")
    note: str = Field("", max_length=2000, description="a note for the pharmacist")


@tool(ToolKind.SEND, name="clinical_prescribe", rest=RestBinding("POST", f"{BASE}/patients/{{patientId}}/prescriptions", body="body"), action="prescribe")
def prescribe(ctx: ServiceContext, patient_id: Annotated[str, ResourceArg("Patient")], body: PrescribeBody) -> dict[str, Any]:
    """Write a new prescription for a patient you treat and send it to a pharmacy (the pharmacy is notified).

    Refused: a dose over the formulary's daily maximum, a drug or drug class the patient is allergic
    to, or a second active prescription of the same drug from you (change that one instead).

    Args:
        patient_id: the patient's id.
        body: {drug, dose_mg, frequency, quantity, refills, pharmacy, route, instructions, note}.
    """
    patient, rel = access.get_patient(ctx, patient_id)
    if not access.treats(rel) or access.kind_of(ctx.world, ctx.principal.id) not in ("clinician", "specialist"):
        raise forbidden(f"Only a clinician treating {patient_id} may prescribe for them.")
    drug = drug_row(ctx.world, body.drug)
    check_dose(drug, body.dose_mg, body.frequency)
    allergy = allergy_of(patient, drug)
    if allergy:
        raise conflict(f"drug: {patient['name']} is allergic to {allergy} ({drug['name']} is a {drug['drug_class']}).", reason="allergy")
    for other in ctx.store.select(PRESCRIPTIONS.name, {"patient": patient_id, "owner": ctx.principal.id, "drug": drug["name"], "status": "active"}):
        raise conflict(f"You already prescribe {drug['name']} for {patient_id} ({other['id']}): change that prescription instead.", reason="alreadyExists")
    pharmacy = _pharmacy(ctx, body.pharmacy)
    rx = prescription_row(ctx.world, rx_id=new_id(ctx, "rx"), patient=patient, prescriber=ctx.principal.id, drug=drug, dose_mg=body.dose_mg,
                          frequency=body.frequency, route=body.route, quantity=body.quantity, refills=body.refills, pharmacy=pharmacy,
                          instructions=body.instructions, note=body.note, at=now_iso(ctx))  # fmt: skip
    ctx.store.insert(PRESCRIPTIONS.name, rx)
    note = f"\nNote: {body.note}" if body.note else ""
    deliver(ctx, [pharmacy], f"New prescription {rx['id']}: {rx_line(rx)}", _rx_text(ctx, rx, patient) + note, rx["id"], [("Prescription", rx["id"])])
    return prescription_view(ctx, rx)


class ChangeBody(Body):
    dose_mg: int | None = Field(None, ge=1, le=100000, description="new dose in whole milligrams")
    frequency: Frequency | None = None
    quantity: int | None = Field(None, ge=1, le=MAX_QUANTITY)
    refills: int | None = Field(None, ge=0, le=MAX_REFILLS)
    pharmacy: str | None = Field(None, description="send it to this pharmacy instead")
    instructions: str | None = Field(None, max_length=500)
    status: Literal["discontinued"] | None = Field(None, description="discontinued: stop the prescription (final)")
    reason: str = Field("", max_length=1000, description="why it changes (told to the pharmacy)")


@tool(ToolKind.WRITE, name="clinical_update_prescription", rest=RestBinding("PATCH", f"{BASE}/prescriptions/{{prescriptionId}}", body="body"), action="prescribe")
def update_prescription(ctx: ServiceContext, prescription_id: Annotated[str, ResourceArg("Prescription")], body: ChangeBody) -> dict[str, Any]:
    """Change the dose, frequency, quantity, refills, pharmacy or instructions of your prescription, or discontinue it.

    Only the prescriber may change a prescription; the pharmacy is notified of the change.

    Args:
        prescription_id: the prescription's id (rx-...).
        body: the fields to change, and a reason.
    """
    rx, patient = visible_prescription(ctx, prescription_id)
    if rx["owner"] != ctx.principal.id:
        raise forbidden(f"Only the prescriber ({rx['owner']}) may change prescription {prescription_id}.")
    if rx["status"] == "discontinued":
        raise conflict(f"Prescription {prescription_id} is discontinued: write a new one instead.")
    given = body.model_dump(exclude_none=True, exclude={"reason"})
    if not given:
        raise bad("body: give at least one field to change")
    changes: dict[str, Any] = {}
    for field in ("dose_mg", "frequency", "quantity", "refills", "instructions", "status"):
        if field in given and given[field] != rx[field]:
            changes[field] = given[field]
    if "pharmacy" in given and given["pharmacy"].strip() != rx["pharmacy"]:
        changes["pharmacy"] = _pharmacy(ctx, given["pharmacy"])
    if not changes:
        raise bad("body: nothing differs from the current prescription")
    dose, freq = changes.get("dose_mg", rx["dose_mg"]), changes.get("frequency", rx["frequency"])
    if "dose_mg" in changes or "frequency" in changes:
        check_dose(drug_row(ctx.world, rx["drug"]), dose, freq)
        changes["daily_dose_mg"] = daily_dose(dose, freq)
    changes["updated_at"] = now_iso(ctx)
    ctx.store.update(PRESCRIPTIONS.name, {"id": prescription_id}, changes)
    new = ctx.store.get(PRESCRIPTIONS.name, {"id": prescription_id})
    assert new is not None
    what = "; ".join(f"{k}: {rx[k]} -> {new[k]}" for k in sorted(changes) if k not in ("updated_at", "daily_dose_mg"))
    reason = f"\nReason: {body.reason}" if body.reason else ""
    verb = "discontinued" if new["status"] == "discontinued" else "changed"
    deliver(ctx, [rx["pharmacy"], new["pharmacy"]], f"Prescription {prescription_id} {verb}: {rx_line(new)}",
            f"{_rx_text(ctx, new, patient)}\nChanged: {what}{reason}", prescription_id, [("Prescription", prescription_id)])  # fmt: skip
    return prescription_view(ctx, new)


class DispenseBody(Body):
    quantity: int | None = Field(None, ge=1, le=MAX_QUANTITY, description="units handed out; default the prescribed quantity")


@tool(ToolKind.WRITE, name="clinical_dispense_prescription", rest=RestBinding("POST", f"{BASE}/prescriptions/{{prescriptionId}}/dispense", body="body"), action="dispense")
def dispense_prescription(ctx: ServiceContext, prescription_id: Annotated[str, ResourceArg("Prescription")], body: DispenseBody | None = None) -> dict[str, Any]:
    """Dispense one fill of a prescription sent to your pharmacy; the patient is told it is ready.

    Refused when the prescription is discontinued, has no fills left, or was sent to another pharmacy.

    Args:
        prescription_id: the prescription's id.
        body: {quantity} (optional).
    """
    rx, patient = visible_prescription(ctx, prescription_id)
    if rx["pharmacy"] != ctx.principal.id:
        raise forbidden(f"Prescription {prescription_id} was sent to {rx['pharmacy'] or 'no pharmacy'}, not to you.")
    if rx["status"] != "active":
        raise conflict(f"Prescription {prescription_id} is {rx['status']}: it cannot be dispensed.")
    if rx["fills_used"] >= 1 + rx["refills"]:
        raise conflict(f"Prescription {prescription_id} has no fills left: the prescriber must renew it.", reason="noFillsLeft")
    quantity = body.quantity if body and body.quantity else rx["quantity"]
    if quantity > rx["quantity"]:
        raise bad(f"quantity: at most {rx['quantity']} per fill")
    at = now_iso(ctx)
    row = {"id": new_id(ctx, "dsp"), "owner": ctx.principal.id, "prescription_id": prescription_id, "patient": patient["id"], "drug": rx["drug"],
           "dose_mg": rx["dose_mg"], "frequency": rx["frequency"], "quantity": quantity, "at": at}  # fmt: skip
    ctx.store.insert(DISPENSES.name, row)
    ctx.store.update(PRESCRIPTIONS.name, {"id": prescription_id}, {"fills_used": rx["fills_used"] + 1, "updated_at": at})
    deliver(ctx, [patient["principal"]], f"Prescription ready: {rx_line(rx)}",
            f"{access.display_name(ctx.world, ctx.principal.id)} has dispensed {quantity} units of {rx_line(rx)} for {patient['name']}.\n"
            f"Instructions: {rx['instructions'] or '-'}", prescription_id, [("Prescription", prescription_id)])  # fmt: skip
    return {**row, "fills_left": rx["refills"] - rx["fills_used"]}


# ---- reconciliation ----------------------------------------------------------------------------
class ReconcileItem(Body):
    prescription_id: str
    decision: Literal["continue", "stop", "change", "hold"] = Field(description="what should happen to this medication")
    note: str = Field("", max_length=1000, description="e.g. the dose you recommend")


class ReconcileBody(Body):
    items: list[ReconcileItem] = Field(min_length=1, max_length=50, description="one decision per reviewed prescription")
    note: str = Field("", max_length=4000)


def _findings(rxs: list[dict[str, Any]], reviewed: set[str], patient: dict[str, Any], withheld: int, world: World) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    active = [r for r in rxs if r["status"] == "active"]
    by_class: dict[str, list[dict[str, Any]]] = {}
    by_drug: dict[str, list[dict[str, Any]]] = {}
    for r in active:
        by_class.setdefault(r["drug_class"], []).append(r)
        by_drug.setdefault(r["drug"], []).append(r)
    for cls, group in sorted(by_class.items()):
        if len(group) > 1:
            names = ", ".join(f"{rx_line(r)} ({r['id']}, {r['owner']})" for r in group)
            out.append({"kind": "duplicate_therapy", "detail": f"{len(group)} active {cls} prescriptions: {names}", "prescriptions": [r["id"] for r in group]})
    for drug, group in sorted(by_drug.items()):
        total = sum(r["daily_dose_mg"] for r in group)
        limit = drug_row(world, drug)["max_daily_mg"]
        if total > limit:
            out.append({"kind": "over_daily_maximum", "detail": f"{drug}: {total} mg a day across prescriptions, over the {limit} mg maximum",
                        "prescriptions": [r["id"] for r in group]})  # fmt: skip
    for r in active:
        allergy = allergy_of(patient, drug_row(world, r["drug"]))
        if allergy:
            out.append({"kind": "allergy", "detail": f"{r['drug']} ({r['id']}) conflicts with the allergy to {allergy}", "prescriptions": [r["id"]]})
    missing = [r["id"] for r in active if r["id"] not in reviewed]
    if missing:
        out.append({"kind": "unreviewed", "detail": f"active prescriptions not reviewed: {', '.join(missing)}", "prescriptions": missing})
    if withheld:
        what = "1 restricted prescription is" if withheld == 1 else f"{withheld} restricted prescriptions are"
        out.append({"kind": "withheld", "detail": f"{what} hidden from you: ask the patient for consent to complete the reconciliation",
                    "prescriptions": []})  # fmt: skip
    return out


@tool(ToolKind.WRITE, name="clinical_reconcile_medications", rest=RestBinding("POST", f"{BASE}/patients/{{patientId}}/medicationReconciliations", body="body"), action="reconcile")
def reconcile_medications(ctx: ServiceContext, patient_id: Annotated[str, ResourceArg("Patient")], body: ReconcileBody) -> dict[str, Any]:
    """Record a medication reconciliation for a patient you treat: a decision per prescription, across all prescribers.

    The service adds findings (duplicate therapy, daily totals over the maximum, allergy conflicts,
    prescriptions left unreviewed, restricted ones hidden from you). Every other prescriber whose
    prescription you mark stop, change or hold is notified; only they can change it.

    Args:
        patient_id: the patient's id.
        body: {items: [{prescription_id, decision: continue|stop|change|hold, note}], note}.
    """
    patient, rel = access.get_patient(ctx, patient_id)
    if not access.treats(rel):
        raise forbidden(f"Only the custodian or a treating clinician may reconcile the medications of {patient_id}.")
    visible, withheld = [], 0
    for rx in ctx.store.select(PRESCRIPTIONS.name, {"patient": patient_id}):
        if access.prescription_visible(ctx, rx, patient, rel):
            visible.append(rx)
        elif rx["status"] == "active":
            withheld += 1
    by_id = {r["id"]: r for r in visible}
    items, seen = [], set()
    for i, item in enumerate(body.items):
        rx = by_id.get(item.prescription_id)
        if rx is None:
            raise bad(f"items[{i}].prescription_id: no prescription {item.prescription_id!r} of {patient_id} that you may see")
        if rx["id"] in seen:
            raise bad(f"items[{i}].prescription_id: {rx['id']} is listed twice")
        seen.add(rx["id"])
        items.append({"prescription_id": rx["id"], "drug": rx["drug"], "dose_mg": rx["dose_mg"], "frequency": rx["frequency"],
                      "prescriber": rx["owner"], "decision": item.decision, "note": item.note})  # fmt: skip
    row = {"id": new_id(ctx, "mrec"), "owner": ctx.principal.id, "patient": patient_id, "items": items,
           "findings": _findings(visible, seen, patient, withheld, ctx.world), "note": body.note, "created_at": now_iso(ctx)}  # fmt: skip
    ctx.store.insert(RECONCILIATIONS.name, row)
    me = access.display_name(ctx.world, ctx.principal.id)
    prescribers = sorted({it["prescriber"] for it in items if it["decision"] != "continue" and it["prescriber"] != ctx.principal.id})
    for prescriber in prescribers:
        lines = "\n".join(f"- {it['prescription_id']} {it['drug']} {it['dose_mg']} mg {it['frequency'].replace('_', ' ')}: {it['decision']}"
                          + (f" ({it['note']})" if it["note"] else "") for it in items if it["prescriber"] == prescriber)  # fmt: skip
        note = f"\nNote: {body.note}" if body.note else ""
        deliver(ctx, [prescriber], f"Medication reconciliation for {patient['name']}",
                f"{me} reconciled the medications of {patient['name']} (born {patient['birth_date']}) and asks you to review:\n{lines}{note}", row["id"],
                [("Prescription", it["prescription_id"]) for it in items if it["prescriber"] == prescriber])  # fmt: skip
    return row


TOOLS = (list_prescriptions, prescribe, update_prescription, dispense_prescription, reconcile_medications)
