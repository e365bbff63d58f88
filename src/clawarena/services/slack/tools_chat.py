"""chat.*: post (to channels, DMs, threads), ephemeral, update, delete, permalinks, scheduled messages."""

from __future__ import annotations

from typing import Any

from clawarena.services.base import ServiceContext
from clawarena.services.slack import permissions
from clawarena.services.slack.api import method
from clawarena.services.slack.args import Flag, Int, JsonArg, OptInt, OptStr, Str
from clawarena.services.slack.core import Slack, cursor_page, err, meta, new_id, parse_bound
from clawarena.services.slack.tables import MESSAGES, PINS, REACTIONS, SCHEDULED
from clawarena.tools.core import ToolKind

MAX_TEXT = 40_000


def check_blocks(blocks: Any, field: str = "blocks") -> list[dict[str, Any]] | None:
    """Blocks (or attachments) as given: a JSON array of objects; blocks need a `type`."""
    if blocks is None:
        return None
    if not isinstance(blocks, list) or not all(isinstance(b, dict) for b in blocks):
        raise err(f"invalid_{field}")
    if field == "blocks" and not all(isinstance(b.get("type"), str) for b in blocks):
        raise err("invalid_blocks")
    if field == "attachments" and len(blocks) > 100:
        raise err("too_many_attachments")
    return blocks


def check_content(text: str | None, blocks: Any, attachments: Any) -> None:
    if not text and not blocks and not attachments:
        raise err("no_text")
    if text and len(text) > MAX_TEXT:
        raise err("msg_too_long")


def thread_parent(s: Slack, cid: str, thread_ts: str | None) -> str | None:
    """The ts of the thread's parent (a reply's ts means its parent's thread)."""
    if not thread_ts:
        return None
    parent = s.message_row(cid, thread_ts)
    if parent is None or parent["subtype"] == "tombstone" and not s.replies_of(cid, parent["ts"]):
        raise err("thread_not_found")
    return parent["thread_ts"] or parent["ts"]


def post(
    s: Slack, channel: str | None, text: str | None, blocks: Any, attachments: Any, thread_ts: str | None, broadcast: bool
) -> tuple[dict[str, Any], dict[str, Any]]:
    """Post as the caller; returns (channel row, message row) and reports the delivery."""
    row = s.access(channel, names=True, write=True, member=True)
    blocks = check_blocks(blocks)
    attachments = check_blocks(attachments, "attachments")
    check_content(text, blocks, attachments)
    parent = thread_parent(s, row["id"], thread_ts)
    msg = s.insert_message(row["id"], s.me, text or "", blocks=blocks, attachments=attachments, thread_ts=parent,
                           broadcast=broadcast and parent is not None)  # fmt: skip
    s.deliver(row, s.message_body(text or "", blocks), ref=f"{row['id']}/{msg['ts']}")
    return row, msg


@method(ToolKind.SEND, "chat.postMessage")
def chat_post_message(
    ctx: ServiceContext,
    channel: Str,
    text: OptStr = None,
    blocks: JsonArg = None,
    attachments: JsonArg = None,
    thread_ts: OptStr = None,
    reply_broadcast: Flag = False,
) -> dict[str, Any]:
    """Post a message to a channel, DM or thread you are in; everyone in it can read it.

    Args:
        channel: channel id, '#name', or a user id (posts to your DM with them).
        text: the message text (Slack mrkdwn; at most 40000 characters).
        blocks: Block Kit blocks (a JSON array), stored as given.
        attachments: legacy attachments (a JSON array).
        thread_ts: ts of a thread's parent to reply in that thread.
        reply_broadcast: with thread_ts, also show the reply in the channel.
    """
    s = Slack(ctx)
    row, msg = post(s, channel, text, blocks, attachments, thread_ts, reply_broadcast)
    return {"channel": row["id"], "ts": msg["ts"], "message": s.message_object(msg)}


@method(ToolKind.SEND, "chat.postEphemeral")
def chat_post_ephemeral(
    ctx: ServiceContext,
    channel: Str,
    user: Str,
    text: OptStr = None,
    blocks: JsonArg = None,
    attachments: JsonArg = None,
    thread_ts: OptStr = None,
) -> dict[str, Any]:
    """Show a message to one member of a channel, only for them (it is not stored in the history).

    Args:
        channel: the channel id (or '#name') you and the user are both in.
        user: the user id who sees the message.
        text: the message text.
        blocks: Block Kit blocks (a JSON array).
        attachments: legacy attachments (a JSON array).
        thread_ts: show it in this thread.
    """
    s = Slack(ctx)
    row = s.access(channel, names=True, write=True, member=True)
    target = s.require_user(user)
    if not s.is_member(row["id"], target["id"]):
        raise err("user_not_in_channel")
    blocks = check_blocks(blocks)
    attachments = check_blocks(attachments, "attachments")
    check_content(text, blocks, attachments)
    message_ts = s.next_ts()
    body = s.message_body(text or "", blocks)
    if target["id"] != s.me:
        from clawarena.services.base import Delivery

        ctx.deliver(Delivery("slack", ctx.principal.email, (s.address_of(target["id"]),), f"{s.label(row)} (ephemeral)", body,
                             ref=f"{row['id']}/{message_ts}"))  # fmt: skip
    return {"message_ts": message_ts}


@method(ToolKind.SEND, "chat.update")
def chat_update(
    ctx: ServiceContext,
    channel: Str,
    ts: Str,
    text: OptStr = None,
    blocks: JsonArg = None,
    attachments: JsonArg = None,
) -> dict[str, Any]:
    """Edit one of your messages; everyone in the conversation sees the new text.

    Args:
        channel: the conversation id.
        ts: the message's ts.
        text: the new text.
        blocks: new Block Kit blocks (a JSON array); omitted blocks are kept.
        attachments: new attachments (a JSON array).
    """
    s = Slack(ctx)
    row = s.access(channel, write=True)
    msg = s.require_message(row["id"], ts)
    if msg["user"] != s.me:
        raise err("cant_update_message", denied=True)
    blocks = check_blocks(blocks)
    attachments = check_blocks(attachments, "attachments")
    check_content(text, blocks if blocks is not None else msg["blocks"], attachments if attachments is not None else msg["attachments"])
    changes: dict[str, Any] = {"edited": {"user": s.me, "ts": s.next_ts()}}
    if text is not None:
        changes["text"] = text
    if blocks is not None:
        changes["blocks"] = blocks
    if attachments is not None:
        changes["attachments"] = attachments or None
    s.store.update(MESSAGES.name, {"channel": row["id"], "ts": msg["ts"]}, changes)
    new = {**msg, **changes}
    s.deliver(row, s.message_body(new["text"], new["blocks"]), subject=f"{s.label(row)} (edited)", ref=f"{row['id']}/{msg['ts']}")
    obj = s.message_object(new)
    return {"channel": row["id"], "ts": msg["ts"], "text": new["text"], "message": obj}


@method(ToolKind.WRITE, "chat.delete")
def chat_delete(ctx: ServiceContext, channel: Str, ts: Str) -> dict[str, Any]:
    """Delete one of your messages (admins: anyone's); a thread parent with replies leaves a tombstone.

    Args:
        channel: the conversation id.
        ts: the message's ts.
    """
    s = Slack(ctx)
    row = s.access(channel)
    msg = s.require_message(row["id"], ts)
    if msg["user"] != s.me:
        permissions.require(s, "chat.delete", row)
    key = {"channel": row["id"], "ts": msg["ts"]}
    s.store.delete(REACTIONS.name, key)
    s.store.delete(PINS.name, key)
    if (msg["thread_ts"] is None or msg["thread_ts"] == msg["ts"]) and s.replies_of(row["id"], msg["ts"]):
        s.store.update(MESSAGES.name, key, {"text": "This message was deleted.", "subtype": "tombstone", "user": "USLACKBOT",
                                            "blocks": None, "attachments": None, "files": [], "edited": None})  # fmt: skip
    else:
        s.store.delete(MESSAGES.name, key)
    return {"channel": row["id"], "ts": msg["ts"]}


@method(ToolKind.READ, "chat.getPermalink")
def chat_get_permalink(ctx: ServiceContext, channel: Str, message_ts: Str) -> dict[str, Any]:
    """Get a link to a message.

    Args:
        channel: the conversation id.
        message_ts: the message's ts.
    """
    s = Slack(ctx)
    row = s.access(channel)
    msg = s.require_message(row["id"], message_ts)
    return {"channel": row["id"], "permalink": s.permalink(row["id"], msg["ts"], msg["thread_ts"])}


# ---- scheduled messages -------------------------------------------------------------------
@method(ToolKind.SEND, "chat.scheduleMessage")
def chat_schedule_message(
    ctx: ServiceContext,
    channel: Str,
    post_at: Int,
    text: OptStr = None,
    blocks: JsonArg = None,
    attachments: JsonArg = None,
    thread_ts: OptStr = None,
    reply_broadcast: Flag = False,
) -> dict[str, Any]:
    """Schedule a message to be posted later in a channel you are in (within 120 days).

    Args:
        channel: channel id, '#name', or a user id (your DM with them).
        post_at: Unix time (seconds) to post at; must be in the future.
        text: the message text.
        blocks: Block Kit blocks (a JSON array).
        attachments: legacy attachments (a JSON array).
        thread_ts: post it as a reply in this thread.
        reply_broadcast: with thread_ts, also show it in the channel.
    """
    s = Slack(ctx)
    row = s.access(channel, names=True, write=True, member=True)
    if post_at <= s.now:
        raise err("time_in_past")
    if post_at > s.now + 120 * 86400:
        raise err("time_too_far")
    blocks = check_blocks(blocks)
    check_content(text, blocks, None)
    parent = thread_parent(s, row["id"], thread_ts)
    sid = new_id(ctx, "Q")
    s.store.insert(SCHEDULED.name, {
        "id": sid, "channel": row["id"], "user": s.me, "text": text or "", "blocks": blocks, "thread_ts": parent,
        "reply_broadcast": bool(reply_broadcast and parent), "post_at": post_at, "date_created": s.now,
    })  # fmt: skip
    s.deliver(row, s.message_body(text or "", blocks), subject=f"{s.label(row)} (scheduled)", ref=sid)
    message: dict[str, Any] = {"type": "message", "user": s.me, "text": text or "", "team": s.team_id}
    if blocks is not None:
        message["blocks"] = blocks
    return {"channel": row["id"], "scheduled_message_id": sid, "post_at": post_at, "message": message}


@method(ToolKind.WRITE, "chat.deleteScheduledMessage")
def chat_delete_scheduled_message(ctx: ServiceContext, channel: Str, scheduled_message_id: Str) -> dict[str, Any]:
    """Cancel one of your scheduled messages before it is posted.

    Args:
        channel: the conversation id it was scheduled in.
        scheduled_message_id: the id from chat.scheduleMessage.
    """
    s = Slack(ctx)
    row = s.access(channel)
    sched = s.store.get(SCHEDULED.name, {"id": scheduled_message_id, "channel": row["id"]})
    if sched is None:
        raise err("invalid_scheduled_message_id")
    if sched["user"] != s.me:  # only its author sees it: answered like an unknown id
        raise err("invalid_scheduled_message_id", denied=True)
    s.store.delete(SCHEDULED.name, {"id": sched["id"]})
    return {}


@method(ToolKind.READ, "chat.scheduledMessages.list")
def chat_scheduled_messages_list(
    ctx: ServiceContext,
    channel: OptStr = None,
    latest: OptStr = None,
    oldest: OptStr = None,
    limit: OptInt = None,
    cursor: OptStr = None,
) -> dict[str, Any]:
    """List your messages that are scheduled but not yet posted.

    Args:
        channel: only those for this conversation id.
        latest: only those to be posted before this Unix time.
        oldest: only those to be posted after this Unix time.
        limit: page size (default 100).
        cursor: next_cursor of the previous page.
    """
    s = Slack(ctx)
    where: dict[str, Any] = {"user": s.me}
    if channel:
        where["channel"] = s.access(channel)["id"]
    lo, hi = parse_bound(oldest, "ts_oldest"), parse_bound(latest, "ts_latest")
    rows = [
        r for r in s.store.select(SCHEDULED.name, where, order_by='"post_at", "id"')
        if (lo is None or r["post_at"] * 1_000_000 >= lo) and (hi is None or r["post_at"] * 1_000_000 <= hi)
    ]  # fmt: skip
    chunk, nxt = cursor_page(rows, cursor, limit if limit and limit > 0 else 100)
    items = [{"id": r["id"], "channel_id": r["channel"], "post_at": r["post_at"], "date_created": r["date_created"], "text": r["text"]}
             for r in chunk]  # fmt: skip
    return {"scheduled_messages": items, **meta(nxt)}


TOOLS = (
    chat_post_message, chat_post_ephemeral, chat_update, chat_delete, chat_get_permalink, chat_schedule_message,
    chat_delete_scheduled_message, chat_scheduled_messages_list,
)  # fmt: skip
