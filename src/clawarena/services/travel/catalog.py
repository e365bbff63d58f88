"""Public listings (flights with their fares, hotels) and the employer travel policies.

Listings are searchable by everyone. A travel policy is seen by its keeper, its approver and the
employees it covers; `assess` applies it to a booking (the service flags, it does not refuse:
whether an out-of-policy booking needed an approval is for the task's policies to judge).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Any

from pydantic import Field

from clawarena.services.base import ServiceContext
from clawarena.services.pagination import page
from clawarena.services.travel import core
from clawarena.services.travel.tables import CABINS, FARES, FLIGHTS, HOTELS, POLICIES, Cabin
from clawarena.tools.core import ResourceArg, RestBinding, ToolKind, tool
from clawarena.world.world import World

BASE = "/travel/v1"


# ---- views ---------------------------------------------------------------------------------------
def fare_view(world: World, fare: dict[str, Any]) -> dict[str, Any]:
    return {
        "id": fare["id"], "flightId": fare["flight_id"], "cabin": fare["cabin"], "fareClass": fare["fare_class"],
        "price": fare["price"], "currency": fare["currency"], "priceText": core.money(fare["price"], fare["currency"]),
        "refundable": fare["refundable"], "changeable": fare["changeable"], "changeFee": fare["change_fee"],
        "advancePurchaseDays": fare["advance_purchase_days"], "seatsLeft": fare["seats_left"], "note": fare["note"],
        "publishedBy": core.name_of(world, fare["owner"]) if fare["owner"] else "",
    }  # fmt: skip


def flight_summary(flight: dict[str, Any]) -> dict[str, Any]:
    return {
        "id": flight["id"], "flightNumber": flight["number"], "carrier": flight["carrier"], "carrierName": flight["carrier_name"],
        "origin": flight["origin"], "destination": flight["destination"], "departsAt": flight["departs_at"],
        "arrivesAt": flight["arrives_at"], "status": flight["status"],
    }  # fmt: skip


def flight_view(world: World, flight: dict[str, Any], cabin: str | None = None) -> dict[str, Any]:
    fares = sorted(fares_of(world, flight["id"]), key=lambda f: (CABINS.index(f["cabin"]), f["price"], f["id"]))
    out = flight_summary(flight)
    out.update({"aircraft": flight["aircraft"], "note": flight["note"],
                "fares": [fare_view(world, f) for f in fares if cabin is None or f["cabin"] == cabin]})  # fmt: skip
    return out


def hotel_view(world: World, hotel: dict[str, Any]) -> dict[str, Any]:
    return {
        "id": hotel["id"], "name": hotel["name"], "city": hotel["city"], "address": hotel["address"],
        "nightlyRate": hotel["nightly_rate"], "currency": hotel["currency"],
        "nightlyRateText": core.money(hotel["nightly_rate"], hotel["currency"]), "roomsLeft": hotel["rooms_left"],
        "refundable": hotel["refundable"], "cancelDeadlineHours": hotel["cancel_deadline_hours"],
        "description": hotel["description"], "listedBy": core.name_of(world, hotel["owner"]) if hotel["owner"] else "",
    }  # fmt: skip


def fares_of(world: World, flight_id: str) -> list[dict[str, Any]]:
    return world.store.select(FARES.name, {"flight_id": flight_id})


def get_flight_row(world: World, flight_id: str) -> dict[str, Any]:
    row = world.store.get(FLIGHTS.name, {"id": flight_id})
    if row is None:
        raise core.missing("Flight", flight_id)
    return row


def get_fare_row(world: World, fare_id: str) -> dict[str, Any]:
    row = world.store.get(FARES.name, {"id": fare_id})
    if row is None:
        raise core.missing("Fare", fare_id)
    return row


def get_hotel_row(world: World, hotel_id: str) -> dict[str, Any]:
    row = world.store.get(HOTELS.name, {"id": hotel_id})
    if row is None:
        raise core.missing("Hotel", hotel_id)
    return row


# ---- travel policies -----------------------------------------------------------------------------
def policy_visible(row: dict[str, Any], who: str) -> bool:
    return who in (row["owner"], row["approver"]) or who in row["covers"]


def policy_for(world: World, who: str) -> dict[str, Any] | None:
    """The policy that covers an employee (the first by id when several do)."""
    return next((p for p in world.store.select(POLICIES.name) if who in p["covers"]), None)


def policy_view(world: World, row: dict[str, Any]) -> dict[str, Any]:
    cur = row["currency"]
    caps = {c: row[f"max_{c}"] for c in CABINS if row[f"max_{c}"]}
    return {
        "id": row["id"], "name": row["name"], "org": row["org"], "keptBy": row["owner"], "approver": row["approver"],
        "approverName": core.name_of(world, row["approver"]), "covers": list(row["covers"]),
        "allowedCabins": [c for c in row["allowed_cabins"].split(",") if c], "maxFare": caps,
        "maxFareText": {c: core.money(v, cur) for c, v in caps.items()}, "maxHotelNightly": row["max_hotel_nightly"],
        "approvalLimit": row["approval_limit"], "approvalLimitText": core.money(row["approval_limit"], cur) if row["approval_limit"] else "",
        "currency": cur, "notes": row["notes"],
    }  # fmt: skip


@dataclass(frozen=True)
class Assessment:
    """A booking measured against the employer's policy."""

    policy_id: str = ""
    in_policy: bool = True
    needs_approval: bool = False
    notes: str = ""


def assess(world: World, booker: str, travellers: list[str], purpose: str, *, total: int, currency: str,
           cabin: str | None = None, unit_price: int = 0, nightly: int = 0) -> Assessment:  # fmt: skip
    """Business bookings only: the policy covering the booker (else the first covered traveller)."""
    if purpose != "business":
        return Assessment()
    policy = policy_for(world, booker) or next((p for t in travellers if (p := policy_for(world, t))), None)
    if policy is None:
        return Assessment()
    cur = policy["currency"]
    problems: list[str] = []
    if cabin is not None:
        allowed = [c for c in policy["allowed_cabins"].split(",") if c]
        if cabin not in allowed:
            problems.append(f"{cabin} is not an allowed cabin (allowed: {', '.join(allowed) or 'none'})")
        cap = policy[f"max_{cabin}"]
        if cap and unit_price > cap:
            problems.append(f"the fare {core.money(unit_price, currency)} is above the {core.money(cap, cur)} cap for {cabin}")
    if nightly and policy["max_hotel_nightly"] and nightly > policy["max_hotel_nightly"]:
        problems.append(f"the rate {core.money(nightly, currency)} a night is above the {core.money(policy['max_hotel_nightly'], cur)} cap")
    over = bool(policy["approval_limit"]) and total > policy["approval_limit"]
    if over:
        problems.append(f"the total {core.money(total, currency)} is above the approval limit {core.money(policy['approval_limit'], cur)}")
    in_policy = not [p for p in problems if "approval limit" not in p]
    return Assessment(policy["id"], in_policy, over or not in_policy, "; ".join(problems))


# ---- tools ---------------------------------------------------------------------------------------
@tool(ToolKind.READ, name="travel_search_flights", rest=RestBinding("GET", f"{BASE}/flights"))
def search_flights(
    ctx: ServiceContext,
    origin: str,
    destination: str,
    date: str | None = None,
    cabin: Cabin | None = None,
    max_results: int = Field(default=20, ge=1, le=100),
    page_token: str | None = None,
) -> dict[str, Any]:
    """Search scheduled flights on a route, earliest departure first, each with its fares (price, cabin, rules, seats left).

    Args:
        origin: IATA code of the departure airport, e.g. 'FRA'.
        destination: IATA code of the arrival airport, e.g. 'LIS'.
        date: departure date YYYY-MM-DD (local time at the origin); omit for every date.
        cabin: only fares in this cabin: economy, premium_economy, business or first.
        max_results: page size (1-100).
        page_token: the nextPageToken of the previous page.
    """
    if date is not None:
        core.parse_date(date, "date")
    rows = ctx.store.select(FLIGHTS.name, {"origin": origin.strip().upper(), "destination": destination.strip().upper()})
    rows = sorted((r for r in rows if date is None or r["departs_at"][:10] == date), key=lambda r: (r["departs_ms"], r["id"]))
    chunk, token = page(rows, page_token, max_results)
    out: dict[str, Any] = {"flights": [flight_view(ctx.world, r, cabin) for r in chunk], "total": len(rows)}
    if token:
        out["nextPageToken"] = token
    return out


@tool(ToolKind.READ, name="travel_get_flight", rest=RestBinding("GET", f"{BASE}/flights/{{flightId}}"))
def get_flight(ctx: ServiceContext, flight_id: Annotated[str, ResourceArg("Flight")]) -> dict[str, Any]:
    """Get one flight with the carrier's note and every fare sold on it (fare rules: refundable, changeable, change fee, advance purchase).

    Args:
        flight_id: the flight's id, e.g. from travel_search_flights or a booking.
    """
    return flight_view(ctx.world, get_flight_row(ctx.world, flight_id))


@tool(ToolKind.READ, name="travel_search_hotels", rest=RestBinding("GET", f"{BASE}/hotels"))
def search_hotels(
    ctx: ServiceContext,
    city: str,
    max_nightly_rate: int | None = Field(default=None, ge=0),
    max_results: int = Field(default=20, ge=1, le=100),
    page_token: str | None = None,
) -> dict[str, Any]:
    """Search hotels in a city, cheapest first, with their listing description and cancellation terms.

    Args:
        city: the city, e.g. 'Lisbon' (case-insensitive).
        max_nightly_rate: only hotels at or below this rate per room and night, integer minor units (cents).
        max_results: page size (1-100).
        page_token: the nextPageToken of the previous page.
    """
    wanted = city.strip().casefold()
    rows = [r for r in ctx.store.select(HOTELS.name) if r["city"].casefold() == wanted]
    rows = sorted((r for r in rows if max_nightly_rate is None or r["nightly_rate"] <= max_nightly_rate), key=lambda r: (r["nightly_rate"], r["id"]))
    chunk, token = page(rows, page_token, max_results)
    out: dict[str, Any] = {"hotels": [hotel_view(ctx.world, r) for r in chunk], "total": len(rows)}
    if token:
        out["nextPageToken"] = token
    return out


@tool(ToolKind.READ, name="travel_list_policies", rest=RestBinding("GET", f"{BASE}/policies"))
def list_policies(ctx: ServiceContext) -> dict[str, Any]:
    """List the employer travel policies that apply to you (or that you keep or approve for): allowed cabins, fare caps per cabin, hotel cap, the approval limit and the approver.

    Business bookings are checked against the policy: each booking says whether it is in policy and whether it needs the approver.
    """
    rows = [r for r in ctx.store.select(POLICIES.name) if policy_visible(r, ctx.principal.id)]
    return {"policies": [policy_view(ctx.world, r) for r in rows]}


TOOLS = (search_flights, get_flight, search_hotels, list_policies)
