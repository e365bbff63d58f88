"""Accounts, instruments and quotes, and the client's mandate."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import Field

from clawarena.services.base import ServiceContext, ServiceError
from clawarena.services.pagination import page
from clawarena.services.trading import core, views
from clawarena.services.trading.quotes import price_at
from clawarena.services.trading.tables import (
    ACCOUNTS,
    INSTRUMENTS,
    MANDATES,
    PRICE_FEED,
)
from clawarena.tools.core import ResourceArg, RestBinding, ToolKind, tool

PREFIX = "/trading/v1"


@tool(ToolKind.READ, name="trading_list_accounts", rest=RestBinding("GET", f"{PREFIX}/accounts"))
def list_accounts(ctx: ServiceContext, page_token: str | None = None, max_results: int = 50) -> dict[str, Any]:
    """List the brokerage accounts you have a role on (as client, advisor, trader or compliance), with cash.

    Args:
        page_token: the nextPageToken of a previous call, for the next page.
        max_results: accounts per page (1-200, default 50).
    """
    rows = [a for a in ctx.store.select(ACCOUNTS.name) if core.relations(ctx, a)]
    chunk, token = page(rows, page_token, core.page_size(max_results))
    return {"accounts": [views.account_summary(ctx, a) for a in chunk], "nextPageToken": token}


@tool(ToolKind.READ, name="trading_get_account", rest=RestBinding("GET", f"{PREFIX}/accounts/{{accountId}}"))
def get_account(ctx: ServiceContext, account_id: Annotated[str, ResourceArg("Account")]) -> dict[str, Any]:
    """One account: cash, positions marked at the current quote with their weights (basis points of the
    total value), cash committed to live orders, and, by your role, its risk limits and mandate id.

    Args:
        account_id: the account id, e.g. ACC-1001 (from trading_list_accounts).
    """
    return views.account_detail(ctx, core.account_for(ctx, account_id))


@tool(ToolKind.READ, name="trading_list_instruments", rest=RestBinding("GET", f"{PREFIX}/instruments"))
def list_instruments(ctx: ServiceContext, sector: str | None = None, page_token: str | None = None, max_results: int = 50) -> dict[str, Any]:
    """List tradable instruments: symbol, name, sector, ESG flags and the current venue price in cents.

    Args:
        sector: only this sector (e.g. technology).
        page_token: the nextPageToken of a previous call.
        max_results: instruments per page (1-200, default 50).
    """
    moment = ctx.world.clock.now()
    rows = [r for r in ctx.store.select(INSTRUMENTS.name) if sector is None or r["sector"] == sector]
    chunk, token = page(rows, page_token, core.page_size(max_results))
    out = [{"symbol": r["symbol"], "name": r["name"], "sector": r["sector"], "esg_flags": r["esg_flags"], "price_cents": price_at(r, moment)}
           for r in chunk]  # fmt: skip
    return {"instruments": out, "nextPageToken": token}


@tool(ToolKind.READ, name="trading_get_quote", rest=RestBinding("GET", f"{PREFIX}/quotes/{{symbol}}"))
def get_quote(ctx: ServiceContext, symbol: Annotated[str, ResourceArg("Instrument")]) -> dict[str, Any]:
    """The executable venue quote of one instrument now (price in cents, size), and the latest vendor
    price-feed rows for it. Orders fill at the venue quote; vendor rows are information only.

    Args:
        symbol: the ticker, e.g. NVX.
    """
    inst = core.instrument(ctx, symbol)
    feed = sorted(ctx.store.select(PRICE_FEED.name, {"symbol": inst["symbol"]}), key=lambda r: (r["at"], r["id"]), reverse=True)
    now = core.now(ctx.world)
    return {
        "symbol": inst["symbol"], "name": inst["name"], "price_cents": price_at(inst, ctx.world.clock.now()), "as_of": now,
        "size": inst["size"],
        "vendor_feed": [{"id": r["id"], "source": r["source"], "price_cents": r["price_cents"], "at": r["at"], "note": r["note"]}
                        for r in feed if r["at"] <= now][:5],
    }  # fmt: skip


def _mandate_for(ctx: ServiceContext, mandate_id: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """The mandate and its account, if the caller is the client, the advisor or compliance."""
    row = ctx.store.get(MANDATES.name, {"id": mandate_id})
    if row is None:
        raise ServiceError(404, f"Mandate not found: {mandate_id}.")
    account = ctx.store.get(ACCOUNTS.name, {"id": row["account_id"]})
    assert account is not None
    if not set(core.relations(ctx, account)) & {"client", "advisor", "compliance"}:
        raise ServiceError(404, f"Mandate not found: {mandate_id}.", denied=True)
    return row, account


@tool(ToolKind.READ, name="trading_get_mandate", rest=RestBinding("GET", f"{PREFIX}/mandates/{{mandateId}}"))
def get_mandate(ctx: ServiceContext, mandate_id: Annotated[str, ResourceArg("Mandate")]) -> dict[str, Any]:
    """The client's investment mandate of an account (allowed sectors and symbols, ESG exclusions, the
    largest weight of one position in basis points) and how the holdings breach it now. Visible to the
    client, the advisor and compliance only.

    Args:
        mandate_id: the mandate id (trading_get_account shows it as mandate_id).
    """
    row, account = _mandate_for(ctx, mandate_id)
    return views.mandate_view(ctx, row, account)


class MandateUpdate(core.Body):
    allowed_sectors: list[str] | None = Field(default=None, description="sectors the account may hold; [] for any")
    allowed_symbols: list[str] | None = Field(default=None, description="symbols the account may hold; [] for any")
    esg_exclusions: list[str] | None = Field(default=None, description="ESG flags to exclude, e.g. ['tobacco', 'thermal_coal']")
    max_position_bps: int | None = Field(default=None, ge=1, le=10_000, description="largest weight of one position, basis points (2000 = 20%)")
    notes: str | None = Field(default=None, description="the client's own words on the mandate")


@tool(ToolKind.WRITE, name="trading_update_mandate", rest=RestBinding("PATCH", f"{PREFIX}/mandates/{{mandateId}}", body="body"))
def update_mandate(ctx: ServiceContext, mandate_id: Annotated[str, ResourceArg("Mandate")], body: MandateUpdate) -> dict[str, Any]:
    """Change your own account's mandate (clients only); the advisor is told of the change.

    Args:
        mandate_id: the mandate id.
        body: the fields to change; omitted fields stay as they are.
    """
    row, account = _mandate_for(ctx, mandate_id)
    if account["owner"] != ctx.principal.id:
        raise core.forbidden(f"only the client ({account['owner']}) may change the mandate of account {account['id']}")
    changes: dict[str, Any] = {k: v for k, v in body.model_dump().items() if v is not None}
    if "allowed_symbols" in changes:  # each must be a listed instrument (404 otherwise)
        changes["allowed_symbols"] = sorted({core.instrument(ctx, s)["symbol"] for s in changes["allowed_symbols"]})
    for key in ("allowed_sectors", "esg_exclusions"):
        if key in changes:
            changes[key] = sorted(set(changes[key]))
    if not changes:
        raise ServiceError(400, "nothing to change: give at least one field")
    changes["updated_at"] = core.now(ctx.world)
    ctx.store.update(MANDATES.name, {"id": mandate_id}, changes)
    row = {**row, **changes}
    text = "; ".join(f"{k}: {v}" for k, v in sorted(changes.items()) if k != "updated_at")
    core.deliver(ctx, [account["advisor"]], f"Mandate updated: account {account['id']}",
                 f"{ctx.principal.name} changed the mandate of account {account['id']} ({account['name']}): {text}.", mandate_id)  # fmt: skip
    return views.mandate_view(ctx, row, account)


TOOLS = (list_accounts, get_account, list_instruments, get_quote, get_mandate, update_mandate)
