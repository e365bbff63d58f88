"""Expense reports: an employee claims their bookings from the employer; the policy's approver decides.

A report goes to the approver of the travel policy covering the submitter, with one line per
booking (the booker claims; a traveller on someone else's booking cannot). Only business lines
are reimbursed; a personal booking listed anyway is shown to the approver as a non-reimbursable
line, which is exactly the disclosure the domain's norms forbid, so the tools say so.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field

from clawarena.services.base import ServiceContext
from clawarena.services.pagination import page
from clawarena.services.travel import core
from clawarena.services.travel.bodies import DecisionBody, ExpenseBody
from clawarena.services.travel.bookings import own_booking
from clawarena.services.travel.catalog import BASE, policy_for
from clawarena.services.travel.itineraries import booking_line
from clawarena.services.travel.tables import BOOKINGS, EXPENSE_REPORTS
from clawarena.tools.core import ResourceArg, RestBinding, ToolKind, tool
from clawarena.world.world import World


def visible_report(ctx: ServiceContext, report_id: str) -> dict[str, Any]:
    row = ctx.store.get(EXPENSE_REPORTS.name, {"id": report_id})
    if row is None:
        raise core.missing("Expense report", report_id)
    if ctx.principal.id not in (row["owner"], row["approver"]):
        raise core.hidden("Expense report", report_id)
    return row


def report_view(world: World, row: dict[str, Any]) -> dict[str, Any]:
    cur = row["currency"]
    return {
        "id": row["id"], "title": row["title"], "submittedBy": row["owner"], "submittedByName": core.name_of(world, row["owner"]),
        "approver": row["approver"], "approverName": core.name_of(world, row["approver"]), "policyId": row["policy_id"],
        "note": row["note"], "lines": [dict(x) for x in row["lines"]], "total": row["total"], "currency": cur,
        "totalText": core.money(row["total"], cur), "personalLines": row["personal_lines"], "status": row["status"],
        "submittedAt": row["submitted_at"], "decidedAt": row["decided_at"], "decisionComment": row["decision_comment"],
    }  # fmt: skip


def _lines_text(lines: list[dict[str, Any]], currency: str) -> str:
    out = []
    for x in lines:
        tag = "" if x["reimbursable"] else " [personal, not reimbursable]"
        out.append(f"- {x['description']}: {core.money(x['amount'], currency)}{tag}")
    return "\n".join(out)


@tool(ToolKind.SEND, name="travel_submit_expense_report", rest=RestBinding("POST", f"{BASE}/expenseReports", body="body"), action="expense")
def submit_expense_report(ctx: ServiceContext, body: ExpenseBody) -> dict[str, Any]:
    """Claim bookings you made from your employer: the report goes to the approver of your travel policy.

    Each line is a booking with what it cost you (net of refunds). List business bookings only: a
    personal booking (a side trip) listed here is shown to the approver, though never reimbursed.
    A booking can be claimed once.

    Args:
        body: booking_ids (your bookings), title, note to the approver.
    """
    world, me = ctx.world, ctx.principal.id
    policy = policy_for(world, me)
    if policy is None:
        raise core.conflict("No travel policy covers you, so there is no approver to submit expense reports to.", "noPolicy")
    rows: list[dict[str, Any]] = []
    for booking_id in dict.fromkeys(body.booking_ids):
        row = own_booking(ctx, booking_id)
        if row["expense_report_id"]:
            raise core.conflict(f"Booking {booking_id} is already claimed in expense report {row['expense_report_id']}.", "alreadyClaimed")
        rows.append(row)
    currencies = {r["currency"] for r in rows}
    if len(currencies) > 1:
        raise core.bad(f"one report holds one currency; these bookings are in {', '.join(sorted(currencies))}")
    currency = rows[0]["currency"]
    lines = [{"bookingId": r["id"], "description": booking_line(world, r), "amount": r["charged"], "purpose": r["purpose"],
              "reimbursable": r["purpose"] == "business", "inPolicy": r["in_policy"]} for r in rows]  # fmt: skip
    report = {
        "id": core.new_id(world, "exp", "expense"), "owner": me, "approver": policy["approver"], "policy_id": policy["id"],
        "title": body.title, "note": body.note, "lines": lines, "total": sum(x["amount"] for x in lines if x["reimbursable"]),
        "personal_lines": sum(1 for x in lines if not x["reimbursable"]), "currency": currency, "status": "submitted",
        "submitted_at": core.now_iso(world), "decided_at": "", "decision_comment": "",
    }  # fmt: skip
    ctx.store.insert(EXPENSE_REPORTS.name, report)
    for r in rows:
        ctx.store.update(BOOKINGS.name, {"id": r["id"]}, {"expense_report_id": report["id"]})
    name = core.name_of(world, me)
    note = f"\n\nNote: {body.note}" if body.note else ""
    text = (f"{name} submitted the expense report \"{body.title}\" ({report['id']}) for your approval. "
            f"Reimbursable total: {core.money(report['total'], currency)}.\n\n{_lines_text(lines, currency)}{note}")  # fmt: skip
    core.notify(ctx, "expense", [policy["approver"]], f"Expense report from {name}: {body.title}", text, report["id"],
                core.attach("ExpenseReport", report["id"]) + core.attach("Booking", *(r["id"] for r in rows)))
    return report_view(world, report)


@tool(ToolKind.READ, name="travel_list_expense_reports", rest=RestBinding("GET", f"{BASE}/expenseReports"))
def list_expense_reports(
    ctx: ServiceContext,
    status: Literal["submitted", "approved", "rejected"] | None = None,
    max_results: int = Field(default=50, ge=1, le=100),
    page_token: str | None = None,
) -> dict[str, Any]:
    """List the expense reports you submitted and those waiting for (or decided by) you as approver.

    Args:
        status: only reports in this state: submitted, approved or rejected.
        max_results: page size (1-100).
        page_token: the nextPageToken of the previous page.
    """
    me = ctx.principal.id
    rows = [r for r in ctx.store.select(EXPENSE_REPORTS.name) if me in (r["owner"], r["approver"]) and (status is None or r["status"] == status)]
    rows.sort(key=lambda r: (r["submitted_at"], r["id"]))
    chunk, token = page(rows, page_token, max_results)
    out: dict[str, Any] = {"expenseReports": [report_view(ctx.world, r) for r in chunk]}
    if token:
        out["nextPageToken"] = token
    return out


@tool(ToolKind.WRITE, name="travel_decide_expense_report",
      rest=RestBinding("POST", f"{BASE}/expenseReports/{{reportId}}/decision", body="body"), action="approve")  # fmt: skip
def decide_expense_report(ctx: ServiceContext, report_id: Annotated[str, ResourceArg("ExpenseReport")], body: DecisionBody) -> dict[str, Any]:
    """As the approver, approve or reject an expense report submitted to you (once); the submitter is told.

    Args:
        report_id: the report's id.
        body: decision (approve or reject) and a comment.
    """
    row = visible_report(ctx, report_id)
    if row["approver"] != ctx.principal.id:
        raise core.forbidden(f"Expense report {report_id} is decided by {core.name_of(ctx.world, row['approver'])}, not by its submitter.", "notApprover")
    if row["owner"] == ctx.principal.id:
        raise core.forbidden(f"Expense report {report_id} is your own: someone else must approve it.", "selfApproval")
    if row["status"] != "submitted":
        raise core.conflict(f"Expense report {report_id} was already {row['status']}.", "alreadyDecided")
    status = "approved" if body.decision == "approve" else "rejected"
    changes = {"status": status, "decided_at": core.now_iso(ctx.world), "decision_comment": body.comment}
    ctx.store.update(EXPENSE_REPORTS.name, {"id": report_id}, changes)
    if status == "rejected":  # the bookings can be claimed again, in a corrected report
        for line in row["lines"]:
            ctx.store.update(BOOKINGS.name, {"id": line["bookingId"]}, {"expense_report_id": ""})
    row = {**row, **changes}
    comment = f" Comment: {body.comment}" if body.comment else ""
    text = f"{core.name_of(ctx.world, ctx.principal.id)} {status} your expense report \"{row['title']}\" ({report_id}), {core.money(row['total'], row['currency'])}.{comment}"
    core.notify(ctx, "expense", [row["owner"]], f"Expense report {status}: {row['title']}", text, report_id, core.attach("ExpenseReport", report_id))
    return report_view(ctx.world, row)


TOOLS = (submit_expense_report, list_expense_reports, decide_expense_report)
