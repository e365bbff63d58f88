"""The bargaining rules shared by tools and seeding: who sees a listing's threads, offers' states, deals.

A thread is one buyer's negotiation over one listing with its seller. Its viewers are the buyer,
the seller and the listing's co-owners (parties to the sale, who read but do not negotiate). One
offer stands in a thread at a time; an open offer past its expiry reads as `expired` everywhere
and is written so when the thread next changes.
"""

from __future__ import annotations

from typing import Any

from clawarena.services.base import ServiceContext
from clawarena.services.market import core
from clawarena.services.market.tables import (
    ACCOUNTS,
    DEALS,
    LISTINGS,
    MESSAGES,
    OFFERS,
    PAYMENTS,
    THREADS,
)
from clawarena.world.world import World


# ---- listings ------------------------------------------------------------------------------------
def listing(ctx: ServiceContext, listing_id: str) -> dict[str, Any]:
    """Listings are public: any principal may read one."""
    return core.row_or_404(ctx, LISTINGS.name, "Listing", listing_id)


def listing_view(world: World, row: dict[str, Any], full: bool = True) -> dict[str, Any]:
    out: dict[str, Any] = {
        "id": row["id"], "title": row["title"], "seller": row["seller"], "category": row["category"],
        "askingPrice": row["asking_price"], "currency": row["currency"], "status": row["status"],
    }  # fmt: skip
    if full:
        out.update({"description": row["description"], "fields": row["fields"], "specSheet": row["spec_sheet"],
                    "coOwners": row["co_owners"], "createdAt": row["created_at"], "updatedAt": row["updated_at"]})  # fmt: skip
        out["people"] = core.people(world, row["seller"], *row["co_owners"])
    return out


# ---- threads -------------------------------------------------------------------------------------
def viewers(world: World, thread: dict[str, Any]) -> set[str]:
    lst = world.store.get(LISTINGS.name, {"id": thread["listing_id"]}) or {"co_owners": []}
    return {thread["buyer"], thread["seller"], *lst["co_owners"]}


def thread(ctx: ServiceContext, thread_id: str) -> dict[str, Any]:
    row = ctx.store.get(THREADS.name, {"id": thread_id})
    if row is None or ctx.principal.id not in viewers(ctx.world, row):
        raise core.missing("Negotiation", thread_id, hidden=row is not None)
    return row


def thread_of(world: World, listing_id: str, buyer: str) -> dict[str, Any] | None:
    rows = world.store.select(THREADS.name, {"listing_id": listing_id, "buyer": buyer})
    return rows[0] if rows else None


def thread_id_for(listing_id: str, buyer: str) -> str:
    return f"t-{listing_id}-{buyer}"


def open_thread(ctx: ServiceContext, lst: dict[str, Any], buyer: str) -> dict[str, Any]:
    found = thread_of(ctx.world, lst["id"], buyer)
    if found is not None:
        return found
    stamp = core.now(ctx.world)
    row = {"id": thread_id_for(lst["id"], buyer), "listing_id": lst["id"], "seller": lst["seller"], "buyer": buyer,
           "status": "open", "created_at": stamp, "updated_at": stamp}  # fmt: skip
    ctx.store.insert(THREADS.name, row)
    return row


def thread_for_caller(ctx: ServiceContext, lst: dict[str, Any], buyer: str | None, create: bool) -> dict[str, Any]:
    """The thread the caller writes in on a listing: a buyer's own (opened if `create`), or the seller's with `buyer`."""
    me = ctx.principal.id
    if me == lst["seller"]:
        if not buyer:
            raise core.bad("buyer: as the seller, name the buyer whose negotiation this is")
        core.known_principal(ctx, buyer, "buyer")
        found = thread_of(ctx.world, lst["id"], buyer)
        if found is None:
            raise core.missing("Negotiation", f"{buyer} on {lst['id']}")
        return found
    if me in lst["co_owners"]:
        raise core.forbidden(f"You co-own listing {lst['id']}; only its seller {lst['seller']} negotiates on it")
    if buyer and buyer != me:
        raise core.bad(f"buyer: only the seller names a buyer; you negotiate for yourself ({me})")
    found = thread_of(ctx.world, lst["id"], me)
    if found is None and not create:
        raise core.missing("Negotiation", f"{me} on {lst['id']}")
    return found or open_thread(ctx, lst, me)


def message_visible(msg: dict[str, Any], who: str) -> bool:
    return msg["audience"] is None or who in msg["audience"] or msg["author"] == who


def thread_view(world: World, row: dict[str, Any], who: str) -> dict[str, Any]:
    lst = world.store.get(LISTINGS.name, {"id": row["listing_id"]}) or {}
    offers = sorted(world.store.select(OFFERS.name, {"thread_id": row["id"]}), key=lambda o: (o["created_at"], o["id"]))
    msgs = [m for m in world.store.select(MESSAGES.name, {"thread_id": row["id"]}) if message_visible(m, who)]
    msgs.sort(key=lambda m: (m["created_at"], m["id"]))
    deal = deal_of_thread(world, row["id"])
    authors = [m["author"] for m in msgs]
    return {
        "id": row["id"], "listingId": row["listing_id"], "listingTitle": lst.get("title", ""),
        "askingPrice": lst.get("asking_price"), "currency": lst.get("currency", ""),
        "seller": row["seller"], "buyer": row["buyer"], "status": row["status"],
        "offers": [offer_view(world, o) for o in offers],
        "messages": [{"id": m["id"], "author": m["author"], "text": m["text"], "createdAt": m["created_at"]} for m in msgs],
        "dealId": deal["id"] if deal else None,
        "people": core.people(world, row["seller"], row["buyer"], *lst.get("co_owners", []), *authors),
        "createdAt": row["created_at"], "updatedAt": row["updated_at"],
    }  # fmt: skip


def touch(ctx: ServiceContext, thread_id: str, **changes: Any) -> None:
    ctx.store.update(THREADS.name, {"id": thread_id}, {"updated_at": core.now(ctx.world), **changes})


# ---- offers --------------------------------------------------------------------------------------
def status_of(world: World, offer: dict[str, Any]) -> str:
    """The offer's state now: an open offer whose expiry has come is expired."""
    if offer["status"] == "open" and core.is_past(world, offer["expires_at"]):
        return "expired"
    return offer["status"]


def offer_view(world: World, row: dict[str, Any]) -> dict[str, Any]:
    return {
        "id": row["id"], "threadId": row["thread_id"], "listingId": row["listing_id"], "from": row["maker"],
        "to": row["recipient"], "amount": row["amount"], "currency": row["currency"], "terms": row["terms"],
        "note": row["note"], "status": status_of(world, row), "expiresAt": row["expires_at"] or None,
        "counters": row["replaces"] or None, "createdAt": row["created_at"], "closedAt": row["closed_at"] or None,
    }  # fmt: skip


def offer(ctx: ServiceContext, offer_id: str) -> dict[str, Any]:
    row = ctx.store.get(OFFERS.name, {"id": offer_id})
    th = ctx.store.get(THREADS.name, {"id": row["thread_id"]}) if row else None
    if row is None or th is None or ctx.principal.id not in viewers(ctx.world, th):
        raise core.missing("Offer", offer_id, hidden=row is not None)
    return row


def settle_expired(ctx: ServiceContext, thread_id: str) -> None:
    """Write down the expiry of the thread's lapsed offers (they already read as expired)."""
    for o in ctx.store.select(OFFERS.name, {"thread_id": thread_id, "status": "open"}):
        if core.is_past(ctx.world, o["expires_at"]):
            ctx.store.update(OFFERS.name, {"id": o["id"]}, {"status": "expired", "closed_at": o["expires_at"]})


def standing_offer(world: World, thread_id: str) -> dict[str, Any] | None:
    for o in world.store.select(OFFERS.name, {"thread_id": thread_id}):
        if status_of(world, o) == "open":
            return o
    return None


def require_open(world: World, row: dict[str, Any]) -> None:
    state = status_of(world, row)
    if state != "open":
        when = f" at {row['expires_at']}" if state == "expired" else ""
        raise core.conflict(f"Offer {row['id']} is {state}{when}; only an open offer can be answered")


def close_offer(ctx: ServiceContext, row: dict[str, Any], status: str) -> None:
    ctx.store.update(OFFERS.name, {"id": row["id"]}, {"status": status, "closed_at": core.now(ctx.world)})


def offer_text(world: World, row: dict[str, Any], lst: dict[str, Any], verb: str) -> str:
    lines = [
        (f"{core.name_of(world, row['maker'])} {verb} {core.money(row['amount'], row['currency'])} for \"{lst['title']}\" "
         f"(listing {lst['id']}, asking {core.money(lst['asking_price'], lst['currency'])})."),
        f"Terms: {core.terms_text(row['terms'])}.",
        f"Expires: {row['expires_at'] or 'no expiry'}. Offer id: {row['id']}.",
    ]
    if row["note"]:
        lines.append(f"Note: {row['note']}")
    return "\n".join(lines)


def new_offer(ctx: ServiceContext, th: dict[str, Any], lst: dict[str, Any], recipient: str, amount: int, terms: dict[str, str],
              expires_at: str, note: str, replaces: str = "") -> dict[str, Any]:  # fmt: skip
    expires = core.future_time(ctx, expires_at, "expires_at") if expires_at else ""
    row = {
        "id": core.next_id(ctx, OFFERS.name, f"{th['id']}-o", {"thread_id": th["id"]}), "thread_id": th["id"], "listing_id": lst["id"],
        "maker": ctx.principal.id, "recipient": recipient, "amount": amount, "currency": lst["currency"], "terms": terms,
        "note": note, "status": "open", "expires_at": expires, "replaces": replaces,
        "created_at": core.now(ctx.world), "closed_at": "",
    }  # fmt: skip
    ctx.store.insert(OFFERS.name, row)
    touch(ctx, th["id"])
    return row


# ---- deals ---------------------------------------------------------------------------------------
def deal_id_for(listing_id: str) -> str:
    return f"d-{listing_id}"  # a listing is sold once


def deal_of_thread(world: World, thread_id: str) -> dict[str, Any] | None:
    rows = world.store.select(DEALS.name, {"thread_id": thread_id})
    return rows[0] if rows else None


def deal_viewers(world: World, deal: dict[str, Any]) -> set[str]:
    lst = world.store.get(LISTINGS.name, {"id": deal["listing_id"]}) or {"co_owners": []}
    return {deal["seller"], deal["buyer"], *lst["co_owners"]}


def deal(ctx: ServiceContext, deal_id: str) -> dict[str, Any]:
    row = ctx.store.get(DEALS.name, {"id": deal_id})
    if row is None or ctx.principal.id not in deal_viewers(ctx.world, row):
        raise core.missing("Deal", deal_id, hidden=row is not None)
    return row


def default_account(world: World, owner: str) -> str:
    rows = sorted(world.store.select(ACCOUNTS.name, {"owner": owner}), key=lambda a: (not a["is_default"], a["id"]))
    return rows[0]["number"] if rows else ""


def normalise_account(number: str) -> str:
    return "".join(number.split()).upper()


def account_owner(world: World, number: str) -> str:
    wanted = normalise_account(number)
    for a in sorted(world.store.select(ACCOUNTS.name), key=lambda a: a["id"]):
        if normalise_account(a["number"]) == wanted:
            return a["owner"]
    return ""


def deal_view(world: World, row: dict[str, Any]) -> dict[str, Any]:
    lst = world.store.get(LISTINGS.name, {"id": row["listing_id"]}) or {}
    pays = sorted(world.store.select(PAYMENTS.name, {"deal_id": row["id"]}), key=lambda p: (p["created_at"], p["id"]))
    return {
        "id": row["id"], "listingId": row["listing_id"], "listingTitle": lst.get("title", ""), "threadId": row["thread_id"] or None,
        "offerId": row["offer_id"] or None, "seller": row["seller"], "buyer": row["buyer"], "price": row["price"],
        "currency": row["currency"], "terms": row["terms"], "payeeAccount": row["payee_account"] or None,
        "status": row["status"], "paidAmount": row["paid_amount"], "outstanding": row["price"] - row["paid_amount"],
        "payments": [{"id": p["id"], "payer": p["payer"], "amount": p["amount"], "currency": p["currency"],
                      "payeeAccount": p["payee_account"], "reference": p["reference"], "createdAt": p["created_at"]} for p in pays],
        "people": core.people(world, row["seller"], row["buyer"], *lst.get("co_owners", [])),
        "createdAt": row["created_at"], "updatedAt": row["updated_at"],
    }  # fmt: skip


def deal_text(world: World, row: dict[str, Any], lst: dict[str, Any]) -> str:
    return "\n".join([
        (f"Deal {row['id']}: {core.name_of(world, row['seller'])} sells \"{lst['title']}\" to {core.name_of(world, row['buyer'])} "
         f"for {core.money(row['price'], row['currency'])}."),
        f"Terms: {core.terms_text(row['terms'])}.",
        f"Payment to: {row['payee_account'] or 'no account on file; the seller will provide one'}.",
    ])  # fmt: skip
