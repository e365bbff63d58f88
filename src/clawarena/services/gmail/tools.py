"""Gmail operations. Each is one function: the REST route, the agent tool and the MCP tool."""

from __future__ import annotations

from email.message import EmailMessage
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from clawarena.services.base import Delivery, ServiceContext, ServiceError, invalid, not_found
from clawarena.services.gmail import mime
from clawarena.services.gmail.search import compile_query
from clawarena.services.gmail.tables import LABELS, MESSAGES, SYSTEM_LABELS
from clawarena.services.pagination import page
from clawarena.tools.core import RestBinding, ToolKind, WireOnly, tool

BASE = "/gmail/v1/users/{userId}"
UserId = Annotated[str, WireOnly()]


class MessageBody(BaseModel):
    """A Gmail Message resource as sent by clients (`raw` is base64url RFC 2822)."""

    model_config = ConfigDict(extra="allow")
    raw: str | None = None
    threadId: str | None = None
    labelIds: list[str] | None = None


class ModifyBody(BaseModel):
    model_config = ConfigDict(extra="forbid")
    addLabelIds: list[str] = []
    removeLabelIds: list[str] = []


# ---- shared internals ----------------------------------------------------------------
def _check_user(ctx: ServiceContext, user_id: str) -> str:
    """`me` or the caller's own address; anything else is another mailbox."""
    if user_id in ("me", ctx.principal.email) or user_id.lower() == ctx.principal.email.lower():
        return ctx.principal.id
    raise ServiceError(403, f"Delegation denied for {ctx.principal.email}", reason="forbidden")


def _own_message(ctx: ServiceContext, message_id: str) -> dict[str, Any]:
    row = ctx.store.get(MESSAGES.name, {"id": message_id, "owner": ctx.principal.id})
    if row is None:
        raise not_found()
    return row


def _label_names(ctx: ServiceContext, owner: str) -> dict[str, str]:
    names = {lid: lid for lid in SYSTEM_LABELS}
    for row in ctx.store.select(LABELS.name, {"owner": owner}):
        names[row["id"]] = row["name"]
    return names


def _next_history(ctx: ServiceContext) -> int:
    return 1000 + ctx.world.clock.ticks


def insert_message(ctx: ServiceContext, owner: str, fields: dict[str, Any]) -> dict[str, Any]:
    """Store a message in `owner`'s mailbox; ids come from the world's generator."""
    mid = fields.get("id") or ctx.world.ids.next("gmail.message")
    row = {
        "id": mid,
        "owner": owner,
        "thread_id": fields.get("thread_id") or mid,
        "label_ids": list(dict.fromkeys(fields.get("label_ids", ["INBOX"]))),
        "sender": fields["sender"],
        "to_addrs": list(fields.get("to_addrs", [])),
        "cc_addrs": list(fields.get("cc_addrs", [])),
        "bcc_addrs": list(fields.get("bcc_addrs", [])),
        "subject": fields.get("subject", ""),
        "body": fields.get("body", ""),
        "date_ms": fields.get("date_ms", ctx.world.clock.now_ms()),
        "message_id_header": fields.get("message_id_header") or f"<{mid}@mail.clawarena.local>",
        "in_reply_to": fields.get("in_reply_to"),
        "history_id": _next_history(ctx),
    }
    ctx.store.insert(MESSAGES.name, row)
    return row


def _thread_for_reply(ctx: ServiceContext, owner: str, in_reply_to: str | None) -> str | None:
    if not in_reply_to:
        return None
    parent = ctx.store.get(MESSAGES.name, {"owner": owner, "message_id_header": in_reply_to})
    return parent["thread_id"] if parent else None


def send_mime(ctx: ServiceContext, msg: EmailMessage, thread_id: str | None = None) -> dict[str, Any]:
    """Send a parsed message: the sender's SENT copy, inbox copies for principals, a delivery record."""
    to, cc, bcc = (mime.addresses(msg.get_all(h, [])) for h in ("To", "Cc", "Bcc"))
    if not (to or cc or bcc):
        raise invalid("Recipient address required")
    me = ctx.principal
    sender = f"{me.name} <{me.email}>"
    subject = str(msg.get("Subject", ""))
    body = mime.text_body(msg)
    in_reply_to = str(msg.get("In-Reply-To")) if msg.get("In-Reply-To") else None
    if thread_id and not ctx.store.get(MESSAGES.name, {"owner": me.id, "thread_id": thread_id}):
        raise not_found()
    header_id = f"<{ctx.world.ids.next('gmail.msgid', 20)}@mail.clawarena.local>"  # not make_msgid: it reads the clock
    common = {"sender": sender, "to_addrs": to, "cc_addrs": cc, "subject": subject, "body": body,
              "message_id_header": header_id, "in_reply_to": in_reply_to}  # fmt: skip
    sent = insert_message(
        ctx, me.id,
        {**common, "bcc_addrs": bcc, "label_ids": ["SENT"],
         "thread_id": thread_id or _thread_for_reply(ctx, me.id, in_reply_to)},
    )  # fmt: skip
    for address in dict.fromkeys(to + cc + bcc):
        recipient = ctx.world.directory.by_address(address)
        if recipient is not None and recipient.id != me.id:
            insert_message(
                ctx, recipient.id,
                {**common, "label_ids": ["INBOX", "UNREAD"], "thread_id": _thread_for_reply(ctx, recipient.id, in_reply_to)},
            )  # fmt: skip
    ctx.deliver(Delivery("email", me.email, tuple(dict.fromkeys(to + cc + bcc)), subject, body, ref=sent["id"]))
    return {"id": sent["id"], "threadId": sent["thread_id"], "labelIds": sent["label_ids"]}


def _apply_labels(ctx: ServiceContext, row: dict[str, Any], add: list[str], remove: list[str]) -> dict[str, Any]:
    known = _label_names(ctx, row["owner"])
    for lid in add + remove:
        if lid not in known:
            raise invalid(f"Invalid label: {lid}")
    labels = [l for l in row["label_ids"] if l not in remove]
    labels += [l for l in add if l not in labels]
    changes = {"label_ids": labels, "history_id": _next_history(ctx)}
    ctx.store.update(MESSAGES.name, {"id": row["id"]}, changes)
    return {**row, **changes}


# ---- REST operations (Gmail v1) ------------------------------------------------------
@tool(ToolKind.READ, name="gmail_messages_list", rest=RestBinding("GET", f"{BASE}/messages"))
def messages_list(
    ctx: ServiceContext,
    user_id: UserId = "me",
    q: str | None = None,
    label_ids: list[str] | None = None,
    max_results: int = Field(default=100, ge=1, le=500),
    page_token: str | None = None,
    include_spam_trash: bool = False,
) -> dict[str, Any]:
    """List the ids of messages in the mailbox, newest first.

    Args:
        q: Gmail search query, e.g. 'from:carol is:unread subject:"budget" newer_than:7d'.
        label_ids: only messages carrying all of these label ids.
        max_results: page size (1-500).
        page_token: the nextPageToken of the previous page.
        include_spam_trash: include messages in SPAM and TRASH.
    """
    owner = _check_user(ctx, user_id)
    rows = ctx.store.select(MESSAGES.name, {"owner": owner}, order_by="date_ms DESC, id DESC")
    if q:
        pred = compile_query(q, ctx.world.clock.now_ms(), _label_names(ctx, owner))
        rows = [r for r in rows if pred(r)]
    wanted = set(label_ids or [])
    rows = [r for r in rows if wanted <= set(r["label_ids"])]
    if not include_spam_trash and not wanted & {"SPAM", "TRASH"}:
        rows = [r for r in rows if not {"SPAM", "TRASH"} & set(r["label_ids"])]
    chunk, next_token = page(rows, page_token, max_results)
    out: dict[str, Any] = {"resultSizeEstimate": len(rows)}
    if chunk:
        out["messages"] = [{"id": r["id"], "threadId": r["thread_id"]} for r in chunk]
    if next_token:
        out["nextPageToken"] = next_token
    return out


@tool(ToolKind.READ, name="gmail_messages_get", rest=RestBinding("GET", f"{BASE}/messages/{{id}}"))
def messages_get(
    ctx: ServiceContext,
    id: str,
    user_id: UserId = "me",
    format: Literal["full", "metadata", "minimal", "raw"] = "full",
    metadata_headers: list[str] | None = None,
) -> dict[str, Any]:
    """Get one message as a Gmail Message resource (the body is base64url in payload.body.data).

    Args:
        id: the message id.
        format: full, metadata, minimal or raw.
        metadata_headers: with format=metadata, the headers to include.
    """
    _check_user(ctx, user_id)
    return mime.message_resource(_own_message(ctx, id), format, metadata_headers)


@tool(ToolKind.SEND, name="gmail_messages_send", rest=RestBinding("POST", f"{BASE}/messages/send", body="body"))
def messages_send(ctx: ServiceContext, body: MessageBody, user_id: UserId = "me") -> dict[str, Any]:
    """Send a message given as base64url RFC 2822 in body.raw.

    Args:
        body: a Message resource with `raw` and optionally `threadId`.
    """
    _check_user(ctx, user_id)
    if not body.raw:
        raise invalid("'raw' RFC822 payload message string or uploading message via /upload/* URL required")
    return send_mime(ctx, mime.parse_raw(body.raw), body.threadId)


@tool(ToolKind.WRITE, name="gmail_messages_modify", rest=RestBinding("POST", f"{BASE}/messages/{{id}}/modify", body="body"))
def messages_modify(ctx: ServiceContext, id: str, body: ModifyBody, user_id: UserId = "me") -> dict[str, Any]:
    """Add or remove labels on a message.

    Args:
        id: the message id.
        body: {"addLabelIds": [...], "removeLabelIds": [...]}.
    """
    _check_user(ctx, user_id)
    row = _apply_labels(ctx, _own_message(ctx, id), body.addLabelIds, body.removeLabelIds)
    return mime.message_resource(row, "minimal")


@tool(ToolKind.WRITE, name="gmail_messages_trash", rest=RestBinding("POST", f"{BASE}/messages/{{id}}/trash"))
def messages_trash(ctx: ServiceContext, id: str, user_id: UserId = "me") -> dict[str, Any]:
    """Move a message to the trash.

    Args:
        id: the message id.
    """
    _check_user(ctx, user_id)
    row = _apply_labels(ctx, _own_message(ctx, id), ["TRASH"], [])
    return mime.message_resource(row, "minimal")


@tool(ToolKind.READ, name="gmail_labels_list", rest=RestBinding("GET", f"{BASE}/labels"))
def labels_list(ctx: ServiceContext, user_id: UserId = "me") -> dict[str, Any]:
    """List the mailbox's system and user labels."""
    owner = _check_user(ctx, user_id)
    labels: list[dict[str, Any]] = [
        {"id": lid, "name": lid, "type": "system", "messageListVisibility": "show", "labelListVisibility": "labelShow"}
        for lid in SYSTEM_LABELS
    ]
    for row in ctx.store.select(LABELS.name, {"owner": owner}):
        labels.append({"id": row["id"], "name": row["name"], "type": "user",
                       "messageListVisibility": "show", "labelListVisibility": "labelShow"})  # fmt: skip
    return {"labels": labels}


# ---- agent conveniences: compose the operations above, no logic of their own ----------
@tool(ToolKind.READ, name="gmail_read_email")
def read_email(ctx: ServiceContext, id: str) -> dict[str, Any]:
    """Read one email as plain text: sender, recipients, subject, date, labels and body.

    Args:
        id: the message id (from gmail_messages_list).
    """
    row = _own_message(ctx, id)
    return {
        "id": row["id"], "threadId": row["thread_id"], "from": row["sender"], "to": row["to_addrs"],
        "cc": row["cc_addrs"], "subject": row["subject"], "date": mime.rfc2822_date(row["date_ms"]),
        "labelIds": row["label_ids"], "body": row["body"],
    }  # fmt: skip


@tool(ToolKind.SEND, name="gmail_send_email")
def send_email(
    ctx: ServiceContext,
    to: list[str],
    subject: str,
    body: str,
    cc: list[str] | None = None,
    bcc: list[str] | None = None,
    reply_to_id: str | None = None,
) -> dict[str, Any]:
    """Send a plain-text email from the principal's own address.

    Args:
        to: recipient addresses.
        subject: the subject line.
        body: the plain-text body.
        cc: copy recipients.
        bcc: blind copy recipients.
        reply_to_id: id of a message in the mailbox this replies to (keeps the thread).
    """
    msg = EmailMessage()
    msg["To"] = ", ".join(to)
    if cc:
        msg["Cc"] = ", ".join(cc)
    if bcc:
        msg["Bcc"] = ", ".join(bcc)
    msg["Subject"] = subject
    thread_id = None
    if reply_to_id:
        parent = _own_message(ctx, reply_to_id)
        msg["In-Reply-To"] = parent["message_id_header"]
        thread_id = parent["thread_id"]
    msg.set_content(body)
    return send_mime(ctx, msg, thread_id)


TOOLS = (messages_list, messages_get, messages_send, messages_modify, messages_trash, labels_list, read_email, send_email)

