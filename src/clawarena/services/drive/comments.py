"""Drive v3 comments and replies (Google Docs' comments live here too).

Readers see comments; commenters and above write them; only an author edits
their own; authors and editors delete. A reply with action 'resolve' or
'reopen' resolves or reopens its comment. A comment on a file others can read
is delivered to them.
"""

from __future__ import annotations

import html
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from clawarena.services.base import Delivery, ServiceContext, ServiceError
from clawarena.services.drive import core
from clawarena.services.drive.core import COMMENTER, READER, WRITER, Access, bad_request, now_ms
from clawarena.services.drive.tables import COMMENTS, REPLIES
from clawarena.services.pagination import page
from clawarena.tools.core import RestBinding, ToolKind, tool

BASE = "/drive/v3/files/{fileId}/comments"


class QuotedContent(BaseModel):
    model_config = ConfigDict(extra="forbid")
    mimeType: str | None = None
    value: str | None = None


class CommentBody(BaseModel):
    """A Comment resource as clients send it."""

    model_config = ConfigDict(extra="allow")
    content: str | None = None
    anchor: str | None = None
    quotedFileContent: QuotedContent | None = None
    resolved: bool | None = None
    kind: str | None = None


class ReplyBody(BaseModel):
    model_config = ConfigDict(extra="allow")
    content: str | None = None
    action: Literal["resolve", "reopen"] | None = None
    kind: str | None = None


def _author_matches(ctx: ServiceContext, author: str) -> bool:
    me = ctx.principal
    if author == me.id:
        return True
    text = author
    if "<" in text and text.endswith(">"):
        text = text[text.index("<") + 1 : -1]
    return text.strip().lower() == me.email.lower()


def comment_resource(ctx: ServiceContext, row: dict[str, Any], replies: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    out: dict[str, Any] = {
        "kind": "drive#comment", "id": row["id"], "createdTime": core.iso(row["created_ms"]),
        "modifiedTime": core.iso(row["modified_ms"]), "author": _author(ctx, row["author"]), "deleted": bool(row["deleted"]),
        "resolved": bool(row["resolved"]),
    }  # fmt: skip
    if not row["deleted"]:
        out["content"] = row["content"]
        out["htmlContent"] = html.escape(row["content"], quote=False).replace("\n", "<br>")
        if row["quoted"]:
            out["quotedFileContent"] = dict(row["quoted"])
    if row["anchor"]:
        out["anchor"] = row["anchor"]
    if row["assignee"]:
        out["assigneeEmailAddress"] = row["assignee"]
    out["replies"] = [reply_resource(ctx, r) for r in (replies or [])]
    return out


def reply_resource(ctx: ServiceContext, row: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {
        "kind": "drive#reply", "id": row["id"], "createdTime": core.iso(row["created_ms"]),
        "modifiedTime": core.iso(row["modified_ms"]), "author": _author(ctx, row["author"]), "deleted": bool(row["deleted"]),
    }  # fmt: skip
    if not row["deleted"]:
        out["content"] = row["content"]
        out["htmlContent"] = html.escape(row["content"], quote=False).replace("\n", "<br>")
    if row["action"]:
        out["action"] = row["action"]
    return out


def _author(ctx: ServiceContext, who: str) -> dict[str, Any]:
    user = core.person(ctx, who)
    user.pop("permissionId", None)
    user.pop("emailAddress", None)  # Drive hides commenters' addresses
    return user


def _comment(ctx: ServiceContext, file_id: str, comment_id: str, include_deleted: bool = True) -> dict[str, Any]:
    row = ctx.store.get(COMMENTS.name, {"id": comment_id, "file_id": file_id})
    if row is None or (row["deleted"] and not include_deleted):
        raise ServiceError(404, f"Comment not found: {comment_id}.", reason="notFound")
    return row


def _replies(ctx: ServiceContext, comment_id: str, include_deleted: bool) -> list[dict[str, Any]]:
    rows = ctx.store.select(REPLIES.name, {"comment_id": comment_id}, order_by="created_ms, id")
    return [r for r in rows if include_deleted or not r["deleted"]]


def _deliver(ctx: ServiceContext, acc: Access, file_row: dict[str, Any], text: str, ref: str) -> None:
    audience = acc.audience(file_row, exclude=ctx.principal.email)
    if audience:
        ctx.deliver(Delivery("drive_comment", ctx.principal.email, audience, file_row["name"], text, ref=ref))


def insert_comment(ctx: ServiceContext, file_id: str, author: str, content: str, quoted: str | None = None,
                   anchor: str | None = None, resolved: bool = False, at_ms: int | None = None, comment_id: str | None = None) -> dict[str, Any]:  # fmt: skip
    t = at_ms if at_ms is not None else now_ms(ctx)
    row = {
        "id": comment_id or "AAAA" + ctx.world.ids.next("drive.comment", 12), "file_id": file_id, "author": author,
        "content": content, "created_ms": t, "modified_ms": t, "resolved": resolved, "deleted": False,
        "quoted": {"mimeType": "text/html", "value": quoted} if quoted else None, "anchor": anchor, "assignee": None,
    }  # fmt: skip
    ctx.store.insert(COMMENTS.name, row)
    return row


def insert_reply(ctx: ServiceContext, file_id: str, comment_id: str, author: str, content: str, action: str | None = None, at_ms: int | None = None) -> dict[str, Any]:
    t = at_ms if at_ms is not None else now_ms(ctx)
    row = {"id": "AAAA" + ctx.world.ids.next("drive.reply", 12), "comment_id": comment_id, "file_id": file_id, "author": author,
           "content": content, "action": action, "created_ms": t, "modified_ms": t, "deleted": False}  # fmt: skip
    ctx.store.insert(REPLIES.name, row)
    if action in ("resolve", "reopen"):
        ctx.store.update(COMMENTS.name, {"id": comment_id}, {"resolved": action == "resolve", "modified_ms": t})
    return row


# ---- comments ----------------------------------------------------------------------------
@tool(ToolKind.READ, name="drive_comments_list", rest=RestBinding("GET", BASE))
def comments_list(
    ctx: ServiceContext,
    file_id: str,
    include_deleted: bool = False,
    page_size: int = Field(default=20, ge=1, le=100),
    page_token: str | None = None,
    start_modified_time: str | None = None,
) -> dict[str, Any]:
    """List the comments on a file (a Google Doc's comments included), oldest first, with their replies.

    Args:
        file_id: the file id.
        include_deleted: include deleted comments and replies (without their content).
        page_size: comments per page (1-100).
        page_token: the nextPageToken of the previous page.
        start_modified_time: only comments modified at or after this RFC 3339 time.
    """
    Access(ctx).readable(file_id, READER)
    rows = ctx.store.select(COMMENTS.name, {"file_id": file_id}, order_by="created_ms, id")
    rows = [r for r in rows if include_deleted or not r["deleted"]]
    if start_modified_time:
        from clawarena.services.drive.query import QueryError, parse_time

        try:
            since = parse_time(start_modified_time)
        except QueryError:
            raise bad_request("Invalid value for: startModifiedTime", "invalid") from None
        rows = [r for r in rows if r["modified_ms"] >= since]
    chunk, token = page(rows, page_token, page_size)
    out: dict[str, Any] = {"kind": "drive#commentList", "comments": [comment_resource(ctx, r, _replies(ctx, r["id"], include_deleted)) for r in chunk]}
    if token:
        out["nextPageToken"] = token
    return out


@tool(ToolKind.READ, name="drive_comments_get", rest=RestBinding("GET", f"{BASE}/{{commentId}}"))
def comments_get(ctx: ServiceContext, file_id: str, comment_id: str, include_deleted: bool = False) -> dict[str, Any]:
    """Get one comment with its replies.

    Args:
        file_id: the file id.
        comment_id: the comment id.
        include_deleted: return it even if deleted (without content).
    """
    Access(ctx).readable(file_id, READER)
    row = _comment(ctx, file_id, comment_id, include_deleted)
    return comment_resource(ctx, row, _replies(ctx, comment_id, include_deleted))


@tool(ToolKind.SEND, name="drive_comments_create", rest=RestBinding("POST", BASE, body="body"))
def comments_create(ctx: ServiceContext, file_id: str, body: CommentBody) -> dict[str, Any]:
    """Comment on a file (needs commenter access); everyone who can read the file sees it.

    Args:
        file_id: the file id.
        body: {"content": "...", "quotedFileContent": {"value": "the text commented on"}}.
    """
    acc = Access(ctx)
    file_row = acc.readable(file_id, COMMENTER)
    if not body.content:
        raise bad_request("The comment content is required.", "required")
    quoted = body.quotedFileContent.value if body.quotedFileContent else None
    row = insert_comment(ctx, file_id, ctx.principal.id, body.content, quoted, body.anchor)
    _deliver(ctx, acc, file_row, body.content, row["id"])
    return comment_resource(ctx, row, [])


@tool(ToolKind.WRITE, name="drive_comments_update", rest=RestBinding("PATCH", f"{BASE}/{{commentId}}", body="body"))
def comments_update(ctx: ServiceContext, file_id: str, comment_id: str, body: CommentBody) -> dict[str, Any]:
    """Edit the text of one of the principal's own comments.

    Args:
        file_id: the file id.
        comment_id: the comment id.
        body: {"content": "new text"}.
    """
    Access(ctx).readable(file_id, COMMENTER)
    row = _comment(ctx, file_id, comment_id, include_deleted=False)
    if not _author_matches(ctx, row["author"]):
        raise ServiceError(403, "The user does not have sufficient permissions for this comment.", reason="insufficientPermissions")
    if not body.content:
        raise bad_request("The comment content is required.", "required")
    ctx.store.update(COMMENTS.name, {"id": comment_id}, {"content": body.content, "modified_ms": now_ms(ctx)})
    return comment_resource(ctx, _comment(ctx, file_id, comment_id), _replies(ctx, comment_id, False))


@tool(ToolKind.WRITE, name="drive_comments_delete", rest=RestBinding("DELETE", f"{BASE}/{{commentId}}", status=204))
def comments_delete(ctx: ServiceContext, file_id: str, comment_id: str) -> None:
    """Delete a comment (the author's own, or any comment on a file the principal can edit).

    Args:
        file_id: the file id.
        comment_id: the comment id.
    """
    acc = Access(ctx)
    file_row = acc.readable(file_id, COMMENTER)
    row = _comment(ctx, file_id, comment_id, include_deleted=False)
    if not _author_matches(ctx, row["author"]) and acc.role(file_row) < WRITER:
        raise ServiceError(403, "The user does not have sufficient permissions for this comment.", reason="insufficientPermissions")
    ctx.store.update(COMMENTS.name, {"id": comment_id}, {"deleted": True, "modified_ms": now_ms(ctx)})
    return None


# ---- replies -----------------------------------------------------------------------------
@tool(ToolKind.READ, name="drive_replies_list", rest=RestBinding("GET", f"{BASE}/{{commentId}}/replies"))
def replies_list(
    ctx: ServiceContext,
    file_id: str,
    comment_id: str,
    include_deleted: bool = False,
    page_size: int = Field(default=20, ge=1, le=100),
    page_token: str | None = None,
) -> dict[str, Any]:
    """List the replies to a comment, oldest first.

    Args:
        file_id: the file id.
        comment_id: the comment id.
        include_deleted: include deleted replies (without content).
        page_size: replies per page (1-100).
        page_token: the nextPageToken of the previous page.
    """
    Access(ctx).readable(file_id, READER)
    _comment(ctx, file_id, comment_id)
    chunk, token = page(_replies(ctx, comment_id, include_deleted), page_token, page_size)
    out: dict[str, Any] = {"kind": "drive#replyList", "replies": [reply_resource(ctx, r) for r in chunk]}
    if token:
        out["nextPageToken"] = token
    return out


def _reply(ctx: ServiceContext, comment_id: str, reply_id: str, include_deleted: bool = True) -> dict[str, Any]:
    row = ctx.store.get(REPLIES.name, {"id": reply_id, "comment_id": comment_id})
    if row is None or (row["deleted"] and not include_deleted):
        raise ServiceError(404, f"Reply not found: {reply_id}.", reason="notFound")
    return row


@tool(ToolKind.READ, name="drive_replies_get", rest=RestBinding("GET", f"{BASE}/{{commentId}}/replies/{{replyId}}"))
def replies_get(ctx: ServiceContext, file_id: str, comment_id: str, reply_id: str, include_deleted: bool = False) -> dict[str, Any]:
    """Get one reply.

    Args:
        file_id: the file id.
        comment_id: the comment id.
        reply_id: the reply id.
        include_deleted: return it even if deleted.
    """
    Access(ctx).readable(file_id, READER)
    _comment(ctx, file_id, comment_id)
    return reply_resource(ctx, _reply(ctx, comment_id, reply_id, include_deleted))


@tool(ToolKind.SEND, name="drive_replies_create", rest=RestBinding("POST", f"{BASE}/{{commentId}}/replies", body="body"))
def replies_create(ctx: ServiceContext, file_id: str, comment_id: str, body: ReplyBody) -> dict[str, Any]:
    """Reply to a comment; action 'resolve' or 'reopen' resolves or reopens it.

    Args:
        file_id: the file id.
        comment_id: the comment id.
        body: {"content": "..."} and/or {"action": "resolve"}.
    """
    acc = Access(ctx)
    file_row = acc.readable(file_id, COMMENTER)
    comment = _comment(ctx, file_id, comment_id, include_deleted=False)
    if not body.content and not body.action:
        raise bad_request("A reply needs content or an action.", "required")
    if body.action == "resolve" and comment["resolved"]:
        raise bad_request("The comment is already resolved.", "invalid")
    if body.action == "reopen" and not comment["resolved"]:
        raise bad_request("The comment is not resolved.", "invalid")
    row = insert_reply(ctx, file_id, comment_id, ctx.principal.id, body.content or "", body.action)
    if body.content:
        _deliver(ctx, acc, file_row, body.content, row["id"])
    return reply_resource(ctx, row)


@tool(ToolKind.WRITE, name="drive_replies_update", rest=RestBinding("PATCH", f"{BASE}/{{commentId}}/replies/{{replyId}}", body="body"))
def replies_update(ctx: ServiceContext, file_id: str, comment_id: str, reply_id: str, body: ReplyBody) -> dict[str, Any]:
    """Edit one of the principal's own replies.

    Args:
        file_id: the file id.
        comment_id: the comment id.
        reply_id: the reply id.
        body: {"content": "new text"}.
    """
    Access(ctx).readable(file_id, COMMENTER)
    _comment(ctx, file_id, comment_id)
    row = _reply(ctx, comment_id, reply_id, include_deleted=False)
    if not _author_matches(ctx, row["author"]):
        raise ServiceError(403, "The user does not have sufficient permissions for this reply.", reason="insufficientPermissions")
    if not body.content:
        raise bad_request("The reply content is required.", "required")
    ctx.store.update(REPLIES.name, {"id": reply_id}, {"content": body.content, "modified_ms": now_ms(ctx)})
    return reply_resource(ctx, _reply(ctx, comment_id, reply_id))


@tool(ToolKind.WRITE, name="drive_replies_delete", rest=RestBinding("DELETE", f"{BASE}/{{commentId}}/replies/{{replyId}}", status=204))
def replies_delete(ctx: ServiceContext, file_id: str, comment_id: str, reply_id: str) -> None:
    """Delete a reply (the author's own, or any on a file the principal can edit).

    Args:
        file_id: the file id.
        comment_id: the comment id.
        reply_id: the reply id.
    """
    acc = Access(ctx)
    file_row = acc.readable(file_id, COMMENTER)
    _comment(ctx, file_id, comment_id)
    row = _reply(ctx, comment_id, reply_id, include_deleted=False)
    if not _author_matches(ctx, row["author"]) and acc.role(file_row) < WRITER:
        raise ServiceError(403, "The user does not have sufficient permissions for this reply.", reason="insufficientPermissions")
    ctx.store.update(REPLIES.name, {"id": reply_id}, {"deleted": True, "modified_ms": now_ms(ctx)})
    return None


TOOLS = (comments_list, comments_create, comments_get, comments_update, comments_delete,
         replies_list, replies_create, replies_get, replies_update, replies_delete)  # fmt: skip
