"""Travel's shared internals: errors, money text, ids, names, time, and notices with their deliveries.

Everything that reaches another principal goes through `notify`: it writes a notice row in
each recipient principal's travel inbox (outside addresses get none) and reports one
`Delivery` on the "travel" channel, so the gateway records it, wakes the recipients' agents and
runs the flow checks. The body is what a person would read, with the values that flowed.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import date, datetime, timedelta
from typing import Any

from clawarena.services.base import Delivery, ServiceContext, ServiceError
from clawarena.services.travel.tables import NOTICES
from clawarena.spec.instants import parse_time
from clawarena.world.world import World

CHANNEL = "travel"
_LETTERS = "ABCDEFGHJKLMNPQRSTUVWXYZ"  # record locators avoid I and O, as airlines do


# ---- errors ------------------------------------------------------------------------------------
def missing(what: str, ident: str) -> ServiceError:
    """A row that does not exist (or that the caller may not know exists: see `hidden`)."""
    return ServiceError(404, f"{what} not found: {ident}.", reason="notFound")


def hidden(what: str, ident: str) -> ServiceError:
    """Another principal's row: answered exactly like a missing one, recorded as a refusal."""
    return ServiceError(404, f"{what} not found: {ident}.", reason="notFound", denied=True)


def forbidden(message: str, reason: str = "forbidden") -> ServiceError:
    return ServiceError(403, message, reason=reason, denied=True)


def conflict(message: str, reason: str = "failedPrecondition") -> ServiceError:
    return ServiceError(409, message, reason=reason)


def bad(message: str, reason: str = "invalidArgument") -> ServiceError:
    return ServiceError(400, message, reason=reason)


# ---- money, names, ids, time -------------------------------------------------------------------
def money(amount: int, currency: str) -> str:
    """Minor units as a person reads them: 41250, "EUR" -> "EUR 412.50"."""
    sign = "-" if amount < 0 else ""
    whole, cents = divmod(abs(amount), 100)
    return f"{currency} {sign}{whole:,}.{cents:02d}"


def name_of(world: World, who: str) -> str:
    p = world.directory.principals.get(who)
    return p.name if p is not None else who


def is_principal(world: World, who: str) -> bool:
    return who in world.directory.principals


def is_external(world: World, who: str) -> bool:
    """Outside the world's people: an outside address, or an external actor (a stranger, a fake authority)."""
    p = world.directory.principals.get(who)
    return p is None or getattr(p, "kind", "person") == "external"


def attach(type_name: str, *ids: str) -> tuple[dict[str, str], ...]:
    """Resources a delivery carries by reference (the gateway decides their flow to each recipient)."""
    return tuple({"type": type_name, "id": i} for i in ids if i)


def new_id(world: World, prefix: str, namespace: str) -> str:
    return f"{prefix}-{world.ids.next(f'travel.{namespace}', 10)}"


def new_locator(world: World) -> str:
    digest = world.ids.next("travel.locator", 12)
    return "".join(_LETTERS[int(digest[i : i + 2], 16) % len(_LETTERS)] for i in range(0, 12, 2))


def now_iso(world: World) -> str:
    return world.clock.iso()


def now_ms(world: World) -> int:
    return world.clock.now_ms()


def instant_ms(value: str) -> int:
    return int(parse_time(value).timestamp() * 1000)


def parse_date(value: str, field: str) -> date:
    try:
        if len(value) != 10:
            raise ValueError
        return date.fromisoformat(value)
    except ValueError:
        raise bad(f"{field} must be a date YYYY-MM-DD, got {value!r}") from None


def today(world: World) -> date:
    return world.clock.now().date()


def days_until(world: World, moment_ms: int) -> float:
    return (moment_ms - now_ms(world)) / 86_400_000


def at_before_now(world: World, minutes: int) -> str:
    moment: datetime = world.clock.now() - timedelta(minutes=minutes)
    return moment.strftime("%Y-%m-%dT%H:%M:%S.000Z")


# ---- notices and deliveries ----------------------------------------------------------------------
def write_notice(world: World, *, owner: str, kind: str, sender: str, subject: str, body: str, ref: str = "",
                 sender_name: str = "", external: bool = False, at: str | None = None, notice_id: str | None = None) -> dict[str, Any]:  # fmt: skip
    row = {
        "id": notice_id or new_id(world, "ntc", "notice"), "owner": owner, "kind": kind, "sender": sender,
        "sender_name": sender_name or name_of(world, sender), "subject": subject, "body": body, "ref": ref,
        "external": external, "at": at or now_iso(world),
    }  # fmt: skip
    world.store.insert(NOTICES.name, row)
    return row


def notify(ctx: ServiceContext, kind: str, recipients: Iterable[str], subject: str, body: str, ref: str,
           attachments: tuple[dict[str, str], ...] = ()) -> list[str]:  # fmt: skip
    """Send `body` to each recipient (principal ids or outside addresses), never back to the caller.

    Returns the recipients reached, sorted (no delivery at all when there is nobody).
    """
    me = ctx.principal.id
    targets = sorted({r for r in recipients if r and r != me})
    if not targets:
        return []
    for who in targets:
        if is_principal(ctx.world, who):
            write_notice(ctx.world, owner=who, kind=kind, sender=me, subject=subject, body=body, ref=ref, external=is_external(ctx.world, me))
    ctx.deliver(Delivery(channel=CHANNEL, sender=me, recipients=tuple(targets), subject=subject, body=body, ref=ref, attachments=attachments))
    return targets

