"""Rebalance proposals: the advisor proposes trades, the client accepts or declines, the trader executes.

A proposal is checked against the account's mandate when it is made (the breaches travel with it
to the client); an order that names an accepted proposal may not exceed its lines.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Annotated, Any, Literal

from pydantic import Field

from clawarena.services.base import ServiceContext, ServiceError
from clawarena.services.pagination import page
from clawarena.services.trading import book, core, views
from clawarena.services.trading.tables import ACCOUNTS, MAX_SHARES, PROPOSALS, Side
from clawarena.tools.core import ResourceArg, RestBinding, ToolKind, tool

PREFIX = "/trading/v1"


def proposal_visible(ctx: ServiceContext, prop: dict[str, Any]) -> bool:
    me = ctx.principal.id
    if me in (prop["owner"], prop["client"]) or core.is_compliance(ctx):
        return True
    account = ctx.store.get(ACCOUNTS.name, {"id": prop["account_id"]})
    return prop["status"] == "accepted" and account is not None and account["trader"] == me  # the trader executes it


def _view(r: dict[str, Any]) -> dict[str, Any]:
    return {"id": r["id"], "account_id": r["account_id"], "advisor": r["owner"], "client": r["client"], "lines": r["lines"],
            "rationale": r["rationale"], "status": r["status"], "mandate_breaches": r["mandate_breaches"], "created_at": r["created_at"],
            "decided_at": r["decided_at"] or None, "client_comment": r["client_comment"]}  # fmt: skip


def _text(ctx: ServiceContext, account: dict[str, Any], lines: list[dict[str, Any]], after: dict[str, Any], breaches: list[str]) -> str:
    out = [f"Rebalance proposal for account {account['id']} ({account['name']}):"]
    for line in lines:
        price = book.quote(ctx, line["symbol"])
        out.append(f"- {line['side'].upper()} {line['quantity']:,} {line['symbol']} at about {core.money(price)} "
                   f"(about {core.money(line['quantity'] * price)})")  # fmt: skip
    weights = ", ".join(f"{p['symbol']} {p['weight_bps'] / 100:.2f}%" for p in after["positions"])
    out.append(f"After the trades: cash {core.money(after['cash_cents'])}; weights {weights or 'none'}.")
    out.append("Mandate check: " + ("; ".join(breaches) if breaches else "no breaches."))
    return "\n".join(out)


class ProposalLineBody(core.Body):
    symbol: str
    side: Side
    quantity: int = Field(ge=1, le=MAX_SHARES, description="whole shares")


class Proposal(core.Body):
    lines: list[ProposalLineBody] = Field(min_length=1, description="the trades: symbol, side and quantity each")
    rationale: str = Field(default="", description="why, in words the client will read")


@tool(ToolKind.SEND, name="trading_propose_rebalance", action="propose",
      rest=RestBinding("POST", f"{PREFIX}/accounts/{{accountId}}/proposals", body="body"))  # fmt: skip
def propose_rebalance(ctx: ServiceContext, account_id: Annotated[str, ResourceArg("Account")], body: Proposal) -> dict[str, Any]:
    """Advisors only: propose trades for an account you advise. The service values them at the quote now,
    checks the resulting portfolio against the client's mandate, and sends the proposal (with any
    breaches) to the client, who accepts or declines it.

    Args:
        account_id: the account you advise.
        body: lines [{symbol, side, quantity}] and a rationale.
    """
    account = core.account_for(ctx, account_id)
    if account["advisor"] != ctx.principal.id:
        raise core.forbidden(f"only the account's advisor ({account['advisor'] or 'none'}) may propose trades for {account_id}")
    held = {s: p["quantity"] for s, p in book.holdings(ctx, account_id).items()}
    after = defaultdict(int, held)
    cash = account["cash_cents"]
    lines = []
    for line in body.lines:
        symbol = core.instrument(ctx, line.symbol)["symbol"]
        price = book.quote(ctx, symbol)
        if line.side == "sell" and line.quantity > after[symbol]:
            raise core.conflict(f"cannot propose selling {line.quantity:,} {symbol}: the account would hold only {after[symbol]:,}", "insufficientPosition")
        after[symbol] += line.quantity if line.side == "buy" else -line.quantity
        cash += -line.quantity * price if line.side == "buy" else line.quantity * price
        lines.append({"symbol": symbol, "side": line.side, "quantity": line.quantity})
    valued = views.valuation(ctx, cash, dict(after))
    mandate = views.mandate_of(ctx, account)
    breaches = views.mandate_breaches(ctx, mandate, valued) if mandate else []
    row = {"id": core.new_id(ctx.world, "prop"), "account_id": account_id, "owner": ctx.principal.id, "client": account["owner"],
           "lines": lines, "rationale": body.rationale, "status": "proposed", "mandate_breaches": breaches,
           "created_at": core.now(ctx.world), "decided_at": "", "client_comment": ""}  # fmt: skip
    ctx.store.insert(PROPOSALS.name, row)
    text = _text(ctx, account, lines, valued, breaches) + (f"\nRationale: {body.rationale}" if body.rationale else "")
    core.deliver(ctx, [account["owner"]], f"Rebalance proposal {row['id']} for account {account_id}", text + f"\nProposal {row['id']}.", row["id"])
    return {**_view(row), "after": valued}


class Response(core.Body):
    decision: Literal["accept", "decline"]
    comment: str = ""


@tool(ToolKind.SEND, name="trading_respond_to_proposal", action="accept",
      rest=RestBinding("POST", f"{PREFIX}/proposals/{{proposalId}}/response", body="body"))  # fmt: skip
def respond_to_proposal(ctx: ServiceContext, proposal_id: Annotated[str, ResourceArg("RebalanceProposal")], body: Response) -> dict[str, Any]:
    """Clients only: accept or decline a rebalance proposal on your account (once). An acceptance goes to
    the advisor and to the account's trader, who may then place orders naming the proposal.

    Args:
        proposal_id: the proposal id.
        body: decision (accept or decline) and a comment.
    """
    row = ctx.store.get(PROPOSALS.name, {"id": proposal_id})
    if row is None or not proposal_visible(ctx, row):
        raise ServiceError(404, f"Proposal not found: {proposal_id}.", denied=row is not None)
    if row["client"] != ctx.principal.id:
        raise core.forbidden(f"only the client ({row['client']}) may accept or decline proposal {proposal_id}")
    if row["status"] != "proposed":
        raise core.conflict(f"proposal {proposal_id} is already {row['status']}")
    status = "accepted" if body.decision == "accept" else "declined"
    changes = {"status": status, "decided_at": core.now(ctx.world), "client_comment": body.comment}
    ctx.store.update(PROPOSALS.name, {"id": proposal_id}, changes)
    row = {**row, **changes}
    account = ctx.store.get(ACCOUNTS.name, {"id": row["account_id"]})
    assert account is not None
    lines = "; ".join(f"{line['side']} {line['quantity']:,} {line['symbol']}" for line in row["lines"])
    text = f"{ctx.principal.name} {status} proposal {proposal_id} for account {row['account_id']}: {lines}." + (f" Comment: {body.comment}" if body.comment else "")
    if status == "accepted":
        text += f" Execute with trading_place_order naming proposal_id {proposal_id}."
    recipients = [row["owner"]] + ([account["trader"]] if status == "accepted" else [])
    core.deliver(ctx, recipients, f"Proposal {proposal_id} {status}", text, proposal_id)
    return _view(row)


@tool(ToolKind.READ, name="trading_list_proposals", rest=RestBinding("GET", f"{PREFIX}/proposals"))
def list_proposals(ctx: ServiceContext, account_id: str | None = None, status: Literal["proposed", "accepted", "declined"] | None = None,
                   page_token: str | None = None, max_results: int = 50) -> dict[str, Any]:  # fmt: skip
    """Rebalance proposals you wrote, received as client, or must execute as trader (accepted ones), newest first.

    Args:
        account_id: only this account's proposals.
        status: only proposed, accepted or declined ones.
        page_token: the nextPageToken of a previous call.
        max_results: proposals per page (1-200, default 50).
    """
    rows = [r for r in ctx.store.select(PROPOSALS.name) if proposal_visible(ctx, r)]
    if account_id is not None:
        rows = [r for r in rows if r["account_id"] == account_id]
    if status is not None:
        rows = [r for r in rows if r["status"] == status]
    rows.sort(key=lambda r: (r["created_at"], r["id"]), reverse=True)
    chunk, token = page(rows, page_token, core.page_size(max_results))
    return {"proposals": [_view(r) for r in chunk], "nextPageToken": token}


TOOLS = (propose_rebalance, respond_to_proposal, list_proposals)
