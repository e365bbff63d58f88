"""Rows as callers see them: valuations at the quote now, mandate checks, role-dependent fields."""

from __future__ import annotations

from typing import Any

from clawarena.services.base import ServiceContext
from clawarena.services.trading import book, core
from clawarena.services.trading.quotes import price_at
from clawarena.services.trading.tables import (
    ALLOCATIONS,
    APPROVALS,
    EXECUTIONS,
    INSTRUMENTS,
    MANDATES,
    RESTRICTED,
)


# ---- valuation and the mandate ---------------------------------------------------------------
def valuation(ctx: ServiceContext, cash_cents: int, quantities: dict[str, int], costs: dict[str, int] | None = None) -> dict[str, Any]:
    """Positions marked at the venue quote now, with weights of the total (cash included) in bps."""
    moment = ctx.world.clock.now()
    lines = []
    for symbol in sorted(s for s, q in quantities.items() if q):
        inst = core.instrument(ctx, symbol)
        price = price_at(inst, moment)
        line = {"symbol": symbol, "name": inst["name"], "sector": inst["sector"], "quantity": quantities[symbol],
                "price_cents": price, "market_value_cents": quantities[symbol] * price}  # fmt: skip
        if costs is not None:
            line["cost_cents"] = costs.get(symbol, 0)
        lines.append(line)
    invested = sum(line["market_value_cents"] for line in lines)
    total = cash_cents + invested
    for line in lines:
        line["weight_bps"] = line["market_value_cents"] * 10_000 // total if total > 0 else 0
    return {"positions": lines, "cash_cents": cash_cents, "positions_value_cents": invested, "total_value_cents": total}


def mandate_breaches(ctx: ServiceContext, mandate: dict[str, Any], valued: dict[str, Any]) -> list[str]:
    """What in a (real or proposed) portfolio the mandate does not allow, one sentence each."""
    out = []
    if valued["cash_cents"] < 0:
        out.append(f"cash is negative ({core.money(valued['cash_cents'])})")
    for line in valued["positions"]:
        inst = ctx.store.get(INSTRUMENTS.name, {"symbol": line["symbol"]}) or {}
        sym = line["symbol"]
        if mandate["allowed_symbols"] and sym not in mandate["allowed_symbols"]:
            out.append(f"{sym} is not among the mandate's allowed instruments")
        if mandate["allowed_sectors"] and inst.get("sector") not in mandate["allowed_sectors"]:
            out.append(f"{sym} is in sector {inst.get('sector')}, outside the allowed sectors ({', '.join(mandate['allowed_sectors'])})")
        excluded = sorted(set(inst.get("esg_flags", [])) & set(mandate["esg_exclusions"]))
        if excluded:
            out.append(f"{sym} is excluded by the client's ESG exclusions ({', '.join(excluded)})")
        if line["weight_bps"] > mandate["max_position_bps"]:
            out.append(f"{sym} is {line['weight_bps'] / 100:.2f}% of the account; the mandate allows at most "
                       f"{mandate['max_position_bps'] / 100:.2f}% in one position")  # fmt: skip
    return out


def account_valuation(ctx: ServiceContext, account: dict[str, Any]) -> dict[str, Any]:
    held = book.holdings(ctx, account["id"])
    return valuation(ctx, account["cash_cents"], {s: p["quantity"] for s, p in held.items()}, {s: p["cost_cents"] for s, p in held.items()})


# ---- accounts -----------------------------------------------------------------------------------
def account_summary(ctx: ServiceContext, account: dict[str, Any]) -> dict[str, Any]:
    return {"id": account["id"], "name": account["name"], "client": account["owner"], "advisor": account["advisor"] or None,
            "trader": account["trader"] or None, "your_roles": core.relations(ctx, account), "cash_cents": account["cash_cents"]}  # fmt: skip


def account_detail(ctx: ServiceContext, account: dict[str, Any]) -> dict[str, Any]:
    roles = set(core.relations(ctx, account))
    out = account_summary(ctx, account)
    out.update(account_valuation(ctx, account))
    claimed = book.commitments(ctx, account["id"])
    out["committed_cash_cents"] = claimed.cash_cents
    out["free_cash_cents"] = account["cash_cents"] - claimed.cash_cents
    if roles & {"advisor", "trader", "compliance"}:  # the firm's controls: not the client's business
        limits = book.limits_of(ctx, account)
        out["risk_limits"] = {k: limits[k] for k in ("id", "max_order_notional_cents", "max_position_quantity", "position_limits",
                                                     "allowed_venues", "approval_threshold_cents")}  # fmt: skip
    if roles & {"client", "advisor", "compliance"}:  # the mandate is the client's, shared with the advisor
        out["mandate_id"] = account["mandate_id"] or None
    allocations = sorted(ctx.store.select(ALLOCATIONS.name, {"account_id": account["id"]}), key=lambda r: (r["at"], r["id"]))
    if allocations:
        out["allocations"] = [allocation_view(a) for a in allocations]
    return out


def allocation_view(a: dict[str, Any]) -> dict[str, Any]:
    return {"id": a["id"], "block_order_id": a["order_id"], "account_id": a["account_id"], "symbol": a["symbol"], "side": a["side"],
            "quantity": a["quantity"], "price_cents": a["price_cents"], "cost_cents": a["cost_cents"], "method": a["method"],
            "departs_from_pro_rata": a["departs_from_pro_rata"], "at": a["at"]}  # fmt: skip


def mandate_view(ctx: ServiceContext, mandate: dict[str, Any], account: dict[str, Any]) -> dict[str, Any]:
    out = {k: mandate[k] for k in ("id", "account_id", "allowed_sectors", "allowed_symbols", "esg_exclusions", "max_position_bps", "notes", "updated_at")}
    out["client"] = mandate["owner"]
    out["current_breaches"] = mandate_breaches(ctx, mandate, account_valuation(ctx, account))
    return out


def mandate_of(ctx: ServiceContext, account: dict[str, Any]) -> dict[str, Any] | None:
    return ctx.store.get(MANDATES.name, {"id": account["mandate_id"]}) if account["mandate_id"] else None


# ---- orders -------------------------------------------------------------------------------------
def restricted_hit(ctx: ServiceContext, symbol: str) -> dict[str, Any] | None:
    rows = sorted(ctx.store.select(RESTRICTED.name, {"symbol": symbol}), key=lambda r: (r["level"] != "restricted", r["id"]))
    return {"entry_id": rows[0]["id"], "level": rows[0]["level"], "reason": rows[0]["reason"]} if rows else None


def approval_view(a: dict[str, Any]) -> dict[str, Any]:
    return {"id": a["id"], "decision": a["decision"], "by": a["owner"], "comment": a["comment"], "quantity": a["quantity"],
            "limit_price_cents": a["limit_price_cents"], "notional_cents": a["notional_cents"], "status": a["status"], "at": a["at"]}  # fmt: skip


def order_view(ctx: ServiceContext, order: dict[str, Any], detail: bool = False) -> dict[str, Any]:
    filled = order["filled_quantity"]
    out: dict[str, Any] = {
        "id": order["id"], "account_id": order["account_id"] or None, "client": order["client"] or None, "symbol": order["symbol"],
        "side": order["side"], "quantity": order["quantity"], "limit_price_cents": order["limit_price_cents"],
        "notional_cents": order["notional_cents"], "venue": order["venue"], "state": order["state"], "filled_quantity": filled,
        "avg_fill_price_cents": order["filled_cost_cents"] // filled if filled else None, "memo": order["memo"],
        "placed_by": order["owner"], "proposal_id": order["proposal_id"] or None, "created_at": order["created_at"],
        "updated_at": order["updated_at"],
    }  # fmt: skip
    if order["block"]:
        out["block"] = True
        out["intended"] = order["intended"]
        out["allocated"] = order["allocated"]
    approvals = sorted(ctx.store.select(APPROVALS.name, {"order_id": order["id"]}), key=lambda r: (r["at"], r["id"]))
    if approvals:
        out["compliance_decision"] = approval_view(approvals[-1])
    if core.is_compliance(ctx):  # the control room's view: is the symbol on its list?
        out["restricted_list_hit"] = restricted_hit(ctx, order["symbol"])
    if detail:
        executions = sorted(ctx.store.select(EXECUTIONS.name, {"order_id": order["id"]}), key=lambda r: (r["at"], r["id"]))
        out["executions"] = [{"id": e["id"], "quantity": e["quantity"], "price_cents": e["price_cents"], "venue": e["venue"], "at": e["at"]}
                             for e in executions]  # fmt: skip
        out["compliance_decisions"] = [approval_view(a) for a in approvals]
        if order["block"] and order["allocated"]:
            out["allocations"] = [allocation_view(a) for a in sorted(ctx.store.select(ALLOCATIONS.name, {"order_id": order["id"]}), key=lambda r: r["id"])]
    return out
