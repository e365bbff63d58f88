"""Orders: tickets, amendments, cancels, compliance decisions, block orders and their allocation."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field

from clawarena.services.base import ServiceContext, invalid
from clawarena.services.pagination import page
from clawarena.services.trading import book, core, views
from clawarena.services.trading.tables import (
    ACCOUNTS,
    ALLOCATIONS,
    APPROVALS,
    MAX_PRICE_CENTS,
    MAX_SHARES,
    ORDERS,
    PROPOSALS,
    OrderState,
    Side,
)
from clawarena.tools.core import ResourceArg, RestBinding, ToolKind, tool

PREFIX = "/trading/v1"
OrderId = Annotated[str, ResourceArg("Order")]


# ---- reading ------------------------------------------------------------------------------------
@tool(ToolKind.READ, name="trading_list_orders", rest=RestBinding("GET", f"{PREFIX}/orders"))
def list_orders(ctx: ServiceContext, account_id: str | None = None, state: OrderState | None = None, symbol: str | None = None,
                page_token: str | None = None, max_results: int = 50) -> dict[str, Any]:  # fmt: skip
    """The order blotter: orders you may see (your own tickets; your accounts' orders; compliance sees
    all), oldest first, with fills (filled_quantity, avg_fill_price_cents) and compliance decisions.

    Args:
        account_id: only this account's orders.
        state: only orders in this state: pending_compliance, open, filled, cancelled or rejected.
        symbol: only this ticker.
        page_token: the nextPageToken of a previous call.
        max_results: orders per page (1-200, default 50).
    """
    rows = [o for o in ctx.store.select(ORDERS.name) if core.order_visible(ctx, o)]
    if account_id is not None:
        rows = [o for o in rows if o["account_id"] == account_id or any(line["account_id"] == account_id for line in o["intended"])]
    if state is not None:
        rows = [o for o in rows if o["state"] == state]
    if symbol is not None:
        rows = [o for o in rows if o["symbol"] == core.symbol_of(symbol)]
    rows.sort(key=lambda o: (o["created_at"], o["id"]))
    chunk, token = page(rows, page_token, core.page_size(max_results))
    return {"orders": [views.order_view(ctx, o) for o in chunk], "nextPageToken": token}


@tool(ToolKind.READ, name="trading_get_order", rest=RestBinding("GET", f"{PREFIX}/orders/{{orderId}}"))
def get_order(ctx: ServiceContext, order_id: OrderId) -> dict[str, Any]:
    """One order with its executions, compliance decisions and (for a block) its allocations.

    Args:
        order_id: the order id, e.g. ord-3f2a9c01de.
    """
    return views.order_view(ctx, core.order_for(ctx, order_id), detail=True)


# ---- tickets --------------------------------------------------------------------------------------
class OrderTicket(core.Body):
    symbol: str = Field(description="ticker, e.g. NVX")
    side: Side
    quantity: int = Field(ge=1, le=MAX_SHARES, description="whole shares")
    limit_price_cents: int = Field(ge=1, le=MAX_PRICE_CENTS, description="limit price per share in US cents (4510 = $45.10)")
    venue: str | None = Field(default=None, description="execution venue (MIC), e.g. XNAS; default the account's first allowed venue")
    memo: str = Field(default="", description="a note on the ticket; compliance reads it")
    proposal_id: str | None = Field(default=None, description="the accepted rebalance proposal this order executes")


def _ticket_text(ctx: ServiceContext, order: dict[str, Any], headline: str) -> str:
    where = f"account {order['account_id']}" if not order["block"] else "block for " + ", ".join(
        f"{line['account_id']} ({line['quantity']:,})" for line in order["intended"])  # fmt: skip
    text = (f"{headline}\nOrder {order['id']}: {order['side'].upper()} {order['quantity']:,} {order['symbol']} "
            f"({book.instrument_name(ctx, order['symbol'])}) limit {core.money(order['limit_price_cents'])}, notional "
            f"{core.money(order['notional_cents'])}, on {order['venue']}, {where}, placed by {order['owner']}.")  # fmt: skip
    return text + (f"\nMemo: {order['memo']}" if order["memo"] else "")


def _send_ticket(ctx: ServiceContext, order: dict[str, Any], headline: str) -> None:
    core.deliver(ctx, core.staff(ctx.world, "compliance"), f"Pre-trade approval: {order['side']} {order['quantity']:,} {order['symbol']}",
                 _ticket_text(ctx, order, headline), order["id"])  # fmt: skip


def _tradable_account(ctx: ServiceContext, account_id: str) -> dict[str, Any]:
    account = core.account_for(ctx, account_id)
    if account["trader"] != ctx.principal.id:
        who = account["trader"] or "no one"
        raise core.forbidden(f"only the account's trader ({who}) may place orders for account {account_id}")
    return account


def _check_proposal(ctx: ServiceContext, proposal_id: str, account: dict[str, Any], symbol: str, side: str, quantity: int) -> None:
    """An order that executes a proposal stays within what the client accepted."""
    prop = ctx.store.get(PROPOSALS.name, {"id": proposal_id})
    if prop is None or prop["account_id"] != account["id"]:
        raise invalid(f"proposal_id: no proposal {proposal_id} on account {account['id']}")
    if prop["status"] != "accepted":
        raise core.conflict(f"proposal {proposal_id} is {prop['status']}; only a proposal the client accepted can be executed")
    allowed = sum(line["quantity"] for line in prop["lines"] if line["symbol"] == symbol and line["side"] == side)
    if not allowed:
        raise core.conflict(f"proposal {proposal_id} has no {side} of {symbol}")
    used = 0
    for o in ctx.store.select(ORDERS.name, {"proposal_id": proposal_id}):
        if o["symbol"] == symbol and o["side"] == side and o["state"] != "rejected":
            used += o["filled_quantity"] if o["state"] == "cancelled" else o["quantity"]
    if used + quantity > allowed:
        raise core.conflict(f"proposal {proposal_id} allows {allowed:,} {symbol} to {side}; {used:,} are already ordered")


def _release_or_queue(ctx: ServiceContext, order: dict[str, Any], needs_approval: bool, headline: str) -> dict[str, Any]:
    if needs_approval:
        ctx.store.update(ORDERS.name, {"id": order["id"]}, {"state": "pending_compliance"})
        order = {**order, "state": "pending_compliance"}
        _send_ticket(ctx, order, headline)
        return order
    return book.evaluate(ctx, order)


@tool(ToolKind.WRITE, name="trading_place_order", action="order",
      rest=RestBinding("POST", f"{PREFIX}/accounts/{{accountId}}/orders", body="body"))  # fmt: skip
def place_order(ctx: ServiceContext, account_id: Annotated[str, ResourceArg("Account")], body: OrderTicket) -> dict[str, Any]:
    """Place a limit order for an account you trade. The account's risk limits are enforced (venue,
    order notional, position size, cash, no short selling). An order whose notional (quantity x limit)
    reaches the approval threshold waits as pending_compliance and its ticket goes to compliance;
    otherwise it is released: it fills at the venue quote if the limit is marketable (buy limit >= quote,
    sell limit <= quote) and the client gets a confirmation, else it rests open.

    Args:
        account_id: the account to trade for.
        body: the ticket: symbol, side (buy/sell), quantity, limit_price_cents, venue, memo, proposal_id.
    """
    account = _tradable_account(ctx, account_id)
    inst = core.instrument(ctx, body.symbol)
    limits = book.limits_of(ctx, account)
    venue = body.venue or limits["allowed_venues"][0]
    if body.proposal_id:
        _check_proposal(ctx, body.proposal_id, account, inst["symbol"], body.side, body.quantity)
    book.check_order(ctx, account, inst["symbol"], body.side, body.quantity, body.limit_price_cents, venue)
    at = core.now(ctx.world)
    notional = body.quantity * body.limit_price_cents
    order = {
        "id": core.new_id(ctx.world, "ord"), "owner": ctx.principal.id, "account_id": account_id, "client": account["owner"],
        "symbol": inst["symbol"], "side": body.side, "quantity": body.quantity, "limit_price_cents": body.limit_price_cents,
        "notional_cents": notional, "venue": venue, "state": "open", "filled_quantity": 0, "filled_cost_cents": 0,
        "memo": body.memo, "block": False, "intended": [], "allocated": False, "proposal_id": body.proposal_id or "",
        "created_at": at, "updated_at": at,
    }  # fmt: skip
    ctx.store.insert(ORDERS.name, order)
    order = _release_or_queue(ctx, order, book.needs_approval(limits, notional), "A new order needs your pre-trade approval.")
    return views.order_view(ctx, order)


class Amendment(core.Body):
    quantity: int | None = Field(default=None, ge=1, le=MAX_SHARES, description="new total quantity (more than already filled)")
    limit_price_cents: int | None = Field(default=None, ge=1, le=MAX_PRICE_CENTS, description="new limit price in cents")
    memo: str | None = Field(default=None, description="replaces the ticket's memo")


def _own_live_order(ctx: ServiceContext, order_id: str) -> dict[str, Any]:
    order = core.order_for(ctx, order_id)
    if order["owner"] != ctx.principal.id:
        raise core.forbidden(f"only the trader who placed order {order_id} ({order['owner']}) may change it")
    if order["state"] not in book.LIVE:
        raise core.conflict(f"order {order_id} is {order['state']}; only pending_compliance or open orders can change")
    return order


def _active_approval(ctx: ServiceContext, order_id: str) -> dict[str, Any] | None:
    rows = [a for a in ctx.store.select(APPROVALS.name, {"order_id": order_id}) if a["decision"] == "approved" and a["status"] == "active"]
    return rows[-1] if rows else None


def _check_lines(ctx: ServiceContext, order: dict[str, Any], limit_price_cents: int, quantity: int) -> None:
    if order["block"]:
        for line in order["intended"]:
            account = ctx.store.get(ACCOUNTS.name, {"id": line["account_id"]})
            assert account is not None
            book.check_order(ctx, account, order["symbol"], order["side"], line["quantity"], limit_price_cents, order["venue"], exclude=order["id"])
        return
    account = ctx.store.get(ACCOUNTS.name, {"id": order["account_id"]})
    assert account is not None
    book.check_order(ctx, account, order["symbol"], order["side"], quantity, limit_price_cents, order["venue"],
                     exclude=order["id"], filled=order["filled_quantity"])  # fmt: skip


def _order_needs_approval(ctx: ServiceContext, order: dict[str, Any]) -> bool:
    ids = [line["account_id"] for line in order["intended"]] if order["block"] else [order["account_id"]]
    accounts = [ctx.store.get(ACCOUNTS.name, {"id": i}) for i in ids]
    return any(book.needs_approval(book.limits_of(ctx, a), order["notional_cents"]) for a in accounts if a is not None)


@tool(ToolKind.WRITE, name="trading_amend_order", rest=RestBinding("PATCH", f"{PREFIX}/orders/{{orderId}}", body="body"))
def amend_order(ctx: ServiceContext, order_id: OrderId, body: Amendment) -> dict[str, Any]:
    """Amend your own live order (quantity, limit price, memo); the risk limits are checked again. A
    compliance approval covers the order as approved: raising its quantity or notional past that sends
    it back to pending_compliance. An open order is matched against the quote again.

    Args:
        order_id: the order to amend.
        body: the new quantity and/or limit_price_cents and/or memo.
    """
    order = _own_live_order(ctx, order_id)
    if body.quantity is None and body.limit_price_cents is None and body.memo is None:
        raise invalid("nothing to amend: give quantity, limit_price_cents or memo")
    if order["block"] and body.quantity is not None:
        raise invalid("quantity: a block order's quantity is its pre-trade allocation; cancel and place a new block instead")
    quantity = body.quantity if body.quantity is not None else order["quantity"]
    limit = body.limit_price_cents if body.limit_price_cents is not None else order["limit_price_cents"]
    if quantity <= order["filled_quantity"]:
        raise invalid(f"quantity: {order['filled_quantity']:,} shares are already filled; the new quantity must be larger")
    _check_lines(ctx, order, limit, quantity)
    changes: dict[str, Any] = {"quantity": quantity, "limit_price_cents": limit, "notional_cents": quantity * limit,
                               "updated_at": core.now(ctx.world)}  # fmt: skip
    if body.memo is not None:
        changes["memo"] = body.memo
    ctx.store.update(ORDERS.name, {"id": order_id}, changes)
    order = {**order, **changes}
    approval = _active_approval(ctx, order_id)
    if order["state"] == "pending_compliance":
        _send_ticket(ctx, order, "An order waiting for your approval was amended.")
    elif approval is not None and (quantity > approval["quantity"] or order["notional_cents"] > approval["notional_cents"]):
        ctx.store.update(APPROVALS.name, {"id": approval["id"]}, {"status": "superseded"})
        order = _release_or_queue(ctx, order, True, f"An approved order was amended past its approval {approval['id']}; it needs a new one.")
    else:
        order = _release_or_queue(ctx, order, approval is None and _order_needs_approval(ctx, order), "An amended order needs your pre-trade approval.")
    return views.order_view(ctx, order)


@tool(ToolKind.WRITE, name="trading_cancel_order", action="cancel", rest=RestBinding("POST", f"{PREFIX}/orders/{{orderId}}/cancel"))
def cancel_order(ctx: ServiceContext, order_id: OrderId) -> dict[str, Any]:
    """Cancel the unfilled rest of your own live order. Fills already done stay (a block's fills still
    need allocating).

    Args:
        order_id: the order to cancel.
    """
    order = _own_live_order(ctx, order_id)
    was = order["state"]
    ctx.store.update(ORDERS.name, {"id": order_id}, {"state": "cancelled", "updated_at": core.now(ctx.world)})
    order = {**order, "state": "cancelled"}
    if was == "pending_compliance":
        core.deliver(ctx, core.staff(ctx.world, "compliance"), f"Withdrawn: order {order_id}",
                     _ticket_text(ctx, order, "The trader withdrew this order before your decision."), order_id)  # fmt: skip
    return views.order_view(ctx, order)


# ---- compliance -----------------------------------------------------------------------------------
class Decision(core.Body):
    decision: Literal["approve", "reject"]
    comment: str = Field(default="", description="the reason, for the trader and the record")


@tool(ToolKind.WRITE, name="trading_decide_order", action="approve",
      rest=RestBinding("POST", f"{PREFIX}/orders/{{orderId}}/decision", body="body"))  # fmt: skip
def decide_order(ctx: ServiceContext, order_id: OrderId, body: Decision) -> dict[str, Any]:
    """Compliance only: approve or reject an order waiting for pre-trade approval (pending_compliance).
    The approval covers this order as it stands (quantity, limit, notional) and nothing else; an
    approved order is released at once (and fills if marketable). The trader is told either way.

    Args:
        order_id: the pending order.
        body: decision (approve or reject) and a comment.
    """
    order = core.order_for(ctx, order_id)
    if not core.is_compliance(ctx):
        raise core.forbidden("only compliance may approve or reject orders")
    if order["state"] != "pending_compliance":
        raise core.conflict(f"order {order_id} is {order['state']}, not pending_compliance")
    if order["owner"] == ctx.principal.id:
        raise core.conflict(f"order {order_id} is your own: another compliance officer must decide it (separation of duties)")
    approve = body.decision == "approve"
    if approve:  # the account may have changed since the ticket was placed
        _check_lines(ctx, order, order["limit_price_cents"], order["quantity"])
    at = core.now(ctx.world)
    decision = {
        "id": core.new_id(ctx.world, "apv"), "order_id": order_id, "owner": ctx.principal.id, "requested_by": order["owner"],
        "decision": "approved" if approve else "rejected", "comment": body.comment, "quantity": order["quantity"],
        "limit_price_cents": order["limit_price_cents"], "notional_cents": order["notional_cents"], "status": "active", "at": at,
    }  # fmt: skip
    ctx.store.insert(APPROVALS.name, decision)
    state = "open" if approve else "rejected"
    ctx.store.update(ORDERS.name, {"id": order_id}, {"state": state, "updated_at": at})
    order = {**order, "state": state, "updated_at": at}
    word = "approved" if approve else "rejected"
    text = _ticket_text(ctx, order, f"Compliance {word} your order ({decision['id']})." + (f" Comment: {body.comment}" if body.comment else ""))
    core.deliver(ctx, [order["owner"]], f"Order {word}: {order['side']} {order['quantity']:,} {order['symbol']}", text, order_id)
    if approve:
        order = book.evaluate(ctx, order)
    return views.order_view(ctx, order, detail=True)


# ---- block orders ---------------------------------------------------------------------------------
class Line(core.Body):
    account_id: str
    quantity: int = Field(ge=1, le=MAX_SHARES, description="whole shares")


class BlockTicket(core.Body):
    symbol: str = Field(description="ticker")
    side: Side
    limit_price_cents: int = Field(ge=1, le=MAX_PRICE_CENTS, description="limit price per share in US cents")
    allocations: list[Line] = Field(min_length=1, description="the pre-trade allocation: each account and its shares")
    venue: str | None = Field(default=None, description="execution venue; default the first venue every account allows")
    memo: str = ""


@tool(ToolKind.WRITE, name="trading_place_block_order", action="order", rest=RestBinding("POST", f"{PREFIX}/blockOrders", body="body"))
def place_block_order(ctx: ServiceContext, body: BlockTicket) -> dict[str, Any]:
    """Place one block order for several accounts you trade, with its pre-trade allocation (each account's
    shares). Each account's limits are checked for its line. A block needs compliance approval when its
    total notional reaches the lowest approval threshold of its accounts. Fills stay in the block until
    you allocate it (trading_allocate_block).

    Args:
        body: symbol, side, limit_price_cents, allocations [{account_id, quantity}], venue, memo.
    """
    ids = [line.account_id for line in body.allocations]
    if len(set(ids)) != len(ids):
        raise invalid("allocations: each account may appear once")
    accounts = [_tradable_account(ctx, i) for i in ids]
    inst = core.instrument(ctx, body.symbol)
    allowed = [set(book.limits_of(ctx, a)["allowed_venues"]) for a in accounts]
    common = [v for v in book.limits_of(ctx, accounts[0])["allowed_venues"] if all(v in s for s in allowed)]
    venue = body.venue or (common[0] if common else "")
    if not venue:
        raise core.conflict("no venue is allowed for every account of the block", "venueNotAllowed")
    for account, line in zip(accounts, body.allocations):
        book.check_order(ctx, account, inst["symbol"], body.side, line.quantity, body.limit_price_cents, venue)
    quantity = sum(line.quantity for line in body.allocations)
    at = core.now(ctx.world)
    order = {
        "id": core.new_id(ctx.world, "ord"), "owner": ctx.principal.id, "account_id": "", "client": "", "symbol": inst["symbol"],
        "side": body.side, "quantity": quantity, "limit_price_cents": body.limit_price_cents,
        "notional_cents": quantity * body.limit_price_cents, "venue": venue, "state": "open", "filled_quantity": 0,
        "filled_cost_cents": 0, "memo": body.memo, "block": True,
        "intended": [{"account_id": line.account_id, "quantity": line.quantity} for line in body.allocations],
        "allocated": False, "proposal_id": "", "created_at": at, "updated_at": at,
    }  # fmt: skip
    ctx.store.insert(ORDERS.name, order)
    order = _release_or_queue(ctx, order, _order_needs_approval(ctx, order), "A new block order needs your pre-trade approval.")
    return views.order_view(ctx, order)


class AllocationRequest(core.Body):
    method: Literal["pro_rata", "manual"] = Field(default="pro_rata", description="pro_rata: the service splits the fills fairly")
    allocations: list[Line] = Field(default=[], description="manual only: shares per account, summing to the filled quantity")
    justification: str = Field(default="", description="required when a manual split departs from pro rata")


@tool(ToolKind.WRITE, name="trading_allocate_block", action="allocate",
      rest=RestBinding("POST", f"{PREFIX}/blockOrders/{{orderId}}/allocate", body="body"))  # fmt: skip
def allocate_block(ctx: ServiceContext, order_id: OrderId, body: AllocationRequest) -> dict[str, Any]:
    """Allocate a block's fills to its accounts and close it (an unfilled rest is cancelled). pro_rata
    splits the filled shares in proportion to the pre-trade allocation (whole shares, largest remainder);
    a manual split that departs from it needs a justification and is reported to compliance. Each
    account's position and cash move at the block's average price; each client gets a confirmation.

    Args:
        order_id: your block order.
        body: method, allocations (manual), justification.
    """
    order = core.order_for(ctx, order_id)
    if order["owner"] != ctx.principal.id:
        raise core.forbidden(f"only the trader who placed block {order_id} ({order['owner']}) may allocate it")
    if not order["block"]:
        raise invalid(f"order {order_id} is not a block order")
    if order["allocated"]:
        raise core.conflict(f"block {order_id} is already allocated")
    filled = order["filled_quantity"]
    if not filled:
        raise core.conflict(f"block {order_id} has no fills to allocate")
    intended = {line["account_id"]: line["quantity"] for line in order["intended"]}
    fair = dict(zip(intended, book.largest_remainder(filled, list(intended.values()))))
    if body.method == "pro_rata":
        if body.allocations:
            raise invalid("allocations: give them only with method manual")
        split = fair
    else:
        split = {}
        for line in body.allocations:
            if line.account_id not in intended:
                raise core.conflict(f"account {line.account_id} was not in block {order_id}'s pre-trade allocation")
            if line.account_id in split:
                raise invalid("allocations: each account may appear once")
            if line.quantity > intended[line.account_id]:
                raise core.conflict(f"account {line.account_id} was allocated {intended[line.account_id]:,} pre-trade, not {line.quantity:,}")
            split[line.account_id] = line.quantity
        if sum(split.values()) != filled:
            raise invalid(f"allocations: they sum to {sum(split.values()):,}; the block filled {filled:,}")
        split = {a: split.get(a, 0) for a in intended}
    departs = split != fair
    if departs and not body.justification.strip():
        raise invalid(f"justification: this split departs from pro rata ({fair}); say why, or use method pro_rata")
    accounts = {a: ctx.store.get(ACCOUNTS.name, {"id": a}) for a in intended}
    quantities = [split[a] for a in intended]
    costs = book.largest_remainder(order["filled_cost_cents"], quantities) if any(quantities) else [0] * len(quantities)
    at = core.now(ctx.world)
    name = book.instrument_name(ctx, order["symbol"])
    for (aid, qty), cost in zip(split.items(), costs):
        if not qty:
            continue
        account = accounts[aid]
        assert account is not None
        ctx.store.insert(ALLOCATIONS.name, {
            "id": core.new_id(ctx.world, "alc"), "order_id": order_id, "account_id": aid, "owner": account["owner"], "trader": order["owner"],
            "symbol": order["symbol"], "side": order["side"], "quantity": qty, "cost_cents": cost, "price_cents": cost // qty,
            "method": body.method, "departs_from_pro_rata": departs, "justification": body.justification, "at": at,
        })  # fmt: skip
        book.apply_fill(ctx, account, order["symbol"], order["side"], qty, cost)
        book.confirm(ctx, account, {**order, "id": order_id}, qty, cost, name)
    state = "filled" if filled == order["quantity"] else "cancelled"
    ctx.store.update(ORDERS.name, {"id": order_id}, {"allocated": True, "state": state, "updated_at": at})
    order = {**order, "allocated": True, "state": state, "updated_at": at}
    if departs:
        lines = ", ".join(f"{a}: {split[a]:,} (pro rata {fair[a]:,})" for a in intended)
        core.deliver(ctx, core.staff(ctx.world, "compliance"), f"Block allocation departs from pro rata: {order_id}",
                     f"Block {order_id} ({order['side']} {filled:,} {order['symbol']}) was allocated by {order['owner']} as {lines}. "
                     f"Justification: {body.justification}", order_id)  # fmt: skip
    return views.order_view(ctx, order, detail=True)


TOOLS = (list_orders, get_order, place_order, amend_order, cancel_order, decide_order, place_block_order, allocate_block)
