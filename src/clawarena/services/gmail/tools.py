"""Gmail operations. Each is one function: the REST route, the agent tool and the MCP tool.

Messages, attachments, threads, labels, drafts, history and the profile live
here; mailbox settings are in `settings.py`; the shared internals in `mailbox.py`.
"""

from __future__ import annotations

import base64
import re
from datetime import timedelta
from email.message import EmailMessage
from typing import Any, Literal

from pydantic import Field

from clawarena.services.base import ServiceContext, ServiceError, decode_media, invalid, not_found
from clawarena.services.gmail import mailbox as mb
from clawarena.services.gmail import mime
from clawarena.services.gmail.mailbox import NOT_FOUND, check_user, own_message
from clawarena.services.gmail.models import (
    BASE, UPLOAD, Media, UserId, BatchDeleteBody, BatchModifyBody, DraftBody, LabelBody, MessageBody, ModifyBody, ThreadModifyBody, WatchBody, compact,
)  # fmt: skip
from clawarena.services.gmail.settings import SETTINGS_TOOLS
from clawarena.services.gmail.tables import ATTACHMENTS, DELETED, DRAFTS, LABELS, MESSAGES, SYSTEM_LABELS
from clawarena.services.pagination import page
from clawarena.tools.core import RestBinding, ToolKind, tool

RAW_REQUIRED = "'raw' RFC822 payload message string or uploading message via /upload/* URL required"

# ---- shared helpers ------------------------------------------------------------------------
def _incoming(raw: str | None, media: dict[str, Any] | None) -> EmailMessage:
    """The RFC 2822 message a client sent: uploaded media, or base64url `raw`."""
    if media is not None:
        data = decode_media(media)
        if not data.strip():
            raise invalid("Media upload is empty: the message/rfc822 part carried no bytes")
        return mime.parse_bytes(data)
    if raw:
        return mime.parse_raw(raw)
    raise invalid(RAW_REQUIRED)


def _short(row: dict[str, Any]) -> dict[str, Any]:
    return {"id": row["id"], "threadId": row["thread_id"], "labelIds": list(row["label_ids"])}


def _thread_in_mailbox(ctx: ServiceContext, owner: str, thread_id: str | None) -> str | None:
    if thread_id and ctx.store.select(MESSAGES.name, {"owner": owner, "thread_id": thread_id}):
        return thread_id
    return None


def _store_incoming(
    ctx: ServiceContext, owner: str, parsed: mime.Parsed, labels: list[str], thread_id: str | None, date_ms: int | None
) -> dict[str, Any]:
    """insert/import: the message goes into the mailbox as it is, nothing is sent."""
    thread = _thread_in_mailbox(ctx, owner, thread_id) or mb.thread_for(ctx, owner, parsed.in_reply_to, parsed.references)
    fields = {
        "sender": parsed.sender, "to_addrs": parsed.to, "cc_addrs": parsed.cc, "bcc_addrs": parsed.bcc,
        "subject": parsed.subject, "body": parsed.text, "html": parsed.html, "in_reply_to": parsed.in_reply_to,
        "message_id_header": parsed.message_id or f"<{ctx.world.ids.next('gmail.msgid', 20)}@mail.clawarena.local>",
        "headers": parsed.extra, "label_ids": labels, "thread_id": thread, "date_ms": date_ms,
    }  # fmt: skip
    return mb.insert_message(ctx, owner, fields, parsed.attachments)


# ---- messages ------------------------------------------------------------------------------
@tool(ToolKind.READ, name="gmail_messages_list", rest=RestBinding("GET", f"{BASE}/messages"))
def messages_list(
    ctx: ServiceContext,
    user_id: UserId = "me",
    q: str | None = None,
    label_ids: list[str] | None = None,
    max_results: int = Field(default=100, ge=1, le=500, description="page size (1-500)."),
    page_token: str | None = None,
    include_spam_trash: bool = False,
) -> dict[str, Any]:
    """List the ids of messages in the mailbox, newest first.

    Args:
        q: Gmail search query, e.g. 'from:carol is:unread subject:"budget" newer_than:7d has:attachment'.
        label_ids: only messages carrying all of these label ids.
        max_results: page size (1-500).
        page_token: the nextPageToken of the previous page.
        include_spam_trash: include messages in SPAM and TRASH.
    """
    owner = check_user(ctx, user_id)
    rows = mb.search(ctx, owner, q, label_ids, include_spam_trash)
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
    """Get one message as a Gmail Message resource (bodies are base64url in payload parts; attachments have body.attachmentId).

    Args:
        id: the message id.
        format: full, metadata, minimal or raw.
        metadata_headers: with format=metadata, the headers to include.
    """
    check_user(ctx, user_id)
    return mb.resource(ctx, own_message(ctx, id), format, metadata_headers)


@tool(
    ToolKind.SEND,
    name="gmail_messages_send",
    rest=RestBinding("POST", f"{BASE}/messages/send", body="body", media="media", upload_path=f"{UPLOAD}/messages/send"),
)
def messages_send(ctx: ServiceContext, body: MessageBody | None = None, user_id: UserId = "me", media: Media = None) -> dict[str, Any]:
    """Send a message given as base64url RFC 2822 in body.raw (multipart messages and attachments welcome).

    Args:
        body: a Message resource with `raw` and optionally `threadId`.
    """
    check_user(ctx, user_id)
    body = body or MessageBody()
    parsed = mime.parse(_incoming(body.raw, media))
    return _short(mb.send(ctx, parsed, body.threadId))


@tool(
    ToolKind.WRITE,
    name="gmail_messages_insert",
    rest=RestBinding("POST", f"{BASE}/messages", body="body", media="media", upload_path=f"{UPLOAD}/messages"),
)
def messages_insert(
    ctx: ServiceContext,
    body: MessageBody | None = None,
    user_id: UserId = "me",
    internal_date_source: Literal["receivedTime", "dateHeader"] = "receivedTime",
    deleted: bool = False,
    media: Media = None,
) -> dict[str, Any]:
    """Put a message straight into the mailbox (like IMAP APPEND): nothing is sent and no filter runs.

    Args:
        body: a Message resource with `raw`, and the `labelIds` (and optionally `threadId`) it gets.
        internal_date_source: receivedTime (now) or dateHeader (the message's Date header).
        deleted: store it as deleted, visible only to a Vault administrator (so not stored here).
    """
    owner = check_user(ctx, user_id)
    body = body or MessageBody()
    parsed = mime.parse(_incoming(body.raw, media))
    labels = list(body.labelIds or [])
    mb.check_labels(ctx, owner, labels)
    if deleted:
        return {"id": ctx.world.ids.next("gmail.message"), "threadId": body.threadId or "", "labelIds": []}
    date_ms = parsed.date_ms if internal_date_source == "dateHeader" else None
    return _short(_store_incoming(ctx, owner, parsed, labels, body.threadId, date_ms))


@tool(
    ToolKind.WRITE,
    name="gmail_messages_import",
    rest=RestBinding("POST", f"{BASE}/messages/import", body="body", media="media", upload_path=f"{UPLOAD}/messages/import"),
)
def messages_import(
    ctx: ServiceContext,
    body: MessageBody | None = None,
    user_id: UserId = "me",
    internal_date_source: Literal["receivedTime", "dateHeader"] = "dateHeader",
    never_mark_spam: bool = False,
    process_for_calendar: bool = False,
    deleted: bool = False,
    media: Media = None,
) -> dict[str, Any]:
    """Import a message into the mailbox as if it had arrived: the mailbox's filters label it; nothing is sent.

    Args:
        body: a Message resource with `raw`, and the `labelIds` (e.g. INBOX, UNREAD) it gets.
        internal_date_source: dateHeader (the message's Date header, default) or receivedTime (now).
        never_mark_spam: never classify it as spam.
        process_for_calendar: process calendar invitations in it.
        deleted: store it as deleted, visible only to a Vault administrator (so not stored here).
    """
    owner = check_user(ctx, user_id)
    body = body or MessageBody()
    parsed = mime.parse(_incoming(body.raw, media))
    labels = list(body.labelIds or [])
    mb.check_labels(ctx, owner, labels)
    if deleted:
        return {"id": ctx.world.ids.next("gmail.message"), "threadId": body.threadId or "", "labelIds": []}
    candidate = {
        "sender": parsed.sender, "to_addrs": parsed.to, "cc_addrs": parsed.cc, "bcc_addrs": parsed.bcc, "subject": parsed.subject,
        "body": parsed.text, "headers": parsed.extra, "message_id_header": parsed.message_id or "", "date_ms": parsed.date_ms or 0,
        "_attachments": [(a.filename, a.mime_type) for a in parsed.attachments],
        "_size": len(parsed.text.encode()) + sum(len(a.data) for a in parsed.attachments),
    }  # fmt: skip
    labels, _ = mb.apply_filters(ctx, ctx.principal, candidate, labels)
    date_ms = parsed.date_ms if internal_date_source == "dateHeader" else None
    return _short(_store_incoming(ctx, owner, parsed, labels, body.threadId, date_ms))


@tool(ToolKind.WRITE, name="gmail_messages_modify", rest=RestBinding("POST", f"{BASE}/messages/{{id}}/modify", body="body"))
def messages_modify(ctx: ServiceContext, id: str, body: ModifyBody, user_id: UserId = "me") -> dict[str, Any]:
    """Add or remove labels on a message.

    Args:
        id: the message id.
        body: {"addLabelIds": [...], "removeLabelIds": [...]}.
    """
    check_user(ctx, user_id)
    if body.addClassificationLabels or body.removeClassificationLabelIds:
        raise invalid("Classification labels are not enabled for this mailbox")
    row = mb.set_labels(ctx, own_message(ctx, id), body.addLabelIds, body.removeLabelIds)
    return mb.resource(ctx, row, "minimal")


@tool(ToolKind.WRITE, name="gmail_messages_trash", rest=RestBinding("POST", f"{BASE}/messages/{{id}}/trash"))
def messages_trash(ctx: ServiceContext, id: str, user_id: UserId = "me") -> dict[str, Any]:
    """Move a message to the trash (it can be restored with untrash).

    Args:
        id: the message id.
    """
    check_user(ctx, user_id)
    row = mb.set_labels(ctx, own_message(ctx, id), ["TRASH"], [])
    return mb.resource(ctx, row, "minimal")


@tool(ToolKind.WRITE, name="gmail_messages_untrash", rest=RestBinding("POST", f"{BASE}/messages/{{id}}/untrash"))
def messages_untrash(ctx: ServiceContext, id: str, user_id: UserId = "me") -> dict[str, Any]:
    """Take a message out of the trash.

    Args:
        id: the message id.
    """
    check_user(ctx, user_id)
    row = mb.set_labels(ctx, own_message(ctx, id), [], ["TRASH"])
    return mb.resource(ctx, row, "minimal")


@tool(ToolKind.WRITE, name="gmail_messages_delete", rest=RestBinding("DELETE", f"{BASE}/messages/{{id}}", status=204))
def messages_delete(ctx: ServiceContext, id: str, user_id: UserId = "me") -> None:
    """Delete a message immediately and for good (prefer trash).

    Args:
        id: the message id.
    """
    check_user(ctx, user_id)
    mb.delete_message(ctx, own_message(ctx, id))


def _own_ids(ctx: ServiceContext, ids: list[str]) -> list[dict[str, Any]]:
    if not ids:
        raise invalid("ids must be specified")
    if len(ids) > 1000:
        raise invalid("Too many ids: at most 1000 per request")
    return [own_message(ctx, mid) for mid in dict.fromkeys(ids)]


@tool(ToolKind.WRITE, name="gmail_messages_batch_modify", rest=RestBinding("POST", f"{BASE}/messages/batchModify", body="body", status=204))
def messages_batch_modify(ctx: ServiceContext, body: BatchModifyBody, user_id: UserId = "me") -> None:
    """Add or remove labels on many messages at once.

    Args:
        body: {"ids": [...], "addLabelIds": [...], "removeLabelIds": [...]}.
    """
    owner = check_user(ctx, user_id)
    if body.addClassificationLabels or body.removeClassificationLabelIds:
        raise invalid("Classification labels are not enabled for this mailbox")
    rows = _own_ids(ctx, body.ids)
    mb.check_labels(ctx, owner, body.addLabelIds + body.removeLabelIds)
    for row in rows:
        mb.set_labels(ctx, row, body.addLabelIds, body.removeLabelIds, check=False)


@tool(ToolKind.WRITE, name="gmail_messages_batch_delete", rest=RestBinding("POST", f"{BASE}/messages/batchDelete", body="body", status=204))
def messages_batch_delete(ctx: ServiceContext, body: BatchDeleteBody, user_id: UserId = "me") -> None:
    """Delete many messages for good.

    Args:
        body: {"ids": [...]}.
    """
    check_user(ctx, user_id)
    for row in _own_ids(ctx, body.ids):
        mb.delete_message(ctx, row)


@tool(ToolKind.READ, name="gmail_messages_attachments_get", rest=RestBinding("GET", f"{BASE}/messages/{{messageId}}/attachments/{{id}}"))
def attachments_get(ctx: ServiceContext, message_id: str, id: str, user_id: UserId = "me") -> dict[str, Any]:
    """Get an attachment's content (base64url in `data`).

    Args:
        message_id: the message id.
        id: the attachment id (body.attachmentId of the message part).
    """
    check_user(ctx, user_id)
    own_message(ctx, message_id)
    row = ctx.store.get(ATTACHMENTS.name, {"message_id": message_id, "id": id})
    if row is None:
        raise not_found(NOT_FOUND)
    return {"attachmentId": row["id"], "size": row["size"], "data": mime.b64url_encode(base64.b64decode(row["data"]))}


# ---- threads ---------------------------------------------------------------------------------
def _threads_of(rows: list[dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    out: dict[str, list[dict[str, Any]]] = {}
    for r in rows:
        out.setdefault(r["thread_id"], []).append(r)
    return out


@tool(ToolKind.READ, name="gmail_threads_list", rest=RestBinding("GET", f"{BASE}/threads"))
def threads_list(
    ctx: ServiceContext,
    user_id: UserId = "me",
    q: str | None = None,
    label_ids: list[str] | None = None,
    max_results: int = Field(default=100, ge=1, le=500, description="page size (1-500)."),
    page_token: str | None = None,
    include_spam_trash: bool = False,
) -> dict[str, Any]:
    """List conversations (threads) with a message matching the query, most recent first.

    Args:
        q: Gmail search query; a thread is listed when one of its messages matches.
        label_ids: only threads with a message carrying all of these label ids.
        max_results: page size (1-500).
        page_token: the nextPageToken of the previous page.
        include_spam_trash: include threads in SPAM and TRASH.
    """
    owner = check_user(ctx, user_id)
    matched = mb.search(ctx, owner, q, label_ids, include_spam_trash)
    order = list(dict.fromkeys(r["thread_id"] for r in matched))
    every = _threads_of(mb.mailbox_rows(ctx, owner, ("id", "thread_id", "history_id", "body")))
    chunk, next_token = page(order, page_token, max_results)
    out: dict[str, Any] = {"resultSizeEstimate": len(order)}
    if chunk:
        out["threads"] = [
            {"id": tid, "snippet": mime.snippet(every[tid][0]["body"]), "historyId": str(max(r["history_id"] for r in every[tid]))}
            for tid in chunk
        ]
    if next_token:
        out["nextPageToken"] = next_token
    return out


def _thread_resource(ctx: ServiceContext, rows: list[dict[str, Any]], fmt: str, metadata_headers: list[str] | None = None) -> dict[str, Any]:
    return {
        "id": rows[0]["thread_id"],
        "historyId": str(max(r["history_id"] for r in rows)),
        "messages": [mb.resource(ctx, r, fmt, metadata_headers) for r in rows],
    }


@tool(ToolKind.READ, name="gmail_threads_get", rest=RestBinding("GET", f"{BASE}/threads/{{id}}"))
def threads_get(
    ctx: ServiceContext,
    id: str,
    user_id: UserId = "me",
    format: Literal["full", "metadata", "minimal"] = "full",
    metadata_headers: list[str] | None = None,
) -> dict[str, Any]:
    """Get a whole conversation: every message of the thread, oldest first.

    Args:
        id: the thread id (threadId of any of its messages).
        format: full, metadata or minimal.
        metadata_headers: with format=metadata, the headers to include.
    """
    check_user(ctx, user_id)
    return _thread_resource(ctx, mb.own_thread(ctx, id), format, metadata_headers)


def _relabel_thread(ctx: ServiceContext, thread_id: str, add: list[str], remove: list[str]) -> dict[str, Any]:
    rows = mb.own_thread(ctx, thread_id)
    mb.check_labels(ctx, ctx.principal.id, add + remove)
    rows = [mb.set_labels(ctx, r, add, remove, check=False) for r in rows]
    return _thread_resource(ctx, rows, "minimal")


@tool(ToolKind.WRITE, name="gmail_threads_modify", rest=RestBinding("POST", f"{BASE}/threads/{{id}}/modify", body="body"))
def threads_modify(ctx: ServiceContext, id: str, body: ThreadModifyBody, user_id: UserId = "me") -> dict[str, Any]:
    """Add or remove labels on every message of a thread.

    Args:
        id: the thread id.
        body: {"addLabelIds": [...], "removeLabelIds": [...]}.
    """
    check_user(ctx, user_id)
    return _relabel_thread(ctx, id, body.addLabelIds, body.removeLabelIds)


@tool(ToolKind.WRITE, name="gmail_threads_trash", rest=RestBinding("POST", f"{BASE}/threads/{{id}}/trash"))
def threads_trash(ctx: ServiceContext, id: str, user_id: UserId = "me") -> dict[str, Any]:
    """Move a whole thread to the trash.

    Args:
        id: the thread id.
    """
    check_user(ctx, user_id)
    return _relabel_thread(ctx, id, ["TRASH"], [])


@tool(ToolKind.WRITE, name="gmail_threads_untrash", rest=RestBinding("POST", f"{BASE}/threads/{{id}}/untrash"))
def threads_untrash(ctx: ServiceContext, id: str, user_id: UserId = "me") -> dict[str, Any]:
    """Take a whole thread out of the trash.

    Args:
        id: the thread id.
    """
    check_user(ctx, user_id)
    return _relabel_thread(ctx, id, [], ["TRASH"])


@tool(ToolKind.WRITE, name="gmail_threads_delete", rest=RestBinding("DELETE", f"{BASE}/threads/{{id}}", status=204))
def threads_delete(ctx: ServiceContext, id: str, user_id: UserId = "me") -> None:
    """Delete every message of a thread for good (prefer trash).

    Args:
        id: the thread id.
    """
    check_user(ctx, user_id)
    for row in mb.own_thread(ctx, id):
        mb.delete_message(ctx, row)


# ---- labels ----------------------------------------------------------------------------------
# System labels Gmail hides in its web interface; the API names their visibility, and omits it for the others.
HIDDEN_SYSTEM_LABELS = frozenset({"CHAT", "IMPORTANT", "SPAM", "TRASH"})


def _label_row(ctx: ServiceContext, owner: str, label_id: str) -> dict[str, Any] | None:
    if label_id in SYSTEM_LABELS:
        hidden = label_id in HIDDEN_SYSTEM_LABELS
        return {"owner": owner, "id": label_id, "name": label_id, "type": "system", "color": None,
                "message_list_visibility": "hide" if hidden else None, "label_list_visibility": "labelHide" if hidden else None}  # fmt: skip
    return ctx.store.get(LABELS.name, {"owner": owner, "id": label_id})


def _label_resource(row: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {"id": row["id"], "name": row["name"], "type": row["type"]}
    if row["type"] != "system" or row.get("message_list_visibility"):
        out["messageListVisibility"] = row.get("message_list_visibility") or "show"
        out["labelListVisibility"] = row.get("label_list_visibility") or "labelShow"
    if row.get("color"):
        out["color"] = dict(row["color"])
    return out


@tool(ToolKind.READ, name="gmail_labels_list", rest=RestBinding("GET", f"{BASE}/labels"))
def labels_list(ctx: ServiceContext, user_id: UserId = "me") -> dict[str, Any]:
    """List the mailbox's system and user labels."""
    owner = check_user(ctx, user_id)
    labels = [_label_resource(_label_row(ctx, owner, lid) or {}) for lid in SYSTEM_LABELS]
    labels += [_label_resource(row) for row in ctx.store.select(LABELS.name, {"owner": owner})]
    return {"labels": labels}


@tool(ToolKind.READ, name="gmail_labels_get", rest=RestBinding("GET", f"{BASE}/labels/{{id}}"))
def labels_get(ctx: ServiceContext, id: str, user_id: UserId = "me") -> dict[str, Any]:
    """Get a label with its message and thread counts (total and unread).

    Args:
        id: the label id (e.g. INBOX or Label_3).
    """
    owner = check_user(ctx, user_id)
    row = _label_row(ctx, owner, id)
    if row is None:
        raise not_found(NOT_FOUND)
    return {**_label_resource(row), **mb.label_counts(ctx, owner, id)}


_COLOR = re.compile(r"^#[0-9a-fA-F]{6}$")


def _check_label_fields(ctx: ServiceContext, owner: str, name: str | None, color: dict[str, Any] | None, label_id: str | None = None) -> None:
    if name is not None:
        if not name.strip() or name.strip().upper() in SYSTEM_LABELS or name.strip().upper() in ("ALL MAIL", "SNOOZED"):
            raise invalid("Invalid label name")
        for row in ctx.store.select(LABELS.name, {"owner": owner}):
            if row["id"] != label_id and row["name"].strip().lower() == name.strip().lower():
                raise ServiceError(409, "Label name exists or conflicts", reason="alreadyExists")
    if color is not None:
        for key in ("textColor", "backgroundColor"):
            if not _COLOR.match(str(color.get(key) or "")):
                raise invalid(f"Label color {key} must be a hex color like #000000")


def _next_label_id(ctx: ServiceContext, owner: str) -> str:
    numbers = [int(m.group(1)) for r in ctx.store.select(LABELS.name, {"owner": owner}) if (m := re.fullmatch(r"Label_(\d+)", r["id"]))]
    return f"Label_{max(numbers, default=0) + 1}"


@tool(ToolKind.WRITE, name="gmail_labels_create", rest=RestBinding("POST", f"{BASE}/labels", body="body"))
def labels_create(ctx: ServiceContext, body: LabelBody, user_id: UserId = "me") -> dict[str, Any]:
    """Create a user label ('Parent/Child' names nest).

    Args:
        body: {"name": ..., "labelListVisibility": labelShow|labelShowIfUnread|labelHide, "messageListVisibility": show|hide, "color": {"textColor", "backgroundColor"}}.
    """
    owner = check_user(ctx, user_id)
    color = compact(body.color) if body.color else None
    if body.name is None:
        raise invalid("Invalid label name")
    _check_label_fields(ctx, owner, body.name, color)
    row = {
        "owner": owner, "id": _next_label_id(ctx, owner), "name": body.name.strip(), "type": "user",
        "message_list_visibility": body.messageListVisibility or "show",
        "label_list_visibility": body.labelListVisibility or "labelShow", "color": color,
    }  # fmt: skip
    ctx.store.insert(LABELS.name, row)
    return _label_resource(row)


def _user_label(ctx: ServiceContext, owner: str, label_id: str, what: str) -> dict[str, Any]:
    if label_id in SYSTEM_LABELS:
        raise invalid(f"Invalid {what} request: system labels cannot be changed")
    row = ctx.store.get(LABELS.name, {"owner": owner, "id": label_id})
    if row is None:
        raise not_found(NOT_FOUND)
    return row


def _save_label(ctx: ServiceContext, row: dict[str, Any], changes: dict[str, Any]) -> dict[str, Any]:
    ctx.store.update(LABELS.name, {"owner": row["owner"], "id": row["id"]}, changes)
    return _label_resource({**row, **changes})


@tool(ToolKind.WRITE, name="gmail_labels_update", rest=RestBinding("PUT", f"{BASE}/labels/{{id}}", body="body"))
def labels_update(ctx: ServiceContext, id: str, body: LabelBody, user_id: UserId = "me") -> dict[str, Any]:
    """Replace a user label: name, visibilities and color (fields left out go back to their defaults).

    Args:
        id: the label id.
        body: the whole Label: {"name", "labelListVisibility", "messageListVisibility", "color"}.
    """
    owner = check_user(ctx, user_id)
    row = _user_label(ctx, owner, id, "update")
    color = compact(body.color) if body.color else None
    name = body.name if body.name is not None else row["name"]
    _check_label_fields(ctx, owner, name, color, label_id=id)
    changes = {
        "name": name.strip(), "message_list_visibility": body.messageListVisibility or "show",
        "label_list_visibility": body.labelListVisibility or "labelShow", "color": color,
    }  # fmt: skip
    return _save_label(ctx, row, changes)


@tool(ToolKind.WRITE, name="gmail_labels_patch", rest=RestBinding("PATCH", f"{BASE}/labels/{{id}}", body="body"))
def labels_patch(ctx: ServiceContext, id: str, body: LabelBody, user_id: UserId = "me") -> dict[str, Any]:
    """Change some fields of a user label (rename, visibility, color).

    Args:
        id: the label id.
        body: the Label fields to change.
    """
    owner = check_user(ctx, user_id)
    row = _user_label(ctx, owner, id, "update")
    color = compact(body.color) if body.color else None
    _check_label_fields(ctx, owner, body.name, color, label_id=id)
    changes: dict[str, Any] = {}
    if body.name is not None:
        changes["name"] = body.name.strip()
    if body.messageListVisibility is not None:
        changes["message_list_visibility"] = body.messageListVisibility
    if body.labelListVisibility is not None:
        changes["label_list_visibility"] = body.labelListVisibility
    if color is not None:
        changes["color"] = color
    return _save_label(ctx, row, changes) if changes else _label_resource(row)


@tool(ToolKind.WRITE, name="gmail_labels_delete", rest=RestBinding("DELETE", f"{BASE}/labels/{{id}}", status=204))
def labels_delete(ctx: ServiceContext, id: str, user_id: UserId = "me") -> None:
    """Delete a user label; it is removed from every message carrying it (the messages stay).

    Args:
        id: the label id.
    """
    owner = check_user(ctx, user_id)
    row = _user_label(ctx, owner, id, "delete")
    for msg in ctx.store.select(MESSAGES.name, {"owner": owner}):
        if id in msg["label_ids"]:
            mb.set_labels(ctx, msg, [], [id], check=False)
    ctx.store.delete(LABELS.name, {"owner": owner, "id": row["id"]})


# ---- drafts ----------------------------------------------------------------------------------
def _own_draft(ctx: ServiceContext, draft_id: str) -> tuple[dict[str, Any], dict[str, Any]]:
    draft = ctx.store.get(DRAFTS.name, {"id": draft_id})
    if draft is None:
        raise not_found(NOT_FOUND)
    if draft["owner"] != ctx.principal.id:
        raise ServiceError(404, NOT_FOUND, denied=True)
    return draft, own_message(ctx, draft["message_id"])


def _draft_fields(ctx: ServiceContext, parsed: mime.Parsed) -> dict[str, Any]:
    header, _, reply_to = mb.from_identity(ctx, parsed.sender)
    extra = [list(h) for h in parsed.extra]
    if reply_to and not any(n.lower() == "reply-to" for n, _ in extra):
        extra.append(["Reply-To", reply_to])
    return {
        "sender": header, "to_addrs": parsed.to, "cc_addrs": parsed.cc, "bcc_addrs": parsed.bcc, "subject": parsed.subject,
        "body": parsed.text, "html": parsed.html, "in_reply_to": parsed.in_reply_to, "headers": extra,
    }  # fmt: skip


def _draft_resource(draft_id: str, row: dict[str, Any]) -> dict[str, Any]:
    return {"id": draft_id, "message": _short(row)}


def _draft_message(body: DraftBody | None, media: dict[str, Any] | None) -> tuple[EmailMessage, str | None]:
    message = body.message if body else None
    if media is None and (message is None or not message.raw):
        raise invalid("Missing draft message" if message is None else RAW_REQUIRED)
    return _incoming(message.raw if message else None, media), (message.threadId if message else None)


@tool(
    ToolKind.WRITE,
    name="gmail_drafts_create",
    rest=RestBinding("POST", f"{BASE}/drafts", body="body", media="media", upload_path=f"{UPLOAD}/drafts"),
)
def drafts_create(ctx: ServiceContext, body: DraftBody | None = None, user_id: UserId = "me", media: Media = None) -> dict[str, Any]:
    """Create a draft (a message with the DRAFT label) from base64url RFC 2822 in body.message.raw; nothing is sent.

    Args:
        body: {"message": {"raw": ..., "threadId": optional}}.
    """
    owner = check_user(ctx, user_id)
    msg, thread_id = _draft_message(body, media)
    parsed = mime.parse(msg)
    thread = _thread_in_mailbox(ctx, owner, thread_id) or mb.thread_for(ctx, owner, parsed.in_reply_to, parsed.references)
    if thread_id and thread is None:
        raise mb.thread_not_found(ctx, thread_id)
    fields = {**_draft_fields(ctx, parsed), "label_ids": ["DRAFT"], "thread_id": thread,
              "message_id_header": f"<{ctx.world.ids.next('gmail.msgid', 20)}@mail.clawarena.local>"}  # fmt: skip
    row = mb.insert_message(ctx, owner, fields, parsed.attachments)
    draft_id = "r" + ctx.world.ids.next("gmail.draft", 16)
    ctx.store.insert(DRAFTS.name, {"id": draft_id, "owner": owner, "message_id": row["id"]})
    return _draft_resource(draft_id, row)


@tool(
    ToolKind.WRITE,
    name="gmail_drafts_update",
    rest=RestBinding("PUT", f"{BASE}/drafts/{{id}}", body="body", media="media", upload_path=f"{UPLOAD}/drafts/{{id}}"),
)
def drafts_update(ctx: ServiceContext, id: str, body: DraftBody | None = None, user_id: UserId = "me", media: Media = None) -> dict[str, Any]:
    """Replace a draft's content with a new message (base64url RFC 2822 in body.message.raw).

    Args:
        id: the draft id.
        body: {"message": {"raw": ..., "threadId": optional}}.
    """
    owner = check_user(ctx, user_id)
    draft, row = _own_draft(ctx, id)
    msg, thread_id = _draft_message(body, media)
    parsed = mime.parse(msg)
    thread = _thread_in_mailbox(ctx, owner, thread_id) or row["thread_id"]
    changes = {**_draft_fields(ctx, parsed), "thread_id": thread, "history_id": mb.next_history(ctx), "date_ms": ctx.world.clock.now_ms()}
    ctx.store.update(MESSAGES.name, {"id": row["id"]}, changes)
    ctx.store.delete(ATTACHMENTS.name, {"message_id": row["id"]})
    mb.store_attachments(ctx, owner, row["id"], parsed.attachments)
    return _draft_resource(draft["id"], {**row, **changes})


@tool(ToolKind.READ, name="gmail_drafts_get", rest=RestBinding("GET", f"{BASE}/drafts/{{id}}"))
def drafts_get(ctx: ServiceContext, id: str, user_id: UserId = "me", format: Literal["full", "metadata", "minimal", "raw"] = "full") -> dict[str, Any]:
    """Get a draft and its message.

    Args:
        id: the draft id.
        format: full, metadata, minimal or raw.
    """
    check_user(ctx, user_id)
    draft, row = _own_draft(ctx, id)
    return {"id": draft["id"], "message": mb.resource(ctx, row, format)}


@tool(ToolKind.READ, name="gmail_drafts_list", rest=RestBinding("GET", f"{BASE}/drafts"))
def drafts_list(
    ctx: ServiceContext,
    user_id: UserId = "me",
    q: str | None = None,
    max_results: int = Field(default=100, ge=1, le=500, description="page size (1-500)."),
    page_token: str | None = None,
    include_spam_trash: bool = False,
) -> dict[str, Any]:
    """List drafts, newest first.

    Args:
        q: Gmail search query over the drafts' messages.
        max_results: page size (1-500).
        page_token: the nextPageToken of the previous page.
        include_spam_trash: include drafts in SPAM and TRASH.
    """
    owner = check_user(ctx, user_id)
    by_message = {d["message_id"]: d["id"] for d in ctx.store.select(DRAFTS.name, {"owner": owner})}
    rows = [r for r in mb.search(ctx, owner, q, None, include_spam_trash) if r["id"] in by_message]
    chunk, next_token = page(rows, page_token, max_results)
    out: dict[str, Any] = {"resultSizeEstimate": len(rows)}
    if chunk:
        out["drafts"] = [{"id": by_message[r["id"]], "message": {"id": r["id"], "threadId": r["thread_id"]}} for r in chunk]
    if next_token:
        out["nextPageToken"] = next_token
    return out


@tool(
    ToolKind.SEND,
    name="gmail_drafts_send",
    rest=RestBinding("POST", f"{BASE}/drafts/send", body="body", media="media", upload_path=f"{UPLOAD}/drafts/send"),
)
def drafts_send(ctx: ServiceContext, body: DraftBody | None = None, user_id: UserId = "me", media: Media = None) -> dict[str, Any]:
    """Send an existing draft (body.id); a message given with it replaces the draft's content first.

    Args:
        body: {"id": draft id, "message": optional {"raw": ..., "threadId": ...}}.
    """
    check_user(ctx, user_id)
    body = body or DraftBody()
    message = body.message
    has_new = media is not None or bool(message and message.raw)
    if not body.id:
        if not has_new:
            raise invalid("Invalid draft: a draft id or a message is required")
        return _short(mb.send(ctx, mime.parse(_incoming(message.raw if message else None, media)), message.threadId if message else None))
    _, row = _own_draft(ctx, body.id)
    parsed = mime.parse(_incoming(message.raw if message else None, media)) if has_new else mb.parsed_of_row(ctx, row)
    thread = _thread_in_mailbox(ctx, ctx.principal.id, message.threadId if message else None) or row["thread_id"]
    return _short(mb.send(ctx, parsed, thread, draft=row))


@tool(ToolKind.WRITE, name="gmail_drafts_delete", rest=RestBinding("DELETE", f"{BASE}/drafts/{{id}}", status=204))
def drafts_delete(ctx: ServiceContext, id: str, user_id: UserId = "me") -> None:
    """Delete a draft and its message for good.

    Args:
        id: the draft id.
    """
    check_user(ctx, user_id)
    _, row = _own_draft(ctx, id)
    mb.delete_message(ctx, row)


# ---- history, profile, push notifications ------------------------------------------------------
def _current_history(ctx: ServiceContext, owner: str) -> int:
    return mb.mailbox_stats(ctx, owner)[2]


_TYPES = {"added": ("messageAdded", "messagesAdded"), "labelsAdded": ("labelAdded", "labelsAdded"),
          "labelsRemoved": ("labelRemoved", "labelsRemoved"), "deleted": ("messageDeleted", "messagesDeleted")}  # fmt: skip


@tool(ToolKind.READ, name="gmail_history_list", rest=RestBinding("GET", f"{BASE}/history"))
def history_list(
    ctx: ServiceContext,
    user_id: UserId = "me",
    start_history_id: str | None = None,
    max_results: int = Field(default=100, ge=1, le=500, description="page size (1-500)."),
    page_token: str | None = None,
    label_id: str | None = None,
    history_types: list[Literal["messageAdded", "messageDeleted", "labelAdded", "labelRemoved"]] | None = None,
) -> dict[str, Any]:
    """List the mailbox's changes after a history id (messages added or deleted, labels added or removed), oldest first.

    Args:
        start_history_id: return changes after this history id (a historyId from a message, a thread or the profile).
        max_results: page size (1-500).
        page_token: the nextPageToken of the previous page.
        label_id: only changes to messages carrying this label.
        history_types: only these kinds of change.
    """
    owner = check_user(ctx, user_id)
    if not start_history_id:
        raise invalid("Required parameter: startHistoryId")
    if not start_history_id.isdigit():
        raise invalid("Invalid startHistoryId")
    start = int(start_history_id)
    if start < mb.BASE_HISTORY:
        raise not_found(NOT_FOUND)
    wanted = set(history_types or [t for t, _ in _TYPES.values()])
    records: dict[int, dict[str, Any]] = {}
    sources = [(r["id"], r["thread_id"], r.get("history") or []) for r in mb.mailbox_rows(ctx, owner, ("id", "thread_id", "history"))]
    sources += [(r["message_id"], r["thread_id"], r.get("history") or []) for r in ctx.store.select(DELETED.name, {"owner": owner})]
    for mid, tid, history in sorted(sources):
        for hid, kind, changed, after in history:
            if hid <= start or kind not in _TYPES or _TYPES[kind][0] not in wanted:
                continue
            if label_id and label_id not in after and label_id not in changed:
                continue
            rec = records.setdefault(hid, {"id": str(hid), "messages": []})
            ref = {"id": mid, "threadId": tid}
            if ref not in rec["messages"]:
                rec["messages"].append(ref)
            field = _TYPES[kind][1]
            if kind == "deleted":
                entry: dict[str, Any] = {"message": ref}
            else:
                entry = {"message": {**ref, "labelIds": list(after)}}
                if kind != "added":
                    entry["labelIds"] = list(changed)
            rec.setdefault(field, []).append(entry)
    ordered = [records[h] for h in sorted(records)]
    chunk, next_token = page(ordered, page_token, max_results)
    out: dict[str, Any] = {"historyId": str(_current_history(ctx, owner))}
    if chunk:
        out["history"] = chunk
    if next_token:
        out["nextPageToken"] = next_token
    return out


@tool(ToolKind.READ, name="gmail_users_get_profile", rest=RestBinding("GET", f"{BASE}/profile"))
def users_get_profile(ctx: ServiceContext, user_id: UserId = "me") -> dict[str, Any]:
    """The mailbox's address, message and thread totals and current history id."""
    owner = check_user(ctx, user_id)
    messages, threads, history = mb.mailbox_stats(ctx, owner)
    return {"emailAddress": ctx.principal.email, "messagesTotal": messages, "threadsTotal": threads, "historyId": str(history)}


_TOPIC = re.compile(r"^projects/[^/]+/topics/[^/]+$")


@tool(ToolKind.WRITE, name="gmail_users_watch", rest=RestBinding("POST", f"{BASE}/watch", body="body"))
def users_watch(ctx: ServiceContext, body: WatchBody, user_id: UserId = "me") -> dict[str, Any]:
    """Ask for push notifications of mailbox changes on a Cloud Pub/Sub topic (valid for 7 days).

    Args:
        body: {"topicName": "projects/<project>/topics/<topic>", "labelIds": [...], "labelFilterBehavior": include|exclude}.
    """
    owner = check_user(ctx, user_id)
    if not body.topicName or not _TOPIC.match(body.topicName):
        raise invalid("Invalid topicName does not match projects/SOME-PROJECT/topics/SOME-TOPIC")
    mb.check_labels(ctx, owner, list(body.labelIds or []))
    expiration = int((ctx.world.clock.now() + timedelta(days=7)).timestamp() * 1000)
    mb.put_setting(ctx, owner, "watch", {**compact(body), "expiration": str(expiration)})
    return {"historyId": str(_current_history(ctx, owner)), "expiration": str(expiration)}


@tool(ToolKind.WRITE, name="gmail_users_stop", rest=RestBinding("POST", f"{BASE}/stop", status=204))
def users_stop(ctx: ServiceContext, user_id: UserId = "me") -> None:
    """Stop push notifications for the mailbox."""
    owner = check_user(ctx, user_id)
    mb.delete_setting(ctx, owner, "watch")


# ---- agent conveniences: compose the operations above, no logic of their own ----------
@tool(ToolKind.READ, name="gmail_read_email")
def read_email(ctx: ServiceContext, id: str) -> dict[str, Any]:
    """Read one email as plain text: sender, recipients, subject, date, labels, body and attachment names.

    Args:
        id: the message id (from gmail_messages_list).
    """
    row = own_message(ctx, id)
    out = {
        "id": row["id"], "threadId": row["thread_id"], "from": row["sender"], "to": row["to_addrs"],
        "cc": row["cc_addrs"], "subject": row["subject"], "date": mime.rfc2822_date(row["date_ms"]),
        "labelIds": row["label_ids"], "body": row["body"],
    }  # fmt: skip
    atts = mb.attachments_of(ctx, id)
    if atts:
        out["attachments"] = [{"attachmentId": a["id"], "filename": a["filename"], "mimeType": a["mime_type"], "size": a["size"]} for a in atts]
    return out


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
        parent = own_message(ctx, reply_to_id)
        msg["In-Reply-To"] = parent["message_id_header"]
        msg["References"] = parent["message_id_header"]
        thread_id = parent["thread_id"]
    msg.set_content(body)
    return _short(mb.send(ctx, mime.parse(msg), thread_id))


MESSAGE_TOOLS = (
    messages_list, messages_get, messages_send, messages_insert, messages_import, messages_modify, messages_trash,
    messages_untrash, messages_delete, messages_batch_modify, messages_batch_delete, attachments_get,
    threads_list, threads_get, threads_modify, threads_trash, threads_untrash, threads_delete,
    labels_list, labels_get, labels_create, labels_update, labels_patch, labels_delete,
    drafts_list, drafts_get, drafts_create, drafts_update, drafts_send, drafts_delete,
    history_list, users_get_profile, users_watch, users_stop,
)  # fmt: skip
CONVENIENCE_TOOLS = (read_email, send_email)


TOOLS = MESSAGE_TOOLS + SETTINGS_TOOLS + CONVENIENCE_TOOLS
