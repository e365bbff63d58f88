"""Fixture rows into the world, checked as the tools would check them; errors name the fixture field."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from clawarena.services.market import core
from clawarena.services.market import negotiation as neg
from clawarena.services.market import tendering as td
from clawarena.services.market.tables import (
    ACCOUNTS,
    AUCTIONS,
    AWARDS,
    BIDS,
    DEALS,
    LISTINGS,
    MESSAGES,
    NOTICES,
    OFFERS,
    PRIVATE_TERMS,
    QUESTIONS,
    THREADS,
    MarketFixtures,
)  # fmt: skip
from clawarena.world.world import World


class _Seeder:
    def __init__(self, world: World):
        self.world = world
        self.store = world.store

    def when(self, value: str | None, index: int, total: int, minutes: int) -> str:
        """The fixture's time, or a time before the world's start that keeps the fixture order."""
        if value:
            return core.iso(core.at(value))
        return core.iso(self.world.clock.now() - timedelta(minutes=minutes * (total - index)))

    def principal(self, pid: str, where: str) -> str:
        if pid not in self.world.directory.principals:
            raise ValueError(f"{where}: unknown principal {pid!r}")
        return pid

    def unique(self, table: str, ident: str, where: str) -> None:
        if self.store.get(table, {"id": ident}) is not None:
            raise ValueError(f"{where}.id: duplicate id {ident!r}")

    def row(self, table: str, ident: str, where: str, kind: str) -> dict[str, Any]:
        found = self.store.get(table, {"id": ident})
        if found is None:
            raise ValueError(f"{where}: no {kind} {ident!r} in the fixtures")
        return found

    # ---- bargaining ------------------------------------------------------------------------------
    def accounts(self, data: MarketFixtures) -> None:
        for i, a in enumerate(data.accounts):
            where = f"accounts[{i}]"
            self.unique(ACCOUNTS.name, a.id, where)
            owner = self.principal(a.owner, f"{where}.owner")
            holder = a.holder or core.name_of(self.world, owner)
            self.store.insert(ACCOUNTS.name, {"id": a.id, "owner": owner, "holder": holder, "number": a.number, "is_default": a.default})

    def listings(self, data: MarketFixtures) -> None:
        n = len(data.listings)
        for i, f in enumerate(data.listings):
            where = f"listings[{i}]"
            self.unique(LISTINGS.name, f.id, where)
            self.principal(f.seller, f"{where}.seller")
            for j, c in enumerate(f.co_owners):
                self.principal(c, f"{where}.co_owners[{j}]")
                if c == f.seller:
                    raise ValueError(f"{where}.co_owners[{j}]: {c} is the seller")
            stamp = self.when(f.created_at, i, n, 24 * 60)
            self.store.insert(LISTINGS.name, {
                "id": f.id, "seller": f.seller, "title": f.title, "description": f.description, "category": f.category,
                "asking_price": f.asking_price, "currency": f.currency, "fields": dict(f.fields), "spec_sheet": f.spec_sheet,
                "co_owners": sorted(set(f.co_owners)), "status": f.status, "created_at": stamp, "updated_at": stamp,
            })  # fmt: skip

    def private_terms(self, data: MarketFixtures) -> None:
        for i, t in enumerate(data.private_terms):
            where = f"private_terms[{i}]"
            self.unique(PRIVATE_TERMS.name, t.id, where)
            self.principal(t.owner, f"{where}.owner")
            if t.listing:
                self.row(LISTINGS.name, t.listing, f"{where}.listing", "listing")
            if self.store.select(PRIVATE_TERMS.name, {"owner": t.owner, "listing_id": t.listing, "kind": t.kind}):
                raise ValueError(f"{where}: {t.owner} already has a {t.kind} for {t.listing or 'any listing'}")
            for j, p in enumerate(t.shared_with):
                self.principal(p, f"{where}.shared_with[{j}]")
            self.store.insert(PRIVATE_TERMS.name, {
                "id": t.id, "owner": t.owner, "listing_id": t.listing, "kind": t.kind, "amount": t.amount, "currency": t.currency,
                "note": t.note, "shared_with": sorted(set(t.shared_with) - {t.owner}), "updated_at": core.now(self.world),
            })  # fmt: skip

    def threads(self, data: MarketFixtures) -> None:
        n = len(data.threads)
        for i, t in enumerate(data.threads):
            where = f"threads[{i}]"
            self.unique(THREADS.name, t.id, where)
            lst = self.row(LISTINGS.name, t.listing, f"{where}.listing", "listing")
            self.principal(t.buyer, f"{where}.buyer")
            if t.buyer == lst["seller"] or t.buyer in lst["co_owners"]:
                raise ValueError(f"{where}.buyer: {t.buyer} sells or co-owns {t.listing}")
            if neg.thread_of(self.world, t.listing, t.buyer) is not None:
                raise ValueError(f"{where}: {t.buyer} already has a thread on {t.listing}")
            stamp = self.when(t.created_at, i, n, 12 * 60)
            self.store.insert(THREADS.name, {"id": t.id, "listing_id": t.listing, "seller": lst["seller"], "buyer": t.buyer,
                                             "status": "open", "created_at": stamp, "updated_at": stamp})  # fmt: skip

    def messages(self, data: MarketFixtures) -> None:
        n = len(data.messages)
        for i, m in enumerate(data.messages):
            where = f"messages[{i}]"
            self.unique(MESSAGES.name, m.id, where)
            th = self.row(THREADS.name, m.thread, f"{where}.thread", "thread")
            self.principal(m.author, f"{where}.author")
            self.store.insert(MESSAGES.name, {"id": m.id, "thread_id": th["id"], "author": m.author, "text": m.text,
                                              "audience": self.audience(th, m.audience, f"{where}.audience"),
                                              "created_at": self.when(m.at, i, n, 30)})  # fmt: skip

    def audience(self, th: dict[str, Any], audience: list[str] | None, where: str) -> list[str] | None:
        if audience is None:
            return None
        seen = neg.viewers(self.world, th)
        for j, p in enumerate(audience):
            self.principal(p, f"{where}[{j}]")
            if p not in seen:
                raise ValueError(f"{where}[{j}]: {p} does not see thread {th['id']} (its viewers: {', '.join(sorted(seen))})")
        return sorted(set(audience))

    def offers(self, data: MarketFixtures) -> None:
        n = len(data.offers)
        for i, o in enumerate(data.offers):
            where = f"offers[{i}]"
            self.unique(OFFERS.name, o.id, where)
            th = self.row(THREADS.name, o.thread, f"{where}.thread", "thread")
            lst = self.store.get(LISTINGS.name, {"id": th["listing_id"]})
            if o.maker not in (th["buyer"], th["seller"]):
                raise ValueError(f"{where}.maker: {o.maker} is neither the buyer ({th['buyer']}) nor the seller ({th['seller']}) of {th['id']}")
            if o.replaces:
                old = self.row(OFFERS.name, o.replaces, f"{where}.replaces", "offer")
                if old["thread_id"] != th["id"]:
                    raise ValueError(f"{where}.replaces: offer {o.replaces} is in another thread")
            stamp = self.when(o.at, i, n, 20)
            expires = core.iso(core.at(o.expires_at)) if o.expires_at else ""
            if o.status == "open":
                if lst["status"] != "active":
                    raise ValueError(f"{where}.status: listing {lst['id']} is {lst['status']}, so no offer on it can be open")
                if neg.standing_offer(self.world, th["id"]) is not None:
                    raise ValueError(f"{where}.status: thread {th['id']} already has an open offer (one stands at a time)")
            self.store.insert(OFFERS.name, {
                "id": o.id, "thread_id": th["id"], "listing_id": th["listing_id"], "maker": o.maker,
                "recipient": th["seller"] if o.maker == th["buyer"] else th["buyer"], "amount": o.amount, "currency": lst["currency"],
                "terms": core.terms_dict(**o.terms.model_dump()), "note": o.note, "status": o.status, "expires_at": expires, "replaces": o.replaces,
                "created_at": stamp, "closed_at": "" if o.status == "open" else stamp,
            })  # fmt: skip

    def deals(self, data: MarketFixtures) -> None:
        n = len(data.deals)
        for i, d in enumerate(data.deals):
            where = f"deals[{i}]"
            self.unique(DEALS.name, d.id, where)
            lst = self.row(LISTINGS.name, d.listing, f"{where}.listing", "listing")
            self.principal(d.buyer, f"{where}.buyer")
            if d.buyer == lst["seller"] or d.buyer in lst["co_owners"]:
                raise ValueError(f"{where}.buyer: {d.buyer} sells or co-owns {d.listing}")
            if self.store.select(DEALS.name, {"listing_id": d.listing}):
                raise ValueError(f"{where}.listing: {d.listing} is already sold in another deal")
            stamp = self.when(d.at, i, n, 60)
            th = neg.thread_of(self.world, d.listing, d.buyer)
            if th is None:
                th = {"id": neg.thread_id_for(d.listing, d.buyer)}
                self.store.insert(THREADS.name, {"id": th["id"], "listing_id": d.listing, "seller": lst["seller"], "buyer": d.buyer,
                                                 "status": "deal", "created_at": stamp, "updated_at": stamp})  # fmt: skip
            else:
                self.store.update(THREADS.name, {"id": th["id"]}, {"status": "deal"})
            self.store.update(LISTINGS.name, {"id": d.listing}, {"status": "sold"})
            self.store.insert(DEALS.name, {
                "id": d.id, "listing_id": d.listing, "thread_id": th["id"], "offer_id": "", "seller": lst["seller"], "buyer": d.buyer,
                "price": d.price, "currency": lst["currency"], "terms": core.terms_dict(**d.terms.model_dump()),
                "payee_account": d.payee_account or neg.default_account(self.world, lst["seller"]), "status": "awaiting_payment",
                "paid_amount": 0, "created_at": stamp, "updated_at": stamp,
            })  # fmt: skip

    # ---- bidding ---------------------------------------------------------------------------------
    def auctions(self, data: MarketFixtures) -> None:
        n = len(data.auctions)
        for i, a in enumerate(data.auctions):
            where = f"auctions[{i}]"
            self.unique(AUCTIONS.name, a.id, where)
            self.principal(a.auctioneer, f"{where}.auctioneer")
            officials = {a.auctioneer, *a.evaluators, *([a.countersigner] if a.countersigner else [])}
            for field in ("invited", "evaluators"):
                for j, p in enumerate(getattr(a, field)):
                    self.principal(p, f"{where}.{field}[{j}]")
            for j, p in enumerate(a.invited):
                if p in officials:
                    raise ValueError(f"{where}.invited[{j}]: {p} is an official of the auction and may not bid")
            if a.countersigner:
                self.principal(a.countersigner, f"{where}.countersigner")
                if a.countersigner == a.auctioneer:
                    raise ValueError(f"{where}.countersigner: the second signatory must be someone other than the auctioneer")
            if a.format == "open" and a.award_rule == "best_score":
                raise ValueError(f"{where}.award_rule: an open auction is won on price (highest_price or lowest_price)")
            deadline = core.iso(core.at(a.deadline))
            stamp = self.when(a.created_at, i, n, 3 * 24 * 60)
            self.store.insert(AUCTIONS.name, {
                "id": a.id, "auctioneer": a.auctioneer, "kind": a.kind, "title": a.title, "description": a.description,
                "format": a.format, "award_rule": a.award_rule, "reserve": a.reserve, "currency": a.currency, "deadline": deadline,
                "disclosure": a.disclosure, "invited": sorted(set(a.invited)), "evaluators": sorted(set(a.evaluators)),
                "countersigner": a.countersigner or "", "min_increment": a.min_increment,
                "status": "closed" if core.is_past(self.world, deadline) else "open", "created_at": stamp, "updated_at": stamp,
            })  # fmt: skip

    def bids(self, data: MarketFixtures) -> None:
        n = len(data.bids)
        for i, b in enumerate(data.bids):
            where = f"bids[{i}]"
            self.unique(BIDS.name, b.id, where)
            a = self.row(AUCTIONS.name, b.auction, f"{where}.auction", "auction")
            self.principal(b.bidder, f"{where}.bidder")
            if b.bidder in td.officials(a):
                raise ValueError(f"{where}.bidder: {b.bidder} is an official of {a['id']} and may not bid")
            if a["invited"] and b.bidder not in a["invited"]:
                raise ValueError(f"{where}.bidder: {b.bidder} is not invited to {a['id']}")
            stamp = self.when(b.at, i, n, 45)
            if core.at(stamp) >= core.at(a["deadline"]):
                raise ValueError(f"{where}.at: {stamp} is not before the deadline {a['deadline']} (a late bid is refused)")
            closed = a["status"] != "open"
            if b.score is not None and not closed:
                raise ValueError(f"{where}.score: bids are scored after the deadline, and {a['id']} is still open")
            for old in self.store.select(BIDS.name, {"auction_id": a["id"], "bidder": b.bidder, "status": "submitted"}):
                self.store.update(BIDS.name, {"id": old["id"]}, {"status": "superseded"})
            self.store.insert(BIDS.name, {
                "id": b.id, "auction_id": a["id"], "bidder": b.bidder, "amount": b.amount, "currency": a["currency"],
                "proposal": b.proposal, "status": "submitted",
                "sensitivity": "confidential" if a["format"] == "sealed" and not closed else "internal",
                "score": b.score, "score_note": "", "scored_by": a["auctioneer"] if b.score is not None else "", "submitted_at": stamp,
            })  # fmt: skip

    def questions(self, data: MarketFixtures) -> None:
        n = len(data.questions)
        for i, q in enumerate(data.questions):
            where = f"questions[{i}]"
            self.unique(QUESTIONS.name, q.id, where)
            a = self.row(AUCTIONS.name, q.auction, f"{where}.auction", "auction")
            self.principal(q.asker, f"{where}.asker")
            if q.asker in td.officials(a) or (a["invited"] and q.asker not in a["invited"]):
                raise ValueError(f"{where}.asker: {q.asker} is not a bidder of {a['id']}")
            stamp = self.when(q.at, i, n, 90)
            self.store.insert(QUESTIONS.name, {
                "id": q.id, "auction_id": a["id"], "asker": q.asker, "question": q.question, "answer": q.answer,
                "answered_by": a["auctioneer"] if q.answer else "", "status": "answered" if q.answer else "open",
                "created_at": stamp, "answered_at": stamp if q.answer else "",
            })  # fmt: skip

    def notices(self, data: MarketFixtures) -> None:
        n = len(data.notices)
        for i, x in enumerate(data.notices):
            where = f"notices[{i}]"
            self.unique(NOTICES.name, x.id, where)
            a = self.row(AUCTIONS.name, x.auction, f"{where}.auction", "auction")
            self.principal(x.author, f"{where}.author")
            self.store.insert(NOTICES.name, {"id": x.id, "auction_id": a["id"], "author": x.author, "text": x.text, "new_deadline": "",
                                             "created_at": self.when(x.at, i, n, 60)})  # fmt: skip

    def awards(self, data: MarketFixtures) -> None:
        n = len(data.awards)
        for i, w in enumerate(data.awards):
            where = f"awards[{i}]"
            self.unique(AWARDS.name, w.id, where)
            b = self.row(BIDS.name, w.bid, f"{where}.bid", "bid")
            a = self.store.get(AUCTIONS.name, {"id": b["auction_id"]})
            if a["status"] == "open":
                raise ValueError(f"{where}.bid: auction {a['id']} is still open until {a['deadline']}; it cannot be awarded yet")
            if b["status"] != "submitted":
                raise ValueError(f"{where}.bid: bid {b['id']} was superseded by a later bid")
            if td.current_award(self.world, a["id"]) is not None:
                raise ValueError(f"{where}.bid: auction {a['id']} already has an award")
            if w.status == "pending_countersign" and not a["countersigner"]:
                raise ValueError(f"{where}.status: auction {a['id']} names no countersigner, so its award cannot await one")
            stamp = self.when(w.at, i, n, 30)
            self.store.insert(AWARDS.name, {
                "id": w.id, "auction_id": a["id"], "bid_id": b["id"], "winner": b["bidder"], "amount": b["amount"], "currency": b["currency"],
                "rule": a["award_rule"], "rationale": w.rationale, "status": w.status, "awarded_by": a["auctioneer"],
                "countersigner": a["countersigner"], "countersign_note": "", "created_at": stamp,
                "decided_at": stamp if w.status == "final" else "",
            })  # fmt: skip
            if w.status == "final":
                self.store.update(AUCTIONS.name, {"id": a["id"]}, {"status": "awarded"})


STEPS = ("accounts", "listings", "private_terms", "threads", "messages", "offers", "deals", "auctions", "bids", "questions", "notices", "awards")


def seed(world: World, fixture: dict[str, Any]) -> None:
    data = MarketFixtures.model_validate(fixture)
    seeder = _Seeder(world)
    for step in STEPS:
        getattr(seeder, step)(data)
