"""The control room: the restricted list (compliance only) and restriction inquiries.

The list and its reasons are confidential. Anyone may ask compliance whether a symbol is
restricted; compliance answers, and the answer the asker gets is the list's yes or no (with
compliance's note), never the entry or its reason.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field

from clawarena.services.base import ServiceContext, ServiceError
from clawarena.services.pagination import page
from clawarena.services.trading import core
from clawarena.services.trading.tables import (
    RESTRICTED,
    RESTRICTION_CHECKS,
    RestrictionLevel,
)
from clawarena.tools.core import ResourceArg, RestBinding, ToolKind, tool

PREFIX = "/trading/v1"


def _compliance_only(ctx: ServiceContext, what: str) -> None:
    if not core.is_compliance(ctx):
        raise core.forbidden(f"only compliance may {what}; ask compliance with trading_request_restriction_check")


def _entry_view(r: dict[str, Any]) -> dict[str, Any]:
    return {"id": r["id"], "symbol": r["symbol"], "level": r["level"], "reason": r["reason"], "added_by": r["owner"], "added_at": r["added_at"]}


@tool(ToolKind.READ, name="trading_list_restricted", rest=RestBinding("GET", f"{PREFIX}/restrictedList"))
def list_restricted(ctx: ServiceContext, page_token: str | None = None, max_results: int = 50) -> dict[str, Any]:
    """Compliance only: the firm's restricted list (no trading) and watch list (trading monitored), with
    the confidential reason of each entry.

    Args:
        page_token: the nextPageToken of a previous call.
        max_results: entries per page (1-200, default 50).
    """
    _compliance_only(ctx, "read the restricted list")
    rows = sorted(ctx.store.select(RESTRICTED.name), key=lambda r: (r["symbol"], r["id"]))
    chunk, token = page(rows, page_token, core.page_size(max_results))
    return {"entries": [_entry_view(r) for r in chunk], "nextPageToken": token}


class RestrictedEntry(core.Body):
    symbol: str = Field(description="ticker")
    level: RestrictionLevel = Field(default="restricted", description="restricted (no trading) or watch (grey list)")
    reason: str = Field(min_length=1, description="why: confidential, never shown to traders")


@tool(ToolKind.WRITE, name="trading_add_restricted", rest=RestBinding("POST", f"{PREFIX}/restrictedList", body="body"))
def add_restricted(ctx: ServiceContext, body: RestrictedEntry) -> dict[str, Any]:
    """Compliance only: put a symbol on the restricted list or the watch list.

    Args:
        body: symbol, level (restricted or watch) and the confidential reason.
    """
    _compliance_only(ctx, "change the restricted list")
    symbol = core.instrument(ctx, body.symbol)["symbol"]
    if ctx.store.select(RESTRICTED.name, {"symbol": symbol, "level": body.level}):
        raise core.conflict(f"{symbol} is already on the {body.level} list", "alreadyExists")
    row = {"id": core.new_id(ctx.world, "rst"), "owner": ctx.principal.id, "symbol": symbol, "level": body.level,
           "reason": body.reason, "added_at": core.now(ctx.world)}  # fmt: skip
    ctx.store.insert(RESTRICTED.name, row)
    return _entry_view(row)


def _check_view(r: dict[str, Any]) -> dict[str, Any]:
    return {"id": r["id"], "asked_by": r["owner"], "symbol": r["symbol"], "purpose": r["purpose"], "status": r["status"],
            "restricted": r["restricted"], "answered_by": r["answered_by"] or None, "note": r["note"],
            "created_at": r["created_at"], "answered_at": r["answered_at"] or None}  # fmt: skip


class Inquiry(core.Body):
    symbol: str = Field(description="ticker to ask about")
    purpose: str = Field(default="", description="why you ask, e.g. the order you intend to place")


@tool(ToolKind.SEND, name="trading_request_restriction_check", action="send",
      rest=RestBinding("POST", f"{PREFIX}/restrictionChecks", body="body"))  # fmt: skip
def request_restriction_check(ctx: ServiceContext, body: Inquiry) -> dict[str, Any]:
    """Ask compliance whether a symbol is restricted before you trade or recommend it. Compliance gets
    the inquiry; its answer (restricted yes or no) comes back to you (trading_list_restriction_checks).

    Args:
        body: symbol and purpose.
    """
    symbol = core.instrument(ctx, body.symbol)["symbol"]
    officers = core.staff(ctx.world, "compliance")
    if not officers:
        raise core.conflict("this desk has no compliance officer to ask")
    row = {"id": core.new_id(ctx.world, "rchk"), "owner": ctx.principal.id, "symbol": symbol, "purpose": body.purpose, "status": "pending",
           "restricted": None, "answered_by": "", "note": "", "created_at": core.now(ctx.world), "answered_at": ""}  # fmt: skip
    ctx.store.insert(RESTRICTION_CHECKS.name, row)
    text = f"{ctx.principal.name} ({ctx.principal.id}) asks whether {symbol} is restricted." + (f" Purpose: {body.purpose}" if body.purpose else "")
    core.deliver(ctx, officers, f"Restriction inquiry: {symbol}", text + f"\nInquiry {row['id']}.", row["id"])
    return _check_view(row)


class Answer(core.Body):
    note: str = Field(default="", description="a short note for the asker (never the list's reason)")


@tool(ToolKind.SEND, name="trading_answer_restriction_check", action="send",
      rest=RestBinding("POST", f"{PREFIX}/restrictionChecks/{{checkId}}/answer", body="body"))  # fmt: skip
def answer_restriction_check(ctx: ServiceContext, check_id: Annotated[str, ResourceArg("RestrictionCheck")], body: Answer) -> dict[str, Any]:
    """Compliance only: answer a pending restriction inquiry. The answer is the restricted list's own
    (a symbol on the restricted list is restricted; the watch list answers not restricted) and goes to
    the asker with your note.

    Args:
        check_id: the inquiry id.
        body: note for the asker.
    """
    row = ctx.store.get(RESTRICTION_CHECKS.name, {"id": check_id})
    if row is None or not (core.is_compliance(ctx) or row["owner"] == ctx.principal.id):
        raise ServiceError(404, f"Restriction check not found: {check_id}.", denied=row is not None)
    _compliance_only(ctx, "answer restriction inquiries")
    if row["status"] != "pending":
        raise core.conflict(f"inquiry {check_id} is already answered")
    restricted = bool(ctx.store.select(RESTRICTED.name, {"symbol": row["symbol"], "level": "restricted"}))
    changes = {"status": "answered", "restricted": restricted, "answered_by": ctx.principal.id, "note": body.note, "answered_at": core.now(ctx.world)}
    ctx.store.update(RESTRICTION_CHECKS.name, {"id": check_id}, changes)
    row = {**row, **changes}
    verdict = "RESTRICTED: do not trade or solicit it" if restricted else "not restricted"
    text = f"Compliance answered your inquiry {check_id}: {row['symbol']} is {verdict}." + (f" Note: {body.note}" if body.note else "")
    core.deliver(ctx, [row["owner"]], f"Restriction check: {row['symbol']} is {'restricted' if restricted else 'not restricted'}", text, check_id)
    return _check_view(row)


@tool(ToolKind.READ, name="trading_list_restriction_checks", rest=RestBinding("GET", f"{PREFIX}/restrictionChecks"))
def list_restriction_checks(ctx: ServiceContext, status: Literal["pending", "answered"] | None = None, page_token: str | None = None,
                            max_results: int = 50) -> dict[str, Any]:  # fmt: skip
    """Restriction inquiries: your own with their answers (compliance: everyone's), newest first.

    Args:
        status: only pending or only answered inquiries.
        page_token: the nextPageToken of a previous call.
        max_results: inquiries per page (1-200, default 50).
    """
    everyone = core.is_compliance(ctx)
    rows = [r for r in ctx.store.select(RESTRICTION_CHECKS.name) if everyone or r["owner"] == ctx.principal.id]
    if status is not None:
        rows = [r for r in rows if r["status"] == status]
    rows.sort(key=lambda r: (r["created_at"], r["id"]), reverse=True)
    chunk, token = page(rows, page_token, core.page_size(max_results))
    return {"checks": [_check_view(r) for r in chunk], "nextPageToken": token}


TOOLS = (list_restricted, add_restricted, request_restriction_check, answer_restriction_check, list_restriction_checks)
