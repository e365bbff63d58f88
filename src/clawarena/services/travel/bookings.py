"""Bookings: flights for one or more travellers, hotel stays, and changes and cancellations by the fare's rules.

Rules the service enforces (readable 400/403/404/409 errors, nothing written on refusal):
- a flight booking needs each traveller's passenger data (passport, date of birth) in a traveller
  profile: their own when they book for themselves, shared with the booker otherwise; a passport
  that expires before arrival is refused; the carrier receives exactly that data;
- a fare has seats left, an advance-purchase rule and a departure: sold out, too late or departed is 409;
- the booking is charged to a payment authorisation the booker holds, within what it has left (409);
- only the booker changes or cancels; a change keeps the route and pays the change fee and any
  fare difference (a fare that is not changeable cannot change); a cancellation refunds only a
  refundable fare (a hotel only before its free-cancellation deadline). When the carrier cancelled
  the flight, rebooking in the same or a lower cabin and cancelling are free, whatever the fare says.
Business bookings are measured against the employer's travel policy (flagged, not refused).
"""

from __future__ import annotations

from datetime import datetime, time, timedelta, timezone
from typing import Annotated, Any, Literal

from pydantic import Field

from clawarena.services.base import ServiceContext
from clawarena.services.pagination import page
from clawarena.services.travel import core
from clawarena.services.travel.bodies import ChangeBody, FlightBookingBody, HotelBookingBody
from clawarena.services.travel.catalog import BASE, assess, flight_summary, get_fare_row, get_flight_row, get_hotel_row
from clawarena.services.travel.itineraries import audience, joined_itinerary
from clawarena.services.travel.payments import charge, refund
from clawarena.services.travel.profiles import profile_of, share_with_carrier, shared_fields, values_text
from clawarena.services.travel.tables import BOOKINGS, CABINS, FARES, HOTELS, PASSENGER_DATA, PAYMENTS
from clawarena.tools.core import ResourceArg, RestBinding, ToolKind, tool
from clawarena.world.world import World

MAX_NIGHTS = 30


# ---- access and views ----------------------------------------------------------------------------
def visible_booking(ctx: ServiceContext, booking_id: str) -> dict[str, Any]:
    row = ctx.store.get(BOOKINGS.name, {"id": booking_id})
    if row is None:
        raise core.missing("Booking", booking_id)
    if ctx.principal.id != row["owner"] and ctx.principal.id not in row["travellers"]:
        raise core.hidden("Booking", booking_id)
    return row


def own_booking(ctx: ServiceContext, booking_id: str) -> dict[str, Any]:
    row = visible_booking(ctx, booking_id)
    if row["owner"] != ctx.principal.id:
        raise core.forbidden(f"Booking {booking_id} was made by {core.name_of(ctx.world, row['owner'])}; only the booker can change, cancel or expense it.", "notBooker")
    return row


def booking_view(world: World, row: dict[str, Any], me: str) -> dict[str, Any]:
    cur = row["currency"]
    out: dict[str, Any] = {
        "id": row["id"], "locator": row["locator"], "kind": row["kind"], "status": row["status"], "purpose": row["purpose"],
        "bookedBy": row["owner"], "bookedByName": core.name_of(world, row["owner"]),
        "travellers": [{"id": t, "name": core.name_of(world, t)} for t in row["travellers"]],
        "amount": row["amount"], "charged": row["charged"], "currency": cur, "amountText": core.money(row["amount"], cur),
        "chargedText": core.money(row["charged"], cur), "itineraryId": row["itinerary_id"],
        "rules": {"refundable": row["refundable"], "changeable": row["changeable"], "changeFee": row["change_fee"]},
        "inPolicy": row["in_policy"], "needsApproval": row["needs_approval"], "policyId": row["policy_id"], "policyNotes": row["policy_notes"],
        "expenseReportId": row["expense_report_id"], "history": list(row["history"]), "createdAt": row["created_at"],
    }  # fmt: skip
    if row["kind"] == "flight":
        flight = get_flight_row(world, row["flight_id"])
        fare = world.store.get(FARES.name, {"id": row["fare_id"]})
        out.update({"flight": flight_summary(flight), "fareId": row["fare_id"], "cabin": row["cabin"], "fareClass": fare["fare_class"] if fare else ""})
    else:
        hotel = get_hotel_row(world, row["hotel_id"])
        out.update({"hotel": {"id": hotel["id"], "name": hotel["name"], "city": hotel["city"], "address": hotel["address"]},
                    "checkIn": row["check_in"], "checkOut": row["check_out"], "rooms": row["rooms"], "nights": row["nights"]})  # fmt: skip
    if me == row["owner"]:  # the card is the booker's business, not the other travellers'
        pay = world.store.get(PAYMENTS.name, {"id": row["payment_id"]})
        out["payment"] = {"id": row["payment_id"], "label": pay["label"] if pay else "", "last4": pay["last4"] if pay else ""}
    return out


# ---- the rules -----------------------------------------------------------------------------------
def _travellers(ctx: ServiceContext, given: list[str], field: str) -> list[str]:
    people: list[str] = []
    for i, who in enumerate(given or [ctx.principal.id]):
        who = who.strip()
        if not core.is_principal(ctx.world, who):
            raise core.bad(f"{field}[{i}]: {who!r} is not a principal of this world")
        if who not in people:
            people.append(who)
    return people


def _bookable(world: World, flight: dict[str, Any], fare: dict[str, Any], seats: int) -> None:
    if flight["status"] == "cancelled":
        raise core.conflict(f"Flight {flight['number']} on {flight['departs_at'][:10]} was cancelled by {flight['carrier_name'] or flight['carrier']}.", "flightCancelled")
    if flight["departs_ms"] <= core.now_ms(world):
        raise core.conflict(f"Flight {flight['number']} departed at {flight['departs_at']}.", "departed")
    if core.days_until(world, flight["departs_ms"]) < fare["advance_purchase_days"]:
        raise core.conflict(f"Fare {fare['id']} ({fare['fare_class']}) must be booked at least {fare['advance_purchase_days']} days before departure.", "advancePurchase")
    if fare["seats_left"] < seats:
        raise core.conflict(f"Fare {fare['id']} has {fare['seats_left']} seats left; {seats} requested.", "soldOut")


def _passenger_profiles(ctx: ServiceContext, travellers: list[str], flight: dict[str, Any]) -> list[dict[str, Any]]:
    me = ctx.principal.id
    arrival = flight["arrives_at"][:10]
    out = []
    for who in travellers:
        name = core.name_of(ctx.world, who)
        profile = profile_of(ctx.world, who)
        if profile is None:
            raise core.conflict(f"{name} has no traveller profile: a flight needs their passport and date of birth.", "noProfile")
        if who != me:
            lacking = [f for f in PASSENGER_DATA if f not in shared_fields(ctx.world, profile, me)]
            if lacking:
                raise core.forbidden(
                    f"{name}'s passenger data ({', '.join(lacking)}) has not been shared with you; {name} can share it with travel_share_profile.",
                    "passengerDataNotShared",
                )
        if not profile["passport_number"] or not profile["passport_expiry"] or not profile["date_of_birth"]:
            raise core.conflict(f"{name}'s profile has no complete passport data (number, expiry, date of birth).", "incompleteProfile")
        if profile["passport_expiry"] < arrival:
            raise core.conflict(f"{name}'s passport expires on {profile['passport_expiry']}, before the flight arrives on {arrival}.", "passportExpired")
        out.append(profile)
    return out


def _carrier(flight: dict[str, Any], fare: dict[str, Any]) -> str:
    return fare["owner"] or flight["owner"]


def _names(world: World, people: list[str]) -> str:
    return ", ".join(core.name_of(world, p) for p in people)


def _rules_text(row: dict[str, Any]) -> str:
    cur = row["currency"]
    refund = "refundable" if row["refundable"] else "non-refundable"
    change = f"changes {core.money(row['change_fee'], cur)} per traveller" if row["changeable"] else "no changes"
    return f"{refund}; {change}"


def _history(row: dict[str, Any] | None, world: World, event: str, detail: str) -> list[dict[str, Any]]:
    past = list(row["history"]) if row else []
    return past + [{"at": core.now_iso(world), "event": event, "detail": detail}]


def _flight_text(flight: dict[str, Any]) -> str:
    return f"{flight['number']} {flight['origin']}-{flight['destination']}, departs {flight['departs_at']}, arrives {flight['arrives_at']}"


def _announce(ctx: ServiceContext, row: dict[str, Any], subject: str, text: str, carrier_text: str = "", carrier: str = "",
              carrier_carries: tuple[dict[str, str], ...] = ()) -> None:  # fmt: skip
    """Tell the travellers, the carrier or hotel (what it needs), and the itinerary's other members."""
    world = ctx.world
    booking = core.attach("Booking", row["id"])
    core.notify(ctx, "booking", row["travellers"], subject, text, row["id"], booking)
    if carrier and core.is_principal(world, carrier):
        core.notify(ctx, "booking", [carrier], f"{subject} ({row['locator']})", carrier_text, row["id"], booking + carrier_carries)
    if row["itinerary_id"]:
        others = [p for p in audience(world, row["itinerary_id"]) if p not in row["travellers"] and p != carrier]
        core.notify(ctx, "itinerary_update", others, f"Itinerary update: {subject}", f"{core.name_of(world, ctx.principal.id)}: {text}", row["itinerary_id"], booking)


# ---- tools ---------------------------------------------------------------------------------------
@tool(ToolKind.WRITE, name="travel_book_flight", rest=RestBinding("POST", f"{BASE}/fares/{{fareId}}/bookings", body="body"), action="book")
def book_flight(ctx: ServiceContext, fare_id: Annotated[str, ResourceArg("Fare")], body: FlightBookingBody) -> dict[str, Any]:
    """Book a fare for one or more travellers and pay for it with a payment authorisation you hold.

    The price is the fare's price per traveller times the number of travellers (integer minor units).
    Each traveller other than you must have shared passport and date_of_birth with you. The carrier
    receives each traveller's passport data; the travellers (and the itinerary's members) are told.
    A business booking is checked against your employer's travel policy: the result says inPolicy and
    needsApproval.

    Args:
        fare_id: the fare to book, from travel_search_flights or travel_get_flight.
        body: travellers (principal ids, default you), payment_id, purpose (business or personal), itinerary_id.
    """
    world, me = ctx.world, ctx.principal.id
    fare = get_fare_row(world, fare_id)
    flight = get_flight_row(world, fare["flight_id"])
    travellers = _travellers(ctx, body.travellers, "travellers")
    _bookable(world, flight, fare, len(travellers))
    profiles = _passenger_profiles(ctx, travellers, flight)
    if body.itinerary_id:
        joined_itinerary(ctx, body.itinerary_id)
    total = fare["price"] * len(travellers)
    verdict = assess(world, me, travellers, body.purpose, total=total, currency=fare["currency"], cabin=fare["cabin"], unit_price=fare["price"])
    pay = charge(ctx, body.payment_id, total, fare["currency"], body.purpose, f"{len(travellers)} x {fare['fare_class'] or fare['cabin']} on {flight['number']}")
    world.store.update(FARES.name, {"id": fare_id}, {"seats_left": fare["seats_left"] - len(travellers)})
    now = core.now_iso(world)
    row = {
        "id": core.new_id(world, "bk", "booking"), "owner": me, "kind": "flight", "locator": core.new_locator(world),
        "flight_id": flight["id"], "fare_id": fare_id, "hotel_id": "", "travellers": travellers, "payment_id": pay["id"],
        "itinerary_id": body.itinerary_id or "", "purpose": body.purpose, "cabin": fare["cabin"], "amount": total, "charged": total,
        "currency": fare["currency"], "refundable": fare["refundable"], "changeable": fare["changeable"], "change_fee": fare["change_fee"],
        "status": "confirmed", "in_policy": verdict.in_policy, "needs_approval": verdict.needs_approval, "policy_id": verdict.policy_id,
        "policy_notes": verdict.notes, "check_in": "", "check_out": "", "rooms": 0, "nights": 0, "expense_report_id": "",
        "history": [], "created_at": now, "updated_at": now,
    }  # fmt: skip
    row["history"] = _history(None, world, "booked", f"{fare['fare_class'] or fare['cabin']} for {_names(world, travellers)}, {core.money(total, fare['currency'])}")
    ctx.store.insert(BOOKINGS.name, row)
    carrier = _carrier(flight, fare)
    if carrier and core.is_principal(world, carrier):
        for profile in profiles:
            if profile["owner"] != carrier:
                share_with_carrier(world, profile, carrier, row["locator"])
    text = (f"{core.name_of(world, me)} booked {_flight_text(flight)} in {fare['cabin']} ({fare['fare_class']}) for {_names(world, travellers)}. "
            f"Booking {row['id']}, record locator {row['locator']}. Fare rules: {_rules_text(row)}.")  # fmt: skip
    manifest = f"Passenger data for booking {row['locator']} on {_flight_text(flight)}:\n\n" + "\n\n".join(values_text(p, PASSENGER_DATA) for p in profiles)
    _announce(ctx, row, f"Flight booked: {flight['number']} {flight['origin']}-{flight['destination']}", text, manifest, carrier,
              core.attach("TravellerProfile", *(p["id"] for p in profiles)))
    return booking_view(world, row, me)


@tool(ToolKind.WRITE, name="travel_book_hotel", rest=RestBinding("POST", f"{BASE}/hotels/{{hotelId}}/bookings", body="body"), action="book")
def book_hotel(ctx: ServiceContext, hotel_id: Annotated[str, ResourceArg("Hotel")], body: HotelBookingBody) -> dict[str, Any]:
    """Book rooms in a hotel for some nights and pay with a payment authorisation you hold.

    The price is the nightly rate times nights times rooms (integer minor units). The guests (and the
    itinerary's members) are told; the hotel receives the guests' names and dates.

    Args:
        hotel_id: the hotel, from travel_search_hotels.
        body: check_in, check_out (YYYY-MM-DD), rooms, guests (principal ids, default you), payment_id, purpose, itinerary_id.
    """
    world, me = ctx.world, ctx.principal.id
    hotel = get_hotel_row(world, hotel_id)
    check_in, check_out = core.parse_date(body.check_in, "check_in"), core.parse_date(body.check_out, "check_out")
    nights = (check_out - check_in).days
    if nights < 1:
        raise core.bad("check_out must be after check_in")
    if nights > MAX_NIGHTS:
        raise core.bad(f"at most {MAX_NIGHTS} nights in one booking")
    if check_in < core.today(world):
        raise core.conflict(f"check_in {body.check_in} is in the past.", "pastDate")
    if hotel["rooms_left"] < body.rooms:
        raise core.conflict(f"{hotel['name']} has {hotel['rooms_left']} rooms left; {body.rooms} requested.", "soldOut")
    guests = _travellers(ctx, body.guests, "guests")
    if body.itinerary_id:
        joined_itinerary(ctx, body.itinerary_id)
    total = hotel["nightly_rate"] * nights * body.rooms
    verdict = assess(world, me, guests, body.purpose, total=total, currency=hotel["currency"], nightly=hotel["nightly_rate"])
    pay = charge(ctx, body.payment_id, total, hotel["currency"], body.purpose, f"{nights} nights at {hotel['name']}")
    world.store.update(HOTELS.name, {"id": hotel_id}, {"rooms_left": hotel["rooms_left"] - body.rooms})
    now = core.now_iso(world)
    row = {
        "id": core.new_id(world, "bk", "booking"), "owner": me, "kind": "hotel", "locator": core.new_locator(world),
        "flight_id": "", "fare_id": "", "hotel_id": hotel_id, "travellers": guests, "payment_id": pay["id"],
        "itinerary_id": body.itinerary_id or "", "purpose": body.purpose, "cabin": "", "amount": total, "charged": total,
        "currency": hotel["currency"], "refundable": hotel["refundable"], "changeable": False, "change_fee": 0, "status": "confirmed",
        "in_policy": verdict.in_policy, "needs_approval": verdict.needs_approval, "policy_id": verdict.policy_id,
        "policy_notes": verdict.notes, "check_in": body.check_in, "check_out": body.check_out, "rooms": body.rooms, "nights": nights,
        "expense_report_id": "", "history": [], "created_at": now, "updated_at": now,
    }  # fmt: skip
    row["history"] = _history(None, world, "booked", f"{body.rooms} room(s), {nights} nights for {_names(world, guests)}, {core.money(total, hotel['currency'])}")
    ctx.store.insert(BOOKINGS.name, row)
    cancel = f"free cancellation until {hotel['cancel_deadline_hours']} hours before check-in" if hotel["refundable"] else "non-refundable"
    text = (f"{core.name_of(world, me)} booked {hotel['name']}, {hotel['city']}, {body.check_in} to {body.check_out} ({nights} nights, "
            f"{body.rooms} room(s)) for {_names(world, guests)}. Booking {row['id']}, confirmation {row['locator']}; {cancel}.")  # fmt: skip
    hotel_text = f"Reservation {row['locator']}: {body.rooms} room(s), {body.check_in} to {body.check_out}, guests: {_names(world, guests)}."
    _announce(ctx, row, f"Hotel booked: {hotel['name']}", text, hotel_text, hotel["owner"])
    return booking_view(world, row, me)


@tool(ToolKind.READ, name="travel_list_bookings", rest=RestBinding("GET", f"{BASE}/bookings"))
def list_bookings(
    ctx: ServiceContext,
    itinerary_id: str | None = None,
    status: Literal["confirmed", "cancelled"] | None = None,
    max_results: int = Field(default=50, ge=1, le=100),
    page_token: str | None = None,
) -> dict[str, Any]:
    """List bookings you made or travel on, oldest first.

    Args:
        itinerary_id: only bookings attached to this itinerary.
        status: only confirmed or only cancelled bookings.
        max_results: page size (1-100).
        page_token: the nextPageToken of the previous page.
    """
    me = ctx.principal.id
    rows = [r for r in ctx.store.select(BOOKINGS.name) if me == r["owner"] or me in r["travellers"]]
    rows = [r for r in rows if (itinerary_id is None or r["itinerary_id"] == itinerary_id) and (status is None or r["status"] == status)]
    rows.sort(key=lambda r: (r["created_at"], r["id"]))
    chunk, token = page(rows, page_token, max_results)
    out: dict[str, Any] = {"bookings": [booking_view(ctx.world, r, me) for r in chunk]}
    if token:
        out["nextPageToken"] = token
    return out


@tool(ToolKind.READ, name="travel_get_booking", rest=RestBinding("GET", f"{BASE}/bookings/{{bookingId}}"))
def get_booking(ctx: ServiceContext, booking_id: Annotated[str, ResourceArg("Booking")]) -> dict[str, Any]:
    """Get one booking you made or travel on: flight or hotel, travellers, amount, fare rules, policy result, history.

    Args:
        booking_id: the booking's id (not the record locator).
    """
    return booking_view(ctx.world, visible_booking(ctx, booking_id), ctx.principal.id)


@tool(ToolKind.WRITE, name="travel_change_booking", rest=RestBinding("POST", f"{BASE}/bookings/{{bookingId}}/change", body="body"), action="change")
def change_booking(ctx: ServiceContext, booking_id: Annotated[str, ResourceArg("Booking")], body: ChangeBody) -> dict[str, Any]:
    """Move a flight booking you made to another fare on the same route, by the fare rules.

    Costs the change fee per traveller plus any fare difference (no refund when the new fare is
    cheaper), charged to the booking's payment authorisation. A fare that is not changeable cannot
    change. If the carrier cancelled your flight, moving to the same or a lower cabin is free.

    Args:
        booking_id: a flight booking you made.
        body: fare_id: the new fare.
    """
    world, me = ctx.world, ctx.principal.id
    row = own_booking(ctx, booking_id)
    if row["kind"] != "flight":
        raise core.bad("Hotel bookings cannot be changed: cancel and book again.")
    if row["status"] != "confirmed":
        raise core.conflict(f"Booking {booking_id} is {row['status']}.", "notConfirmed")
    old_flight = get_flight_row(world, row["flight_id"])
    involuntary = old_flight["status"] == "cancelled"
    if not involuntary and old_flight["departs_ms"] <= core.now_ms(world):
        raise core.conflict(f"Flight {old_flight['number']} has departed.", "departed")
    fare = get_fare_row(world, body.fare_id)
    flight = get_flight_row(world, fare["flight_id"])
    if fare["id"] == row["fare_id"]:
        raise core.bad(f"Booking {booking_id} is already on fare {fare['id']}.")
    if (flight["origin"], flight["destination"]) != (old_flight["origin"], old_flight["destination"]):
        raise core.conflict(f"A change keeps the route {old_flight['origin']}-{old_flight['destination']}; fare {fare['id']} flies {flight['origin']}-{flight['destination']}.", "routeChange")
    n = len(row["travellers"])
    _bookable(world, flight, fare, n)
    profiles = _passenger_profiles(ctx, row["travellers"], flight)
    new_total = fare["price"] * n
    free = involuntary and CABINS.index(fare["cabin"]) <= CABINS.index(row["cabin"])
    if free:
        cost, amount = 0, row["amount"]
    else:
        if not row["changeable"] and not involuntary:
            raise core.conflict(f"The fare of booking {booking_id} does not allow changes ({_rules_text(row)}).", "fareRules")
        fee = 0 if involuntary else row["change_fee"] * n
        cost, amount = fee + max(0, new_total - row["amount"]), new_total
    verdict = assess(world, me, row["travellers"], row["purpose"], total=amount, currency=fare["currency"], cabin=fare["cabin"], unit_price=fare["price"])
    if cost:
        charge(ctx, row["payment_id"], cost, fare["currency"], row["purpose"], f"The change of booking {booking_id}")
    old_fare = world.store.get(FARES.name, {"id": row["fare_id"]})
    if old_fare is not None:
        world.store.update(FARES.name, {"id": old_fare["id"]}, {"seats_left": old_fare["seats_left"] + n})
    world.store.update(FARES.name, {"id": fare["id"]}, {"seats_left": fare["seats_left"] - n})
    detail = f"{old_flight['number']} {old_flight['departs_at']} -> {flight['number']} {flight['departs_at']} ({fare['cabin']}), cost {core.money(cost, fare['currency'])}"
    changes = {
        "flight_id": flight["id"], "fare_id": fare["id"], "cabin": fare["cabin"], "amount": amount, "charged": row["charged"] + cost,
        "refundable": fare["refundable"], "changeable": fare["changeable"], "change_fee": fare["change_fee"],
        "in_policy": verdict.in_policy, "needs_approval": verdict.needs_approval, "policy_id": verdict.policy_id, "policy_notes": verdict.notes,
        "history": _history(row, world, "changed", detail), "updated_at": core.now_iso(world),
    }  # fmt: skip
    ctx.store.update(BOOKINGS.name, {"id": booking_id}, changes)
    row = {**row, **changes}
    carrier = _carrier(flight, fare)
    if carrier and core.is_principal(world, carrier):
        for profile in profiles:
            if profile["owner"] != carrier:
                share_with_carrier(world, profile, carrier, row["locator"])
    text = f"{core.name_of(world, me)} changed booking {booking_id} ({row['locator']}) to {_flight_text(flight)} in {fare['cabin']} for {_names(world, row['travellers'])}."
    manifest = f"Passenger data for booking {row['locator']} on {_flight_text(flight)}:\n\n" + "\n\n".join(values_text(p, PASSENGER_DATA) for p in profiles)
    _announce(ctx, row, f"Flight changed: {flight['number']} {flight['origin']}-{flight['destination']}", text, manifest, carrier,
              core.attach("TravellerProfile", *(p["id"] for p in profiles)))
    return {**booking_view(world, row, me), "changeCost": cost, "changeCostText": core.money(cost, fare["currency"])}


def _hotel_deadline_passed(world: World, row: dict[str, Any], hours: int) -> bool:
    """Free cancellation ends `hours` before check-in (taken as midnight UTC of the check-in date)."""
    check_in = datetime.combine(core.parse_date(row["check_in"], "check_in"), time(0, 0), tzinfo=timezone.utc)
    return world.clock.now() > check_in - timedelta(hours=hours)


@tool(ToolKind.WRITE, name="travel_cancel_booking", rest=RestBinding("POST", f"{BASE}/bookings/{{bookingId}}/cancel"), action="cancel")
def cancel_booking(ctx: ServiceContext, booking_id: Annotated[str, ResourceArg("Booking")]) -> dict[str, Any]:
    """Cancel a booking you made. A refundable fare (or a hotel before its free-cancellation deadline) refunds what was charged to the payment authorisation; otherwise nothing is refunded. A flight the carrier cancelled is always refunded.

    Args:
        booking_id: a booking you made.
    """
    world, me = ctx.world, ctx.principal.id
    row = own_booking(ctx, booking_id)
    if row["status"] != "confirmed":
        raise core.conflict(f"Booking {booking_id} is already {row['status']}.", "notConfirmed")
    seats = len(row["travellers"])
    if row["kind"] == "flight":
        flight = get_flight_row(world, row["flight_id"])
        involuntary = flight["status"] == "cancelled"
        if not involuntary and flight["departs_ms"] <= core.now_ms(world):
            raise core.conflict(f"Flight {flight['number']} has departed.", "departed")
        back = row["charged"] if (row["refundable"] or involuntary) else 0
        fare = world.store.get(FARES.name, {"id": row["fare_id"]})
        if fare is not None:
            world.store.update(FARES.name, {"id": fare["id"]}, {"seats_left": fare["seats_left"] + seats})
        what = _flight_text(flight)
    else:
        hotel = get_hotel_row(world, row["hotel_id"])
        back = row["charged"] if row["refundable"] and not _hotel_deadline_passed(world, row, hotel["cancel_deadline_hours"]) else 0
        world.store.update(HOTELS.name, {"id": hotel["id"]}, {"rooms_left": hotel["rooms_left"] + row["rooms"]})
        what = f"{hotel['name']}, {row['check_in']} to {row['check_out']}"
    refund(world, row["payment_id"], back)
    changes = {"status": "cancelled", "charged": row["charged"] - back, "updated_at": core.now_iso(world),
               "history": _history(row, world, "cancelled", f"refund {core.money(back, row['currency'])}")}  # fmt: skip
    ctx.store.update(BOOKINGS.name, {"id": booking_id}, changes)
    row = {**row, **changes}
    text = f"{core.name_of(world, me)} cancelled booking {booking_id} ({row['locator']}): {what}."
    _announce(ctx, row, f"Booking cancelled: {row['locator']}", text)
    return {**booking_view(world, row, me), "refunded": back, "refundedText": core.money(back, row["currency"])}


TOOLS = (book_flight, book_hotel, list_bookings, get_booking, change_booking, cancel_booking)
