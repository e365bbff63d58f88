"""pins.*, reactions.*, reminders.*, bookmarks.*, usergroups.*."""

from __future__ import annotations

import re
from typing import Any

from clawarena.services.base import ServiceContext
from clawarena.services.slack import permissions
from clawarena.services.slack.api import method
from clawarena.services.slack.args import Csv, CsvList, Flag, OptInt, OptStr, Str
from clawarena.services.slack.core import PRIVATE, PUBLIC, Slack, cursor_page, err, meta, new_id
from clawarena.services.slack.tables import BOOKMARKS, PINS, REACTIONS, REMINDERS, USERGROUPS
from clawarena.services.slack.when import CannotParse, parse_when
from clawarena.tools.core import ToolKind

# ---- pins ------------------------------------------------------------------------------------


@method(ToolKind.WRITE, "pins.add")
def pins_add(ctx: ServiceContext, channel: Str, timestamp: Str) -> dict[str, Any]:
    """Pin a message in a conversation you are in.

    Args:
        channel: the conversation id.
        timestamp: the message's ts.
    """
    s = Slack(ctx)
    row = s.access(channel, member=True, write=True)
    msg = s.require_message(row["id"], timestamp)
    if s.store.get(PINS.name, {"channel": row["id"], "ts": msg["ts"]}) is not None:
        raise err("already_pinned")
    s.store.insert(PINS.name, {"channel": row["id"], "ts": msg["ts"], "pinned_by": s.me, "created": s.now})
    return {}


@method(ToolKind.WRITE, "pins.remove")
def pins_remove(ctx: ServiceContext, channel: Str, timestamp: Str) -> dict[str, Any]:
    """Unpin a message.

    Args:
        channel: the conversation id.
        timestamp: the message's ts.
    """
    s = Slack(ctx)
    row = s.access(channel, member=True, write=True)
    msg = s.require_message(row["id"], timestamp)
    if not s.store.delete(PINS.name, {"channel": row["id"], "ts": msg["ts"]}):
        raise err("no_pin")
    return {}


@method(ToolKind.READ, "pins.list")
def pins_list(ctx: ServiceContext, channel: Str) -> dict[str, Any]:
    """List a conversation's pinned messages, most recently pinned first.

    Args:
        channel: the conversation id.
    """
    s = Slack(ctx)
    row = s.access(channel)
    items = []
    for pin in s.store.select(PINS.name, {"channel": row["id"]}, order_by='"created" DESC, "ts" DESC'):
        msg = s.message_row(row["id"], pin["ts"])
        if msg is not None:
            items.append({"type": "message", "created": pin["created"], "created_by": pin["pinned_by"], "channel": row["id"],
                          "message": {**s.message_object(msg), "permalink": s.permalink(row["id"], msg["ts"], msg["thread_ts"])}})  # fmt: skip
    return {"items": items}


# ---- reactions --------------------------------------------------------------------------------
_EMOJI = re.compile(r"^[a-z0-9_+\-']+(::skin-tone-[2-6])?$")


def _emoji(name: str | None) -> str:
    name = (name or "").strip().strip(":").lower()
    if not name or not _EMOJI.match(name):
        raise err("invalid_name")
    return name


@method(ToolKind.WRITE, "reactions.add")
def reactions_add(ctx: ServiceContext, channel: Str, timestamp: Str, name: Str) -> dict[str, Any]:
    """Add an emoji reaction to a message.

    Args:
        channel: the conversation id.
        timestamp: the message's ts.
        name: the emoji name without colons, e.g. thumbsup.
    """
    s = Slack(ctx)
    row = s.access(channel, write=True)
    msg = s.require_message(row["id"], timestamp)
    emoji = _emoji(name)
    key = {"channel": row["id"], "ts": msg["ts"], "name": emoji, "user": s.me}
    if s.store.get(REACTIONS.name, key) is not None:
        raise err("already_reacted")
    if len({r["name"] for r in s.store.select(REACTIONS.name, {"channel": row["id"], "ts": msg["ts"]})}) >= 50:
        raise err("too_many_emoji")
    s.store.insert(REACTIONS.name, {**key, "added": s.now_ms})
    return {}


@method(ToolKind.WRITE, "reactions.remove")
def reactions_remove(ctx: ServiceContext, channel: Str, timestamp: Str, name: Str) -> dict[str, Any]:
    """Remove your emoji reaction from a message.

    Args:
        channel: the conversation id.
        timestamp: the message's ts.
        name: the emoji name.
    """
    s = Slack(ctx)
    row = s.access(channel, write=True)
    msg = s.require_message(row["id"], timestamp)
    if not s.store.delete(REACTIONS.name, {"channel": row["id"], "ts": msg["ts"], "name": _emoji(name), "user": s.me}):
        raise err("no_reaction")
    return {}


@method(ToolKind.READ, "reactions.get")
def reactions_get(ctx: ServiceContext, channel: Str, timestamp: Str) -> dict[str, Any]:
    """Get the reactions on a message.

    Args:
        channel: the conversation id.
        timestamp: the message's ts.
    """
    s = Slack(ctx)
    row = s.access(channel)
    msg = s.require_message(row["id"], timestamp)
    message = {**s.message_object(msg), "permalink": s.permalink(row["id"], msg["ts"], msg["thread_ts"])}
    return {"type": "message", "channel": row["id"], "message": message}


@method(ToolKind.READ, "reactions.list")
def reactions_list(
    ctx: ServiceContext,
    user: OptStr = None,
    count: OptInt = None,
    page: OptInt = None,
    limit: OptInt = None,
    cursor: OptStr = None,
) -> dict[str, Any]:
    """List messages a user (default you) reacted to, most recent reaction first.

    Args:
        user: the user id (default you).
        count: page size for page-based paging (default 100).
        page: page number (from 1).
        limit: page size for cursor paging.
        cursor: next_cursor of the previous page.
    """
    s = Slack(ctx)
    uid = s.require_user(user)["id"] if user else s.me
    latest: dict[tuple[str, str], int] = {}
    for r in s.store.select(REACTIONS.name, {"user": uid}):
        key = (r["channel"], r["ts"])
        latest[key] = max(latest.get(key, 0), r["added"])
    keys = sorted(latest, key=lambda k: (-latest[k], k))
    items = []
    for cid, ts in keys:
        chan = s.channel_row(cid)
        msg = s.message_row(cid, ts)
        if chan is None or msg is None or not s.can_see(chan):
            continue
        items.append({"type": "message", "channel": cid,
                      "message": {**s.message_object(msg), "permalink": s.permalink(cid, ts, msg["thread_ts"])}})  # fmt: skip
    if cursor or limit:
        chunk, nxt = cursor_page(items, cursor, limit or 100)
        return {"items": chunk, **meta(nxt)}
    per = count if count and count > 0 else 100
    pages = max(1, -(-len(items) // per))
    number = min(max(page or 1, 1), pages)
    chunk = items[(number - 1) * per : number * per]
    return {"items": chunk, "paging": {"count": per, "total": len(items), "page": number, "pages": pages}, **meta("")}


# ---- reminders -------------------------------------------------------------------------------
def reminder_object(row: dict[str, Any]) -> dict[str, Any]:
    out = {"id": row["id"], "creator": row["creator"], "user": row["user"], "text": row["text"], "recurring": row["recurring"]}
    if row["recurring"]:
        out["recurrence"] = {"frequency": row["recurrence"] or "", "next": row["time"]}
    else:
        out["time"] = row["time"]
        out["complete_ts"] = row["complete_ts"]
    return out


def _my_reminder(s: Slack, rid: str | None) -> dict[str, Any]:
    row = s.store.get(REMINDERS.name, {"id": rid or ""})
    if row is None:
        raise err("not_found")
    if s.me not in (row["user"], row["creator"]):
        raise err("not_found", denied=True)
    return row


@method(ToolKind.WRITE, "reminders.add")
def reminders_add(ctx: ServiceContext, text: Str, time: Str, user: OptStr = None) -> dict[str, Any]:
    """Create a reminder for yourself.

    Args:
        text: what to be reminded of.
        time: Unix time, seconds from now (up to 24 hours), an ISO time, or e.g. 'in 15 minutes', 'tomorrow at 9am', 'every weekday at 9am'.
        user: must be you (reminders for others are no longer supported).
    """
    s = Slack(ctx)
    if user and s.require_user(user)["id"] != s.me:
        raise err("cannot_add_others", denied=True)
    if not text:
        raise err("no_text")
    try:
        when, recurring, rule = parse_when(time, s.now)
    except CannotParse:
        raise err("cannot_parse") from None
    row = {"id": new_id(ctx, "Rm"), "user": s.me, "creator": s.me, "text": text, "time": when, "complete_ts": 0,
           "recurring": recurring, "recurrence": rule}  # fmt: skip
    s.store.insert(REMINDERS.name, row)
    return {"reminder": reminder_object(row)}


@method(ToolKind.READ, "reminders.list")
def reminders_list(ctx: ServiceContext) -> dict[str, Any]:
    """List your reminders (complete ones have complete_ts set)."""
    s = Slack(ctx)
    rows = [r for r in s.store.select(REMINDERS.name, order_by='"time", "id"') if s.me in (r["user"], r["creator"])]
    return {"reminders": [reminder_object(r) for r in rows]}


@method(ToolKind.READ, "reminders.info")
def reminders_info(ctx: ServiceContext, reminder: Str) -> dict[str, Any]:
    """Get one of your reminders.

    Args:
        reminder: the reminder id (Rm...).
    """
    return {"reminder": reminder_object(_my_reminder(Slack(ctx), reminder))}


@method(ToolKind.WRITE, "reminders.complete")
def reminders_complete(ctx: ServiceContext, reminder: Str) -> dict[str, Any]:
    """Mark one of your reminders complete.

    Args:
        reminder: the reminder id.
    """
    s = Slack(ctx)
    row = _my_reminder(s, reminder)
    if row["recurring"]:
        raise err("cannot_complete_recurring")
    if row["complete_ts"]:
        raise err("already_completed")
    s.store.update(REMINDERS.name, {"id": row["id"]}, {"complete_ts": s.now})
    return {}


@method(ToolKind.WRITE, "reminders.delete")
def reminders_delete(ctx: ServiceContext, reminder: Str) -> dict[str, Any]:
    """Delete one of your reminders.

    Args:
        reminder: the reminder id.
    """
    s = Slack(ctx)
    row = _my_reminder(s, reminder)
    s.store.delete(REMINDERS.name, {"id": row["id"]})
    return {}


# ---- bookmarks -------------------------------------------------------------------------------
def bookmark_object(s: Slack, row: dict[str, Any], rank: int) -> dict[str, Any]:
    return {
        "id": row["id"], "channel_id": row["channel"], "title": row["title"], "link": row["link"], "emoji": row["emoji"] or None,
        "icon_url": None, "type": row["type"], "entity_id": None, "date_created": row["date_created"],
        "date_updated": row["date_updated"], "rank": chr(ord("a") + min(rank, 25)) * (1 + rank // 26),
        "last_updated_by_user_id": row["updated_by"], "last_updated_by_team_id": s.team_id, "shortcut_id": None,
        "app_id": None, "app_action_id": None,
    }  # fmt: skip


def _bookmarks(s: Slack, cid: str) -> list[dict[str, Any]]:
    return s.store.select(BOOKMARKS.name, {"channel": cid}, order_by='"date_created", "id"')


def _bookmark_of(s: Slack, cid: str, bid: str | None) -> tuple[dict[str, Any], int]:
    for i, row in enumerate(_bookmarks(s, cid)):
        if row["id"] == bid:
            return row, i
    raise err("not_found")


@method(ToolKind.SEND, "bookmarks.add")
def bookmarks_add(
    ctx: ServiceContext,
    channel_id: Str,
    title: Str,
    type: Str,
    link: Str,
    emoji: OptStr = None,
) -> dict[str, Any]:
    """Add a link bookmark to a channel's header (its members see it).

    Args:
        channel_id: the channel id.
        title: the bookmark's title.
        type: only 'link' is supported.
        link: the URL.
        emoji: an emoji tag, e.g. :link:.
    """
    s = Slack(ctx)
    row = s.access(channel_id, member=True, write=True)
    if type != "link":
        raise err("invalid_bookmark_type")
    if not title:
        raise err("invalid_title")
    if not link or not re.match(r"^[a-z][a-z0-9+.-]*://", link, re.I):
        raise err("invalid_link")
    bid = new_id(ctx, "Bk")
    bm = {"id": bid, "channel": row["id"], "title": title, "link": link, "emoji": emoji or "", "type": "link",
          "created_by": s.me, "updated_by": s.me, "date_created": s.now, "date_updated": s.now}  # fmt: skip
    s.store.insert(BOOKMARKS.name, bm)
    s.deliver(row, f"{title} {link}", subject=f"{s.label(row)} (bookmark)", ref=bid)
    _, rank = _bookmark_of(s, row["id"], bid)
    return {"bookmark": bookmark_object(s, bm, rank)}


@method(ToolKind.SEND, "bookmarks.edit")
def bookmarks_edit(
    ctx: ServiceContext,
    bookmark_id: Str,
    channel_id: Str,
    title: OptStr = None,
    link: OptStr = None,
    emoji: OptStr = None,
) -> dict[str, Any]:
    """Change a channel bookmark's title, link or emoji.

    Args:
        bookmark_id: the bookmark id (Bk...).
        channel_id: the channel id.
        title: a new title.
        link: a new URL.
        emoji: a new emoji tag.
    """
    s = Slack(ctx)
    row = s.access(channel_id, member=True, write=True)
    bm, rank = _bookmark_of(s, row["id"], bookmark_id)
    changes: dict[str, Any] = {"updated_by": s.me, "date_updated": s.now}
    if title is not None:
        changes["title"] = title
    if link is not None:
        if not re.match(r"^[a-z][a-z0-9+.-]*://", link, re.I):
            raise err("invalid_link")
        changes["link"] = link
    if emoji is not None:
        changes["emoji"] = emoji
    s.store.update(BOOKMARKS.name, {"id": bm["id"]}, changes)
    bm = {**bm, **changes}
    s.deliver(row, f"{bm['title']} {bm['link']}", subject=f"{s.label(row)} (bookmark)", ref=bm["id"])
    return {"bookmark": bookmark_object(s, bm, rank)}


@method(ToolKind.WRITE, "bookmarks.remove")
def bookmarks_remove(ctx: ServiceContext, bookmark_id: Str, channel_id: Str) -> dict[str, Any]:
    """Remove a channel bookmark.

    Args:
        bookmark_id: the bookmark id.
        channel_id: the channel id.
    """
    s = Slack(ctx)
    row = s.access(channel_id, member=True, write=True)
    bm, _ = _bookmark_of(s, row["id"], bookmark_id)
    s.store.delete(BOOKMARKS.name, {"id": bm["id"]})
    return {}


@method(ToolKind.READ, "bookmarks.list")
def bookmarks_list(ctx: ServiceContext, channel_id: Str) -> dict[str, Any]:
    """List a channel's bookmarks.

    Args:
        channel_id: the channel id.
    """
    s = Slack(ctx)
    row = s.access(channel_id)
    return {"bookmarks": [bookmark_object(s, b, i) for i, b in enumerate(_bookmarks(s, row["id"]))]}


# ---- user groups -------------------------------------------------------------------------------
def usergroup_object(s: Slack, row: dict[str, Any], *, users: bool = True, count: bool = True) -> dict[str, Any]:
    out: dict[str, Any] = {
        "id": row["id"], "team_id": s.team_id, "is_usergroup": True, "is_subteam": True, "name": row["name"],
        "description": row["description"], "handle": row["handle"], "is_external": False,
        "date_create": row["date_create"], "date_update": row["date_update"], "date_delete": row["date_delete"],
        "auto_type": None, "auto_provision": False, "enterprise_subteam_id": "", "created_by": row["created_by"],
        "updated_by": row["updated_by"], "deleted_by": row["updated_by"] if row["date_delete"] else None,
        "prefs": {"channels": list(row["channels"]), "groups": []},
    }  # fmt: skip
    if users:
        out["users"] = list(row["users"])
    if count:
        out["user_count"] = len(row["users"])
    return out


def _group(s: Slack, gid: str) -> dict[str, Any]:
    row = s.store.get(USERGROUPS.name, {"id": gid})
    if row is None:
        raise err("no_such_subteam")
    return row


def _user_ids(s: Slack, refs: list[str] | None) -> list[str]:
    out = []
    for ref in refs or []:
        u = s.find_user(ref)
        if u is None or u["deleted"]:
            raise err("invalid_users")
        out.append(u["id"])
    return list(dict.fromkeys(out))


def _channel_ids(s: Slack, refs: list[str] | None) -> list[str]:
    out = []
    for ref in refs or []:
        row = s.channel_row(ref)
        if row is None or row["kind"] not in (PUBLIC, PRIVATE):
            raise err("invalid_channel")
        if not s.can_see(row):  # answered like an unknown id
            raise err("invalid_channel", denied=True)
        out.append(row["id"])
    return list(dict.fromkeys(out))


def _check_unique(s: Slack, name: str, handle: str, gid: str | None = None) -> None:
    for g in s.store.select(USERGROUPS.name):
        if g["id"] == gid:
            continue
        if g["name"].lower() == name.lower():
            raise err("name_already_exists")
        if g["handle"].lower() == handle.lower():
            raise err("handle_already_exists")
    if any(u["handle"].lower() == handle.lower() for u in s.users()):
        raise err("handle_already_exists")


@method(ToolKind.WRITE, "usergroups.create")
def usergroups_create(
    ctx: ServiceContext,
    name: Str,
    handle: OptStr = None,
    description: OptStr = None,
    channels: CsvList = None,
    include_count: Flag = False,
) -> dict[str, Any]:
    """Create a user group (an @handle that mentions its members); admins only.

    Args:
        name: the group's unique name.
        handle: the @mention handle, unique among users and groups.
        description: a short description.
        channels: default channel ids.
        include_count: include user_count.
    """
    s = Slack(ctx)
    permissions.require(s, "usergroups")
    if not name:
        raise err("invalid_name")
    handle = (handle or re.sub(r"[^a-z0-9._-]", "-", name.lower())).lstrip("@")
    _check_unique(s, name, handle)
    row = {"id": new_id(ctx, "S"), "name": name, "handle": handle, "description": description or "",
           "channels": _channel_ids(s, channels), "users": [], "created_by": s.me, "updated_by": s.me,
           "date_create": s.now, "date_update": s.now, "date_delete": 0}  # fmt: skip
    s.store.insert(USERGROUPS.name, row)
    return {"usergroup": usergroup_object(s, row, count=include_count)}


@method(ToolKind.READ, "usergroups.list")
def usergroups_list(
    ctx: ServiceContext, include_disabled: Flag = False, include_count: Flag = False, include_users: Flag = False) -> dict[str, Any]:
    """List the workspace's user groups.

    Args:
        include_disabled: include disabled groups.
        include_count: include user_count.
        include_users: include the member user ids.
    """
    s = Slack(ctx)
    rows = [r for r in s.store.select(USERGROUPS.name, order_by='"name", "id"') if include_disabled or not r["date_delete"]]
    return {"usergroups": [usergroup_object(s, r, users=include_users, count=include_count) for r in rows]}


@method(ToolKind.WRITE, "usergroups.update")
def usergroups_update(
    ctx: ServiceContext,
    usergroup: Str,
    name: OptStr = None,
    handle: OptStr = None,
    description: OptStr = None,
    channels: CsvList = None,
    include_count: Flag = False,
) -> dict[str, Any]:
    """Change a user group's name, handle, description or default channels; admins only.

    Args:
        usergroup: the group id (S...).
        name: a new name.
        handle: a new handle.
        description: a new description.
        channels: default channel ids.
        include_count: include user_count.
    """
    s = Slack(ctx)
    permissions.require(s, "usergroups")
    row = _group(s, usergroup)
    changes: dict[str, Any] = {"updated_by": s.me, "date_update": s.now}
    if name is not None:
        changes["name"] = name
    if handle is not None:
        changes["handle"] = handle.lstrip("@")
    if description is not None:
        changes["description"] = description
    if channels is not None:
        changes["channels"] = _channel_ids(s, channels)
    _check_unique(s, changes.get("name", row["name"]), changes.get("handle", row["handle"]), row["id"])
    s.store.update(USERGROUPS.name, {"id": row["id"]}, changes)
    return {"usergroup": usergroup_object(s, {**row, **changes}, count=include_count)}


def _set_group_enabled(ctx: ServiceContext, usergroup: str, enabled: bool, include_count: bool) -> dict[str, Any]:
    s = Slack(ctx)
    permissions.require(s, "usergroups")
    row = _group(s, usergroup)
    if bool(row["date_delete"]) != enabled:
        raise err("already_enabled" if enabled else "already_disabled")
    changes = {"date_delete": 0 if enabled else s.now, "updated_by": s.me, "date_update": s.now}
    s.store.update(USERGROUPS.name, {"id": row["id"]}, changes)
    return {"usergroup": usergroup_object(s, {**row, **changes}, count=include_count)}


@method(ToolKind.WRITE, "usergroups.disable")
def usergroups_disable(ctx: ServiceContext, usergroup: Str, include_count: Flag = False) -> dict[str, Any]:
    """Disable a user group (its handle stops notifying); admins only.

    Args:
        usergroup: the group id.
        include_count: include user_count.
    """
    return _set_group_enabled(ctx, usergroup, False, include_count)


@method(ToolKind.WRITE, "usergroups.enable")
def usergroups_enable(ctx: ServiceContext, usergroup: Str, include_count: Flag = False) -> dict[str, Any]:
    """Enable a disabled user group; admins only.

    Args:
        usergroup: the group id.
        include_count: include user_count.
    """
    return _set_group_enabled(ctx, usergroup, True, include_count)


@method(ToolKind.READ, "usergroups.users.list")
def usergroups_users_list(ctx: ServiceContext, usergroup: Str, include_disabled: Flag = False) -> dict[str, Any]:
    """List the user ids in a user group.

    Args:
        usergroup: the group id.
        include_disabled: allow a disabled group.
    """
    s = Slack(ctx)
    row = _group(s, usergroup)
    if row["date_delete"] and not include_disabled:
        raise err("no_such_subteam")
    return {"users": list(row["users"])}


@method(ToolKind.WRITE, "usergroups.users.update")
def usergroups_users_update(ctx: ServiceContext, usergroup: Str, users: Csv, include_count: Flag = False) -> dict[str, Any]:
    """Replace the members of a user group; admins only.

    Args:
        usergroup: the group id.
        users: user ids (the complete new list).
        include_count: include user_count.
    """
    s = Slack(ctx)
    permissions.require(s, "usergroups")
    row = _group(s, usergroup)
    if not users:
        raise err("invalid_users")
    changes = {"users": _user_ids(s, users), "updated_by": s.me, "date_update": s.now}
    s.store.update(USERGROUPS.name, {"id": row["id"]}, changes)
    return {"usergroup": usergroup_object(s, {**row, **changes}, count=include_count)}


TOOLS = (
    pins_add, pins_remove, pins_list,
    reactions_add, reactions_remove, reactions_get, reactions_list,
    reminders_add, reminders_list, reminders_info, reminders_complete, reminders_delete,
    bookmarks_add, bookmarks_edit, bookmarks_remove, bookmarks_list,
    usergroups_create, usergroups_list, usergroups_update, usergroups_disable, usergroups_enable,
    usergroups_users_list, usergroups_users_update,
)  # fmt: skip
