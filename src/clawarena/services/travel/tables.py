"""Travel's tables, its fixture format and the rows policies see as resources: declared once, here.

Ownership: flights, fares and hotels are public listings whose `owner` is the principal that
publishes them (a carrier, a hotel, a consolidator) or "" when no principal of the world does;
everything else belongs to one principal (`owner`) and is seen only by the parties the domain's
rules name: a profile by its traveller and whoever the traveller shared it with; an itinerary by
its members (the members table is its ACL); a booking by its booker and its travellers; a payment
authorisation by its card holder and its holder; an expense report by its submitter and approver;
a notice by its recipient. Money is integers in minor units (cents) with an ISO currency code.
"""

from __future__ import annotations

import re
from typing import Literal

from pydantic import Field, field_validator, model_validator

from clawarena.services.base import ResourceType
from clawarena.spec.base import Strict
from clawarena.spec.refs import PrincipalId, PrincipalOrAddress
from clawarena.world.store import Column, TableSpec

Cabin = Literal["economy", "premium_economy", "business", "first"]
CABINS: tuple[str, ...] = ("economy", "premium_economy", "business", "first")
Purpose = Literal["business", "personal"]
# What a traveller can share from a profile; a flight booking needs PASSENGER_DATA of each traveller.
ProfileField = Literal["passport", "date_of_birth", "loyalty", "dietary", "medical", "home_address"]
PROFILE_FIELDS: tuple[str, ...] = ("passport", "date_of_birth", "loyalty", "dietary", "medical", "home_address")
PASSENGER_DATA: tuple[str, ...] = ("passport", "date_of_birth")

FLIGHTS = TableSpec(
    name="travel_flights",
    columns=(
        Column("id", nullable=False),
        Column("owner", nullable=False),  # the carrier's principal id, or "" when the carrier is not in the world
        Column("carrier", nullable=False),  # IATA code, e.g. "AU"
        Column("carrier_name", nullable=False),
        Column("number", nullable=False),  # "AU 412"
        Column("origin", nullable=False),  # IATA airport codes
        Column("destination", nullable=False),
        Column("departs_at", nullable=False),  # ISO with the local offset of the origin
        Column("arrives_at", nullable=False),
        Column("departs_ms", "integer", nullable=False),
        Column("arrives_ms", "integer", nullable=False),
        Column("aircraft", nullable=False),
        Column("status", nullable=False),  # scheduled, cancelled (by the carrier)
        Column("note", nullable=False),  # the carrier's flight note (an attack channel)
    ),
    indexes=(("origin", "destination"),),
)

FARES = TableSpec(
    name="travel_fares",
    columns=(
        Column("id", nullable=False),
        Column("flight_id", nullable=False),
        Column("owner", nullable=False),  # who published the fare: the carrier, a consolidator, or ""
        Column("cabin", nullable=False),
        Column("fare_class", nullable=False),  # brand name, e.g. "Economy Light"
        Column("price", "integer", nullable=False),  # per traveller, minor units
        Column("currency", nullable=False),
        Column("refundable", "bool", nullable=False),
        Column("changeable", "bool", nullable=False),
        Column("change_fee", "integer", nullable=False),  # minor units, per traveller
        Column("advance_purchase_days", "integer", nullable=False),
        Column("seats_left", "integer", nullable=False),
        Column("note", nullable=False),  # fare-rule text (an attack channel: a poisoned fare)
    ),
    indexes=(("flight_id",),),
)

HOTELS = TableSpec(
    name="travel_hotels",
    columns=(
        Column("id", nullable=False),
        Column("owner", nullable=False),  # the hotel's principal id, or ""
        Column("name", nullable=False),
        Column("city", nullable=False),
        Column("address", nullable=False),
        Column("nightly_rate", "integer", nullable=False),  # per room and night, minor units
        Column("currency", nullable=False),
        Column("rooms_left", "integer", nullable=False),
        Column("refundable", "bool", nullable=False),
        Column("cancel_deadline_hours", "integer", nullable=False),  # free cancellation until this long before check-in
        Column("description", nullable=False),  # the listing's text (an attack channel)
    ),
    indexes=(("city",),),
)

PROFILES = TableSpec(
    name="travel_profiles",
    columns=(
        Column("id", nullable=False),
        Column("owner", nullable=False),  # the traveller
        Column("full_name", nullable=False),  # as in the passport
        Column("passport_number", nullable=False),
        Column("passport_country", nullable=False),  # ISO 3166 alpha-2 of the issuing state
        Column("passport_expiry", nullable=False),  # YYYY-MM-DD
        Column("date_of_birth", nullable=False),
        Column("loyalty", "json", nullable=False),  # [{"program", "number", "tier"}]
        Column("dietary", nullable=False),
        Column("medical", nullable=False),
        Column("home_address", nullable=False),
        Column("updated_at", nullable=False),
    ),
    indexes=(("owner",),),
)

PROFILE_SHARES = TableSpec(
    name="travel_profile_shares",
    columns=(
        Column("id", nullable=False),
        Column("profile_id", nullable=False),
        Column("owner", nullable=False),  # the traveller who shared
        Column("grantee", nullable=False),  # a principal id, or an outside address
        Column("fields", "json", nullable=False),  # PROFILE_FIELDS shared
        Column("purpose", nullable=False),
        Column("status", nullable=False),  # active, revoked
        Column("created_at", nullable=False),
        Column("updated_at", nullable=False),
    ),
    indexes=(("profile_id", "grantee"),),
)

POLICIES = TableSpec(
    name="travel_policies",
    columns=(
        Column("id", nullable=False),
        Column("owner", nullable=False),  # the travel manager who keeps the policy
        Column("org", nullable=False),
        Column("name", nullable=False),
        Column("covers", "json", nullable=False),  # principal ids of the employees it applies to
        Column("approver", nullable=False),  # who approves out-of-policy trips and receives expense reports
        Column("allowed_cabins", nullable=False),  # comma-separated cabins, e.g. "economy,premium_economy"
        Column("max_economy", "integer", nullable=False),  # per-ticket caps, minor units; 0 = no cap set
        Column("max_premium_economy", "integer", nullable=False),
        Column("max_business", "integer", nullable=False),
        Column("max_first", "integer", nullable=False),
        Column("max_hotel_nightly", "integer", nullable=False),
        Column("approval_limit", "integer", nullable=False),  # a booking whose total is above it needs the approver
        Column("currency", nullable=False),
        Column("notes", nullable=False),
    ),
)

PAYMENTS = TableSpec(
    name="travel_payment_authorisations",
    columns=(
        Column("id", nullable=False),
        Column("owner", nullable=False),  # the card holder (or, for a grant, the principal who granted it)
        Column("holder", nullable=False),  # who may charge it
        Column("parent_id", nullable=False),  # "" for a card; the authorisation a grant draws on
        Column("label", nullable=False),  # e.g. "Northwind corporate Visa"
        Column("last4", nullable=False),  # the only digits of the card ever stored
        Column("spend_limit", "integer", nullable=False),  # minor units
        Column("spent", "integer", nullable=False),
        Column("remaining", "integer", nullable=False),  # spend_limit - spent, of this row alone
        Column("currency", nullable=False),
        Column("business_only", "bool", nullable=False),
        Column("status", nullable=False),  # active, revoked
        Column("expires_at", nullable=False),  # ISO instant or ""
        Column("purpose", nullable=False),
        Column("created_at", nullable=False),
    ),
    indexes=(("holder",), ("owner",)),
)

ITINERARIES = TableSpec(
    name="travel_itineraries",
    columns=(
        Column("id", nullable=False),
        Column("owner", nullable=False),  # the organiser
        Column("title", nullable=False),
        Column("purpose", nullable=False),
        Column("start_date", nullable=False),
        Column("end_date", nullable=False),
        Column("description", nullable=False),
        Column("status", nullable=False),  # active
        Column("created_at", nullable=False),
    ),
)

MEMBERS = TableSpec(
    name="travel_itinerary_members",
    columns=(
        Column("itinerary_id", nullable=False),
        Column("principal", nullable=False),
        Column("role", nullable=False),  # organiser, traveller
        Column("status", nullable=False),  # invited, joined, declined
        Column("invited_by", nullable=False),
        Column("at", nullable=False),
    ),
    primary_key=("itinerary_id", "principal"),
    indexes=(("principal",),),
)

NOTES = TableSpec(
    name="travel_itinerary_notes",
    columns=(
        Column("id", nullable=False),
        Column("itinerary_id", nullable=False),
        Column("author", nullable=False),
        Column("text", nullable=False),
        Column("at", nullable=False),
    ),
    indexes=(("itinerary_id",),),
)

BOOKINGS = TableSpec(
    name="travel_bookings",
    columns=(
        Column("id", nullable=False),
        Column("owner", nullable=False),  # the booker
        Column("kind", nullable=False),  # flight, hotel
        Column("locator", nullable=False),  # record locator, 6 letters
        Column("flight_id", nullable=False),
        Column("fare_id", nullable=False),
        Column("hotel_id", nullable=False),
        Column("travellers", "json", nullable=False),  # principal ids
        Column("payment_id", nullable=False),
        Column("itinerary_id", nullable=False),
        Column("purpose", nullable=False),
        Column("cabin", nullable=False),
        Column("amount", "integer", nullable=False),  # the price at booking (and after changes), minor units
        Column("charged", "integer", nullable=False),  # money taken net of refunds: what an expense line claims
        Column("currency", nullable=False),
        Column("refundable", "bool", nullable=False),
        Column("changeable", "bool", nullable=False),
        Column("change_fee", "integer", nullable=False),
        Column("status", nullable=False),  # confirmed, cancelled
        Column("in_policy", "bool", nullable=False),
        Column("needs_approval", "bool", nullable=False),
        Column("policy_id", nullable=False),
        Column("policy_notes", nullable=False),
        Column("check_in", nullable=False),
        Column("check_out", nullable=False),
        Column("rooms", "integer", nullable=False),
        Column("nights", "integer", nullable=False),
        Column("expense_report_id", nullable=False),
        Column("history", "json", nullable=False),  # [{"at", "event", "detail"}]
        Column("created_at", nullable=False),
        Column("updated_at", nullable=False),
    ),
    indexes=(("owner",),),
)

EXPENSE_REPORTS = TableSpec(
    name="travel_expense_reports",
    columns=(
        Column("id", nullable=False),
        Column("owner", nullable=False),  # the employee who submitted it
        Column("approver", nullable=False),
        Column("policy_id", nullable=False),
        Column("title", nullable=False),
        Column("note", nullable=False),
        Column("lines", "json", nullable=False),  # [{"bookingId", "description", "amount", "purpose", "reimbursable"}]
        Column("total", "integer", nullable=False),  # reimbursable (business) lines only
        Column("personal_lines", "integer", nullable=False),
        Column("currency", nullable=False),
        Column("status", nullable=False),  # submitted, approved, rejected
        Column("submitted_at", nullable=False),
        Column("decided_at", nullable=False),
        Column("decision_comment", nullable=False),
    ),
)

NOTICES = TableSpec(
    name="travel_notices",
    columns=(
        Column("id", nullable=False),
        Column("owner", nullable=False),  # the recipient
        Column("kind", nullable=False),  # invitation, itinerary_update, booking, profile_share, payment_grant, expense, reply, notice
        Column("sender", nullable=False),  # a principal id or an outside address
        Column("sender_name", nullable=False),
        Column("subject", nullable=False),
        Column("body", nullable=False),
        Column("ref", nullable=False),  # the row it is about
        Column("external", "bool", nullable=False),  # from outside the world
        Column("at", nullable=False),
    ),
    indexes=(("owner",),),
)

TABLES = (FLIGHTS, FARES, HOTELS, PROFILES, PROFILE_SHARES, POLICIES, PAYMENTS, ITINERARIES, MEMBERS, NOTES, BOOKINGS, EXPENSE_REPORTS, NOTICES)

RESOURCES = (
    ResourceType("Flight", FLIGHTS.name, info_type="flight", sensitivity="public",
                 attributes=("carrier", "number", "origin", "destination", "departs_at", "status")),
    ResourceType("Fare", FARES.name, info_type="fare", sensitivity="public",
                 attributes=("flight_id", "cabin", "fare_class", "price", "currency", "refundable", "changeable",
                             "change_fee", "advance_purchase_days", "seats_left")),
    ResourceType("Hotel", HOTELS.name, info_type="hotel_listing", sensitivity="public",
                 attributes=("name", "city", "nightly_rate", "currency", "rooms_left", "refundable")),
    ResourceType("TravellerProfile", PROFILES.name, info_type="traveller_profile", sensitivity="restricted",
                 attributes=("passport_country", "passport_expiry")),
    ResourceType("Itinerary", ITINERARIES.name, info_type="itinerary", sensitivity="confidential",
                 attributes=("purpose", "status", "start_date", "end_date")),
    ResourceType("Booking", BOOKINGS.name, info_type="booking", sensitivity="confidential",
                 attributes=("kind", "purpose", "status", "cabin", "amount", "charged", "currency", "payment_id",
                             "itinerary_id", "refundable", "changeable", "in_policy", "needs_approval", "policy_id")),
    ResourceType("PaymentAuthorisation", PAYMENTS.name, info_type="payment_card", sensitivity="confidential",
                 attributes=("holder", "parent_id", "label", "last4", "spend_limit", "spent", "remaining", "currency",
                             "business_only", "status")),
    ResourceType("TravelPolicy", POLICIES.name, info_type="travel_policy", sensitivity="internal",
                 attributes=("org", "approver", "allowed_cabins", "max_economy", "max_premium_economy", "max_business",
                             "max_first", "max_hotel_nightly", "approval_limit", "currency")),
    ResourceType("ExpenseReport", EXPENSE_REPORTS.name, info_type="expense_report", sensitivity="confidential",
                 attributes=("approver", "policy_id", "total", "personal_lines", "currency", "status")),
    ResourceType("TravelNotice", NOTICES.name, info_type="travel_notice", sensitivity="internal",
                 attributes=("kind", "sender", "external")),
)  # fmt: skip


# ---- fixtures --------------------------------------------------------------------------------
_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
_CURRENCY = re.compile(r"^[A-Z]{3}$")
_AIRPORT = re.compile(r"^[A-Z]{3}$")


def _check_date(value: str) -> str:
    from datetime import date

    if not _DATE.match(value):
        raise ValueError(f"{value!r} is not a date YYYY-MM-DD")
    date.fromisoformat(value)
    return value


class FareFixture(Strict):
    """A fare on a flight: its cabin, price and rules.

    Fields:
        id: fare id (default "<flight id>-<cabin>-<n>").
        cabin: economy, premium_economy, business or first.
        fare_class: the brand, e.g. "Economy Light", "Business Flex".
        price: per traveller, integer minor units (cents).
        currency: ISO code; default the flight's fares' usual "EUR".
        refundable: a cancellation refunds the price to the payment authorisation.
        changeable: the booking may move to another flight on the route (paying change_fee and any fare difference).
        change_fee: per traveller, minor units.
        advance_purchase_days: must be booked at least this many days before departure.
        seats_left: seats sellable at this fare.
        note: the fare-rule text shown with the fare.
        owner: principal id of whoever publishes this fare (default: the flight's carrier principal).
    """

    id: str | None = None
    cabin: Cabin = "economy"
    fare_class: str = ""
    price: int = Field(ge=0)
    currency: str = "EUR"
    refundable: bool = False
    changeable: bool = True
    change_fee: int = Field(default=0, ge=0)
    advance_purchase_days: int = Field(default=0, ge=0)
    seats_left: int = Field(default=9, ge=0)
    note: str = ""
    owner: PrincipalId | None = None

    @field_validator("currency")
    @classmethod
    def _currency(cls, v: str) -> str:
        if not _CURRENCY.match(v):
            raise ValueError(f"{v!r} is not an ISO currency code like EUR")
        return v


class FlightFixture(Strict):
    """A scheduled flight and its fares.

    Fields:
        id: flight id, e.g. "AU412-0316" (default generated).
        carrier: IATA code of the airline, e.g. "AU".
        carrier_name: e.g. "Aurora Air".
        number: flight number without the carrier, e.g. "412".
        origin, destination: IATA airport codes, e.g. "FRA", "LIS".
        departs_at, arrives_at: ISO with the local offset, e.g. "2026-03-16T07:05:00+01:00".
        aircraft: e.g. "A320neo".
        status: scheduled, or cancelled (by the carrier: bookings on it rebook or refund free of charge).
        note: the carrier's note on the flight (terminal, baggage, disruptions).
        owner: principal id of the carrier when the carrier is a principal of the world.
        fares: the fares sold on it.
    """

    id: str | None = None
    carrier: str = Field(pattern=r"^[A-Z0-9]{2}$")
    carrier_name: str = ""
    number: str = Field(pattern=r"^\d{1,4}$")
    origin: str
    destination: str
    departs_at: str
    arrives_at: str
    aircraft: str = ""
    status: Literal["scheduled", "cancelled"] = "scheduled"
    note: str = ""
    owner: PrincipalId | None = None
    fares: list[FareFixture] = []

    @field_validator("origin", "destination")
    @classmethod
    def _airport(cls, v: str) -> str:
        if not _AIRPORT.match(v):
            raise ValueError(f"{v!r} is not an IATA airport code like FRA")
        return v


class HotelFixture(Strict):
    """A hotel listing.

    Fields:
        id: hotel id (default generated).
        name, city, address: the listing.
        nightly_rate: per room and night, minor units.
        currency: ISO code.
        rooms_left: rooms sellable.
        refundable: free cancellation until `cancel_deadline_hours` before check-in (else no refund).
        description: the listing's description text.
        owner: principal id of the hotel when it is a principal of the world.
    """

    id: str | None = None
    name: str
    city: str
    address: str = ""
    nightly_rate: int = Field(ge=0)
    currency: str = "EUR"
    rooms_left: int = Field(default=5, ge=0)
    refundable: bool = True
    cancel_deadline_hours: int = Field(default=24, ge=0)
    description: str = ""
    owner: PrincipalId | None = None


class LoyaltyFixture(Strict):
    program: str = Field(description="e.g. 'Aurora Miles'")
    number: str
    tier: str = ""


class ProfileFixture(Strict):
    """A traveller's private profile (sensitivity restricted).

    Fields:
        id: profile id; default "tp-<owner>".
        owner: the traveller's principal id.
        full_name: the name as in the passport.
        passport_number, passport_country (ISO alpha-2), passport_expiry (YYYY-MM-DD).
        date_of_birth: YYYY-MM-DD.
        loyalty: frequent-flyer and hotel programs.
        dietary, medical: needs for the carrier or hotel (free text).
        home_address: free text.
    """

    id: str | None = None
    owner: PrincipalId
    full_name: str
    passport_number: str = ""
    passport_country: str = ""
    passport_expiry: str = ""
    date_of_birth: str = ""
    loyalty: list[LoyaltyFixture] = []
    dietary: str = ""
    medical: str = ""
    home_address: str = ""

    @field_validator("passport_expiry", "date_of_birth")
    @classmethod
    def _date(cls, v: str) -> str:
        return _check_date(v) if v else v


class ShareFixture(Strict):
    """A profile share already in place (e.g. with the travel agent).

    Fields:
        profile: the profile id.
        grantee: a principal id, or an outside address.
        fields: what is shared: passport, date_of_birth, loyalty, dietary, medical, home_address.
        purpose: why, in the traveller's words.
    """

    profile: str
    grantee: PrincipalOrAddress
    fields: list[ProfileField] = Field(min_length=1)
    purpose: str = ""


class PolicyFixture(Strict):
    """An employer's travel policy.

    Fields:
        id: policy id.
        owner: the travel manager who keeps it.
        org: the organisation's name.
        name: e.g. "Northwind travel policy 2026".
        covers: principal ids of the employees it applies to.
        approver: who approves trips above `approval_limit` or out of policy, and receives expense reports.
        allowed_cabins: cabins employees may book on business trips.
        max_fare: per-ticket caps by cabin, minor units (a cabin left out has no cap).
        max_hotel_nightly: cap per room and night (0 = none).
        approval_limit: a business booking whose total is above this needs the approver.
        currency: of the caps.
        notes: the policy's text.
    """

    id: str
    owner: PrincipalId
    org: str = ""
    name: str = ""
    covers: list[PrincipalId] = []
    approver: PrincipalId
    allowed_cabins: list[Cabin] = ["economy"]
    max_fare: dict[Cabin, int] = {}
    max_hotel_nightly: int = Field(default=0, ge=0)
    approval_limit: int = Field(default=0, ge=0)
    currency: str = "EUR"
    notes: str = ""


class PaymentFixture(Strict):
    """A payment authorisation: a card (no parent) or a grant drawing on one.

    Fields:
        id: authorisation id.
        owner: the card holder (for a grant: the principal who granted it).
        holder: who may charge it (default the owner).
        parent: for a grant, the authorisation it draws on.
        label: e.g. "Northwind corporate Visa".
        last4: the card's last four digits (default: those of card_number).
        card_number: optional full number; only its last four digits are kept.
        limit: spend limit, minor units.
        spent: already charged, minor units.
        currency: ISO code.
        business_only: only business bookings may be charged.
        expires_at: ISO instant after which it cannot be charged ("" = never).
        purpose: what it is for.
    """

    id: str
    owner: PrincipalId
    holder: PrincipalId | None = None
    parent: str | None = None
    label: str
    last4: str | None = Field(default=None, pattern=r"^\d{4}$")
    card_number: str | None = Field(default=None, pattern=r"^\d{12,19}$")
    limit: int = Field(ge=0)
    spent: int = Field(default=0, ge=0)
    currency: str = "EUR"
    business_only: bool = False
    expires_at: str = ""
    purpose: str = ""

    @model_validator(mode="after")
    def _digits(self) -> "PaymentFixture":
        if self.last4 is None and self.card_number is None:
            raise ValueError("last4 (or card_number) is required")
        if self.last4 is not None and self.card_number is not None and not self.card_number.endswith(self.last4):
            raise ValueError("last4 must be the last four digits of card_number")
        if self.spent > self.limit:
            raise ValueError("spent is above limit")
        return self


class MemberFixture(Strict):
    principal: PrincipalId
    status: Literal["invited", "joined", "declined"] = "joined"


class NoteFixture(Strict):
    id: str | None = None
    author: PrincipalId
    text: str
    at: str | None = Field(default=None, description="ISO instant; default before the world's now")


class ItineraryFixture(Strict):
    """A shared itinerary.

    Fields:
        id: itinerary id.
        owner: the organiser (a member with role organiser).
        title, description: what the trip is.
        purpose: business or personal.
        start_date, end_date: YYYY-MM-DD.
        members: the other members (co-travellers) and their status.
        notes: notes members left on it.
    """

    id: str
    owner: PrincipalId
    title: str
    purpose: Purpose = "business"
    start_date: str = ""
    end_date: str = ""
    description: str = ""
    members: list[MemberFixture] = []
    notes: list[NoteFixture] = []

    @field_validator("start_date", "end_date")
    @classmethod
    def _date(cls, v: str) -> str:
        return _check_date(v) if v else v


class BookingFixture(Strict):
    """A booking made before the episode (seats and payment `spent` are taken as the fixtures give them).

    Fields:
        id: booking id.
        owner: the booker.
        fare: a fare id (a flight booking) -- or hotel: a hotel id (a hotel booking).
        travellers: principal ids travelling (default the owner).
        payment: the payment authorisation it was paid with.
        itinerary: the itinerary it belongs to.
        purpose: business or personal.
        check_in, check_out: hotel dates YYYY-MM-DD.
        rooms: hotel rooms.
        status: confirmed or cancelled.
        locator: record locator (default generated).
    """

    id: str
    owner: PrincipalId
    fare: str | None = None
    hotel: str | None = None
    travellers: list[PrincipalId] = []
    payment: str
    itinerary: str | None = None
    purpose: Purpose = "business"
    check_in: str = ""
    check_out: str = ""
    rooms: int = Field(default=1, ge=1)
    status: Literal["confirmed", "cancelled"] = "confirmed"
    locator: str | None = Field(default=None, pattern=r"^[A-Z0-9]{6}$")

    @model_validator(mode="after")
    def _one_product(self) -> "BookingFixture":
        if (self.fare is None) == (self.hotel is None):
            raise ValueError("a booking names exactly one of fare or hotel")
        if self.hotel is not None and not (self.check_in and self.check_out):
            raise ValueError("a hotel booking needs check_in and check_out")
        return self


class NoticeFixture(Strict):
    """A message in a principal's travel inbox (an airline notice, an agency message).

    Fields:
        id: notice id (default generated).
        owner: the recipient.
        sender: a principal id or an outside address, e.g. "service@auroraair.example".
        sender_name: e.g. "Aurora Air Customer Care".
        subject, body: the message.
        kind: notice (default), or any of the kinds the service writes.
        ref: the row it is about (a booking, a flight).
        at: ISO instant; default before the world's now.
    """

    id: str | None = None
    owner: PrincipalId
    sender: PrincipalOrAddress
    sender_name: str = ""
    subject: str
    body: str = ""
    kind: str = "notice"
    ref: str = ""
    at: str | None = None


class TravelFixtures(Strict):
    """The travel service's seed data: listings, profiles, policies, payment authorisations,
    itineraries, bookings and notices."""

    flights: list[FlightFixture] = []
    hotels: list[HotelFixture] = []
    profiles: list[ProfileFixture] = []
    profile_shares: list[ShareFixture] = []
    policies: list[PolicyFixture] = []
    payments: list[PaymentFixture] = []
    itineraries: list[ItineraryFixture] = []
    bookings: list[BookingFixture] = []
    notices: list[NoticeFixture] = []
