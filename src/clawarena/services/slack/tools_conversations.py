"""conversations.*: channels, DMs and multi-person DMs, their members, history and threads."""

from __future__ import annotations

import base64
import re
from typing import Any

from clawarena.services.base import ServiceContext
from clawarena.services.slack import permissions
from clawarena.services.slack.api import method
from clawarena.services.slack.args import Csv, CsvList, Flag, OptInt, OptStr, Str
from clawarena.services.slack.core import (
    CHANNEL_TYPES, IM, MPIM, PRIVATE, PUBLIC, Slack, cursor_page, err, in_range, meta, new_id, normalize_ts,
    parse_bound, ts_to_micro,
)  # fmt: skip
from clawarena.services.slack.tables import CHANNELS, MEMBERS, MESSAGES, PINS
from clawarena.tools.core import ToolKind

_NAME = re.compile(r"^[a-z0-9_\-]+$")


def validate_name(name: str | None) -> str:
    name = (name or "").strip().lstrip("#").lower()
    if not name:
        raise err("invalid_name_required")
    if len(name) > 80:
        raise err("invalid_name_maxlength")
    if not _NAME.match(name):
        raise err("invalid_name_specials")
    return name


def parse_types(types: list[str] | None, default: str = "public_channel") -> set[str]:
    wanted = types or [default]
    out = set()
    for t in wanted:
        if t not in CHANNEL_TYPES:
            raise err("invalid_types")
        out.add(CHANNEL_TYPES[t])
    return out


def clamp(limit: int | None, default: int, maximum: int) -> int:
    if limit is None or limit <= 0:
        return default
    return min(limit, maximum)


def channel_sort_key(row: dict[str, Any]) -> tuple[int, str, str]:
    order = {PUBLIC: 0, PRIVATE: 1, MPIM: 2, IM: 3}
    return (order[row["kind"]], row["name"], row["id"])


# ---- time-ordered cursors ("next_ts:<micro>", as Slack's own cursors decode) ---------------
def _encode_ts_cursor(micro: int) -> str:
    return base64.b64encode(f"next_ts:{micro}".encode()).decode()


def _decode_ts_cursor(cursor: str | None) -> int | None:
    if not cursor:
        return None
    try:
        kind, _, value = base64.b64decode(cursor + "=" * (-len(cursor) % 4)).decode().partition(":")
        if kind != "next_ts" or not value.isdigit():
            raise ValueError
        return int(value)
    except ValueError:
        raise err("invalid_cursor") from None


# ---- list, info, create, open -------------------------------------------------------------
@method(ToolKind.READ, "conversations.list")
def conversations_list(
    ctx: ServiceContext,
    types: CsvList = None,
    exclude_archived: Flag = False,
    limit: OptInt = None,
    cursor: OptStr = None,
) -> dict[str, Any]:
    """List the conversations you can see: public channels, and private channels, DMs and group DMs you are in.

    Args:
        types: any of public_channel, private_channel, mpim, im (default public_channel).
        exclude_archived: leave archived channels out.
        limit: page size (default 100, max 1000).
        cursor: next_cursor of the previous page.
    """
    s = Slack(ctx)
    kinds = parse_types(types)
    rows = [r for r in s.store.select(CHANNELS.name) if r["kind"] in kinds and s.can_see(r)]
    if exclude_archived:
        rows = [r for r in rows if not r["is_archived"]]
    rows.sort(key=channel_sort_key)
    chunk, nxt = cursor_page(rows, cursor, clamp(limit, 100, 1000))
    return {"channels": [s.channel_object(r) for r in chunk], **meta(nxt)}


@method(ToolKind.READ, "conversations.info")
def conversations_info(ctx: ServiceContext, channel: Str, include_num_members: Flag = False) -> dict[str, Any]:
    """Get a conversation's details: name, type, topic, purpose, membership, archive state.

    Args:
        channel: the conversation id (C..., G..., D...).
        include_num_members: include num_members.
    """
    s = Slack(ctx)
    row = s.access(channel)
    return {"channel": s.channel_object(row, num_members=include_num_members)}


@method(ToolKind.WRITE, "conversations.create")
def conversations_create(ctx: ServiceContext, name: Str, is_private: Flag = False) -> dict[str, Any]:
    """Create a public or private channel; you become its first member.

    Args:
        name: lowercase letters, digits, hyphens and underscores, at most 80 characters.
        is_private: create a private channel.
    """
    s = Slack(ctx)
    permissions.require(s, "conversations.create", kind=PRIVATE if is_private else PUBLIC)
    name = validate_name(name)
    if s.channel_by_name(name) is not None:
        raise err("name_taken")
    cid = new_id(ctx, "C")
    empty = {"value": "", "creator": "", "last_set": 0}
    s.store.insert(CHANNELS.name, {
        "id": cid, "name": name, "kind": PRIVATE if is_private else PUBLIC, "creator": s.me, "created": s.now,
        "is_archived": False, "is_general": False, "topic": empty, "purpose": empty, "previous_names": [],
        "ref": None, "updated": s.now_ms,
    })  # fmt: skip
    s.add_member(cid, s.me)
    return {"channel": s.channel_object(s.channel_row(cid))}  # type: ignore[arg-type]


@method(ToolKind.WRITE, "conversations.open")
def conversations_open(
    ctx: ServiceContext,
    users: CsvList = None,
    channel: OptStr = None,
    return_im: Flag = False,
    prevent_creation: Flag = False,
) -> dict[str, Any]:
    """Open (or resume) a direct message with one person, or a group DM with 2-8 people.

    Args:
        users: user ids; one opens a DM, several a group DM.
        channel: resume an existing DM or group DM by id instead.
        return_im: return the full conversation object.
        prevent_creation: do not create it if it does not exist yet.
    """
    s = Slack(ctx)
    if channel:
        row = s.access(channel, kinds=(IM, MPIM))
        return {"no_op": True, "already_open": True, "channel": s.channel_object(row) if return_im else {"id": row["id"]}}
    if not users:
        raise err("users_list_not_supplied")
    others = []
    for ref in users:
        u = s.find_user(ref)
        if u is None:
            raise err("user_not_found")
        if u["deleted"]:
            raise err("user_disabled")
        others.append(u["id"])
    if len(set(others) - {s.me}) > 8:
        raise err("too_many_users")
    existing = s.open_dm(others, create=False)
    if existing is not None:
        obj = s.channel_object(existing) if return_im else {"id": existing["id"]}
        return {"no_op": True, "already_open": True, "channel": obj}
    if prevent_creation:
        raise err("channel_not_found")
    row = s.open_dm(others)
    assert row is not None
    return {"channel": s.channel_object(row) if return_im else {"id": row["id"]}}


# ---- archive, rename, membership ---------------------------------------------------------
@method(ToolKind.WRITE, "conversations.archive")
def conversations_archive(ctx: ServiceContext, channel: Str) -> dict[str, Any]:
    """Archive a channel you are in (not as a guest).

    Args:
        channel: the channel id.
    """
    s = Slack(ctx)
    row = s.access(channel, kinds=(PUBLIC, PRIVATE))
    if row["is_general"]:
        raise err("cant_archive_general")
    if row["is_archived"]:
        raise err("already_archived")
    if not s.is_member(row["id"]):
        raise err("not_in_channel", denied=True)
    permissions.require(s, "conversations.archive", row)
    s.store.update(CHANNELS.name, {"id": row["id"]}, {"is_archived": True, "updated": s.now_ms})
    return {}


@method(ToolKind.WRITE, "conversations.unarchive")
def conversations_unarchive(ctx: ServiceContext, channel: Str) -> dict[str, Any]:
    """Unarchive a channel you are in (not as a guest).

    Args:
        channel: the channel id.
    """
    s = Slack(ctx)
    row = s.access(channel, kinds=(PUBLIC, PRIVATE))
    if not row["is_archived"]:
        raise err("not_archived")
    if not s.is_member(row["id"]):
        raise err("not_in_channel", denied=True)
    permissions.require(s, "conversations.unarchive", row)
    s.store.update(CHANNELS.name, {"id": row["id"]}, {"is_archived": False, "updated": s.now_ms})
    return {}


@method(ToolKind.WRITE, "conversations.rename")
def conversations_rename(ctx: ServiceContext, channel: Str, name: Str) -> dict[str, Any]:
    """Rename a channel you are in; only its creator (channel manager) or an admin may.

    Args:
        channel: the channel id.
        name: the new name (lowercase letters, digits, hyphens, underscores).
    """
    s = Slack(ctx)
    row = s.access(channel, member=True, write=True, kinds=(PUBLIC, PRIVATE))
    permissions.require(s, "conversations.rename", row)
    name = validate_name(name)
    other = s.channel_by_name(name)
    if other is not None and other["id"] != row["id"]:
        raise err("name_taken")
    if name != row["name"]:
        s.store.update(CHANNELS.name, {"id": row["id"]},
                       {"name": name, "previous_names": [row["name"], *row["previous_names"]], "updated": s.now_ms})  # fmt: skip
    return {"channel": s.channel_object(s.channel_row(row["id"]))}  # type: ignore[arg-type]


@method(ToolKind.WRITE, "conversations.invite")
def conversations_invite(ctx: ServiceContext, channel: Str, users: Csv, force: Flag = False) -> dict[str, Any]:
    """Invite people to a channel you are in (not as a guest).

    Args:
        channel: the channel id.
        users: user ids (up to 1000).
        force: add the valid users even when some ids are invalid.
    """
    s = Slack(ctx)
    row = s.access(channel, member=True, write=True, kinds=(PUBLIC, PRIVATE))
    permissions.require(s, "conversations.invite", row)
    if not users:
        raise err("no_user")
    found, errors = [], []
    for ref in users:
        u = s.find_user(ref)
        code = None
        if u is None:
            code = "user_not_found"
        elif u["id"] == s.me:
            code = "cant_invite_self"
        elif u["deleted"]:
            code = "user_is_deactivated"
        if code:
            if not force:
                raise err(code)
            errors.append({"user": ref, "ok": False, "error": code})
            continue
        found.append(u["id"])  # type: ignore[index]
    new = [uid for uid in dict.fromkeys(found) if not s.is_member(row["id"], uid)]
    if found and not new and not errors:
        raise err("already_in_channel")
    for uid in new:
        s.add_member(row["id"], uid)
    out: dict[str, Any] = {"channel": s.channel_object(row)}
    if errors:
        out["errors"] = errors
    return out


@method(ToolKind.WRITE, "conversations.kick")
def conversations_kick(ctx: ServiceContext, channel: Str, user: Str) -> dict[str, Any]:
    """Remove someone from a channel you are in: from a public channel only admins may.

    Args:
        channel: the channel id.
        user: the user id to remove.
    """
    s = Slack(ctx)
    row = s.access(channel, member=True, kinds=(PUBLIC, PRIVATE))
    target = s.require_user(user)
    if target["id"] == s.me:
        raise err("cant_kick_self")
    if row["is_general"]:
        raise err("cant_kick_from_general")
    permissions.require(s, "conversations.kick", row)
    if not s.is_member(row["id"], target["id"]):
        raise err("not_in_channel")
    s.store.delete(MEMBERS.name, {"channel": row["id"], "user": target["id"]})
    return {}


@method(ToolKind.WRITE, "conversations.join")
def conversations_join(ctx: ServiceContext, channel: Str) -> dict[str, Any]:
    """Join a public channel.

    Args:
        channel: the channel id.
    """
    s = Slack(ctx)
    row = s.access(channel, kinds=(PUBLIC, PRIVATE))
    if row["is_archived"]:
        raise err("is_archived")
    if s.is_member(row["id"]):
        return {"channel": s.channel_object(row), "warning": "already_in_channel",
                "response_metadata": {"warnings": ["already_in_channel"]}}  # fmt: skip
    s.add_member(row["id"], s.me)
    return {"channel": s.channel_object(row)}


@method(ToolKind.WRITE, "conversations.leave")
def conversations_leave(ctx: ServiceContext, channel: Str) -> dict[str, Any]:
    """Leave a channel or group DM.

    Args:
        channel: the channel id.
    """
    s = Slack(ctx)
    row = s.access(channel, kinds=(PUBLIC, PRIVATE, MPIM))
    if row["is_general"]:
        raise err("cant_leave_general")
    if row["is_archived"]:
        raise err("is_archived")
    if not s.is_member(row["id"]):
        return {"not_in_channel": True}
    s.store.delete(MEMBERS.name, {"channel": row["id"], "user": s.me})
    return {}


@method(ToolKind.READ, "conversations.members")
def conversations_members(ctx: ServiceContext, channel: Str, limit: OptInt = None, cursor: OptStr = None) -> dict[str, Any]:
    """List the user ids of a conversation's members.

    Args:
        channel: the conversation id.
        limit: page size (default 100, max 1000).
        cursor: next_cursor of the previous page.
    """
    s = Slack(ctx)
    row = s.access(channel)
    chunk, nxt = cursor_page(s.members(row["id"]), cursor, clamp(limit, 100, 1000))
    return {"members": chunk, **meta(nxt)}


# ---- history and threads ---------------------------------------------------------------------
@method(ToolKind.READ, "conversations.history")
def conversations_history(
    ctx: ServiceContext,
    channel: Str,
    latest: OptStr = None,
    oldest: OptStr = None,
    inclusive: Flag = False,
    limit: OptInt = None,
    cursor: OptStr = None,
) -> dict[str, Any]:
    """Read a conversation's messages, newest first (thread replies are in conversations.replies).

    Args:
        channel: the conversation id.
        latest: only messages before this ts (default now).
        oldest: only messages after this ts (default 0).
        inclusive: include messages whose ts equals latest or oldest.
        limit: page size (default 100, max 999).
        cursor: next_cursor of the previous page.
    """
    s = Slack(ctx)
    row = s.access(channel)
    lo, hi = parse_bound(oldest, "ts_oldest"), parse_bound(latest, "ts_latest")
    before = _decode_ts_cursor(cursor)
    rows = [
        m for m in s.store.select(MESSAGES.name, {"channel": row["id"]}, order_by='"ts" DESC')
        if (m["thread_ts"] is None or m["thread_ts"] == m["ts"] or m["subtype"] == "thread_broadcast")
        and in_range(m["ts"], lo, hi, inclusive) and (before is None or ts_to_micro(m["ts"]) <= before)
    ]  # fmt: skip
    size = clamp(limit, 100, 999)
    chunk, rest = rows[:size], rows[size:]
    out: dict[str, Any] = {
        "messages": [s.message_object(m) for m in chunk], "has_more": bool(rest),
        "pin_count": len(s.store.select(PINS.name, {"channel": row["id"]})),
        "channel_actions_ts": None, "channel_actions_count": 0,
    }  # fmt: skip
    out.update(meta(_encode_ts_cursor(ts_to_micro(rest[0]["ts"])) if rest else ""))
    return out


@method(ToolKind.READ, "conversations.replies")
def conversations_replies(
    ctx: ServiceContext,
    channel: Str,
    ts: Str,
    latest: OptStr = None,
    oldest: OptStr = None,
    inclusive: Flag = False,
    limit: OptInt = None,
    cursor: OptStr = None,
) -> dict[str, Any]:
    """Read a thread: the parent message, then its replies oldest first.

    Args:
        channel: the conversation id.
        ts: ts of the thread's parent (a reply's ts returns just that reply).
        latest: only replies before this ts.
        oldest: only replies after this ts.
        inclusive: include replies whose ts equals latest or oldest.
        limit: page size (default 1000).
        cursor: next_cursor of the previous page.
    """
    s = Slack(ctx)
    row = s.access(channel)
    msg = s.message_row(row["id"], ts)
    if msg is None:
        raise err("thread_not_found")
    if msg["thread_ts"] and msg["thread_ts"] != msg["ts"]:
        return {"messages": [s.message_object(msg)], "has_more": False, **meta("")}
    lo, hi = parse_bound(oldest, "ts_oldest"), parse_bound(latest, "ts_latest")
    after = _decode_ts_cursor(cursor)
    replies = [r for r in s.replies_of(row["id"], msg["ts"]) if in_range(r["ts"], lo, hi, inclusive)]
    if after is not None:
        replies = [r for r in replies if ts_to_micro(r["ts"]) >= after]
    size = clamp(limit, 1000, 1000)
    items = [msg] + replies
    chunk, rest = items[:size], items[size:]
    nxt = _encode_ts_cursor(ts_to_micro(rest[0]["ts"])) if rest else ""
    return {"messages": [s.message_object(m) for m in chunk], "has_more": bool(rest), **meta(nxt)}


# ---- topic, purpose, read marker ------------------------------------------------------------
def _set_text_field(ctx: ServiceContext, channel: str | None, field: str, value: str | None, limit: int) -> dict[str, Any]:
    s = Slack(ctx)
    row = s.access(channel, member=True, write=True, kinds=(PUBLIC, PRIVATE, MPIM))
    value = value or ""
    if len(value) > limit:
        raise err("too_long")
    s.store.update(CHANNELS.name, {"id": row["id"]}, {field: {"value": value, "creator": s.me, "last_set": s.now}, "updated": s.now_ms})
    s.deliver(row, value, subject=f"{s.label(row)} {field}")
    return {field: value, "channel": s.channel_object(s.channel_row(row["id"]))}  # type: ignore[arg-type]


@method(ToolKind.SEND, "conversations.setPurpose")
def conversations_set_purpose(ctx: ServiceContext, channel: Str, purpose: Str) -> dict[str, Any]:
    """Set a channel's purpose (its members see it).

    Args:
        channel: the channel id.
        purpose: the new purpose (at most 250 characters).
    """
    return _set_text_field(ctx, channel, "purpose", purpose, 250)


@method(ToolKind.SEND, "conversations.setTopic")
def conversations_set_topic(ctx: ServiceContext, channel: Str, topic: Str) -> dict[str, Any]:
    """Set a channel's topic (its members see it).

    Args:
        channel: the channel id.
        topic: the new topic (at most 250 characters).
    """
    return _set_text_field(ctx, channel, "topic", topic, 250)


@method(ToolKind.WRITE, "conversations.mark")
def conversations_mark(ctx: ServiceContext, channel: Str, ts: Str) -> dict[str, Any]:
    """Move your read cursor in a conversation.

    Args:
        channel: the conversation id.
        ts: the ts of the last message you have read.
    """
    s = Slack(ctx)
    row = s.access(channel, member=True)
    if not ts:
        raise err("invalid_timestamp")
    s.store.update(MEMBERS.name, {"channel": row["id"], "user": s.me}, {"last_read": normalize_ts(ts)})
    return {}


TOOLS = (
    conversations_list, conversations_info, conversations_create, conversations_open, conversations_archive,
    conversations_unarchive, conversations_rename, conversations_invite, conversations_kick, conversations_join,
    conversations_leave, conversations_members, conversations_history, conversations_replies,
    conversations_set_purpose, conversations_set_topic, conversations_mark,
)  # fmt: skip
