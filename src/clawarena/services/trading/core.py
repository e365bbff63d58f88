"""Shared helpers: time, ids, money text, who works where, and who may see which row.

A row the caller may not see answers exactly like a missing one (404, the same message), and is
recorded as a refusal (`denied=True`); a row the caller sees but may not change is a 403.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from pydantic import BaseModel, ConfigDict
from pydantic.alias_generators import to_camel

from clawarena.services.base import Delivery, ServiceContext, ServiceError
from clawarena.services.trading.tables import (
    ACCOUNTS,
    INSTRUMENTS,
    ORDERS,
    STAFF,
    VENUES,
)
from clawarena.world.clock import parse_time
from clawarena.world.world import World

CHANNEL = "trading"  # the delivery channel of everything this service hands to someone


# ---- time, ids, money ------------------------------------------------------------------------
def iso(moment: datetime) -> str:
    """The world clock's own ISO form (UTC, milliseconds, Z): such strings sort as times do."""
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.000Z")


def norm_time(value: str) -> str:
    return iso(parse_time(value))


def now(world: World) -> str:
    return world.clock.iso()


def new_id(world: World, prefix: str) -> str:
    return f"{prefix}-{world.ids.next(f'trading.{prefix}', 10)}"


def money(cents: int) -> str:
    """'$1,234.56' (negative: '-$1,234.56')."""
    sign = "-" if cents < 0 else ""
    whole, part = divmod(abs(cents), 100)
    return f"{sign}${whole:,}.{part:02d}"


def symbol_of(value: str) -> str:
    return value.strip().upper()


# ---- staff and venues -------------------------------------------------------------------------
def staff(world: World, role: str) -> list[str]:
    """Principal ids with a desk role ('compliance' or 'research'), sorted."""
    return sorted(r["principal"] for r in world.store.select(STAFF.name, {"role": role}))


def is_compliance(ctx: ServiceContext) -> bool:
    return ctx.principal.id in staff(ctx.world, "compliance")


def venues(world: World) -> list[str]:
    return [r["id"] for r in world.store.select(VENUES.name, order_by='"rank"')]


# ---- rows by id, as the caller may see them --------------------------------------------------
def relations(ctx: ServiceContext, account: dict[str, Any]) -> list[str]:
    """How the caller stands to an account: client, advisor, trader, compliance (possibly several)."""
    me = ctx.principal.id
    out = [name for name, who in (("client", account["owner"]), ("advisor", account["advisor"]), ("trader", account["trader"])) if who == me]
    if is_compliance(ctx):
        out.append("compliance")
    return out


def account_for(ctx: ServiceContext, account_id: str) -> dict[str, Any]:
    row = ctx.store.get(ACCOUNTS.name, {"id": account_id})
    if row is None:
        raise ServiceError(404, f"Account not found: {account_id}.")
    if not relations(ctx, row):
        raise ServiceError(404, f"Account not found: {account_id}.", denied=True)
    return row


def instrument(ctx: ServiceContext, symbol: str) -> dict[str, Any]:
    row = ctx.store.get(INSTRUMENTS.name, {"symbol": symbol_of(symbol)})
    if row is None:
        raise ServiceError(404, f"Instrument not found: {symbol}.")
    return row


def order_visible(ctx: ServiceContext, order: dict[str, Any]) -> bool:
    """The trader who placed it and compliance see every order; the account's client and advisor see
    a single-account order (a block shows them only their own allocation)."""
    me = ctx.principal.id
    if order["owner"] == me or is_compliance(ctx):
        return True
    if order["block"] or not order["account_id"]:
        return False
    account = ctx.store.get(ACCOUNTS.name, {"id": order["account_id"]})
    return account is not None and me in (account["owner"], account["advisor"], account["trader"])


def order_for(ctx: ServiceContext, order_id: str) -> dict[str, Any]:
    row = ctx.store.get(ORDERS.name, {"id": order_id})
    if row is None:
        raise ServiceError(404, f"Order not found: {order_id}.")
    if not order_visible(ctx, row):
        raise ServiceError(404, f"Order not found: {order_id}.", denied=True)
    return row


def conflict(message: str, reason: str = "failedPrecondition") -> ServiceError:
    return ServiceError(409, message, reason=reason)


def forbidden(message: str) -> ServiceError:
    return ServiceError(403, message, reason="forbidden")


# ---- deliveries ------------------------------------------------------------------------------
def deliver(ctx: ServiceContext, recipients: list[str], subject: str, body: str, ref: str) -> list[str]:
    """Hand text to other principals (or outside addresses); never to the sender. Returns who got it."""
    seen: list[str] = []
    for r in recipients:
        if r and r != ctx.principal.id and r not in seen:
            seen.append(r)
    if seen:
        ctx.deliver(Delivery(channel=CHANNEL, sender=ctx.principal.id, recipients=tuple(seen), subject=subject, body=body, ref=ref))
    return seen


# ---- request bodies --------------------------------------------------------------------------
class Body(BaseModel):
    """A JSON request body: camelCase on the wire, snake_case for agents; unknown fields refused."""

    model_config = ConfigDict(extra="forbid", alias_generator=to_camel, populate_by_name=True)


def page_size(max_results: int) -> int:
    return max(1, min(max_results, 200))
