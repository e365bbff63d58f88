"""auth.test, team.info, users.*, and search.* (messages, files, all)."""

from __future__ import annotations

import hashlib
from typing import Any

from clawarena.services.base import ServiceContext
from clawarena.services.slack import permissions
from clawarena.services.slack.api import method
from clawarena.services.slack.args import CsvList, Flag, JsonArg, OptInt, OptStr, Str
from clawarena.services.slack.core import Slack, cursor_page, err, meta, ts_to_micro
from clawarena.services.slack.search import compile_query, message_text, paging, readable_channels, search_channel
from clawarena.services.slack.tables import FILES, MEMBERS, MESSAGES
from clawarena.services.slack.tools_conversations import channel_sort_key, clamp, parse_types
from clawarena.tools.core import ToolKind

# ---- auth and team -----------------------------------------------------------------------------


@method(ToolKind.READ, "auth.test")
def auth_test(ctx: ServiceContext) -> dict[str, Any]:
    """Check your token: who you are in which workspace."""
    s = Slack(ctx)
    team = s.team
    return {"url": f"https://{team['domain']}.slack.com/", "team": team["name"], "user": s.me_row["handle"],
            "team_id": team["id"], "user_id": s.me, "is_enterprise_install": False}  # fmt: skip


@method(ToolKind.READ, "team.info")
def team_info(ctx: ServiceContext) -> dict[str, Any]:
    """Get the workspace's name, domain and icon."""
    s = Slack(ctx)
    t = s.team
    emails = sorted({p.email.split("@")[-1] for p in ctx.world.directory.principals.values()})
    icon = hashlib.sha256(t["id"].encode()).hexdigest()[:12]
    images = {f"image_{n}": f"https://avatars.slack-edge.com/{icon}_{n}.png" for n in (34, 44, 68, 88, 102, 132, 230)}
    return {"team": {
        "id": t["id"], "name": t["name"], "url": f"https://{t['domain']}.slack.com/", "domain": t["domain"],
        "email_domain": ",".join(emails), "icon": {"image_default": True, **images},
        "avatar_base_url": "https://ca.slack-edge.com/", "is_verified": False,
    }}  # fmt: skip


# ---- users --------------------------------------------------------------------------------------
@method(ToolKind.READ, "users.list")
def users_list(
    ctx: ServiceContext, limit: OptInt = None, cursor: OptStr = None) -> dict[str, Any]:
    """List the workspace's people (and bots), including deactivated ones.

    Args:
        limit: page size (default all, max 1000).
        cursor: next_cursor of the previous page.
    """
    s = Slack(ctx)
    chunk, nxt = cursor_page(s.users(), cursor, clamp(limit, 1000, 1000))
    return {"members": [s.user_object(u) for u in chunk], "cache_ts": s.now, **meta(nxt)}


@method(ToolKind.READ, "users.info")
def users_info(ctx: ServiceContext, user: Str) -> dict[str, Any]:
    """Get a person's profile and account details.

    Args:
        user: the user id (U...).
    """
    s = Slack(ctx)
    row = s.user(user)
    if row is None:
        raise err("user_not_found")
    return {"user": s.user_object(row)}


@method(ToolKind.READ, "users.lookupByEmail")
def users_lookup_by_email(ctx: ServiceContext, email: Str) -> dict[str, Any]:
    """Find a person by email address.

    Args:
        email: the address.
    """
    s = Slack(ctx)
    wanted = email.strip().lower()
    for u in s.users():
        if wanted and (u["email"] or "").lower() == wanted:
            return {"user": s.user_object(u)}
    raise err("users_not_found")


@method(ToolKind.READ, "users.conversations")
def users_conversations(
    ctx: ServiceContext,
    user: OptStr = None,
    types: CsvList = None,
    exclude_archived: Flag = False,
    limit: OptInt = None,
    cursor: OptStr = None,
) -> dict[str, Any]:
    """List the conversations a user (default you) is in, among those you can see.

    Args:
        user: the user id (default you).
        types: any of public_channel, private_channel, mpim, im (default public_channel).
        exclude_archived: leave archived channels out.
        limit: page size (default 100, max 1000).
        cursor: next_cursor of the previous page.
    """
    s = Slack(ctx)
    uid = s.require_user(user)["id"] if user else s.me
    kinds = parse_types(types)
    rows = []
    for m in s.store.select(MEMBERS.name, {"user": uid}):
        chan = s.channel_row(m["channel"])
        if chan is None or chan["kind"] not in kinds or not s.can_see(chan):
            continue
        if exclude_archived and chan["is_archived"]:
            continue
        rows.append(chan)
    rows.sort(key=channel_sort_key)
    chunk, nxt = cursor_page(rows, cursor, clamp(limit, 100, 1000))
    return {"channels": [s.channel_object(r, num_members=False) for r in chunk], **meta(nxt)}


@method(ToolKind.READ, "users.profile.get")
def users_profile_get(ctx: ServiceContext, user: OptStr = None) -> dict[str, Any]:
    """Get a person's profile (default yours): names, title, phone, status, email.

    Args:
        user: the user id (default you).
    """
    s = Slack(ctx)
    row = s.user(user) if user else s.me_row
    if row is None:
        raise err("user_not_found")
    return {"profile": s.profile(row)}


_SETTABLE = {"real_name", "display_name", "first_name", "last_name", "title", "phone", "status_text", "status_emoji",
             "status_expiration", "email"}  # fmt: skip


@method(ToolKind.WRITE, "users.profile.set")
def users_profile_set(
    ctx: ServiceContext, profile: JsonArg = None, name: OptStr = None, value: OptStr = None, user: OptStr = None
) -> dict[str, Any]:
    """Change your profile (admins: anyone's but other admins', and emails): names, title, phone, status.

    Args:
        profile: a JSON object of fields to set, e.g. {"title": "CFO", "status_text": "On leave"}.
        name: one field to set (with value) instead of profile.
        value: the value of that field.
        user: whose profile (default you).
    """
    s = Slack(ctx)
    row = dict(s.me_row)
    if user and user != s.me:
        target = s.user(user)
        if target is None:
            raise err("user_not_found")
        permissions.require(s, "users.profile.set")
        if target["is_admin"]:  # only the primary owner (not modelled) may edit an admin's profile
            raise err("cannot_update_admin_user", denied=True)
        row = dict(target)
    fields: dict[str, Any] = {}
    if isinstance(profile, dict):
        fields.update(profile)
    elif profile is not None:
        raise err("invalid_profile")
    if name:
        fields[name] = value or ""
    if not fields:
        raise err("invalid_profile")
    if "email" in fields:
        permissions.require(s, "users.profile.set")
    first, _, last = row["real_name"].partition(" ")
    for key, val in fields.items():
        if key not in _SETTABLE:
            continue
        if key == "status_expiration":
            try:
                row[key] = int(val or 0)
            except (TypeError, ValueError):
                raise err("invalid_profile") from None
        elif key == "first_name":
            first = str(val)
            row["real_name"] = f"{first} {last}".strip()
        elif key == "last_name":
            last = str(val)
            row["real_name"] = f"{first} {last}".strip()
        else:
            row[key] = str(val)
    row["updated"] = s.now
    s.save_user(row)
    return {"profile": s.profile(row), "username": row["handle"]}


@method(ToolKind.READ, "users.getPresence")
def users_get_presence(ctx: ServiceContext, user: OptStr = None) -> dict[str, Any]:
    """Get whether a person (default you) is active or away.

    Args:
        user: the user id (default you).
    """
    s = Slack(ctx)
    row = s.user(user) if user else s.me_row
    if row is None:
        raise err("user_not_found")
    away = row["presence"] == "away" or row["principal"] is None or row["deleted"]
    out: dict[str, Any] = {"presence": "away" if away else "active"}
    if row["id"] == s.me:
        out.update({"online": not away, "auto_away": False, "manual_away": row["presence"] == "away",
                    "connection_count": 0 if away else 1, "last_activity": s.now})  # fmt: skip
    return out


@method(ToolKind.WRITE, "users.setPresence")
def users_set_presence(ctx: ServiceContext, presence: Str) -> dict[str, Any]:
    """Set yourself away, or back to automatic presence.

    Args:
        presence: 'auto' or 'away'.
    """
    s = Slack(ctx)
    if presence not in ("auto", "away"):
        raise err("invalid_presence")
    row = dict(s.me_row)
    if row["presence"] != presence:
        row["presence"] = presence
        s.save_user(row)
    return {}


# ---- search ---------------------------------------------------------------------------------------
def _search_messages(s: Slack, query: str, sort: str, sort_dir: str) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    chans = readable_channels(s)
    q = compile_query(s, query, message_text, lambda m: ts_to_micro(m["ts"]) // 1_000_000, lambda m: m["user"])
    hits = []
    for m in s.store.select(MESSAGES.name, order_by='"ts" DESC'):
        chan = chans.get(m["channel"])
        if chan is None or m["subtype"] == "tombstone":
            continue
        if q.match(m, chan):
            hits.append((m, chan, q.score(message_text(m))))
    asc = sort_dir == "asc"
    if sort == "timestamp":
        hits.sort(key=lambda h: ts_to_micro(h[0]["ts"]), reverse=not asc)
    else:
        hits.sort(key=lambda h: (h[2], ts_to_micro(h[0]["ts"])), reverse=not asc)
    return [(m, c) for m, c, _ in hits]


def _match(s: Slack, m: dict[str, Any], chan: dict[str, Any]) -> dict[str, Any]:
    user = s.user(m["user"])
    out: dict[str, Any] = {
        "iid": hashlib.sha256(f"{chan['id']}/{m['ts']}".encode()).hexdigest()[:32], "team": s.team_id,
        "channel": search_channel(s, chan), "type": "message", "user": m["user"],
        "username": user["handle"] if user else "", "ts": m["ts"], "text": m["text"],
        "permalink": s.permalink(chan["id"], m["ts"], m["thread_ts"]), "no_reactions": not s.reactions_of(chan["id"], m["ts"]),
    }  # fmt: skip
    if m["blocks"] is not None:
        out["blocks"] = m["blocks"]
    if m["files"]:
        out["files"] = [s.file_or_tombstone(f) for f in m["files"]]
    return out


def _paged(items: list[Any], count: int | None, page: int | None, cursor: str | None) -> tuple[list[Any], dict[str, Any], str | None]:
    per = min(max(count or 20, 1), 100)
    if cursor:
        start_cursor = None if cursor == "*" else cursor
        chunk, nxt = cursor_page(items, start_cursor, per)
        _, _, info = paging(len(items), per, 1)
        return chunk, info, nxt
    start, _, info = paging(len(items), per, page or 1)
    return items[start : start + per], info, None


def _search_files(s: Slack, query: str, sort: str, sort_dir: str) -> list[dict[str, Any]]:
    chans = readable_channels(s)

    def text_of(f: dict[str, Any]) -> str:
        return "\n".join([f["name"], f["title"], "" if f["binary"] else f["content"]])

    q = compile_query(s, query, text_of, lambda f: f["created"], lambda f: f["user"])
    hits = []
    for f in s.store.select(FILES.name, order_by='"created" DESC, "id"'):
        if f["state"] != "complete" or not s.can_see_file(f):
            continue
        places = [chans[c] for c in f["channels"] if c in chans] or [{"id": "", "kind": "", "name": ""}]
        if any(q.match(f, c) for c in places):
            hits.append((f, q.score(text_of(f))))
    asc = sort_dir == "asc"
    if sort == "timestamp":
        hits.sort(key=lambda h: (h[0]["created"], h[0]["id"]), reverse=not asc)
    else:
        hits.sort(key=lambda h: (h[1], h[0]["created"]), reverse=not asc)
    return [f for f, _ in hits]


def _check_query(query: str | None, sort: str | None, sort_dir: str | None) -> tuple[str, str, str]:
    if not query or not query.strip():
        raise err("no_query")
    sort = sort or "score"
    sort_dir = (sort_dir or "desc").lower()
    if sort not in ("score", "timestamp") or sort_dir not in ("asc", "desc"):
        raise err("invalid_arguments")
    return query, sort, sort_dir


@method(ToolKind.READ, "search.messages")
def search_messages(
    ctx: ServiceContext,
    query: Str,
    count: OptInt = None,
    page: OptInt = None,
    cursor: OptStr = None,
    sort: OptStr = None,
    sort_dir: OptStr = None,
) -> dict[str, Any]:
    """Search messages in the conversations you can read.

    Args:
        query: words and "phrases" (all must match), -word to exclude, in:#channel, in:@user, from:@user,
            from:me, to:me, before:YYYY-MM-DD, after:, on:, during:, has:link, has:pin, has:reaction, is:thread.
        count: results per page (default 20, max 100).
        page: page number (from 1).
        cursor: '*' for the first page of cursor paging, then response_metadata.next_cursor.
        sort: 'score' (default) or 'timestamp'.
        sort_dir: 'desc' (default) or 'asc'.
    """
    s = Slack(ctx)
    query, sort, sort_dir = _check_query(query, sort, sort_dir)
    hits = _search_messages(s, query, sort, sort_dir)
    chunk, info, nxt = _paged(hits, count, page, cursor)
    out: dict[str, Any] = {"query": query, "messages": {"total": len(hits), **info, "matches": [_match(s, m, c) for m, c in chunk]}}
    if nxt is not None:
        out.update(meta(nxt))
    return out


@method(ToolKind.READ, "search.files")
def search_files(
    ctx: ServiceContext,
    query: Str,
    count: OptInt = None,
    page: OptInt = None,
    sort: OptStr = None,
    sort_dir: OptStr = None,
) -> dict[str, Any]:
    """Search the files you can see by name, title and text content.

    Args:
        query: words and "phrases", -word, in:#channel, from:@user, before:/after:/on:/during: dates.
        count: results per page (default 20, max 100).
        page: page number (from 1).
        sort: 'score' (default) or 'timestamp'.
        sort_dir: 'desc' (default) or 'asc'.
    """
    s = Slack(ctx)
    query, sort, sort_dir = _check_query(query, sort, sort_dir)
    hits = _search_files(s, query, sort, sort_dir)
    chunk, info, _ = _paged(hits, count, page, None)
    return {"query": query, "files": {"total": len(hits), **info, "matches": [s.file_object(f) for f in chunk]}}


@method(ToolKind.READ, "search.all")
def search_all(
    ctx: ServiceContext,
    query: Str,
    count: OptInt = None,
    page: OptInt = None,
    sort: OptStr = None,
    sort_dir: OptStr = None,
) -> dict[str, Any]:
    """Search messages and files at once (same query language as search.messages).

    Args:
        query: the search query.
        count: results per page of each kind (default 20, max 100).
        page: page number (from 1).
        sort: 'score' (default) or 'timestamp'.
        sort_dir: 'desc' (default) or 'asc'.
    """
    s = Slack(ctx)
    query, sort, sort_dir = _check_query(query, sort, sort_dir)
    msgs = _search_messages(s, query, sort, sort_dir)
    files = _search_files(s, query, sort, sort_dir)
    mchunk, minfo, _ = _paged(msgs, count, page, None)
    fchunk, finfo, _ = _paged(files, count, page, None)
    return {
        "query": query,
        "messages": {"total": len(msgs), **minfo, "matches": [_match(s, m, c) for m, c in mchunk]},
        "files": {"total": len(files), **finfo, "matches": [s.file_object(f) for f in fchunk]},
        "posts": {"total": 0, "matches": []},
    }


TOOLS = (
    auth_test, team_info, users_list, users_info, users_lookup_by_email, users_conversations, users_profile_get,
    users_profile_set, users_get_presence, users_set_presence, search_messages, search_files, search_all,
)  # fmt: skip
