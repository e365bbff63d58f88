"""What every clinical tool module shares: the REST prefix, request bodies, errors, time and ids, pages."""

from __future__ import annotations

from datetime import datetime, timezone
from typing import Any

from pydantic import BaseModel, ConfigDict
from pydantic.alias_generators import to_camel

from clawarena.services.base import Delivery, ServiceContext, ServiceError
from clawarena.services.pagination import page
from clawarena.world.clock import parse_time

BASE = "/clinical/v1"
PAGE_SIZE_DEFAULT = 25
PAGE_SIZE_MAX = 100


class Body(BaseModel):
    """A JSON request body: snake_case field names (camelCase accepted on the wire), unknown keys refused;
    errors name the snake_case field, as agents' schemas do."""

    model_config = ConfigDict(extra="forbid", alias_generator=to_camel, populate_by_name=True, loc_by_alias=False)


# ---- errors: the Google wire's shape (`{"error": {...}}`) -------------------------------------
def bad(message: str, reason: str = "invalidArgument") -> ServiceError:
    return ServiceError(400, message, reason=reason)


def conflict(message: str, reason: str = "failedPrecondition") -> ServiceError:
    return ServiceError(409, message, reason=reason, status="FAILED_PRECONDITION")


def forbidden(message: str, reason: str = "forbidden") -> ServiceError:
    """The caller knows the row exists but may not do this with it: recorded as a refusal."""
    return ServiceError(403, message, reason=reason, denied=True)


def hidden(kind: str, ident: str, *, exists: bool = True) -> ServiceError:
    """Not found: the same answer for a row that does not exist and one the caller may not see
    (only the ledger tells them apart: hiding an existing row is a refusal)."""
    return ServiceError(404, f"{kind} not found: {ident}.", reason="notFound", denied=exists)


# ---- time ------------------------------------------------------------------------------------
def now(ctx: ServiceContext) -> datetime:
    return ctx.world.clock.now()


def iso(moment: datetime) -> str:
    """The one written form of an instant in this service's rows (whole seconds, UTC), so strings sort as times."""
    return moment.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def now_iso(ctx: ServiceContext) -> str:
    return iso(ctx.world.clock.now())


def ms(moment: datetime) -> int:
    return int(moment.timestamp() * 1000)


def parse_instant(value: str, field: str) -> datetime:
    """An ISO-8601 instant from a caller; a bad one is a 400 naming the field."""
    try:
        return parse_time(value)
    except (ValueError, TypeError):
        raise bad(f"{field}: not an ISO-8601 date-time: {value!r}") from None


def parse_date(value: str, field: str) -> str:
    """A YYYY-MM-DD date, returned as given."""
    try:
        datetime.strptime(value, "%Y-%m-%d")
    except (ValueError, TypeError):
        raise bad(f"{field}: not a YYYY-MM-DD date: {value!r}") from None
    return value


def new_id(ctx: ServiceContext, prefix: str) -> str:
    """Deterministic ids: the world's generator, one namespace per kind of row."""
    return f"{prefix}-{ctx.world.ids.next(f'clinical.{prefix}', 10)}"


# ---- lists -----------------------------------------------------------------------------------
def paged(rows: list[dict[str, Any]], key: str, page_token: str | None, page_size: int, **extra: Any) -> dict[str, Any]:
    items, token = page(rows, page_token, page_size)
    out: dict[str, Any] = {key: items, **extra}
    if token:
        out["next_page_token"] = token
    return out


# ---- deliveries ------------------------------------------------------------------------------
def deliver(ctx: ServiceContext, recipients: list[str], subject: str, body: str, ref: str, attach: list[tuple[str, str]] | None = None) -> None:
    """Report content that reached other principals (or an outside address); the caller is never its own recipient.

    `attach` lists the resources the delivery carries by reference, as (resource type, row id): the
    gateway asks the policies whether each may go to each recipient (a `disclose` decision)."""
    to = tuple(dict.fromkeys(r for r in recipients if r and r != ctx.principal.id))
    if to:
        refs = tuple({"type": kind, "id": ident} for kind, ident in dict.fromkeys(attach or []))
        ctx.deliver(Delivery(channel="clinical", sender=ctx.principal.id, recipients=to, subject=subject, body=body, ref=ref, attachments=refs))
