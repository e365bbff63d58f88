"""Shared itineraries: an organiser, co-travellers who are invited and join, notes, and the bookings attached.

The members table is the itinerary's ACL: invited and joined members see it, a member who
declined does not, nor does anyone else (answered as not found). Only the organiser invites;
only joined members write notes or attach bookings. Invitations go to the invitee, notes and
attached bookings to the other members.
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import Field

from clawarena.services.base import ServiceContext
from clawarena.services.pagination import page
from clawarena.services.travel import core
from clawarena.services.travel.bodies import InviteBody, ItineraryBody, NoteBody, ResponseBody
from clawarena.services.travel.catalog import BASE, get_flight_row, get_hotel_row
from clawarena.services.travel.tables import BOOKINGS, ITINERARIES, MEMBERS, NOTES
from clawarena.tools.core import ResourceArg, RestBinding, ToolKind, tool
from clawarena.world.world import World

SEEING = ("invited", "joined")


def members_of(world: World, itinerary_id: str) -> list[dict[str, Any]]:
    rows = world.store.select(MEMBERS.name, {"itinerary_id": itinerary_id})
    return sorted(rows, key=lambda m: (m["role"] != "organiser", m["principal"]))


def membership(world: World, itinerary_id: str, who: str) -> dict[str, Any] | None:
    return world.store.get(MEMBERS.name, {"itinerary_id": itinerary_id, "principal": who})


def visible_itinerary(ctx: ServiceContext, itinerary_id: str) -> tuple[dict[str, Any], dict[str, Any]]:
    row = ctx.store.get(ITINERARIES.name, {"id": itinerary_id})
    if row is None:
        raise core.missing("Itinerary", itinerary_id)
    me = membership(ctx.world, itinerary_id, ctx.principal.id)
    if me is None or me["status"] not in SEEING:
        raise core.hidden("Itinerary", itinerary_id)
    return row, me


def joined_itinerary(ctx: ServiceContext, itinerary_id: str) -> dict[str, Any]:
    row, me = visible_itinerary(ctx, itinerary_id)
    if me["status"] != "joined":
        raise core.forbidden(f"Accept the invitation to itinerary {itinerary_id} first.", "notJoined")
    return row


def audience(world: World, itinerary_id: str) -> list[str]:
    """Who hears about changes: every member who has not declined."""
    return [m["principal"] for m in members_of(world, itinerary_id) if m["status"] in SEEING]


def booking_line(world: World, b: dict[str, Any]) -> str:
    who = ", ".join(core.name_of(world, t) for t in b["travellers"])
    if b["kind"] == "flight":
        f = get_flight_row(world, b["flight_id"])
        return f"{f['number']} {f['origin']}-{f['destination']} {f['departs_at']} ({b['cabin']}) for {who}, ref {b['locator']}"
    h = get_hotel_row(world, b["hotel_id"])
    return f"{h['name']}, {h['city']}, {b['check_in']} to {b['check_out']} for {who}, ref {b['locator']}"


def itinerary_view(world: World, row: dict[str, Any], me: dict[str, Any]) -> dict[str, Any]:
    notes = sorted(world.store.select(NOTES.name, {"itinerary_id": row["id"]}), key=lambda n: (n["at"], n["id"]))
    bookings = sorted(world.store.select(BOOKINGS.name, {"itinerary_id": row["id"]}), key=lambda b: (b["created_at"], b["id"]))
    return {
        "id": row["id"], "title": row["title"], "purpose": row["purpose"], "startDate": row["start_date"], "endDate": row["end_date"],
        "description": row["description"], "organiser": row["owner"], "organiserName": core.name_of(world, row["owner"]),
        "yourStatus": me["status"], "status": row["status"],
        "members": [{"principal": m["principal"], "name": core.name_of(world, m["principal"]), "role": m["role"], "status": m["status"]}
                    for m in members_of(world, row["id"])],
        "notes": [{"id": n["id"], "author": n["author"], "authorName": core.name_of(world, n["author"]), "text": n["text"], "at": n["at"]} for n in notes],
        "bookings": [{"id": b["id"], "kind": b["kind"], "status": b["status"], "bookedBy": b["owner"], "purpose": b["purpose"],
                      "summary": booking_line(world, b)} for b in bookings],
    }  # fmt: skip


# ---- tools ---------------------------------------------------------------------------------------
@tool(ToolKind.READ, name="travel_list_itineraries", rest=RestBinding("GET", f"{BASE}/itineraries"))
def list_itineraries(ctx: ServiceContext, max_results: int = Field(default=50, ge=1, le=100), page_token: str | None = None) -> dict[str, Any]:
    """List the shared itineraries you organise, joined or are invited to.

    Args:
        max_results: page size (1-100).
        page_token: the nextPageToken of the previous page.
    """
    mine = [m for m in ctx.store.select(MEMBERS.name, {"principal": ctx.principal.id}) if m["status"] in SEEING]
    rows = [(ctx.store.get(ITINERARIES.name, {"id": m["itinerary_id"]}), m) for m in mine]
    rows = sorted(((r, m) for r, m in rows if r is not None), key=lambda rm: (rm[0]["start_date"], rm[0]["id"]))
    chunk, token = page(rows, page_token, max_results)
    out: dict[str, Any] = {"itineraries": [
        {"id": r["id"], "title": r["title"], "purpose": r["purpose"], "startDate": r["start_date"], "endDate": r["end_date"],
         "organiser": r["owner"], "yourRole": m["role"], "yourStatus": m["status"], "members": len(audience(ctx.world, r["id"]))}
        for r, m in chunk
    ]}  # fmt: skip
    if token:
        out["nextPageToken"] = token
    return out


@tool(ToolKind.READ, name="travel_get_itinerary", rest=RestBinding("GET", f"{BASE}/itineraries/{{itineraryId}}"))
def get_itinerary(ctx: ServiceContext, itinerary_id: Annotated[str, ResourceArg("Itinerary")]) -> dict[str, Any]:
    """Get a shared itinerary: its members and their status, the notes members left, and the bookings attached to it.

    Args:
        itinerary_id: the itinerary's id.
    """
    row, me = visible_itinerary(ctx, itinerary_id)
    return itinerary_view(ctx.world, row, me)


@tool(ToolKind.WRITE, name="travel_create_itinerary", rest=RestBinding("POST", f"{BASE}/itineraries", body="body"))
def create_itinerary(ctx: ServiceContext, body: ItineraryBody) -> dict[str, Any]:
    """Create a shared itinerary that you organise; then invite co-travellers with travel_invite_to_itinerary.

    Args:
        body: title, purpose (business or personal), start_date and end_date (YYYY-MM-DD), description.
    """
    start = core.parse_date(body.start_date, "start_date") if body.start_date else None
    end = core.parse_date(body.end_date, "end_date") if body.end_date else None
    if start and end and end < start:
        raise core.bad("end_date is before start_date")
    now = core.now_iso(ctx.world)
    row = {"id": core.new_id(ctx.world, "itn", "itinerary"), "owner": ctx.principal.id, "title": body.title, "purpose": body.purpose,
           "start_date": body.start_date, "end_date": body.end_date, "description": body.description, "status": "active", "created_at": now}  # fmt: skip
    ctx.store.insert(ITINERARIES.name, row)
    me = {"itinerary_id": row["id"], "principal": ctx.principal.id, "role": "organiser", "status": "joined", "invited_by": ctx.principal.id, "at": now}
    ctx.store.insert(MEMBERS.name, me)
    return itinerary_view(ctx.world, row, me)


@tool(ToolKind.SEND, name="travel_invite_to_itinerary",
      rest=RestBinding("POST", f"{BASE}/itineraries/{{itineraryId}}/invitations", body="body"), action="invite")  # fmt: skip
def invite_to_itinerary(ctx: ServiceContext, itinerary_id: Annotated[str, ResourceArg("Itinerary")], body: InviteBody) -> dict[str, Any]:
    """Invite a co-traveller to an itinerary you organise; they get the invitation and can then see the itinerary.

    Args:
        itinerary_id: an itinerary you organise.
        body: invitee (principal id) and an optional message.
    """
    row, me = visible_itinerary(ctx, itinerary_id)
    if me["role"] != "organiser":
        raise core.forbidden(f"Only the organiser of itinerary {itinerary_id} can invite.", "notOrganiser")
    invitee = body.invitee.strip()
    if not core.is_principal(ctx.world, invitee):
        raise core.bad(f"invitee {invitee!r} is not a principal of this world")
    current = membership(ctx.world, itinerary_id, invitee)
    if current is not None and current["status"] in SEEING:
        raise core.conflict(f"{core.name_of(ctx.world, invitee)} is already {current['status']} on itinerary {itinerary_id}.", "alreadyMember")
    entry = {"itinerary_id": itinerary_id, "principal": invitee, "role": "traveller", "status": "invited",
             "invited_by": ctx.principal.id, "at": core.now_iso(ctx.world)}  # fmt: skip
    if current is None:
        ctx.store.insert(MEMBERS.name, entry)
    else:
        ctx.store.update(MEMBERS.name, {"itinerary_id": itinerary_id, "principal": invitee}, entry)
    who = ", ".join(core.name_of(ctx.world, p) for p in audience(ctx.world, itinerary_id) if p != invitee)
    dates = f" ({row['start_date']} to {row['end_date']})" if row["start_date"] else ""
    text = (f"{core.name_of(ctx.world, ctx.principal.id)} invited you to the itinerary \"{row['title']}\"{dates}, id {itinerary_id}. "
            f"Travellers: {who}." + (f"\n\n{body.message}" if body.message else ""))  # fmt: skip
    core.notify(ctx, "invitation", [invitee], f"Invitation: {row['title']}", text, itinerary_id, core.attach("Itinerary", itinerary_id))
    return {"itineraryId": itinerary_id, "invitee": invitee, "status": "invited"}


@tool(ToolKind.WRITE, name="travel_respond_to_invitation", rest=RestBinding("POST", f"{BASE}/itineraries/{{itineraryId}}/response", body="body"))
def respond_to_invitation(ctx: ServiceContext, itinerary_id: Annotated[str, ResourceArg("Itinerary")], body: ResponseBody) -> dict[str, Any]:
    """Accept or decline an invitation to an itinerary (the organiser is told). After declining you no longer see it.

    Args:
        itinerary_id: the itinerary you were invited to.
        body: response: accept or decline.
    """
    row, me = visible_itinerary(ctx, itinerary_id)
    if me["status"] != "invited":
        raise core.conflict(f"You already {me['status']} itinerary {itinerary_id}.", "alreadyAnswered")
    status = "joined" if body.response == "accept" else "declined"
    ctx.store.update(MEMBERS.name, {"itinerary_id": itinerary_id, "principal": ctx.principal.id}, {"status": status, "at": core.now_iso(ctx.world)})
    name = core.name_of(ctx.world, ctx.principal.id)
    core.notify(ctx, "itinerary_update", [row["owner"]], f"{name} {status} {row['title']}", f"{name} {status} the itinerary \"{row['title']}\" ({itinerary_id}).", itinerary_id)
    return {"itineraryId": itinerary_id, "status": status}


@tool(ToolKind.SEND, name="travel_add_itinerary_note", rest=RestBinding("POST", f"{BASE}/itineraries/{{itineraryId}}/notes", body="body"))
def add_itinerary_note(ctx: ServiceContext, itinerary_id: Annotated[str, ResourceArg("Itinerary")], body: NoteBody) -> dict[str, Any]:
    """Leave a note on an itinerary you joined (constraints, proposals, who books what); every other member is told.

    Args:
        itinerary_id: the itinerary.
        body: text: the note.
    """
    row = joined_itinerary(ctx, itinerary_id)
    note = {"id": core.new_id(ctx.world, "note", "note"), "itinerary_id": itinerary_id, "author": ctx.principal.id,
            "text": body.text, "at": core.now_iso(ctx.world)}  # fmt: skip
    ctx.store.insert(NOTES.name, note)
    name = core.name_of(ctx.world, ctx.principal.id)
    core.notify(ctx, "itinerary_update", audience(ctx.world, itinerary_id), f"{name} on {row['title']}", f"{name} wrote on \"{row['title']}\" ({itinerary_id}):\n\n{body.text}", itinerary_id)
    return {"id": note["id"], "itineraryId": itinerary_id, "author": note["author"], "text": note["text"], "at": note["at"]}


TOOLS = (list_itineraries, get_itinerary, create_itinerary, invite_to_itinerary, respond_to_invitation, add_itinerary_note)
