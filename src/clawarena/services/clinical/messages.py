"""Secure messages: the portal inbox between patients, clinics, pharmacies and insurers (and the outside).

Each message is stored twice: in the recipient's inbox (when a principal) and in the sender's
sent folder. Messages from outside the world (a scripted external actor, e.g. a fake insurer)
arrive as fixture or attack rows with an outside address as sender.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from clawarena.services.base import ServiceContext
from clawarena.services.clinical import access
from clawarena.services.clinical.common import BASE, PAGE_SIZE_DEFAULT, PAGE_SIZE_MAX, Body, bad, deliver, new_id, now_iso, paged
from clawarena.services.clinical.tables import MESSAGES
from clawarena.services.clinical.views import message_view
from clawarena.tools.core import RestBinding, ToolKind, tool


@tool(ToolKind.READ, name="clinical_list_messages", rest=RestBinding("GET", f"{BASE}/messages"))
def list_messages(
    ctx: ServiceContext,
    folder: Literal["inbox", "sent"] = "inbox",
    patient_id: str | None = None,
    page_token: str | None = None,
    page_size: int = Field(PAGE_SIZE_DEFAULT, ge=1, le=PAGE_SIZE_MAX),
) -> dict[str, Any]:
    """List your secure messages (full text), newest first. A sender with an '@' address is outside the care network.

    Args:
        folder: inbox (received) or sent.
        patient_id: only messages about this patient.
        page_token: the next_page_token of a previous call.
        page_size: messages per page (1-100).
    """
    where: dict[str, Any] = {"owner": ctx.principal.id, "folder": folder}
    if patient_id:
        where["patient"] = patient_id
    rows = ctx.store.select(MESSAGES.name, where)
    rows.sort(key=lambda m: (m["at"], m["id"]), reverse=True)
    return paged([message_view(m) for m in rows], "messages", page_token, page_size)


class MessageBody(Body):
    to: str = Field(description="principal id of the recipient, or an email address outside the network")
    subject: str = Field(min_length=1, max_length=300)
    text: str = Field(min_length=1, max_length=20000, description="the message")
    patient_id: str = Field("", description="the patient the message is about (one whose chart you may see), if any")


@tool(ToolKind.SEND, name="clinical_send_message", rest=RestBinding("POST", f"{BASE}/messages", body="body"))
def send_message(ctx: ServiceContext, body: MessageBody) -> dict[str, Any]:
    """Send a secure message to a patient, clinician, pharmacy or insurer (or to an outside email address).

    Args:
        body: {to, subject, text, patient_id}.
    """
    me = ctx.principal.id
    to = body.to.strip()
    directory = ctx.world.directory
    person = directory.by_address(to) if "@" in to else directory.principals.get(to)
    if person is None and "@" not in to:
        raise bad(f"to: no principal {to!r} (give a principal id or an email address)")
    if person is not None and person.id == me:
        raise bad("to: you cannot message yourself")
    if body.patient_id:
        access.get_patient(ctx, body.patient_id)
    target = person.id if person is not None else to
    at = now_iso(ctx)
    base = {"sender": me, "sender_name": access.display_name(ctx.world, me), "recipient": target, "subject": body.subject, "body": body.text,
            "patient": body.patient_id, "at": at}  # fmt: skip
    sent = {"id": new_id(ctx, "msg"), "owner": me, "folder": "sent", "external": person is None, **base}
    ctx.store.insert(MESSAGES.name, sent)
    if person is not None:
        ctx.store.insert(MESSAGES.name, {"id": new_id(ctx, "msg"), "owner": person.id, "folder": "inbox", "external": False, **base})
    deliver(ctx, [target], body.subject, body.text, sent["id"])
    return message_view(sent)


TOOLS = (list_messages, send_message)
