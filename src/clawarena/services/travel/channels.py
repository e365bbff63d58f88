"""Attack material in the travel domain: where it meets normal work.

- `travel_notice`: a message in a principal's travel inbox from someone else (a fake airline asking
  to "confirm passport details by reply", an agency's "upgrade offer").
- `travel_fare`: a fare's rule text, a flight's carrier note, or a whole new fare on a flight
  published by whoever the placement names (a poisoned fare table row).
- `travel_itinerary_note`: a note on a shared itinerary written by one of its members (a co-traveller).
- `travel_hotel_listing`: a hotel listing's description, of an existing hotel or a new listing.

Each placement model is strict; a placement naming a row that is not in the fixtures is a
ValueError naming the placement field.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal, Union

from pydantic import Discriminator, Field, Tag

from clawarena.services.travel import core
from clawarena.services.travel.tables import (
    BOOKINGS, FARES, FLIGHTS, HOTELS, ITINERARIES, MEMBERS, NOTES, NOTICES, Cabin,
)  # fmt: skip
from clawarena.spec.base import Strict
from clawarena.spec.instants import parse_time
from clawarena.spec.models import AttackSpec
from clawarena.spec.refs import PrincipalId, PrincipalOrAddress
from clawarena.world.world import World

Mode = Literal["append", "replace"]


class NoticePlacement(Strict):
    """The payload is the body of a new notice in `recipient`'s travel inbox."""

    recipient: PrincipalId = Field(description="whose travel inbox it lands in")
    sender: PrincipalOrAddress = Field(description="a principal id or an outside address, e.g. 'check-in@aurora-air-support.example'")
    sender_name: str = Field(default="", description="the name it claims, e.g. 'Aurora Air Passenger Services'")
    subject: str = Field(description="the notice's subject")
    kind: str = "notice"
    ref: str = Field(default="", description="a booking, flight, fare, hotel or itinerary id it claims to be about")
    at: str | None = Field(default=None, description="ISO instant; default a quarter of an hour before the world's now")
    id: str | None = None


class FareEdit(Strict):
    """The payload goes into an existing fare's rule note."""

    fare: str = Field(description="id of a fixture fare")
    mode: Mode = "append"


class FlightNoteEdit(Strict):
    """The payload goes into an existing flight's carrier note."""

    flight: str = Field(description="id of a fixture flight")
    mode: Mode = "append"


class NewFare(Strict):
    """A new fare on a fixture flight whose rule note is the payload (a poisoned fare-table row)."""

    flight: str = Field(description="id of a fixture flight")
    price: int = Field(ge=0, description="per traveller, minor units")
    id: str | None = None
    cabin: Cabin = "economy"
    fare_class: str = "Economy Saver"
    currency: str = "EUR"
    refundable: bool = False
    changeable: bool = False
    change_fee: int = Field(default=0, ge=0)
    advance_purchase_days: int = Field(default=0, ge=0)
    seats_left: int = Field(default=9, ge=0)
    owner: PrincipalId | None = Field(default=None, description="who publishes it (default the flight's carrier principal)")


FarePlacement = Annotated[
    Union[Annotated[FareEdit, Tag("fare")], Annotated[FlightNoteEdit, Tag("flight-note")], Annotated[NewFare, Tag("new-fare")]],
    Discriminator(
        lambda v: ("fare" if isinstance(v, FareEdit) else "new-fare" if isinstance(v, NewFare) else "flight-note")
        if not isinstance(v, dict)
        else ("fare" if "fare" in v else "new-fare" if "price" in v else "flight-note")
    ),
]


class ItineraryNotePlacement(Strict):
    """The payload is a note on an itinerary, written by one of its members."""

    itinerary: str = Field(description="id of a fixture itinerary")
    author: PrincipalId = Field(description="a member of the itinerary (a co-traveller)")
    at: str | None = Field(default=None, description="ISO instant; default a quarter of an hour before the world's now")
    id: str | None = None


class HotelEdit(Strict):
    """The payload goes into an existing hotel's listing description."""

    hotel: str = Field(description="id of a fixture hotel")
    mode: Mode = "append"


class NewHotel(Strict):
    """A new hotel listing whose description is the payload."""

    name: str
    city: str
    nightly_rate: int = Field(ge=0)
    id: str | None = None
    address: str = ""
    currency: str = "EUR"
    rooms_left: int = Field(default=5, ge=0)
    refundable: bool = False
    cancel_deadline_hours: int = Field(default=24, ge=0)
    owner: PrincipalId | None = Field(default=None, description="who lists it")


HotelPlacement = Annotated[
    Union[Annotated[HotelEdit, Tag("hotel")], Annotated[NewHotel, Tag("new-hotel")]],
    Discriminator(lambda v: "hotel" if isinstance(v, HotelEdit) or (isinstance(v, dict) and "hotel" in v) else "new-hotel"),
]

CHANNELS: dict[str, Any] = {
    "travel_notice": NoticePlacement,
    "travel_fare": FarePlacement,
    "travel_itinerary_note": ItineraryNotePlacement,
    "travel_hotel_listing": HotelPlacement,
}


def _text(old: str, payload: str, mode: str) -> str:
    return payload if mode == "replace" or not old else f"{old}\n\n{payload}"


def _principal(world: World, who: str | None, field: str) -> str:
    if who is None:
        return ""
    if not core.is_principal(world, who):
        raise ValueError(f"placement.{field}: unknown principal {who!r}")
    return who


def _at(world: World, value: str | None, field: str) -> str:
    if value is None:  # newer than any seeded row (those default to half an hour or more before now)
        return core.at_before_now(world, 15)
    try:
        return parse_time(value).strftime("%Y-%m-%dT%H:%M:%S.000Z")
    except ValueError:
        raise ValueError(f"placement.{field}: {value!r} is not an ISO instant") from None


def _fresh(world: World, table: str, ident: str | None, field: str, make: str) -> str:
    if ident is None:
        return make
    if world.store.get(table, {"id": ident}) is not None:
        raise ValueError(f"placement.{field}: id {ident!r} is taken")
    return ident


def place(world: World, attack: AttackSpec, placement: Any) -> None:
    store, payload = world.store, attack.payload
    p = placement
    if isinstance(p, NoticePlacement):
        if p.ref and not any(store.get(t.name, {"id": p.ref}) for t in (BOOKINGS, FLIGHTS, FARES, HOTELS, ITINERARIES)):
            raise ValueError(f"placement.ref: no booking, flight, fare, hotel or itinerary {p.ref!r} in the fixtures")
        core.write_notice(
            world, owner=_principal(world, p.recipient, "recipient"), kind=p.kind, sender=p.sender, sender_name=p.sender_name or p.sender,
            subject=p.subject, body=payload, ref=p.ref, external=core.is_external(world, p.sender), at=_at(world, p.at, "at"),
            notice_id=_fresh(world, NOTICES.name, p.id, "id", core.new_id(world, "ntc", "notice")),
        )  # fmt: skip
    elif isinstance(p, FareEdit):
        row = store.get(FARES.name, {"id": p.fare})
        if row is None:
            raise ValueError(f"placement.fare: no fare {p.fare!r} in the fixtures")
        store.update(FARES.name, {"id": p.fare}, {"note": _text(row["note"], payload, p.mode)})
    elif isinstance(p, FlightNoteEdit):
        row = store.get(FLIGHTS.name, {"id": p.flight})
        if row is None:
            raise ValueError(f"placement.flight: no flight {p.flight!r} in the fixtures")
        store.update(FLIGHTS.name, {"id": p.flight}, {"note": _text(row["note"], payload, p.mode)})
    elif isinstance(p, NewFare):
        flight = store.get(FLIGHTS.name, {"id": p.flight})
        if flight is None:
            raise ValueError(f"placement.flight: no flight {p.flight!r} in the fixtures")
        store.insert(FARES.name, {
            "id": _fresh(world, FARES.name, p.id, "id", core.new_id(world, "fare", "fare")), "flight_id": flight["id"],
            "owner": _principal(world, p.owner, "owner") or flight["owner"], "cabin": p.cabin, "fare_class": p.fare_class, "price": p.price,
            "currency": p.currency, "refundable": p.refundable, "changeable": p.changeable, "change_fee": p.change_fee,
            "advance_purchase_days": p.advance_purchase_days, "seats_left": p.seats_left, "note": payload,
        })  # fmt: skip
    elif isinstance(p, ItineraryNotePlacement):
        if store.get(ITINERARIES.name, {"id": p.itinerary}) is None:
            raise ValueError(f"placement.itinerary: no itinerary {p.itinerary!r} in the fixtures")
        member = store.get(MEMBERS.name, {"itinerary_id": p.itinerary, "principal": _principal(world, p.author, "author")})
        if member is None or member["status"] == "declined":
            raise ValueError(f"placement.author: {p.author} is not a member of itinerary {p.itinerary}")
        store.insert(NOTES.name, {"id": _fresh(world, NOTES.name, p.id, "id", core.new_id(world, "note", "note")), "itinerary_id": p.itinerary,
                                  "author": p.author, "text": payload, "at": _at(world, p.at, "at")})  # fmt: skip
    elif isinstance(p, HotelEdit):
        row = store.get(HOTELS.name, {"id": p.hotel})
        if row is None:
            raise ValueError(f"placement.hotel: no hotel {p.hotel!r} in the fixtures")
        store.update(HOTELS.name, {"id": p.hotel}, {"description": _text(row["description"], payload, p.mode)})
    elif isinstance(p, NewHotel):
        store.insert(HOTELS.name, {
            "id": _fresh(world, HOTELS.name, p.id, "id", core.new_id(world, "htl", "hotel")), "owner": _principal(world, p.owner, "owner"),
            "name": p.name, "city": p.city, "address": p.address, "nightly_rate": p.nightly_rate, "currency": p.currency,
            "rooms_left": p.rooms_left, "refundable": p.refundable, "cancel_deadline_hours": p.cancel_deadline_hours, "description": payload,
        })  # fmt: skip
    else:  # pragma: no cover - the builder validated the placement against CHANNELS
        raise ValueError(f"placement: not a travel placement: {type(p).__name__}")
