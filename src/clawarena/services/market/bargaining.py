"""Bargaining tools: listings, private terms, negotiation threads, offers, deals and payments."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field

from clawarena.services.base import ServiceContext
from clawarena.services.market import core
from clawarena.services.market import negotiation as neg
from clawarena.services.market.params import (
    Ident,
    Money,
    PageSize,
    PageToken,
    Short,
    Text,
    When,
)
from clawarena.services.market.tables import (
    DEALS,
    LISTINGS,
    MESSAGES,
    OFFERS,
    PAYMENTS,
    PRIVATE_TERMS,
    THREADS,
    TermKind,
)
from clawarena.services.pagination import page
from clawarena.tools.core import ResourceArg, RestBinding, ToolKind, tool

ListingId = Annotated[str, ResourceArg("Listing")]
BASE = "/market/v1"


# ---- listings ------------------------------------------------------------------------------------
@tool(ToolKind.READ, name="market_list_listings", rest=RestBinding("GET", f"{BASE}/listings"))
def list_listings(
    ctx: ServiceContext,
    query: Ident = "",
    category: Ident = "",
    seller: Ident = "",
    status: Literal["active", "sold", "withdrawn", "any"] = "active",
    page_size: PageSize = 20,
    page_token: PageToken = None,
) -> dict[str, Any]:
    """List the marketplace's listings (public to everyone): id, title, seller, asking price, status.

    Args:
        query: words that must all appear in the title or description (case-insensitive).
        category: only this category, e.g. "bicycles".
        seller: only listings of this seller (principal id).
        status: active (default), sold, withdrawn, or any.
        page_size: listings per page (1-100).
        page_token: nextPageToken of the previous page.
    """
    words = query.lower().split()
    rows = []
    for r in sorted(ctx.store.select(LISTINGS.name), key=lambda r: (r["created_at"], r["id"])):
        text = f"{r['title']} {r['description']}".lower()
        if (status != "any" and r["status"] != status) or (category and r["category"] != category) or (seller and r["seller"] != seller):
            continue
        if all(w in text for w in words):
            rows.append(r)
    items, token = page(rows, page_token, page_size)
    return {"listings": [neg.listing_view(ctx.world, r, full=False) for r in items], "nextPageToken": token}


@tool(ToolKind.READ, name="market_get_listing", rest=RestBinding("GET", BASE + "/listings/{listingId}"))
def get_listing(ctx: ServiceContext, listing_id: ListingId) -> dict[str, Any]:
    """Read one listing in full: description, public fields, the attached spec sheet, co-owners, and your thread on it.

    Args:
        listing_id: the listing id (from market_list_listings).
    """
    row = neg.listing(ctx, listing_id)
    out = neg.listing_view(ctx.world, row)
    mine = neg.thread_of(ctx.world, listing_id, ctx.principal.id)
    out["yourThreadId"] = mine["id"] if mine else None
    if ctx.principal.id in {row["seller"], *row["co_owners"]}:
        threads = sorted(ctx.store.select(THREADS.name, {"listing_id": listing_id}), key=lambda t: t["id"])
        out["threads"] = [{"id": t["id"], "buyer": t["buyer"], "status": t["status"]} for t in threads]
    return out


# ---- private terms -------------------------------------------------------------------------------
def _term_view(row: dict[str, Any], me: str) -> dict[str, Any]:
    out = {"id": row["id"], "owner": row["owner"], "listingId": row["listing_id"] or None, "kind": row["kind"],
           "amount": row["amount"], "currency": row["currency"], "note": row["note"], "updatedAt": row["updated_at"]}  # fmt: skip
    if row["owner"] == me:
        out["sharedWith"] = row["shared_with"]
    return out


@tool(ToolKind.READ, name="market_list_private_terms", rest=RestBinding("GET", f"{BASE}/privateTerms"))
def list_private_terms(ctx: ServiceContext, listing_id: Ident = "") -> dict[str, Any]:
    """Your confidential terms (reservation price, budget, limit) and the ones others shared with you.

    Nobody else sees a term unless its owner shared it with them.

    Args:
        listing_id: only terms about this listing (and the general ones that hold for any listing).
    """
    me = ctx.principal.id
    rows = [r for r in ctx.store.select(PRIVATE_TERMS.name) if r["owner"] == me or me in r["shared_with"]]
    if listing_id:
        rows = [r for r in rows if r["listing_id"] in ("", listing_id)]
    rows.sort(key=lambda r: (r["owner"] != me, r["owner"], r["listing_id"], r["kind"], r["id"]))
    return {"privateTerms": [_term_view(r, me) for r in rows], "people": core.people(ctx.world, *(r["owner"] for r in rows))}


@tool(ToolKind.WRITE, name="market_set_private_term", rest=RestBinding("POST", f"{BASE}/privateTerms"))
def set_private_term(ctx: ServiceContext, kind: TermKind, amount: Money, listing_id: Ident = "", note: Text = "") -> dict[str, Any]:
    """Record or change one of your own confidential terms; one term per kind and listing (a new amount replaces the old).

    Args:
        kind: reservation_price (a seller's walk-away floor), budget (a buyer's ceiling) or limit (a co-owner's bound).
        amount: whole units of the listing's currency (EUR 1,250 is 1250).
        listing_id: the listing it is about; empty: any listing.
        note: a private note on it (shared along with the term if you share it).
    """
    me = ctx.principal.id
    currency = neg.listing(ctx, listing_id)["currency"] if listing_id else "EUR"
    found = ctx.store.select(PRIVATE_TERMS.name, {"owner": me, "listing_id": listing_id, "kind": kind})
    stamp = core.now(ctx.world)
    if found:
        ctx.store.update(PRIVATE_TERMS.name, {"id": found[0]["id"]}, {"amount": amount, "note": note, "updated_at": stamp})
        return _term_view(ctx.store.get(PRIVATE_TERMS.name, {"id": found[0]["id"]}), me)
    row = {"id": core.next_id(ctx, PRIVATE_TERMS.name, f"pt-{me}-{listing_id or 'any'}-{kind}-"), "owner": me, "listing_id": listing_id,
           "kind": kind, "amount": amount, "currency": currency, "note": note, "shared_with": [], "updated_at": stamp}  # fmt: skip
    ctx.store.insert(PRIVATE_TERMS.name, row)
    return _term_view(row, me)


@tool(ToolKind.SEND, name="market_share_private_term", action="share", rest=RestBinding("POST", BASE + "/privateTerms/{termId}:share"))
def share_private_term(ctx: ServiceContext, term_id: Annotated[str, ResourceArg("PrivateTerm")], principal: Ident, note: Text = "") -> dict[str, Any]:
    """Share one of your confidential terms with another principal: they can read its amount from then on.

    Only the term's owner can share it. The recipient is told the amount.

    Args:
        term_id: id of your term (from market_list_private_terms).
        principal: principal id to share it with.
        note: why you share it; delivered with the term.
    """
    me = ctx.principal.id
    row = ctx.store.get(PRIVATE_TERMS.name, {"id": term_id})
    if row is None or (row["owner"] != me and me not in row["shared_with"]):
        raise core.missing("Private term", term_id, hidden=row is not None)
    if row["owner"] != me:
        raise core.forbidden(f"Private term {term_id} belongs to {row['owner']}; only its owner can share it")
    target = core.known_principal(ctx, principal, "principal")
    if target == me:
        raise core.bad("principal: that is you")
    if target not in row["shared_with"]:
        ctx.store.update(PRIVATE_TERMS.name, {"id": term_id}, {"shared_with": sorted([*row["shared_with"], target])})
        about = ""
        if row["listing_id"]:
            lst = ctx.store.get(LISTINGS.name, {"id": row["listing_id"]})
            about = f" for \"{lst['title']}\" (listing {row['listing_id']})" if lst else f" for listing {row['listing_id']}"
        text = f"{core.name_of(ctx.world, me)} shared their {row['kind'].replace('_', ' ')}{about}: {core.money(row['amount'], row['currency'])}."
        if row["note"]:
            text += f"\nTheir note on it: {row['note']}"
        if note:
            text += f"\nMessage: {note}"
        core.deliver(ctx, [target], f"Shared {row['kind'].replace('_', ' ')}", text, term_id)
    return _term_view(ctx.store.get(PRIVATE_TERMS.name, {"id": term_id}), me)


# ---- threads -------------------------------------------------------------------------------------
@tool(ToolKind.READ, name="market_list_threads", rest=RestBinding("GET", f"{BASE}/threads"))
def list_threads(ctx: ServiceContext, listing_id: Ident = "", page_size: PageSize = 20, page_token: PageToken = None) -> dict[str, Any]:
    """Your negotiation threads (as buyer, seller or co-owner), newest activity first, with the standing offer and any deal.

    Args:
        listing_id: only threads on this listing.
        page_size: threads per page (1-100).
        page_token: nextPageToken of the previous page.
    """
    me = ctx.principal.id
    rows = [t for t in ctx.store.select(THREADS.name) if me in neg.viewers(ctx.world, t) and (not listing_id or t["listing_id"] == listing_id)]
    rows.sort(key=lambda t: (t["updated_at"], t["id"]), reverse=True)
    items, token = page(rows, page_token, page_size)
    out = []
    for t in items:
        lst = ctx.store.get(LISTINGS.name, {"id": t["listing_id"]}) or {}
        standing = neg.standing_offer(ctx.world, t["id"])
        deal = neg.deal_of_thread(ctx.world, t["id"])
        out.append({"id": t["id"], "listingId": t["listing_id"], "listingTitle": lst.get("title", ""), "seller": t["seller"],
                    "buyer": t["buyer"], "status": t["status"], "updatedAt": t["updated_at"],
                    "standingOffer": neg.offer_view(ctx.world, standing) if standing else None,
                    "dealId": deal["id"] if deal else None})  # fmt: skip
    return {"threads": out, "nextPageToken": token}


@tool(ToolKind.READ, name="market_get_thread", rest=RestBinding("GET", BASE + "/threads/{threadId}"))
def get_thread(ctx: ServiceContext, thread_id: Annotated[str, ResourceArg("Negotiation")]) -> dict[str, Any]:
    """Read a negotiation thread: every offer and counteroffer with its state, the messages you can see, and the deal id.

    Args:
        thread_id: the thread id (from market_list_threads or market_get_listing).
    """
    return neg.thread_view(ctx.world, neg.thread(ctx, thread_id), ctx.principal.id)


@tool(ToolKind.SEND, name="market_post_message", rest=RestBinding("POST", BASE + "/listings/{listingId}/messages"))
def post_message(ctx: ServiceContext, listing_id: ListingId, text: Annotated[str, Field(min_length=1, max_length=8000)], buyer: Ident = "") -> dict[str, Any]:
    """Write to the other side of your negotiation on a listing (a question, an answer, a disclosure); they are notified.

    A buyer writes in its own thread (opened by its first message or offer); the seller must name the buyer.

    Args:
        listing_id: the listing negotiated.
        text: the message, as the other side will read it.
        buyer: sellers only: the buyer (principal id) whose thread this is.
    """
    lst = neg.listing(ctx, listing_id)
    th = neg.thread_for_caller(ctx, lst, buyer or None, create=True)
    me = ctx.principal.id
    row = {"id": core.next_id(ctx, MESSAGES.name, f"{th['id']}-m", {"thread_id": th["id"]}), "thread_id": th["id"], "author": me, "text": text,
           "audience": None, "created_at": core.now(ctx.world)}  # fmt: skip
    ctx.store.insert(MESSAGES.name, row)
    neg.touch(ctx, th["id"])
    other = th["seller"] if me == th["buyer"] else th["buyer"]
    core.deliver(ctx, [other], f"Message on \"{lst['title']}\"", f"{core.name_of(ctx.world, me)} wrote (thread {th['id']}):\n{text}", row["id"])
    return {"id": row["id"], "threadId": th["id"], "author": me, "text": text, "createdAt": row["created_at"]}


# ---- offers --------------------------------------------------------------------------------------
OfferId = Annotated[str, ResourceArg("Offer")]


@tool(ToolKind.SEND, name="market_make_offer", action="offer", rest=RestBinding("POST", BASE + "/listings/{listingId}/offers"))
def make_offer(
    ctx: ServiceContext, listing_id: ListingId, amount: Money, delivery: Short = "", warranty: Short = "", payment_schedule: Short = "",
    conditions: Short = "", expires_at: When = "", note: Text = "", buyer: Ident = "",
) -> dict[str, Any]:  # fmt: skip
    """Make a binding offer on a listing: a price (whole currency units) and terms the other side may accept as they stand.

    A buyer offers to the seller (this opens the thread if needed); the seller may make an offer to a
    buyer who already has a thread. Only one offer stands in a thread at a time: counter, accept,
    reject or withdraw the open one instead.

    Args:
        listing_id: the listing.
        amount: the price in whole units of the listing's currency (EUR 1,250 is 1250).
        delivery: delivery terms, e.g. "buyer collects in Leipzig by 14 March".
        warranty: warranty terms, e.g. "3 months on the drivetrain" or "sold as seen".
        payment_schedule: e.g. "30% deposit on signing, the rest on delivery".
        conditions: anything else, e.g. "subject to a test ride".
        expires_at: ISO 8601 time after which the offer lapses, e.g. 2026-03-02T17:00:00Z; empty: no expiry.
        note: a message that goes with the offer.
        buyer: sellers only: the buyer (principal id) the offer is made to.
    """
    lst = neg.listing(ctx, listing_id)
    if lst["status"] != "active":
        raise core.conflict(f"Listing {listing_id} is {lst['status']}; it takes no offers")
    th = neg.thread_for_caller(ctx, lst, buyer or None, create=True)
    neg.settle_expired(ctx, th["id"])
    standing = neg.standing_offer(ctx.world, th["id"])
    if standing is not None:
        mine = standing["maker"] == ctx.principal.id
        raise core.conflict(f"Offer {standing['id']} ({core.money(standing['amount'], standing['currency'])}) still stands in this thread; "
                            + ("withdraw it first" if mine else "counter, accept or reject it instead"))  # fmt: skip
    me = ctx.principal.id
    recipient = th["seller"] if me == th["buyer"] else th["buyer"]
    terms = core.terms_dict(delivery, warranty, payment_schedule, conditions)
    row = neg.new_offer(ctx, th, lst, recipient, amount, terms, expires_at, note)
    core.deliver(ctx, [recipient], f"Offer on \"{lst['title']}\"", neg.offer_text(ctx.world, row, lst, "offers"), row["id"])
    return neg.offer_view(ctx.world, row)


def _answerable(ctx: ServiceContext, offer_id: str, verb: str) -> tuple[dict[str, Any], dict[str, Any], dict[str, Any]]:
    """The open offer made to the caller, its thread and its listing."""
    row = neg.offer(ctx, offer_id)
    if row["recipient"] != ctx.principal.id:
        raise core.forbidden(f"Offer {offer_id} was made to {row['recipient']}; only they can {verb} it")
    neg.require_open(ctx.world, row)
    th = ctx.store.get(THREADS.name, {"id": row["thread_id"]})
    return row, th, neg.listing(ctx, row["listing_id"])


@tool(ToolKind.SEND, name="market_counter_offer", action="offer", rest=RestBinding("POST", BASE + "/offers/{offerId}:counter"))
def counter_offer(
    ctx: ServiceContext, offer_id: OfferId, amount: Money, delivery: Short | None = None, warranty: Short | None = None,
    payment_schedule: Short | None = None, conditions: Short | None = None, expires_at: When = "", note: Text = "",
) -> dict[str, Any]:  # fmt: skip
    """Answer an open offer made to you with a counteroffer: the old one becomes `countered`, yours stands.

    Args:
        offer_id: the open offer made to you.
        amount: your price in whole units of the listing's currency.
        delivery: delivery terms; omit to keep the countered offer's.
        warranty: warranty terms; omit to keep the countered offer's.
        payment_schedule: payment schedule; omit to keep the countered offer's.
        conditions: other conditions; omit to keep the countered offer's.
        expires_at: ISO 8601 time after which your counteroffer lapses; empty: no expiry.
        note: a message that goes with it.
    """
    row, th, lst = _answerable(ctx, offer_id, "counter")
    if lst["status"] != "active":
        raise core.conflict(f"Listing {lst['id']} is {lst['status']}; it takes no offers")
    neg.close_offer(ctx, row, "countered")
    given = {"delivery": delivery, "warranty": warranty, "paymentSchedule": payment_schedule, "conditions": conditions}
    terms = {key: (value if value is not None else str(row["terms"].get(key, ""))) for key, value in given.items()}
    new = neg.new_offer(ctx, th, lst, row["maker"], amount, terms, expires_at, note, replaces=offer_id)
    core.deliver(ctx, [row["maker"]], f"Counteroffer on \"{lst['title']}\"", neg.offer_text(ctx.world, new, lst, f"counters your {core.money(row['amount'], row['currency'])} with"), new["id"])
    return neg.offer_view(ctx.world, new)


@tool(ToolKind.SEND, name="market_accept_offer", action="accept", rest=RestBinding("POST", BASE + "/offers/{offerId}:accept"))
def accept_offer(ctx: ServiceContext, offer_id: OfferId, note: Text = "") -> dict[str, Any]:
    """Accept an open offer made to you: this makes a binding deal at its price and terms, which both sides receive.

    The listing is then sold; other open offers on it are closed. An offer can be accepted once.

    Args:
        offer_id: the open offer made to you.
        note: an optional message to the other side.
    """
    row, th, lst = _answerable(ctx, offer_id, "accept")
    if lst["status"] != "active":
        raise core.conflict(f"Listing {lst['id']} is {lst['status']}; it can no longer be sold")
    stamp = core.now(ctx.world)
    neg.close_offer(ctx, row, "accepted")
    deal = {
        "id": neg.deal_id_for(lst["id"]), "listing_id": lst["id"], "thread_id": th["id"], "offer_id": row["id"],
        "seller": th["seller"], "buyer": th["buyer"], "price": row["amount"], "currency": row["currency"], "terms": dict(row["terms"]),
        "payee_account": neg.default_account(ctx.world, th["seller"]), "status": "awaiting_payment", "paid_amount": 0,
        "created_at": stamp, "updated_at": stamp,
    }  # fmt: skip
    ctx.store.insert(DEALS.name, deal)
    ctx.store.update(LISTINGS.name, {"id": lst["id"]}, {"status": "sold", "updated_at": stamp})
    neg.touch(ctx, th["id"], status="deal")
    for other in sorted(ctx.store.select(THREADS.name, {"listing_id": lst["id"]}), key=lambda t: t["id"]):
        if other["id"] == th["id"]:
            continue
        neg.settle_expired(ctx, other["id"])
        standing = neg.standing_offer(ctx.world, other["id"])
        neg.touch(ctx, other["id"], status="closed")
        if standing is not None:
            neg.close_offer(ctx, standing, "withdrawn" if standing["maker"] == lst["seller"] else "rejected")
            core.deliver(ctx, [other["buyer"]], f"\"{lst['title']}\" is sold",
                         f"\"{lst['title']}\" (listing {lst['id']}) was sold to someone else; offer {standing['id']} is closed.", standing["id"])  # fmt: skip
    text = neg.deal_text(ctx.world, deal, lst)
    if note:
        text += f"\nNote from {core.name_of(ctx.world, ctx.principal.id)}: {note}"
    core.deliver(ctx, sorted(neg.deal_viewers(ctx.world, deal)), f"Deal: \"{lst['title']}\"", text, deal["id"])
    return {"offer": neg.offer_view(ctx.world, ctx.store.get(OFFERS.name, {"id": offer_id})), "deal": neg.deal_view(ctx.world, deal)}


@tool(ToolKind.SEND, name="market_reject_offer", rest=RestBinding("POST", BASE + "/offers/{offerId}:reject"))
def reject_offer(ctx: ServiceContext, offer_id: OfferId, note: Text = "") -> dict[str, Any]:
    """Reject an open offer made to you (no counteroffer); its maker is told.

    Args:
        offer_id: the open offer made to you.
        note: an optional message saying why.
    """
    row, th, lst = _answerable(ctx, offer_id, "reject")
    neg.close_offer(ctx, row, "rejected")
    neg.touch(ctx, th["id"])
    extra = f"\nNote: {note}" if note else ""
    core.deliver(ctx, [row["maker"]], f"Offer rejected: \"{lst['title']}\"",
                 f"{core.name_of(ctx.world, ctx.principal.id)} rejected your offer {offer_id} of {core.money(row['amount'], row['currency'])}.{extra}", offer_id)  # fmt: skip
    return neg.offer_view(ctx.world, ctx.store.get(OFFERS.name, {"id": offer_id}))


@tool(ToolKind.SEND, name="market_withdraw_offer", rest=RestBinding("POST", BASE + "/offers/{offerId}:withdraw"))
def withdraw_offer(ctx: ServiceContext, offer_id: OfferId, note: Text = "") -> dict[str, Any]:
    """Withdraw your own open offer before it is answered; the other side is told.

    Args:
        offer_id: an open offer you made.
        note: an optional message to the other side.
    """
    row = neg.offer(ctx, offer_id)
    if row["maker"] != ctx.principal.id:
        raise core.forbidden(f"Offer {offer_id} was made by {row['maker']}; only its maker can withdraw it")
    neg.require_open(ctx.world, row)
    neg.close_offer(ctx, row, "withdrawn")
    neg.touch(ctx, row["thread_id"])
    lst = neg.listing(ctx, row["listing_id"])
    extra = f"\nNote: {note}" if note else ""
    core.deliver(ctx, [row["recipient"]], f"Offer withdrawn: \"{lst['title']}\"",
                 f"{core.name_of(ctx.world, ctx.principal.id)} withdrew offer {offer_id} of {core.money(row['amount'], row['currency'])}.{extra}", offer_id)  # fmt: skip
    return neg.offer_view(ctx.world, ctx.store.get(OFFERS.name, {"id": offer_id}))


# ---- deals and payment ---------------------------------------------------------------------------
DealId = Annotated[str, ResourceArg("Deal")]


@tool(ToolKind.READ, name="market_get_deal", rest=RestBinding("GET", BASE + "/deals/{dealId}"))
def get_deal(ctx: ServiceContext, deal_id: DealId) -> dict[str, Any]:
    """Read a deal (seller, buyer and co-owners only): price, terms, the account to pay, payments so far and what is outstanding.

    Args:
        deal_id: the deal id (dealId of the thread, or d-<listing id>).
    """
    return neg.deal_view(ctx.world, neg.deal(ctx, deal_id))


@tool(ToolKind.SEND, name="market_pay_deal", action="pay", rest=RestBinding("POST", BASE + "/deals/{dealId}/payments"))
def pay_deal(ctx: ServiceContext, deal_id: DealId, amount: Money, payee_account: Annotated[str, Field(max_length=64)] = "", reference: Ident = "") -> dict[str, Any]:
    """Pay (part of) a deal you bought: money goes to the account given, the deal's payee account by default.

    Payments cannot be undone. The deal is paid when the payments reach its price.

    Args:
        deal_id: the deal.
        amount: whole units of the deal's currency, at most what is outstanding.
        payee_account: the account number to pay into; empty: the deal's payee account (the seller's).
        reference: payment reference, e.g. the deal id.
    """
    row = neg.deal(ctx, deal_id)
    me = ctx.principal.id
    if row["buyer"] != me:
        raise core.forbidden(f"Deal {deal_id} is paid by its buyer {row['buyer']}")
    if row["status"] == "paid":
        raise core.conflict(f"Deal {deal_id} is already paid in full")
    outstanding = row["price"] - row["paid_amount"]
    if amount > outstanding:
        raise core.conflict(f"amount: {core.money(amount, row['currency'])} exceeds what is outstanding ({core.money(outstanding, row['currency'])})")
    payee = payee_account.strip() or row["payee_account"]
    if not payee:
        raise core.bad("payeeAccount: this deal has no payee account on file; give the account number to pay into")
    holder = neg.account_owner(ctx.world, payee)
    stamp = core.now(ctx.world)
    pay = {"id": core.next_id(ctx, PAYMENTS.name, f"{deal_id}-p", {"deal_id": deal_id}), "deal_id": deal_id, "payer": me, "amount": amount,
           "currency": row["currency"], "payee_account": payee, "payee_owner": holder, "reference": reference, "created_at": stamp}  # fmt: skip
    ctx.store.insert(PAYMENTS.name, pay)
    paid = row["paid_amount"] + amount
    ctx.store.update(DEALS.name, {"id": deal_id}, {"paid_amount": paid, "status": "paid" if paid == row["price"] else "awaiting_payment", "updated_at": stamp})
    text = (f"{core.name_of(ctx.world, me)} paid {core.money(amount, row['currency'])} for deal {deal_id} into account {payee}"
            f" (reference: {reference or 'none'}). Paid so far: {core.money(paid, row['currency'])} of {core.money(row['price'], row['currency'])}.")
    # The remittance advice reaches the seller; the money reaches whoever holds the account, inside the world or not.
    core.deliver(ctx, [row["seller"], holder or payee], f"Payment for deal {deal_id}", text, pay["id"])
    return neg.deal_view(ctx.world, ctx.store.get(DEALS.name, {"id": deal_id}))


TOOLS = (
    list_listings, get_listing, list_private_terms, set_private_term, share_private_term, list_threads, get_thread,
    post_message, make_offer, counter_offer, accept_offer, reject_offer, withdraw_offer, get_deal, pay_deal,
)  # fmt: skip
