"""What every market tool shares: time on the world clock, readable ids, errors, names, deliveries.

Ids of rows the tools create are derived from the rows they belong to (`t-<listing>-<buyer>`,
`<thread>-o2`, `d-<listing>`), not drawn from the world's id generator: a task's reference
solution is shared by all its variants, whose worlds are seeded differently, so it must be able
to name what an earlier step created.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from clawarena.services.base import Delivery, ServiceContext, ServiceError
from clawarena.world.clock import parse_time
from clawarena.world.world import World

CHANNEL = "market"  # the delivery channel of everything this service hands to another principal


# ---- time ----------------------------------------------------------------------------------------
def iso(moment: datetime) -> str:
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def now(world: World) -> str:
    return iso(world.clock.now())


def at(text: str) -> datetime:
    return parse_time(text)


def is_past(world: World, when: str) -> bool:
    """Whether the instant `when` has come on the world clock ("" never comes)."""
    return bool(when) and world.clock.now() >= at(when)


def future_time(ctx: ServiceContext, value: str, field: str) -> str:
    """A caller's ISO time, normalised, that must lie ahead of the world clock."""
    try:
        moment = at(value)
    except ValueError:
        raise bad(f"{field}: cannot read {value!r} as a time; write ISO 8601, e.g. 2026-03-02T17:00:00Z") from None
    if moment <= ctx.world.clock.now():
        raise bad(f"{field}: {iso(moment)} is not in the future (it is now {now(ctx.world)})")
    return iso(moment)


# ---- errors --------------------------------------------------------------------------------------
def bad(message: str) -> ServiceError:
    return ServiceError(400, message, reason="invalidArgument")


def conflict(message: str) -> ServiceError:
    """The request is well formed but the row's state forbids it (closed, expired, already done)."""
    return ServiceError(409, message, reason="failedPrecondition", status="FAILED_PRECONDITION")


def forbidden(message: str) -> ServiceError:
    """The caller sees the row but may not do this to it (not the seller, not the countersigner)."""
    return ServiceError(403, message, reason="forbidden", denied=True)


def missing(kind: str, ident: str, hidden: bool = False) -> ServiceError:
    """Not found; `hidden` when the row exists but is not the caller's to see: the same answer, recorded as a refusal."""
    return ServiceError(404, f"{kind} not found: {ident}", reason="notFound", denied=hidden)


def row_or_404(ctx: ServiceContext, table: str, kind: str, ident: str) -> dict[str, Any]:
    row = ctx.store.get(table, {"id": ident})
    if row is None:
        raise missing(kind, ident)
    return row


def known_principal(ctx: ServiceContext, pid: str, field: str) -> str:
    if pid not in ctx.world.directory.principals:
        raise ServiceError(404, f"{field}: no principal {pid!r} in this marketplace", reason="notFound")
    return pid


# ---- ids -----------------------------------------------------------------------------------------
def next_id(ctx: ServiceContext | World, table: str, prefix: str, scope: dict[str, Any] | None = None) -> str:
    """`<prefix><n>`: n counts the rows of `scope` (the thread's offers, the deal's payments), else the
    rows already under the prefix, and goes past any id a fixture has taken."""
    store = ctx.store
    n = len(store.select(table, scope)) + 1 if scope else sum(1 for r in store.select(table) if str(r["id"]).startswith(prefix)) + 1
    while store.get(table, {"id": f"{prefix}{n}"}) is not None:
        n += 1
    return f"{prefix}{n}"


# ---- people and money in text --------------------------------------------------------------------
def name_of(world: World, pid: str) -> str:
    p = world.directory.principals.get(pid)
    return p.name if p is not None else pid


def people(world: World, *pids: str) -> dict[str, str]:
    """Display names of the principals an answer names, so an agent can say who is who."""
    return {p: name_of(world, p) for p in sorted({p for p in pids if p})}


def money(amount: int | None, currency: str) -> str:
    return "none" if amount is None else f"{amount:,} {currency}"


def terms_dict(delivery: str = "", warranty: str = "", payment_schedule: str = "", conditions: str = "") -> dict[str, str]:
    """Offer terms as stored and shown: camelCase keys, every key present."""
    return {"delivery": delivery, "warranty": warranty, "paymentSchedule": payment_schedule, "conditions": conditions}


def terms_text(terms: dict[str, str]) -> str:
    parts = [f"{label}: {terms[key]}" for label, key in (("delivery", "delivery"), ("warranty", "warranty"),
             ("payment schedule", "paymentSchedule"), ("conditions", "conditions")) if terms.get(key)]  # fmt: skip
    return "; ".join(parts) if parts else "none stated"


def deliver(ctx: ServiceContext, recipients: list[str] | tuple[str, ...], subject: str, body: str, ref: str) -> None:
    """Hand content to other principals (never to the caller itself), once each, in a fixed order."""
    to = tuple(sorted({r for r in recipients if r and r != ctx.principal.id}))
    if to:
        ctx.deliver(Delivery(channel=CHANNEL, sender=ctx.principal.id, recipients=to, subject=subject, body=body, ref=ref))
