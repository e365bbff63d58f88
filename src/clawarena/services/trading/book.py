"""The order book of the desk: risk checks, fills against the venue quote, positions and cash.

Orders move pending_compliance -> open -> filled, or end cancelled / rejected. The venue matches an
order when it is released (placed without needing approval, or approved) and when it is amended:
a limit that is marketable against the quote at that moment fills at the quote (up to the
instrument's `size` per evaluation); otherwise the order rests open. Nothing fills on its own.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

from clawarena.services.base import ServiceContext, invalid
from clawarena.services.trading import core
from clawarena.services.trading.quotes import marketable, price_at
from clawarena.services.trading.tables import (
    ACCOUNTS,
    EXECUTIONS,
    INSTRUMENTS,
    ORDERS,
    POSITIONS,
    RISK_LIMITS,
)

LIVE = ("pending_compliance", "open")


def limits_of(ctx: ServiceContext, account: dict[str, Any]) -> dict[str, Any]:
    row = ctx.store.get(RISK_LIMITS.name, {"id": account["risk_limit_id"]})
    assert row is not None, f"account {account['id']} has no risk limits"
    return row


def holdings(ctx: ServiceContext, account_id: str) -> dict[str, dict[str, Any]]:
    return {p["symbol"]: p for p in ctx.store.select(POSITIONS.name, {"account_id": account_id})}


def quote(ctx: ServiceContext, symbol: str) -> int:
    return price_at(core.instrument(ctx, symbol), ctx.world.clock.now())


@dataclass
class Commitments:
    """What an account's live orders already claim: cash for buys, shares for sells and buys."""

    cash_cents: int = 0
    selling: dict[str, int] = field(default_factory=lambda: defaultdict(int))
    buying: dict[str, int] = field(default_factory=lambda: defaultdict(int))


def commitments(ctx: ServiceContext, account_id: str, exclude: str = "") -> Commitments:
    out = Commitments()
    for o in sorted(ctx.store.select(ORDERS.name), key=lambda r: r["id"]):
        if o["id"] == exclude:
            continue
        if o["block"]:  # an unallocated block claims each account's whole pre-trade line
            if o["allocated"] or o["state"] == "rejected" or (o["state"] == "cancelled" and not o["filled_quantity"]):
                continue
            lines = [line["quantity"] for line in o["intended"] if line["account_id"] == account_id]
        elif o["account_id"] == account_id and o["state"] in LIVE:
            lines = [o["quantity"] - o["filled_quantity"]]
        else:
            continue
        for qty in lines:
            if o["side"] == "buy":
                out.cash_cents += qty * o["limit_price_cents"]
                out.buying[o["symbol"]] += qty
            else:
                out.selling[o["symbol"]] += qty
    return out


def check_order(ctx: ServiceContext, account: dict[str, Any], symbol: str, side: str, quantity: int, limit_price_cents: int,
                venue: str, exclude: str = "", filled: int = 0) -> None:  # fmt: skip
    """The account's risk limits and means for an order of `quantity` (of which `filled` already traded)."""
    if quantity < 1:
        raise invalid("quantity must be a whole number of shares, at least 1")
    if limit_price_cents < 1:
        raise invalid("limit_price_cents must be at least 1 (cents)")
    known = core.venues(ctx.world)
    if venue not in known:
        raise invalid(f"unknown venue {venue!r}; venues: {', '.join(known)}")
    limits = limits_of(ctx, account)
    aid = account["id"]
    if venue not in limits["allowed_venues"]:
        raise core.conflict(f"venue {venue} is not allowed for account {aid} (allowed: {', '.join(limits['allowed_venues'])})", "venueNotAllowed")
    notional = quantity * limit_price_cents
    if notional > limits["max_order_notional_cents"]:
        raise core.conflict(f"order notional {core.money(notional)} exceeds the account's max order notional "
                            f"{core.money(limits['max_order_notional_cents'])}", "riskLimitExceeded")  # fmt: skip
    remaining = quantity - filled
    held = holdings(ctx, aid).get(symbol, {}).get("quantity", 0)
    claimed = commitments(ctx, aid, exclude)
    if side == "buy":
        cap = limits["position_limits"].get(symbol, limits["max_position_quantity"])
        after = held + claimed.buying[symbol] + remaining
        if after > cap:
            raise core.conflict(f"the position in {symbol} would reach {after:,} shares; the limit is {cap:,}", "riskLimitExceeded")
        need = remaining * limit_price_cents
        free = account["cash_cents"] - claimed.cash_cents
        if need > free:
            raise core.conflict(f"insufficient cash: the order needs {core.money(need)}, {core.money(max(free, 0))} is free", "insufficientFunds")
    else:
        free_shares = held - claimed.selling[symbol]
        if remaining > free_shares:
            raise core.conflict(f"cannot sell {remaining:,} {symbol}: {max(free_shares, 0):,} shares are held and not already on sale "
                                "(no short selling)", "insufficientPosition")  # fmt: skip


def needs_approval(limits: dict[str, Any], notional: int) -> bool:
    threshold = limits["approval_threshold_cents"]
    return threshold is not None and notional >= threshold


def evaluate(ctx: ServiceContext, order: dict[str, Any]) -> dict[str, Any]:
    """Match an open order against the quote now; returns the order as it is afterwards."""
    if order["state"] != "open":
        return order
    inst = core.instrument(ctx, order["symbol"])
    price = price_at(inst, ctx.world.clock.now())
    remaining = order["quantity"] - order["filled_quantity"]
    if remaining <= 0 or not marketable(order["side"], order["limit_price_cents"], price):
        return order
    qty = remaining if inst["size"] is None else min(remaining, inst["size"])
    at = core.now(ctx.world)
    ctx.store.insert(EXECUTIONS.name, {
        "id": core.new_id(ctx.world, "exe"), "order_id": order["id"], "owner": order["owner"], "account_id": order["account_id"],
        "symbol": order["symbol"], "side": order["side"], "quantity": qty, "price_cents": price, "venue": order["venue"], "at": at,
    })  # fmt: skip
    filled = order["filled_quantity"] + qty
    changes = {"filled_quantity": filled, "filled_cost_cents": order["filled_cost_cents"] + qty * price, "updated_at": at,
               "state": "filled" if filled == order["quantity"] else "open"}  # fmt: skip
    ctx.store.update(ORDERS.name, {"id": order["id"]}, changes)
    order = {**order, **changes}
    if not order["block"]:  # a block's fills wait in the block until it is allocated
        account = ctx.store.get(ACCOUNTS.name, {"id": order["account_id"]})
        assert account is not None
        apply_fill(ctx, account, order["symbol"], order["side"], qty, qty * price)
        confirm(ctx, account, order, qty, qty * price, inst["name"])
    return order


def apply_fill(ctx: ServiceContext, account: dict[str, Any], symbol: str, side: str, quantity: int, cost_cents: int) -> None:
    """Move shares and cash of one account; a sell takes out average cost."""
    pos = holdings(ctx, account["id"]).get(symbol)
    fresh = ctx.store.get(ACCOUNTS.name, {"id": account["id"]})
    assert fresh is not None
    if side == "buy":
        ctx.store.update(ACCOUNTS.name, {"id": account["id"]}, {"cash_cents": fresh["cash_cents"] - cost_cents})
        if pos is None:
            ctx.store.insert(POSITIONS.name, {"id": f"{account['id']}:{symbol}", "account_id": account["id"], "owner": account["owner"],
                                              "symbol": symbol, "quantity": quantity, "cost_cents": cost_cents})  # fmt: skip
        else:
            ctx.store.update(POSITIONS.name, {"id": pos["id"]}, {"quantity": pos["quantity"] + quantity, "cost_cents": pos["cost_cents"] + cost_cents})
        return
    if pos is None or pos["quantity"] < quantity:  # checked when placed; a sale since then cannot be undone here
        raise core.conflict(f"account {account['id']} holds {pos['quantity'] if pos else 0:,} {symbol}, fewer than the {quantity:,} sold", "insufficientPosition")
    ctx.store.update(ACCOUNTS.name, {"id": account["id"]}, {"cash_cents": fresh["cash_cents"] + cost_cents})
    left = pos["quantity"] - quantity
    if left == 0:
        ctx.store.delete(POSITIONS.name, {"id": pos["id"]})
    else:
        ctx.store.update(POSITIONS.name, {"id": pos["id"]}, {"quantity": left, "cost_cents": pos["cost_cents"] * left // pos["quantity"]})


def confirm(ctx: ServiceContext, account: dict[str, Any], order: dict[str, Any], quantity: int, cost_cents: int, name: str) -> None:
    """The trade confirmation the account's client receives."""
    verb = "Bought" if order["side"] == "buy" else "Sold"
    price = cost_cents // quantity
    body = (f"Trade confirmation for account {account['id']} ({account['name']}).\n"
            f"{verb} {quantity:,} {order['symbol']} ({name}) at {core.money(price)} on {order['venue']}, "
            f"total {core.money(cost_cents)}, at {core.now(ctx.world)}.\nOrder {order['id']}.")  # fmt: skip
    core.deliver(ctx, [account["owner"]], f"Trade confirmation: {verb.lower()} {quantity:,} {order['symbol']}", body, order["id"])


def largest_remainder(total: int, weights: list[int]) -> list[int]:
    """`total` split in proportion to `weights` in whole units; leftover units go to the largest
    remainders, ties to the earlier weight (the pre-trade order)."""
    whole = sum(weights)
    base = [total * w // whole for w in weights]
    rest = sorted(range(len(weights)), key=lambda i: (-(total * weights[i] % whole), i))
    for i in rest[: total - sum(base)]:
        base[i] += 1
    return base


def instrument_name(ctx: ServiceContext, symbol: str) -> str:
    row = ctx.store.get(INSTRUMENTS.name, {"symbol": symbol})
    return row["name"] if row else symbol
