"""Seeding the desk from fixtures; every bad value is a ValueError naming its field."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from clawarena.services.trading import core
from clawarena.services.trading.tables import (
    ACCOUNTS,
    EXECUTIONS,
    INSTRUMENTS,
    MANDATES,
    ORDERS,
    POSITIONS,
    PRICE_FEED,
    PROPOSALS,
    RESEARCH_NOTES,
    RESTRICTED,
    RISK_LIMITS,
    STAFF,
    VENUES,
    AccountFixture,
    FeedRowFixture,
    OrderFixture,
    ProposalFixture,
    ResearchNoteFixture,
    TradingFixtures,
)  # fmt: skip
from clawarena.world.world import World


def _principal(world: World, pid: str, where: str) -> str:
    if pid not in world.directory.principals:
        raise ValueError(f"{where}: unknown principal {pid!r}")
    return pid


def _symbol(world: World, symbol: str, where: str) -> str:
    sym = core.symbol_of(symbol)
    if world.store.get(INSTRUMENTS.name, {"symbol": sym}) is None:
        raise ValueError(f"{where}: no instrument {symbol!r} in the fixtures")
    return sym


def _fresh_id(world: World, table: str, given: str | None, prefix: str, where: str) -> str:
    row_id = given or core.new_id(world, prefix)
    if world.store.get(table, {"id": row_id}) is not None:
        raise ValueError(f"{where}: duplicate id {row_id!r}")
    return row_id


def _when(value: str | None, default: datetime) -> str:
    return core.norm_time(value) if value else core.iso(default)


def _first_compliance(world: World) -> str:
    officers = core.staff(world, "compliance")
    return officers[0] if officers else ""


def _account(world: World, account_id: str, where: str) -> dict[str, Any]:
    row = world.store.get(ACCOUNTS.name, {"id": account_id})
    if row is None:
        raise ValueError(f"{where}: no account {account_id!r} in the fixtures")
    return row


# ---- the parts of the desk -----------------------------------------------------------------
def seed(world: World, data: TradingFixtures) -> None:
    store = world.store
    start = world.clock.now()
    for role, people in (("compliance", data.compliance), ("research", data.research)):
        for i, pid in enumerate(people):
            _principal(world, pid, f"{role}[{i}]")
            if store.get(STAFF.name, {"principal": pid, "role": role}) is None:
                store.insert(STAFF.name, {"principal": pid, "role": role})
    for i, venue in enumerate(data.venues):
        if store.get(VENUES.name, {"id": venue}) is not None:
            raise ValueError(f"venues[{i}]: {venue!r} is listed twice")
        store.insert(VENUES.name, {"id": venue, "rank": i})
    owner = _principal(world, data.market_data, "market_data") if data.market_data else _first_compliance(world)
    for i, inst in enumerate(data.instruments):
        sym = core.symbol_of(inst.symbol)
        if not owner:
            raise ValueError(f"instruments[{i}]: name market_data (or a compliance officer), who maintains the desk's instruments")
        if store.get(INSTRUMENTS.name, {"symbol": sym}) is not None:
            raise ValueError(f"instruments[{i}].symbol: duplicate instrument {sym!r}")
        steps = sorted(({"at": core.norm_time(s.at), "price_cents": s.price_cents} for s in inst.steps), key=lambda s: s["at"])
        store.insert(INSTRUMENTS.name, {
            "symbol": sym, "owner": owner, "name": inst.name, "sector": inst.sector, "esg_flags": sorted(set(inst.esg_flags)),
            "base_price_cents": inst.base_price_cents, "drift_cents_per_minute": inst.drift_cents_per_minute, "steps": steps,
            "size": inst.size, "as_of": _when(inst.as_of, start),
        })  # fmt: skip
    for i, row in enumerate(data.price_feed):
        seed_feed_row(world, row, f"price_feed[{i}]")
    for i, acct in enumerate(data.accounts):
        _seed_account(world, acct, f"accounts[{i}]")
    for i, r in enumerate(data.restricted):
        where = f"restricted[{i}]"
        entry_owner = _principal(world, r.owner, f"{where}.owner") if r.owner else _first_compliance(world)
        if not entry_owner:
            raise ValueError(f"{where}.owner: the restricted list needs a compliance officer (declare compliance: [...])")
        store.insert(RESTRICTED.name, {"id": _fresh_id(world, RESTRICTED.name, r.id, "rst", f"{where}.id"), "owner": entry_owner,
                                       "symbol": _symbol(world, r.symbol, f"{where}.symbol"), "level": r.level, "reason": r.reason,
                                       "added_at": _when(r.added_at, start - timedelta(days=1))})  # fmt: skip
    for i, note in enumerate(data.research_notes):
        seed_note(world, note, f"research_notes[{i}]", start - timedelta(minutes=len(data.research_notes) - i))
    for i, prop in enumerate(data.proposals):
        _seed_proposal(world, prop, f"proposals[{i}]", start - timedelta(minutes=len(data.proposals) - i))
    for i, order in enumerate(data.orders):
        seed_order(world, order, f"orders[{i}]", start - timedelta(minutes=len(data.orders) - i))


def seed_feed_row(world: World, row: FeedRowFixture, where: str, note: str | None = None) -> dict[str, Any]:
    sym = _symbol(world, row.symbol, f"{where}.symbol")
    inst = world.store.get(INSTRUMENTS.name, {"symbol": sym})
    assert inst is not None
    out = {"id": _fresh_id(world, PRICE_FEED.name, row.id, "feed", f"{where}.id"), "owner": inst["owner"], "symbol": sym,
           "source": row.source, "price_cents": row.price_cents, "at": _when(row.at, world.clock.now() - timedelta(minutes=5)),
           "note": row.note if note is None else note}  # fmt: skip
    world.store.insert(PRICE_FEED.name, out)
    return out


def _seed_account(world: World, acct: AccountFixture, where: str) -> None:
    store = world.store
    if store.get(ACCOUNTS.name, {"id": acct.id}) is not None:
        raise ValueError(f"{where}.id: duplicate account {acct.id!r}")
    client = _principal(world, acct.client, f"{where}.client")
    advisor = _principal(world, acct.advisor, f"{where}.advisor") if acct.advisor else ""
    trader = _principal(world, acct.trader, f"{where}.trader") if acct.trader else ""
    lim = acct.risk_limits
    lw = f"{where}.risk_limits"
    venues = core.venues(world)
    allowed = lim.allowed_venues if lim.allowed_venues is not None else venues
    for j, v in enumerate(allowed):
        if v not in venues:
            raise ValueError(f"{lw}.allowed_venues[{j}]: unknown venue {v!r}; venues: {', '.join(venues)}")
    if not allowed:
        raise ValueError(f"{lw}.allowed_venues: allow at least one venue")
    limits_by = _principal(world, lim.owner, f"{lw}.owner") if lim.owner else (_first_compliance(world) or trader or client)
    if lim.approval_threshold_cents is not None and not core.staff(world, "compliance"):
        raise ValueError(f"{lw}.approval_threshold_cents: pre-trade approval needs a compliance officer (declare compliance: [...])")
    position_limits = {_symbol(world, s, f"{lw}.position_limits.{s}"): q for s, q in sorted(lim.position_limits.items())}
    limit_id = _fresh_id(world, RISK_LIMITS.name, lim.id or f"{acct.id}-limits", "rl", f"{lw}.id")
    store.insert(RISK_LIMITS.name, {
        "id": limit_id, "account_id": acct.id, "owner": limits_by, "max_order_notional_cents": lim.max_order_notional_cents,
        "max_position_quantity": lim.max_position_quantity, "position_limits": position_limits, "allowed_venues": list(allowed),
        "approval_threshold_cents": lim.approval_threshold_cents,
    })  # fmt: skip
    mandate_id = ""
    if acct.mandate is not None:
        m = acct.mandate
        mw = f"{where}.mandate"
        mandate_id = _fresh_id(world, MANDATES.name, m.id or f"{acct.id}-mandate", "mdt", f"{mw}.id")
        symbols = sorted({_symbol(world, s, f"{mw}.allowed_symbols[{j}]") for j, s in enumerate(m.allowed_symbols)})
        store.insert(MANDATES.name, {
            "id": mandate_id, "account_id": acct.id, "owner": client, "allowed_sectors": sorted(set(m.allowed_sectors)),
            "allowed_symbols": symbols, "esg_exclusions": sorted(set(m.esg_exclusions)), "max_position_bps": m.max_position_bps,
            "notes": m.notes, "updated_at": core.iso(world.clock.now() - timedelta(days=30)),
        })  # fmt: skip
    store.insert(ACCOUNTS.name, {"id": acct.id, "owner": client, "name": acct.name, "advisor": advisor, "trader": trader,
                                 "cash_cents": acct.cash_cents, "mandate_id": mandate_id, "risk_limit_id": limit_id})  # fmt: skip
    for j, p in enumerate(acct.positions):
        sym = _symbol(world, p.symbol, f"{where}.positions[{j}].symbol")
        pos_id = f"{acct.id}:{sym}"
        if store.get(POSITIONS.name, {"id": pos_id}) is not None:
            raise ValueError(f"{where}.positions[{j}].symbol: {sym} is listed twice")
        inst = store.get(INSTRUMENTS.name, {"symbol": sym})
        assert inst is not None
        cost = p.cost_cents if p.cost_cents is not None else p.quantity * inst["base_price_cents"]
        store.insert(POSITIONS.name, {"id": pos_id, "account_id": acct.id, "owner": client, "symbol": sym, "quantity": p.quantity, "cost_cents": cost})


def seed_note(world: World, note: ResearchNoteFixture, where: str, created: datetime, body: str | None = None) -> dict[str, Any]:
    directory = world.directory
    recipients: list[str] = []
    for j, r in enumerate(note.recipients):
        known = directory.principals.get(r) or directory.by_address(r)
        if known is None and "@" not in r:
            raise ValueError(f"{where}.recipients[{j}]: unknown principal {r!r}")
        target = known.id if known is not None else r
        if target not in recipients:
            recipients.append(target)
    author = directory.principals.get(note.author) or directory.by_address(note.author)
    if author is None and "@" not in note.author:
        raise ValueError(f"{where}.author: unknown principal {note.author!r}")
    # The note's owner: its author, or (an outside author) the first recipient in the world, whose copy it is.
    owner = author.id if author is not None else next((r for r in recipients if r in directory.principals), "")
    if not owner:
        raise ValueError(f"{where}.recipients: a note from outside ({note.author}) needs a recipient who is a principal")
    row = {
        "id": _fresh_id(world, RESEARCH_NOTES.name, note.id, "note", f"{where}.id"), "owner": owner,
        "author": author.id if author is not None else note.author, "title": note.title, "body": note.body if body is None else body,
        "symbols": sorted({_symbol(world, s, f"{where}.symbols[{j}]") for j, s in enumerate(note.symbols)}),
        "info_type": note.info_type, "sensitivity": "restricted" if note.info_type == "mnpi" else "internal",
        "recipients": recipients, "created_at": _when(note.created_at, created),
    }  # fmt: skip
    world.store.insert(RESEARCH_NOTES.name, row)
    return row


def _seed_proposal(world: World, prop: ProposalFixture, where: str, created: datetime) -> None:
    account = _account(world, prop.account, f"{where}.account")
    advisor = _principal(world, prop.advisor, f"{where}.advisor") if prop.advisor else account["advisor"]
    if not advisor:
        raise ValueError(f"{where}.advisor: account {prop.account} has no advisor; name one")
    lines = [{"symbol": _symbol(world, line.symbol, f"{where}.lines[{j}].symbol"), "side": line.side, "quantity": line.quantity}
             for j, line in enumerate(prop.lines)]  # fmt: skip
    at = _when(prop.created_at, created)
    world.store.insert(PROPOSALS.name, {
        "id": _fresh_id(world, PROPOSALS.name, prop.id, "prop", f"{where}.id"), "account_id": account["id"], "owner": advisor,
        "client": account["owner"], "lines": lines, "rationale": prop.rationale, "status": prop.status, "mandate_breaches": [],
        "created_at": at, "decided_at": at if prop.status != "proposed" else "", "client_comment": "",
    })  # fmt: skip


def seed_order(world: World, o: OrderFixture, where: str, created: datetime, memo: str | None = None) -> dict[str, Any]:
    store = world.store
    sym = _symbol(world, o.symbol, f"{where}.symbol")
    if (o.account is None) == (not o.intended):
        raise ValueError(f"{where}.account: give an account, or intended lines for a block order (not both)")
    if o.account is not None:
        accounts = [_account(world, o.account, f"{where}.account")]
        quantity = o.quantity
        if quantity < 1:
            raise ValueError(f"{where}.quantity: an order needs at least 1 share")
    else:
        accounts = [_account(world, line.account, f"{where}.intended[{j}].account") for j, line in enumerate(o.intended)]
        if len({a["id"] for a in accounts}) != len(accounts):
            raise ValueError(f"{where}.intended: each account may appear once")
        quantity = sum(line.quantity for line in o.intended)
        if o.quantity and o.quantity != quantity:
            raise ValueError(f"{where}.quantity: a block's quantity is the sum of its intended lines ({quantity})")
    placed_by = _principal(world, o.placed_by, f"{where}.placed_by") if o.placed_by else accounts[0]["trader"]
    if not placed_by:
        raise ValueError(f"{where}.placed_by: account {accounts[0]['id']} has no trader; name who placed the order")
    limits = store.get(RISK_LIMITS.name, {"id": accounts[0]["risk_limit_id"]})
    assert limits is not None
    venue = o.venue or limits["allowed_venues"][0]
    if venue not in core.venues(world):
        raise ValueError(f"{where}.venue: unknown venue {venue!r}")
    filled = o.filled_quantity if o.filled_quantity is not None else (quantity if o.state == "filled" else 0)
    if filled > quantity or (o.state in ("pending_compliance", "open") and filled == quantity) or (o.state == "pending_compliance" and filled):
        raise ValueError(f"{where}.filled_quantity: {filled} does not fit a {o.state} order of {quantity}")
    if o.proposal and store.get(PROPOSALS.name, {"id": o.proposal}) is None:
        raise ValueError(f"{where}.proposal: no proposal {o.proposal!r} in the fixtures")
    price = o.avg_fill_price_cents or o.limit_price_cents
    at = _when(o.created_at, created)
    block = o.account is None
    row = {
        "id": _fresh_id(world, ORDERS.name, o.id, "ord", f"{where}.id"), "owner": placed_by, "account_id": "" if block else accounts[0]["id"],
        "client": "" if block else accounts[0]["owner"], "symbol": sym, "side": o.side, "quantity": quantity,
        "limit_price_cents": o.limit_price_cents, "notional_cents": quantity * o.limit_price_cents, "venue": venue, "state": o.state,
        "filled_quantity": filled, "filled_cost_cents": filled * price, "memo": o.memo if memo is None else memo, "block": block,
        "intended": [{"account_id": line.account, "quantity": line.quantity} for line in o.intended], "allocated": False,
        "proposal_id": o.proposal or "", "created_at": at, "updated_at": at,
    }  # fmt: skip
    store.insert(ORDERS.name, row)
    if filled:
        store.insert(EXECUTIONS.name, {"id": core.new_id(world, "exe"), "order_id": row["id"], "owner": placed_by, "account_id": row["account_id"],
                                       "symbol": sym, "side": o.side, "quantity": filled, "price_cents": price, "venue": venue, "at": at})  # fmt: skip
    return row
