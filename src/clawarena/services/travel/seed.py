"""Seeding travel fixtures into a world: every problem is a ValueError naming the fixture field."""

from __future__ import annotations

from typing import Any

from clawarena.services.base import ServiceError
from clawarena.services.travel import core
from clawarena.services.travel.catalog import assess
from clawarena.services.travel.profiles import put_share
from clawarena.services.travel.tables import (
    BOOKINGS, CABINS, FARES, FLIGHTS, HOTELS, ITINERARIES, MEMBERS, NOTES, NOTICES, PAYMENTS, POLICIES, PROFILES,
    TravelFixtures,
)  # fmt: skip
from clawarena.spec.instants import parse_time
from clawarena.world.world import World


def _principal(world: World, who: str | None, where: str) -> str:
    if who is None:
        return ""
    if not core.is_principal(world, who):
        raise ValueError(f"{where}: unknown principal {who!r}")
    return who


def _unique(world: World, table: str, ident: str, where: str) -> str:
    if world.store.get(table, {"id": ident}) is not None:
        raise ValueError(f"{where}: duplicate id {ident!r}")
    return ident


def _instant(value: str, where: str) -> int:
    try:
        return core.instant_ms(value)
    except ValueError:
        raise ValueError(f"{where}: {value!r} is not an ISO instant") from None


def _at(world: World, value: str | None, minutes_before: int, where: str) -> str:
    if value is None:
        return core.at_before_now(world, minutes_before)
    _instant(value, where)
    return parse_time(value).strftime("%Y-%m-%dT%H:%M:%S.000Z")


def seed(world: World, fixture: dict[str, Any]) -> None:
    data = TravelFixtures.model_validate(fixture)
    store = world.store
    now = core.now_iso(world)
    for i, f in enumerate(data.flights):
        where = f"flights[{i}]"
        fid = _unique(world, FLIGHTS.name, f.id or f"{f.carrier}{f.number}-{f.departs_at[5:7]}{f.departs_at[8:10]}", f"{where}.id")
        departs, arrives = _instant(f.departs_at, f"{where}.departs_at"), _instant(f.arrives_at, f"{where}.arrives_at")
        if arrives <= departs:
            raise ValueError(f"{where}.arrives_at: must be after departs_at")
        if f.origin == f.destination:
            raise ValueError(f"{where}.destination: same as origin")
        owner = _principal(world, f.owner, f"{where}.owner")
        store.insert(FLIGHTS.name, {
            "id": fid, "owner": owner, "carrier": f.carrier, "carrier_name": f.carrier_name or f.carrier,
            "number": f"{f.carrier} {f.number}", "origin": f.origin, "destination": f.destination, "departs_at": f.departs_at,
            "arrives_at": f.arrives_at, "departs_ms": departs, "arrives_ms": arrives, "aircraft": f.aircraft, "status": f.status, "note": f.note,
        })  # fmt: skip
        for j, fare in enumerate(f.fares):
            fw = f"{where}.fares[{j}]"
            store.insert(FARES.name, {
                "id": _unique(world, FARES.name, fare.id or f"{fid}-{fare.cabin}-{j + 1}", f"{fw}.id"), "flight_id": fid,
                "owner": _principal(world, fare.owner, f"{fw}.owner") or owner, "cabin": fare.cabin,
                "fare_class": fare.fare_class or fare.cabin.replace("_", " ").title(), "price": fare.price, "currency": fare.currency,
                "refundable": fare.refundable, "changeable": fare.changeable, "change_fee": fare.change_fee,
                "advance_purchase_days": fare.advance_purchase_days, "seats_left": fare.seats_left, "note": fare.note,
            })  # fmt: skip
    for i, h in enumerate(data.hotels):
        where = f"hotels[{i}]"
        store.insert(HOTELS.name, {
            "id": _unique(world, HOTELS.name, h.id or core.new_id(world, "htl", "hotel"), f"{where}.id"),
            "owner": _principal(world, h.owner, f"{where}.owner"), "name": h.name, "city": h.city, "address": h.address,
            "nightly_rate": h.nightly_rate, "currency": h.currency, "rooms_left": h.rooms_left, "refundable": h.refundable,
            "cancel_deadline_hours": h.cancel_deadline_hours, "description": h.description,
        })  # fmt: skip
    for i, p in enumerate(data.profiles):
        where = f"profiles[{i}]"
        owner = _principal(world, p.owner, f"{where}.owner")
        if store.select(PROFILES.name, {"owner": owner}):
            raise ValueError(f"{where}.owner: {owner} already has a traveller profile")
        store.insert(PROFILES.name, {
            "id": _unique(world, PROFILES.name, p.id or f"tp-{owner}", f"{where}.id"), "owner": owner, "full_name": p.full_name,
            "passport_number": p.passport_number, "passport_country": p.passport_country, "passport_expiry": p.passport_expiry,
            "date_of_birth": p.date_of_birth, "loyalty": [x.model_dump() for x in p.loyalty], "dietary": p.dietary,
            "medical": p.medical, "home_address": p.home_address, "updated_at": now,
        })  # fmt: skip
    for i, s in enumerate(data.profile_shares):
        where = f"profile_shares[{i}]"
        profile = store.get(PROFILES.name, {"id": s.profile})
        if profile is None:
            raise ValueError(f"{where}.profile: no profile {s.profile!r} in the fixtures")
        if s.grantee == profile["owner"]:
            raise ValueError(f"{where}.grantee: a traveller does not share with themselves")
        put_share(world, profile, s.grantee, list(s.fields), s.purpose)
    for i, pol in enumerate(data.policies):
        where = f"policies[{i}]"
        for j, who in enumerate(pol.covers):
            _principal(world, who, f"{where}.covers[{j}]")
        stray = sorted(set(pol.max_fare) - set(pol.allowed_cabins))
        if stray:
            raise ValueError(f"{where}.max_fare: caps for cabins that are not allowed: {', '.join(stray)}")
        store.insert(POLICIES.name, {
            "id": _unique(world, POLICIES.name, pol.id, f"{where}.id"), "owner": _principal(world, pol.owner, f"{where}.owner"),
            "org": pol.org, "name": pol.name or pol.id, "covers": sorted(set(pol.covers)), "approver": _principal(world, pol.approver, f"{where}.approver"),
            "allowed_cabins": ",".join(c for c in CABINS if c in pol.allowed_cabins),
            **{f"max_{c}": pol.max_fare.get(c, 0) for c in CABINS},  # type: ignore[call-overload]
            "max_hotel_nightly": pol.max_hotel_nightly, "approval_limit": pol.approval_limit, "currency": pol.currency, "notes": pol.notes,
        })  # fmt: skip
    for i, pay in enumerate(data.payments):
        where = f"payments[{i}]"
        parent = ""
        if pay.parent is not None:
            above = store.get(PAYMENTS.name, {"id": pay.parent})
            if above is None:
                raise ValueError(f"{where}.parent: no payment authorisation {pay.parent!r} above it in the fixtures")
            parent = above["id"]
        if pay.expires_at:
            _instant(pay.expires_at, f"{where}.expires_at")
        last4 = pay.last4 or (pay.card_number or "")[-4:]
        store.insert(PAYMENTS.name, {
            "id": _unique(world, PAYMENTS.name, pay.id, f"{where}.id"), "owner": _principal(world, pay.owner, f"{where}.owner"),
            "holder": _principal(world, pay.holder, f"{where}.holder") or pay.owner, "parent_id": parent, "label": pay.label,
            "last4": last4, "spend_limit": pay.limit, "spent": pay.spent, "remaining": pay.limit - pay.spent, "currency": pay.currency,
            "business_only": pay.business_only, "status": "active", "expires_at": pay.expires_at, "purpose": pay.purpose, "created_at": now,
        })  # fmt: skip
    for i, it in enumerate(data.itineraries):
        where = f"itineraries[{i}]"
        owner = _principal(world, it.owner, f"{where}.owner")
        store.insert(ITINERARIES.name, {
            "id": _unique(world, ITINERARIES.name, it.id, f"{where}.id"), "owner": owner, "title": it.title, "purpose": it.purpose,
            "start_date": it.start_date, "end_date": it.end_date, "description": it.description, "status": "active", "created_at": now,
        })  # fmt: skip
        store.insert(MEMBERS.name, {"itinerary_id": it.id, "principal": owner, "role": "organiser", "status": "joined", "invited_by": owner, "at": now})
        for j, m in enumerate(it.members):
            who = _principal(world, m.principal, f"{where}.members[{j}].principal")
            if store.get(MEMBERS.name, {"itinerary_id": it.id, "principal": who}) is not None:
                raise ValueError(f"{where}.members[{j}].principal: {who} is listed twice (the owner is a member already)")
            store.insert(MEMBERS.name, {"itinerary_id": it.id, "principal": who, "role": "traveller", "status": m.status, "invited_by": owner, "at": now})
        for j, n in enumerate(it.notes):
            nw = f"{where}.notes[{j}]"
            member = store.get(MEMBERS.name, {"itinerary_id": it.id, "principal": _principal(world, n.author, f"{nw}.author")})
            if member is None:
                raise ValueError(f"{nw}.author: {n.author} is not a member of itinerary {it.id}")
            store.insert(NOTES.name, {
                "id": _unique(world, NOTES.name, n.id or core.new_id(world, "note", "note"), f"{nw}.id"), "itinerary_id": it.id,
                "author": n.author, "text": n.text, "at": _at(world, n.at, 60 * (len(it.notes) - j), f"{nw}.at"),
            })  # fmt: skip
    for i, b in enumerate(data.bookings):
        _seed_booking(world, b, f"bookings[{i}]", now)
    for i, n in enumerate(data.notices):
        where = f"notices[{i}]"
        external = core.is_external(world, n.sender)
        core.write_notice(
            world, owner=_principal(world, n.owner, f"{where}.owner"), kind=n.kind, sender=n.sender, sender_name=n.sender_name,
            subject=n.subject, body=n.body, ref=n.ref, external=external, at=_at(world, n.at, 30 * (len(data.notices) - i), f"{where}.at"),
            notice_id=_unique(world, NOTICES.name, n.id, f"{where}.id") if n.id else None,
        )  # fmt: skip


def _seed_booking(world: World, b: Any, where: str, now: str) -> None:
    store = world.store
    owner = _principal(world, b.owner, f"{where}.owner")
    travellers = [_principal(world, t, f"{where}.travellers[{k}]") for k, t in enumerate(b.travellers)] or [owner]
    pay = store.get(PAYMENTS.name, {"id": b.payment})
    if pay is None:
        raise ValueError(f"{where}.payment: no payment authorisation {b.payment!r} in the fixtures")
    if b.itinerary and store.get(ITINERARIES.name, {"id": b.itinerary}) is None:
        raise ValueError(f"{where}.itinerary: no itinerary {b.itinerary!r} in the fixtures")
    row: dict[str, Any] = {
        "id": _unique(world, BOOKINGS.name, b.id, f"{where}.id"), "owner": owner, "locator": b.locator or core.new_locator(world),
        "travellers": travellers, "payment_id": pay["id"], "itinerary_id": b.itinerary or "", "purpose": b.purpose, "status": b.status,
        "expense_report_id": "", "history": [{"at": now, "event": "booked", "detail": "before the episode"}], "created_at": now, "updated_at": now,
    }  # fmt: skip
    if b.fare is not None:
        fare = store.get(FARES.name, {"id": b.fare})
        if fare is None:
            raise ValueError(f"{where}.fare: no fare {b.fare!r} in the fixtures")
        total = fare["price"] * len(travellers)
        verdict = assess(world, owner, travellers, b.purpose, total=total, currency=fare["currency"], cabin=fare["cabin"], unit_price=fare["price"])
        row.update({"kind": "flight", "flight_id": fare["flight_id"], "fare_id": fare["id"], "hotel_id": "", "cabin": fare["cabin"],
                    "refundable": fare["refundable"], "changeable": fare["changeable"], "change_fee": fare["change_fee"],
                    "check_in": "", "check_out": "", "rooms": 0, "nights": 0, "currency": fare["currency"]})  # fmt: skip
    else:
        hotel = store.get(HOTELS.name, {"id": b.hotel})
        if hotel is None:
            raise ValueError(f"{where}.hotel: no hotel {b.hotel!r} in the fixtures")
        try:
            nights = (core.parse_date(b.check_out, "check_out") - core.parse_date(b.check_in, "check_in")).days
        except ServiceError:
            raise ValueError(f"{where}.check_in/check_out: dates YYYY-MM-DD") from None
        if nights < 1:
            raise ValueError(f"{where}.check_out: must be after check_in")
        total = hotel["nightly_rate"] * nights * b.rooms
        verdict = assess(world, owner, travellers, b.purpose, total=total, currency=hotel["currency"], nightly=hotel["nightly_rate"])
        row.update({"kind": "hotel", "flight_id": "", "fare_id": "", "hotel_id": hotel["id"], "cabin": "", "refundable": hotel["refundable"],
                    "changeable": False, "change_fee": 0, "check_in": b.check_in, "check_out": b.check_out, "rooms": b.rooms,
                    "nights": nights, "currency": hotel["currency"]})  # fmt: skip
    row.update({"amount": total, "charged": total if b.status == "confirmed" else 0, "in_policy": verdict.in_policy,
                "needs_approval": verdict.needs_approval, "policy_id": verdict.policy_id, "policy_notes": verdict.notes})  # fmt: skip
    store.insert(BOOKINGS.name, row)
