"""Request bodies of travel's write operations (JSON, camelCase on the wire, snake_case for agents)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field
from pydantic.alias_generators import to_camel

from clawarena.services.travel.tables import ProfileField, Purpose


class Body(BaseModel):
    model_config = ConfigDict(extra="forbid", alias_generator=to_camel, populate_by_name=True)


class ShareBody(Body):
    """Who gets which parts of the profile."""

    grantee: str = Field(description="principal id (e.g. a travel agent or co-traveller) or an outside email address")
    fields: list[ProfileField] = Field(
        description="what to share: passport (number, issuing country, expiry, name as in passport), date_of_birth, loyalty, "
        "dietary, medical, home_address. Replaces what this grantee had; an empty list withdraws the share."
    )
    purpose: str = Field(default="", max_length=500, description="why, e.g. 'booking the Lisbon offsite flights'")


class ItineraryBody(Body):
    """A new shared itinerary."""

    title: str = Field(min_length=1, max_length=200, description="e.g. 'Lisbon offsite, March 2026'")
    purpose: Purpose = Field(default="business", description="business or personal")
    start_date: str = Field(default="", description="YYYY-MM-DD")
    end_date: str = Field(default="", description="YYYY-MM-DD")
    description: str = Field(default="", max_length=4000)


class InviteBody(Body):
    """An invitation to join an itinerary."""

    invitee: str = Field(description="principal id of the co-traveller to invite")
    message: str = Field(default="", max_length=2000, description="a note sent with the invitation")


class ResponseBody(Body):
    response: Literal["accept", "decline"] = Field(description="accept or decline the invitation")


class NoteBody(Body):
    text: str = Field(min_length=1, max_length=4000, description="the note, seen by every member")


class FlightBookingBody(Body):
    """Who flies, how it is paid, and what the trip is for."""

    travellers: list[str] = Field(default=[], max_length=9, description="principal ids of the passengers; default just you")
    payment_id: str = Field(description="id of a payment authorisation you hold (see travel_list_payment_authorisations)")
    purpose: Purpose = Field(description="business (the employer's policy applies; can be expensed) or personal")
    itinerary_id: str | None = Field(default=None, description="attach the booking to this shared itinerary (its members are told)")


class HotelBookingBody(Body):
    """Dates, rooms, guests and payment of a hotel booking."""

    check_in: str = Field(description="YYYY-MM-DD")
    check_out: str = Field(description="YYYY-MM-DD, after check_in")
    rooms: int = Field(default=1, ge=1, le=9)
    guests: list[str] = Field(default=[], max_length=9, description="principal ids staying; default just you")
    payment_id: str = Field(description="id of a payment authorisation you hold")
    purpose: Purpose = Field(description="business or personal")
    itinerary_id: str | None = Field(default=None, description="attach the booking to this shared itinerary")


class ChangeBody(Body):
    fare_id: str = Field(description="the fare to move to: on another flight of the same route")


class GrantBody(Body):
    """A spending authority for someone else, drawn on one of your cards."""

    grantee: str = Field(description="principal id who may then charge bookings to it")
    amount: int = Field(ge=1, description="the most they may spend, integer minor units (cents)")
    purpose: str = Field(default="", max_length=500, description="what it is for, e.g. 'team flights to Lisbon'")
    expires_at: str = Field(default="", description="ISO instant after which it can no longer be charged (empty: never)")
    business_only: bool | None = Field(default=None, description="only business bookings (default: as the card)")


class ExpenseBody(Body):
    """Bookings to claim from the employer."""

    booking_ids: list[str] = Field(min_length=1, max_length=50, description="your bookings to claim (a personal booking listed here is shown to the approver but not reimbursed)")
    title: str = Field(min_length=1, max_length=200, description="e.g. 'Lisbon offsite travel'")
    note: str = Field(default="", max_length=2000, description="a note to the approver")


class DecisionBody(Body):
    decision: Literal["approve", "reject"]
    comment: str = Field(default="", max_length=2000)


class ReplyBody(Body):
    text: str = Field(min_length=1, max_length=4000, description="your reply, sent to the notice's sender")
