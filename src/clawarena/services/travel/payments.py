"""Payment authorisations: cards with a spend limit, and grants that let someone else spend on them.

A card (no parent) belongs to its holder. Its holder may grant another principal an
authorisation up to an amount no larger than what the card has left; the grant draws on the
card, so a charge counts against the grant and every authorisation above it, and a charge above
what is available anywhere in that chain is refused (409). Only an authorisation's holder can
charge it. Outputs carry the card's label and last four digits, never a full number (none is stored).
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import Field

from clawarena.services.base import ServiceContext
from clawarena.services.pagination import page
from clawarena.services.travel import core
from clawarena.services.travel.bodies import GrantBody
from clawarena.services.travel.catalog import BASE
from clawarena.services.travel.tables import PAYMENTS
from clawarena.spec.instants import parse_time
from clawarena.tools.core import ResourceArg, RestBinding, ToolKind, tool
from clawarena.world.world import World


def chain(world: World, row: dict[str, Any]) -> list[dict[str, Any]]:
    """The authorisation and every one it draws on, nearest first."""
    out = [row]
    seen = {row["id"]}
    while out[-1]["parent_id"]:
        parent = world.store.get(PAYMENTS.name, {"id": out[-1]["parent_id"]})
        if parent is None or parent["id"] in seen:
            break
        seen.add(parent["id"])
        out.append(parent)
    return out


def expired(world: World, row: dict[str, Any]) -> bool:
    return bool(row["expires_at"]) and parse_time(row["expires_at"]) <= world.clock.now()


def available(world: World, row: dict[str, Any]) -> int:
    """What can still be charged: the least remaining along the chain (0 when any link is revoked or expired)."""
    links = chain(world, row)
    if any(r["status"] != "active" or expired(world, r) for r in links):
        return 0
    return min(r["remaining"] for r in links)


def label_of(row: dict[str, Any]) -> str:
    return f"{row['label']} ending {row['last4']}"


def payment_view(world: World, row: dict[str, Any]) -> dict[str, Any]:
    cur = row["currency"]
    left = available(world, row)
    return {
        "id": row["id"], "label": row["label"], "last4": row["last4"], "owner": row["owner"], "ownerName": core.name_of(world, row["owner"]),
        "holder": row["holder"], "holderName": core.name_of(world, row["holder"]), "parentId": row["parent_id"],
        "limit": row["spend_limit"], "spent": row["spent"], "available": left, "currency": cur,
        "limitText": core.money(row["spend_limit"], cur), "availableText": core.money(left, cur),
        "businessOnly": row["business_only"], "status": "expired" if row["status"] == "active" and expired(world, row) else row["status"],
        "expiresAt": row["expires_at"], "purpose": row["purpose"],
    }  # fmt: skip


def visible_payment(ctx: ServiceContext, payment_id: str) -> dict[str, Any]:
    row = ctx.store.get(PAYMENTS.name, {"id": payment_id})
    if row is None:
        raise core.missing("Payment authorisation", payment_id)
    if ctx.principal.id not in (row["owner"], row["holder"]):
        raise core.hidden("Payment authorisation", payment_id)
    return row


def charge(ctx: ServiceContext, payment_id: str, amount: int, currency: str, purpose: str, what: str) -> dict[str, Any]:
    """Take `amount` from an authorisation the caller holds, or refuse readably (nothing is written then)."""
    row = visible_payment(ctx, payment_id)
    if row["holder"] != ctx.principal.id:
        raise core.forbidden(f"Payment authorisation {payment_id} is held by {core.name_of(ctx.world, row['holder'])}; only its holder can charge it.", "notHolder")
    if row["status"] != "active":
        raise core.conflict(f"Payment authorisation {payment_id} is {row['status']}.", "paymentInactive")
    if expired(ctx.world, row):
        raise core.conflict(f"Payment authorisation {payment_id} expired at {row['expires_at']}.", "paymentExpired")
    if row["currency"] != currency:
        raise core.conflict(f"{what} is priced in {currency}; payment authorisation {payment_id} is in {row['currency']}.", "currencyMismatch")
    if row["business_only"] and purpose != "business":
        raise core.conflict(f"Payment authorisation {payment_id} ({row['label']}) is for business travel only.", "businessOnly")
    left = available(ctx.world, row)
    if amount > left:
        raise core.conflict(
            f"{what} costs {core.money(amount, currency)}, above the {core.money(left, currency)} left on payment authorisation {payment_id} ({label_of(row)}).",
            "limitExceeded",
        )
    move(ctx.world, row, amount)
    return row


def move(world: World, row: dict[str, Any], amount: int) -> None:
    """Add a charge (positive) or a refund (negative) to the authorisation and everything it draws on."""
    for link in chain(world, row):
        spent = max(0, link["spent"] + amount)
        world.store.update(PAYMENTS.name, {"id": link["id"]}, {"spent": spent, "remaining": link["spend_limit"] - spent})


def refund(world: World, payment_id: str, amount: int) -> None:
    row = world.store.get(PAYMENTS.name, {"id": payment_id})
    if row is not None and amount > 0:
        move(world, row, -amount)


# ---- tools ---------------------------------------------------------------------------------------
@tool(ToolKind.READ, name="travel_list_payment_authorisations", rest=RestBinding("GET", f"{BASE}/paymentAuthorisations"))
def list_payment_authorisations(
    ctx: ServiceContext,
    max_results: int = Field(default=50, ge=1, le=100),
    page_token: str | None = None,
) -> dict[str, Any]:
    """List the payment authorisations you can charge (your cards and what others granted you) and those you granted others, with limits and what is left (integer minor units).

    Args:
        max_results: page size (1-100).
        page_token: the nextPageToken of the previous page.
    """
    me = ctx.principal.id
    rows = [r for r in ctx.store.select(PAYMENTS.name) if me in (r["owner"], r["holder"])]
    rows.sort(key=lambda r: (r["holder"] != me, r["id"]))
    chunk, token = page(rows, page_token, max_results)
    out: dict[str, Any] = {"paymentAuthorisations": [{**payment_view(ctx.world, r), "youCanCharge": r["holder"] == me} for r in chunk]}
    if token:
        out["nextPageToken"] = token
    return out


@tool(ToolKind.SEND, name="travel_grant_payment_authorisation",
      rest=RestBinding("POST", f"{BASE}/paymentAuthorisations/{{paymentId}}/grants", body="body"), action="grant")  # fmt: skip
def grant_payment_authorisation(ctx: ServiceContext, payment_id: Annotated[str, ResourceArg("PaymentAuthorisation")], body: GrantBody) -> dict[str, Any]:
    """Let another principal charge bookings to one of your cards, up to an amount (a new authorisation they hold, drawing on your card).

    The grantee is told (card label and last four digits, amount, purpose). Their charges count against
    your card's limit too.

    Args:
        payment_id: your card's authorisation id (one you hold and that is not itself a grant).
        body: grantee, amount (integer minor units, at most what the card has left), purpose, expires_at, business_only.
    """
    row = visible_payment(ctx, payment_id)
    me = ctx.principal.id
    if row["holder"] != me or row["parent_id"]:
        raise core.forbidden(f"Only the card holder can grant spending on {payment_id}.", "notCardHolder")
    grantee = body.grantee.strip()
    if not core.is_principal(ctx.world, grantee):
        raise core.bad(f"grantee {grantee!r} is not a principal of this world")
    if grantee == me:
        raise core.bad("grantee: you already hold this card")
    if row["status"] != "active" or expired(ctx.world, row):
        raise core.conflict(f"Payment authorisation {payment_id} cannot be charged any more.", "paymentInactive")
    left = available(ctx.world, row)
    if body.amount > left:
        raise core.conflict(f"{core.money(body.amount, row['currency'])} is above the {core.money(left, row['currency'])} left on {label_of(row)}.", "limitExceeded")
    if body.expires_at:
        try:
            parse_time(body.expires_at)
        except ValueError:
            raise core.bad(f"expires_at must be an ISO instant, got {body.expires_at!r}") from None
    grant = {
        "id": core.new_id(ctx.world, "pay", "payment"), "owner": me, "holder": grantee, "parent_id": row["id"], "label": row["label"],
        "last4": row["last4"], "spend_limit": body.amount, "spent": 0, "remaining": body.amount, "currency": row["currency"],
        "business_only": row["business_only"] if body.business_only is None else body.business_only, "status": "active",
        "expires_at": body.expires_at, "purpose": body.purpose, "created_at": core.now_iso(ctx.world),
    }  # fmt: skip
    ctx.store.insert(PAYMENTS.name, grant)
    terms = " Business travel only." if grant["business_only"] else ""
    until = f" Valid until {body.expires_at}." if body.expires_at else ""
    text = (f"{core.name_of(ctx.world, me)} authorised you to charge up to {core.money(body.amount, row['currency'])} to "
            f"{label_of(row)} (authorisation {grant['id']}) for: {body.purpose or 'travel'}.{terms}{until}")  # fmt: skip
    core.notify(ctx, "payment_grant", [grantee], f"Payment authorisation from {core.name_of(ctx.world, me)}", text, grant["id"],
                core.attach("PaymentAuthorisation", grant["id"]))
    return payment_view(ctx.world, grant)


TOOLS = (list_payment_authorisations, grant_payment_authorisation)
