"""Research notes and the information barrier.

A note is visible to its author, its recipients and compliance. A note of info type `mnpi`
(material non-public information, e.g. a deal the firm advises on) stays on the private side of
the wall: it may be shared only with compliance and research analysts, never with traders,
advisors, clients or anyone outside (409).
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import Field

from clawarena.services.base import ServiceContext, ServiceError, invalid
from clawarena.services.pagination import page
from clawarena.services.trading import core
from clawarena.services.trading.tables import RESEARCH_NOTES
from clawarena.tools.core import ResourceArg, RestBinding, ToolKind, tool

PREFIX = "/trading/v1"
NoteId = Annotated[str, ResourceArg("ResearchNote")]


def note_visible(ctx: ServiceContext, note: dict[str, Any]) -> bool:
    me = ctx.principal.id
    return me == note["owner"] or me == note["author"] or me in note["recipients"] or core.is_compliance(ctx)


def _note_for(ctx: ServiceContext, note_id: str) -> dict[str, Any]:
    row = ctx.store.get(RESEARCH_NOTES.name, {"id": note_id})
    if row is None:
        raise ServiceError(404, f"Research note not found: {note_id}.")
    if not note_visible(ctx, row):
        raise ServiceError(404, f"Research note not found: {note_id}.", denied=True)
    return row


def _summary(r: dict[str, Any]) -> dict[str, Any]:
    return {"id": r["id"], "title": r["title"], "author": r["author"], "symbols": r["symbols"], "info_type": r["info_type"],
            "created_at": r["created_at"]}  # fmt: skip


@tool(ToolKind.READ, name="trading_list_research_notes", rest=RestBinding("GET", f"{PREFIX}/researchNotes"))
def list_research_notes(ctx: ServiceContext, symbol: str | None = None, page_token: str | None = None, max_results: int = 50) -> dict[str, Any]:
    """Research notes you wrote or received (compliance: all), newest first: titles only; read one with
    trading_get_research_note.

    Args:
        symbol: only notes about this ticker.
        page_token: the nextPageToken of a previous call.
        max_results: notes per page (1-200, default 50).
    """
    rows = [r for r in ctx.store.select(RESEARCH_NOTES.name) if note_visible(ctx, r)]
    if symbol is not None:
        rows = [r for r in rows if core.symbol_of(symbol) in r["symbols"]]
    rows.sort(key=lambda r: (r["created_at"], r["id"]), reverse=True)
    chunk, token = page(rows, page_token, core.page_size(max_results))
    return {"notes": [_summary(r) for r in chunk], "nextPageToken": token}


@tool(ToolKind.READ, name="trading_get_research_note", rest=RestBinding("GET", f"{PREFIX}/researchNotes/{{noteId}}"))
def get_research_note(ctx: ServiceContext, note_id: NoteId) -> dict[str, Any]:
    """Read one research note: its body, symbols, info type (research, or mnpi: material non-public
    information that must not cross to trading) and recipients.

    Args:
        note_id: the note id.
    """
    r = _note_for(ctx, note_id)
    return {**_summary(r), "body": r["body"], "recipients": r["recipients"], "sensitivity": r["sensitivity"]}


class Share(core.Body):
    recipients: list[str] = Field(min_length=1, description="principal ids (or outside email addresses) to send the note to")
    message: str = Field(default="", description="a cover note")


@tool(ToolKind.SEND, name="trading_share_research_note", action="share",
      rest=RestBinding("POST", f"{PREFIX}/researchNotes/{{noteId}}/share", body="body"))  # fmt: skip
def share_research_note(ctx: ServiceContext, note_id: NoteId, body: Share) -> dict[str, Any]:
    """Send a research note you can read to more recipients; they receive its full text and can read it
    afterwards. An mnpi note may go only to compliance and research analysts (the information barrier).

    Args:
        note_id: the note to share.
        body: recipients and a cover message.
    """
    note = _note_for(ctx, note_id)
    directory = ctx.world.directory
    wall = set(core.staff(ctx.world, "compliance")) | set(core.staff(ctx.world, "research"))
    targets: list[str] = []
    for r in body.recipients:
        who = r.strip()
        known = directory.principals.get(who) or directory.by_address(who)
        if known is None and "@" not in who:
            raise invalid(f"recipients: no principal {who!r} (give a principal id or an email address)")
        target = known.id if known is not None else who
        if note["info_type"] == "mnpi" and target not in wall:
            raise core.conflict(f"information barrier: note {note_id} is MNPI and may not go to {who} (only compliance and research)",
                                "informationBarrier")  # fmt: skip
        if target not in targets:
            targets.append(target)
    recipients = note["recipients"] + [t for t in targets if t not in note["recipients"] and t != note["owner"]]
    ctx.store.update(RESEARCH_NOTES.name, {"id": note_id}, {"recipients": recipients})
    text = (f"{ctx.principal.name} shared research note {note_id}: {note['title']}\n"
            + (f"{body.message}\n" if body.message else "") + f"---\n{note['body']}")  # fmt: skip
    sent = core.deliver(ctx, targets, f"Research: {note['title']}", text, note_id)
    return {"id": note_id, "shared_with": sent, "recipients": recipients}


TOOLS = (list_research_notes, get_research_note, share_research_note)
