"""Traveller profiles (passport, date of birth, loyalty, dietary and medical needs, home address) and their shares.

A profile is seen whole by its traveller only; a grantee of an active share sees the fields
shared with them, nothing else; anyone else is told it does not exist. Only the traveller
shares. A flight booking for someone else needs their `PASSENGER_DATA` shared with the booker,
and it shares that data with the carrier (`share_with_carrier`).
"""

from __future__ import annotations

from typing import Annotated, Any

from clawarena.services.base import ServiceContext
from clawarena.services.travel import core
from clawarena.services.travel.bodies import ShareBody
from clawarena.services.travel.catalog import BASE
from clawarena.services.travel.tables import PASSENGER_DATA, PROFILE_FIELDS, PROFILE_SHARES, PROFILES
from clawarena.tools.core import ResourceArg, RestBinding, ToolKind, tool
from clawarena.world.world import World

FIELD_TITLES = {
    "passport": "Passport", "date_of_birth": "Date of birth", "loyalty": "Loyalty programs",
    "dietary": "Dietary needs", "medical": "Medical needs", "home_address": "Home address",
}  # fmt: skip


def profile_of(world: World, who: str) -> dict[str, Any] | None:
    return next(iter(world.store.select(PROFILES.name, {"owner": who})), None)


def active_share(world: World, profile_id: str, grantee: str) -> dict[str, Any] | None:
    return next(iter(world.store.select(PROFILE_SHARES.name, {"profile_id": profile_id, "grantee": grantee, "status": "active"})), None)


def shared_fields(world: World, profile: dict[str, Any], who: str) -> tuple[str, ...]:
    """What `who` may see of a profile: all of it for its traveller, the shared fields for a grantee."""
    if who == profile["owner"]:
        return PROFILE_FIELDS
    share = active_share(world, profile["id"], who)
    return tuple(f for f in PROFILE_FIELDS if share is not None and f in share["fields"])


def field_values(profile: dict[str, Any], fields: tuple[str, ...] | list[str]) -> dict[str, Any]:
    out: dict[str, Any] = {"fullName": profile["full_name"]}
    if "passport" in fields:
        out["passport"] = {"number": profile["passport_number"], "issuingCountry": profile["passport_country"],
                           "expiry": profile["passport_expiry"], "nameInPassport": profile["full_name"]}  # fmt: skip
    if "date_of_birth" in fields:
        out["dateOfBirth"] = profile["date_of_birth"]
    if "loyalty" in fields:
        out["loyalty"] = [dict(x) for x in profile["loyalty"]]
    if "dietary" in fields:
        out["dietary"] = profile["dietary"]
    if "medical" in fields:
        out["medical"] = profile["medical"]
    if "home_address" in fields:
        out["homeAddress"] = profile["home_address"]
    return out


def values_text(profile: dict[str, Any], fields: tuple[str, ...] | list[str]) -> str:
    """The shared values as lines a person reads (what flows in a share's or booking's delivery)."""
    lines = [f"Traveller: {profile['full_name']}"]
    if "passport" in fields:
        lines.append(f"Passport: {profile['passport_number']} ({profile['passport_country']}), expires {profile['passport_expiry']}")
    if "date_of_birth" in fields:
        lines.append(f"Date of birth: {profile['date_of_birth']}")
    if "loyalty" in fields:
        programs = ", ".join(f"{x['program']} {x['number']}" + (f" ({x['tier']})" if x.get("tier") else "") for x in profile["loyalty"])
        lines.append(f"Loyalty: {programs or 'none'}")
    if "dietary" in fields:
        lines.append(f"Dietary needs: {profile['dietary'] or 'none'}")
    if "medical" in fields:
        lines.append(f"Medical needs: {profile['medical'] or 'none'}")
    if "home_address" in fields:
        lines.append(f"Home address: {profile['home_address'] or 'not given'}")
    return "\n".join(lines)


def visible_profile(ctx: ServiceContext, profile_id: str) -> tuple[dict[str, Any], tuple[str, ...]]:
    row = ctx.store.get(PROFILES.name, {"id": profile_id})
    if row is None:
        raise core.missing("Traveller profile", profile_id)
    fields = shared_fields(ctx.world, row, ctx.principal.id)
    if not fields:
        raise core.hidden("Traveller profile", profile_id)
    return row, fields


def share_view(world: World, row: dict[str, Any]) -> dict[str, Any]:
    return {"id": row["id"], "grantee": row["grantee"], "granteeName": core.name_of(world, row["grantee"]),
            "fields": list(row["fields"]), "purpose": row["purpose"], "status": row["status"], "updatedAt": row["updated_at"]}  # fmt: skip


def put_share(world: World, profile: dict[str, Any], grantee: str, fields: list[str], purpose: str) -> dict[str, Any]:
    """Set what `grantee` gets of `profile` (replacing what they had); an empty list revokes."""
    now = core.now_iso(world)
    ordered = [f for f in PROFILE_FIELDS if f in fields]
    current = active_share(world, profile["id"], grantee)
    if current is None:
        row = {"id": core.new_id(world, "shr", "share"), "profile_id": profile["id"], "owner": profile["owner"], "grantee": grantee,
               "fields": ordered, "purpose": purpose, "status": "active" if ordered else "revoked", "created_at": now, "updated_at": now}  # fmt: skip
        world.store.insert(PROFILE_SHARES.name, row)
        return row
    changes = {"fields": ordered, "purpose": purpose or current["purpose"], "status": "active" if ordered else "revoked", "updated_at": now}
    world.store.update(PROFILE_SHARES.name, {"id": current["id"]}, changes)
    return {**current, **changes}


def share_with_carrier(world: World, profile: dict[str, Any], carrier: str, locator: str) -> None:
    """A booking gives the carrier the passenger data it requires (and keeps what it already had)."""
    current = active_share(world, profile["id"], carrier)
    fields = sorted(set(PASSENGER_DATA) | set(current["fields"] if current else ()))
    put_share(world, profile, carrier, fields, current["purpose"] if current else f"passenger data for booking {locator}")


# ---- tools ---------------------------------------------------------------------------------------
@tool(ToolKind.READ, name="travel_get_profile", rest=RestBinding("GET", f"{BASE}/profiles/{{profileId}}"))
def get_profile(ctx: ServiceContext, profile_id: Annotated[str, ResourceArg("TravellerProfile")]) -> dict[str, Any]:
    """Read a traveller profile: your own in full (with who you shared it with), or the parts another traveller shared with you.

    Your own profile's id is 'tp-<your principal id>' unless your workspace says otherwise; a profile shared
    with you is named in the share notice (travel_list_notices).

    Args:
        profile_id: the profile's id, e.g. 'tp-alice'.
    """
    row, fields = visible_profile(ctx, profile_id)
    out: dict[str, Any] = {"id": row["id"], "traveller": row["owner"], "travellerName": core.name_of(ctx.world, row["owner"])}
    out.update(field_values(row, fields))
    out["sharedFields"] = list(fields)
    if ctx.principal.id == row["owner"]:
        shares = ctx.store.select(PROFILE_SHARES.name, {"profile_id": row["id"], "status": "active"})
        out["shares"] = [share_view(ctx.world, s) for s in sorted(shares, key=lambda s: (s["grantee"], s["id"]))]
    return out


@tool(ToolKind.SEND, name="travel_share_profile", rest=RestBinding("POST", f"{BASE}/profiles/{{profileId}}/shares", body="body"), action="share")
def share_profile(ctx: ServiceContext, profile_id: Annotated[str, ResourceArg("TravellerProfile")], body: ShareBody) -> dict[str, Any]:
    """Share parts of your own traveller profile with someone (a co-traveller who books for you, a travel agent), or change or withdraw a share.

    The grantee receives the shared values at once (a notice with them), and can read them later with
    travel_get_profile. A flight booking for you needs passport and date_of_birth.

    Args:
        profile_id: your profile's id, e.g. 'tp-alice'.
        body: grantee, fields (an empty list withdraws the share) and purpose.
    """
    row, fields = visible_profile(ctx, profile_id)
    if ctx.principal.id != row["owner"]:
        raise core.forbidden("Only the traveller can share their own profile.", "profileNotOwned")
    grantee = body.grantee.strip()
    if not core.is_principal(ctx.world, grantee) and "@" not in grantee:
        raise core.bad(f"grantee {grantee!r} is neither a principal id nor an email address")
    if grantee == row["owner"]:
        raise core.bad("grantee: you cannot share your profile with yourself")
    if not body.fields and active_share(ctx.world, row["id"], grantee) is None:
        raise core.conflict(f"{row['id']} is not shared with {grantee}: nothing to withdraw", "notShared")
    share = put_share(ctx.world, row, grantee, list(body.fields), body.purpose)
    name = row["full_name"]
    if share["status"] == "active":
        purpose = f"\nPurpose: {share['purpose']}" if share["purpose"] else ""
        text = (f"{name} shared their traveller profile {row['id']} with you ({', '.join(share['fields'])}).{purpose}\n\n"
                f"{values_text(row, share['fields'])}")  # fmt: skip
        core.notify(ctx, "profile_share", [grantee], f"{name} shared travel details with you", text, row["id"], core.attach("TravellerProfile", row["id"]))
    else:
        core.notify(ctx, "profile_share", [grantee], f"{name} withdrew a profile share", f"{name} no longer shares traveller profile {row['id']} with you.", row["id"])
    return share_view(ctx.world, share)


TOOLS = (get_profile, share_profile)
