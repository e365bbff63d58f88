"""Where attack material meets market work: four channels, each with a strict placement model.

- `market_listing_description`: a listing's description (the seller's own words, read by every buyer).
- `market_spec_sheet`: the spec sheet / condition report attached to a listing.
- `market_thread_note`: a note in a negotiation thread from someone who is not a party to it
  (a "broker", a stranger: an external actor principal), seen by the audience the placement names.
- `market_auction_notice`: a notice on an auction (posted by a stranger or spoofing the
  auctioneer), or text in the published answer to a clarification question.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Annotated, Literal

from pydantic import Discriminator, Field, Tag

from clawarena.services.market import core
from clawarena.services.market import negotiation as neg
from clawarena.services.market.tables import (
    AUCTIONS,
    LISTINGS,
    MESSAGES,
    NOTICES,
    QUESTIONS,
    THREADS,
)
from clawarena.spec.base import Strict
from clawarena.spec.models import AttackSpec, Instant
from clawarena.spec.refs import PrincipalId
from clawarena.world.world import World

Mode = Literal["append", "replace"]


class ListingText(Strict):
    """The payload goes into a fixture listing's description or spec sheet."""

    listing: str = Field(description="id of a fixture listing")
    mode: Mode = "append"


class ThreadNote(Strict):
    """The payload is a note attached to a negotiation thread by `author`."""

    thread: str = Field(description="id of a fixture thread")
    author: PrincipalId = Field(description="who the note is from: usually an external actor (a 'broker', a stranger)")
    audience: list[PrincipalId] | None = Field(default=None, description="who sees it (viewers of the thread); default: all of them")
    at: Instant | None = Field(default=None, description="when it arrived; default: ten minutes before the episode starts")


class AuctionNotice(Strict):
    """The payload is a notice on an auction, posted by `author` (default: as if by the auctioneer)."""

    auction: str = Field(description="id of a fixture auction")
    author: PrincipalId | None = Field(default=None, description="who posted it; default: the auctioneer (a spoofed notice)")
    at: Instant | None = None


class ClarificationAnswer(Strict):
    """The payload goes into the published answer of a fixture clarification question."""

    question: str = Field(description="id of a fixture question; an unanswered one becomes answered by the auctioneer")
    mode: Mode = "append"


AuctionNoticePlacement = Annotated[
    Annotated[AuctionNotice, Tag("notice")] | Annotated[ClarificationAnswer, Tag("answer")],
    Discriminator(lambda v: "answer" if isinstance(v, ClarificationAnswer) or (isinstance(v, dict) and "question" in v) else "notice"),
]

PLACEMENTS = {
    "market_listing_description": ListingText,
    "market_spec_sheet": ListingText,
    "market_thread_note": ThreadNote,
    "market_auction_notice": AuctionNoticePlacement,
}


def _joined(old: str, payload: str, mode: str) -> str:
    return payload if mode == "replace" or not old else f"{old}\n\n{payload}"


def _arrival(world: World, value: str | None) -> str:
    return core.iso(core.at(value)) if value else core.iso(world.clock.now() - timedelta(minutes=10))


def _principal(world: World, pid: str, field: str) -> str:
    if pid not in world.directory.principals:
        raise ValueError(f"{field}: unknown principal {pid!r}")
    return pid


def place(world: World, attack: AttackSpec, placement: ListingText | ThreadNote | AuctionNotice | ClarificationAnswer) -> None:
    store = world.store
    p = placement
    if isinstance(p, ListingText):
        row = store.get(LISTINGS.name, {"id": p.listing})
        if row is None:
            raise ValueError(f"placement.listing: no listing {p.listing!r} in the fixtures")
        column = "spec_sheet" if attack.channel == "market_spec_sheet" else "description"
        store.update(LISTINGS.name, {"id": p.listing}, {column: _joined(row[column], attack.payload, p.mode)})
    elif isinstance(p, ThreadNote):
        th = store.get(THREADS.name, {"id": p.thread})
        if th is None:
            raise ValueError(f"placement.thread: no thread {p.thread!r} in the fixtures")
        _principal(world, p.author, "placement.author")
        audience = None
        if p.audience is not None:
            seen = neg.viewers(world, th)
            for j, who in enumerate(p.audience):
                if who not in seen:
                    raise ValueError(f"placement.audience[{j}]: {who} does not see thread {p.thread} (its viewers: {', '.join(sorted(seen))})")
            audience = sorted(set(p.audience))
        store.insert(MESSAGES.name, {"id": core.next_id(world, MESSAGES.name, f"{p.thread}-m", {"thread_id": p.thread}), "thread_id": p.thread, "author": p.author,
                                     "text": attack.payload, "audience": audience, "created_at": _arrival(world, p.at)})  # fmt: skip
    elif isinstance(p, AuctionNotice):
        a = store.get(AUCTIONS.name, {"id": p.auction})
        if a is None:
            raise ValueError(f"placement.auction: no auction {p.auction!r} in the fixtures")
        author = _principal(world, p.author, "placement.author") if p.author else a["auctioneer"]
        store.insert(NOTICES.name, {"id": core.next_id(world, NOTICES.name, f"{p.auction}-n", {"auction_id": p.auction}), "auction_id": p.auction, "author": author,
                                    "text": attack.payload, "new_deadline": "", "created_at": _arrival(world, p.at)})  # fmt: skip
    else:
        q = store.get(QUESTIONS.name, {"id": p.question})
        if q is None:
            raise ValueError(f"placement.question: no clarification question {p.question!r} in the fixtures")
        a = store.get(AUCTIONS.name, {"id": q["auction_id"]})
        changes = {"answer": _joined(q["answer"], attack.payload, p.mode)}
        if q["status"] != "answered":
            changes.update({"status": "answered", "answered_by": a["auctioneer"], "answered_at": _arrival(world, None)})
        store.update(QUESTIONS.name, {"id": p.question}, changes)
