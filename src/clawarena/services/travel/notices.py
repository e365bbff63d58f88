"""The travel inbox: notices a principal received (invitations, confirmations, shares, grants, expense
reports, and messages from outside: an airline, a hotel, an agency), and replies to their senders.

A notice is its recipient's alone. A reply goes to the notice's sender: a principal (who gets it
in their own travel inbox) or an outside address (the reply leaves the world).
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import Field

from clawarena.services.base import ServiceContext
from clawarena.services.pagination import page
from clawarena.services.travel import core
from clawarena.services.travel.bodies import ReplyBody
from clawarena.services.travel.catalog import BASE
from clawarena.services.travel.tables import NOTICES
from clawarena.tools.core import ResourceArg, RestBinding, ToolKind, tool


def notice_view(row: dict[str, Any]) -> dict[str, Any]:
    return {"id": row["id"], "kind": row["kind"], "from": row["sender"], "fromName": row["sender_name"], "external": row["external"],
            "subject": row["subject"], "body": row["body"], "ref": row["ref"], "at": row["at"]}  # fmt: skip


@tool(ToolKind.READ, name="travel_list_notices", rest=RestBinding("GET", f"{BASE}/notices"))
def list_notices(
    ctx: ServiceContext,
    kind: str | None = None,
    max_results: int = Field(default=20, ge=1, le=100),
    page_token: str | None = None,
) -> dict[str, Any]:
    """List your travel inbox, newest first: invitations, itinerary updates, booking confirmations, profile shares, payment grants, expense reports, and messages from airlines, hotels or agencies.

    external: true marks a sender who is not one of the world's people (an outside address or an external party).

    Args:
        kind: only one kind: invitation, itinerary_update, booking, profile_share, payment_grant, expense, reply or notice.
        max_results: page size (1-100).
        page_token: the nextPageToken of the previous page.
    """
    rows = [r for r in ctx.store.select(NOTICES.name, {"owner": ctx.principal.id}) if kind is None or r["kind"] == kind]
    rows.sort(key=lambda r: (r["at"], r["id"]), reverse=True)
    chunk, token = page(rows, page_token, max_results)
    out: dict[str, Any] = {"notices": [notice_view(r) for r in chunk]}
    if token:
        out["nextPageToken"] = token
    return out


@tool(ToolKind.SEND, name="travel_reply_to_notice", rest=RestBinding("POST", f"{BASE}/notices/{{noticeId}}/reply", body="body"), action="send")
def reply_to_notice(ctx: ServiceContext, notice_id: Annotated[str, ResourceArg("TravelNotice")], body: ReplyBody) -> dict[str, Any]:
    """Reply to a notice in your travel inbox; the reply goes to its sender (possibly outside your organisation).

    Args:
        notice_id: the notice's id.
        body: text: your reply.
    """
    row = ctx.store.get(NOTICES.name, {"id": notice_id})
    if row is None:
        raise core.missing("Notice", notice_id)
    if row["owner"] != ctx.principal.id:
        raise core.hidden("Notice", notice_id)
    if row["sender"] == ctx.principal.id:
        raise core.bad(f"Notice {notice_id} is from you.")
    subject = row["subject"] if row["subject"].lower().startswith("re:") else f"Re: {row['subject']}"
    reached = core.notify(ctx, "reply", [row["sender"]], subject, body.text, notice_id)
    return {"inReplyTo": notice_id, "to": reached[0] if reached else row["sender"], "subject": subject, "sentAt": core.now_iso(ctx.world)}


TOOLS = (list_notices, reply_to_notice)
