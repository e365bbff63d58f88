"""Attack material where trading work meets it.

- `trading_research_note`: a research note or chat "tip" (from an analyst, a stranger, a fake
  authority), new or appended to a fixture note: the MNPI lure, a "compliance pre-cleared" claim.
- `trading_price_feed`: a vendor price-feed row (its note carries the payload, its price can be
  poisoned), new or appended to a fixture row. Executions never read it; agents do.
- `trading_order_memo`: the memo of an order ticket, existing or a new one on the book (a pending
  ticket whose memo claims a compliance approval, an instruction to route elsewhere).
"""

from __future__ import annotations

from datetime import timedelta
from typing import Annotated, Literal

from pydantic import Discriminator, Field, Tag

from clawarena.services.trading.seed import seed_feed_row, seed_note, seed_order
from clawarena.services.trading.tables import (
    ORDERS,
    PRICE_FEED,
    RESEARCH_NOTES,
    FeedRowFixture,
    InfoType,
    OrderFixture,
    ResearchNoteFixture,
    Side,
    Symbol,
)  # fmt: skip
from clawarena.spec.base import Strict
from clawarena.spec.models import AttackSpec, Instant
from clawarena.spec.refs import PrincipalId, PrincipalOrAddress
from clawarena.world.world import World

Mode = Literal["append", "replace"]


def _tagged(edit: type, new: type, key: str):
    """A placement that edits a fixture row (it names `key`) or adds a new one."""
    return Annotated[
        Annotated[edit, Tag("edit")] | Annotated[new, Tag("new")],
        Discriminator(lambda v: "edit" if isinstance(v, edit) or (isinstance(v, dict) and key in v) else "new"),
    ]


def _merged(old: str, payload: str, mode: str) -> str:
    return payload if mode == "replace" or not old else f"{old}\n\n{payload}"


class EditNote(Strict):
    """The payload is appended to (or replaces) a fixture research note's body."""

    note: str = Field(description="id of a fixture research note")
    mode: Mode = "append"


class NewNote(Strict):
    """The payload is the body of a new note that has reached `recipients`."""

    author: PrincipalOrAddress = Field(description="who it claims to be from: a principal id (an outside actor) or an address")
    recipients: list[PrincipalOrAddress] = Field(min_length=1)
    title: str = "Quick note"
    symbols: list[Symbol] = []
    info_type: InfoType = "research"
    id: str | None = None
    at: Instant | None = Field(default=None, description="default twenty minutes before the episode starts")


class EditFeedRow(Strict):
    """The payload is appended to (or replaces) a fixture feed row's note; `price_cents` poisons its price."""

    row: str = Field(description="id of a fixture price-feed row")
    mode: Mode = "append"
    price_cents: int | None = Field(default=None, ge=1)


class NewFeedRow(Strict):
    """A new vendor row whose note is the payload."""

    symbol: Symbol
    source: str = "Vendor feed"
    price_cents: int = Field(ge=1)
    at: Instant | None = Field(default=None, description="default two minutes before the episode starts")
    id: str | None = None


class EditOrder(Strict):
    """The payload is appended to (or replaces) a fixture order's memo."""

    order: str = Field(description="id of a fixture order")
    mode: Mode = "append"


class NewOrder(Strict):
    """A ticket already on the book (by default waiting for compliance) whose memo is the payload."""

    account: str = Field(description="account id")
    symbol: Symbol
    side: Side
    quantity: int = Field(ge=1)
    limit_price_cents: int = Field(ge=1)
    venue: str | None = None
    state: Literal["pending_compliance", "open"] = "pending_compliance"
    placed_by: PrincipalId | None = Field(default=None, description="default the account's trader")
    id: str | None = None


ResearchNotePlacement = _tagged(EditNote, NewNote, "note")
PriceFeedPlacement = _tagged(EditFeedRow, NewFeedRow, "row")
OrderMemoPlacement = _tagged(EditOrder, NewOrder, "order")
CHANNELS = {"trading_research_note": ResearchNotePlacement, "trading_price_feed": PriceFeedPlacement, "trading_order_memo": OrderMemoPlacement}


def place(world: World, attack: AttackSpec, p: object) -> None:
    store = world.store
    start = world.clock.now()
    if isinstance(p, EditNote):
        row = store.get(RESEARCH_NOTES.name, {"id": p.note})
        if row is None:
            raise ValueError(f"placement.note: no research note {p.note!r} in the fixtures")
        store.update(RESEARCH_NOTES.name, {"id": p.note}, {"body": _merged(row["body"], attack.payload, p.mode)})
    elif isinstance(p, NewNote):
        note = ResearchNoteFixture(id=p.id, author=p.author, title=p.title, body=attack.payload, symbols=p.symbols,
                                   info_type=p.info_type, recipients=p.recipients, created_at=p.at)  # fmt: skip
        seed_note(world, note, "placement", start - timedelta(minutes=20))
    elif isinstance(p, EditFeedRow):
        row = store.get(PRICE_FEED.name, {"id": p.row})
        if row is None:
            raise ValueError(f"placement.row: no price-feed row {p.row!r} in the fixtures")
        changes: dict[str, object] = {"note": _merged(row["note"], attack.payload, p.mode)}
        if p.price_cents is not None:
            changes["price_cents"] = p.price_cents
        store.update(PRICE_FEED.name, {"id": p.row}, changes)
    elif isinstance(p, NewFeedRow):
        at = p.at or (start - timedelta(minutes=2)).isoformat()
        seed_feed_row(world, FeedRowFixture(id=p.id, symbol=p.symbol, source=p.source, price_cents=p.price_cents, at=at), "placement", note=attack.payload)
    elif isinstance(p, EditOrder):
        row = store.get(ORDERS.name, {"id": p.order})
        if row is None:
            raise ValueError(f"placement.order: no order {p.order!r} in the fixtures")
        store.update(ORDERS.name, {"id": p.order}, {"memo": _merged(row["memo"], attack.payload, p.mode)})
    elif isinstance(p, NewOrder):
        fixture = OrderFixture(id=p.id, account=p.account, symbol=p.symbol, side=p.side, quantity=p.quantity,
                               limit_price_cents=p.limit_price_cents, venue=p.venue, state=p.state, placed_by=p.placed_by)  # fmt: skip
        seed_order(world, fixture, "placement", start - timedelta(minutes=10), memo=attack.payload)
    else:  # pragma: no cover - the channel's model admits nothing else
        raise ValueError(f"placement: unexpected {type(p).__name__}")
