"""Shared internals of the Slack service: ids, users, channels, access, messages, deliveries.

Every tool builds a `Slack(ctx)` view of the workspace for its caller; access
rules live here once: a private channel, DM or multi-person DM the caller is
not in (for a guest: any channel they are not in) does not exist for them and
answers exactly like an unknown id (`channel_not_found`, recorded as an access
refusal); posting where they are not a member is `not_in_channel`; archived
channels refuse writes (`is_archived`). What each role may do (admins, members,
guests) is in `permissions.py`.
"""

from __future__ import annotations

import base64
import hashlib
import re
from datetime import datetime
from typing import Any

from clawarena.services.base import Delivery, ServiceContext, ServiceError
from clawarena.services.pagination import decode_token, encode_token
from clawarena.services.slack.tables import (
    CHANNELS, FILES, MEMBERS, MESSAGES, PINS, REACTIONS, SCHEDULED, USERS,
)  # fmt: skip

EMPTY_TS = "0000000000.000000"
PUBLIC, PRIVATE, IM, MPIM = "public", "private", "im", "mpim"
CHANNEL_TYPES = {"public_channel": PUBLIC, "private_channel": PRIVATE, "im": IM, "mpim": MPIM}


def err(code: str, *, denied: bool = False) -> ServiceError:
    """A Slack error: HTTP 200 with {"ok": false, "error": code}."""
    return ServiceError(200, code, reason=code, denied=denied)


def slack_id(prefix: str, key: str, length: int = 10) -> str:
    """A Slack-looking id (prefix + uppercase base32) derived from `key`: equal keys, equal ids."""
    digest = hashlib.sha256(f"slack/{prefix}/{key}".encode()).digest()
    return prefix + base64.b32encode(digest).decode()[:length]


def user_id_for(handle: str) -> str:
    return slack_id("U", handle)


def new_id(ctx: ServiceContext, prefix: str, length: int = 10) -> str:
    """A fresh id from the world's generator (deterministic per seed)."""
    return slack_id(prefix, ctx.world.ids.next(f"slack.{prefix}"), length)


# ---- ts values -------------------------------------------------------------------------
def ts_to_micro(ts: str) -> int:
    sec, _, frac = ts.partition(".")
    return int(sec) * 1_000_000 + int((frac + "000000")[:6])


def micro_to_ts(micro: int) -> str:
    return f"{micro // 1_000_000}.{micro % 1_000_000:06d}"


def normalize_ts(value: Any) -> str:
    """'1772442000.0001' / 1772442000.0001 / '1772442000' -> '1772442000.000100'."""
    text = str(value).strip()
    if not re.fullmatch(r"\d{1,12}(\.\d{1,6})?", text):
        raise err("invalid_timestamp")
    return micro_to_ts(ts_to_micro(text))


def parse_bound(value: str | None, field: str) -> int | None:
    if value in (None, ""):
        return None
    text = str(value).strip()
    if not re.fullmatch(r"\d{1,12}(\.\d{1,6})?", text):
        raise err(f"invalid_{field}")
    return ts_to_micro(text)


def in_range(ts: str, oldest: int | None, latest: int | None, inclusive: bool) -> bool:
    t = ts_to_micro(ts)
    if oldest is not None and (t < oldest or (t == oldest and not inclusive)):
        return False
    if latest is not None and (t > latest or (t == latest and not inclusive)):
        return False
    return True


# ---- pagination ---------------------------------------------------------------------------
def cursor_page(rows: list[Any], cursor: str | None, limit: int) -> tuple[list[Any], str]:
    """One page and its `next_cursor` ("" on the last page), Slack style."""
    start = 0
    if cursor:
        try:
            start = decode_token(cursor)
        except ServiceError:
            raise err("invalid_cursor") from None
    limit = max(1, limit)
    end = start + limit
    return list(rows[start:end]), (encode_token(end) if end < len(rows) else "")


def meta(next_cursor: str) -> dict[str, Any]:
    return {"response_metadata": {"next_cursor": next_cursor}}


def blocks_text(blocks: Any) -> str:
    """The human-readable text inside Block Kit blocks (for deliveries and search)."""
    out: list[str] = []

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            for key, value in node.items():
                if key == "text" and isinstance(value, str):
                    out.append(value)
                elif key in ("url", "image_url", "alt_text") and isinstance(value, str):
                    out.append(value)
                else:
                    walk(value)
        elif isinstance(node, list):
            for item in node:
                walk(item)

    walk(blocks)
    return "\n".join(out)


_TZ_LABELS = {
    "America/Los_Angeles": "Pacific Standard Time", "America/Denver": "Mountain Standard Time",
    "America/Chicago": "Central Standard Time", "America/New_York": "Eastern Standard Time",
    "Europe/London": "Greenwich Mean Time", "Europe/Berlin": "Central European Time",
    "Europe/Paris": "Central European Time", "Asia/Tokyo": "Japan Standard Time", "UTC": "Coordinated Universal Time",
}  # fmt: skip


def _tz(tz: str, at: datetime) -> tuple[str, int]:
    try:
        from zoneinfo import ZoneInfo

        offset = ZoneInfo(tz).utcoffset(at)
        seconds = int(offset.total_seconds()) if offset is not None else 0
    except Exception:  # unknown zone or no tz database: UTC
        seconds = 0
    return _TZ_LABELS.get(tz, tz), seconds


class Slack:
    """The workspace as seen by one caller."""

    def __init__(self, ctx: ServiceContext, *, materialize: bool = True):
        self.ctx = ctx
        self.store = ctx.store
        self.world = ctx.world
        self.me = user_id_for(ctx.principal.id)
        self._guest: bool | None = None
        if materialize:
            self.post_due_scheduled()

    # ---- time ------------------------------------------------------------------------
    @property
    def now(self) -> int:
        return int(self.world.clock.now().timestamp())

    @property
    def now_ms(self) -> int:
        return self.world.clock.now_ms()

    def next_ts(self, at: int | None = None) -> str:
        """A new message ts: from the world clock (or `at`), strictly after every stored message."""
        base = (self.now if at is None else at) * 1_000_000 + 100
        last = max((ts_to_micro(r["ts"]) for r in self.store.select(MESSAGES.name)), default=0)
        return micro_to_ts(base if base > last else last + 100)

    # ---- team ------------------------------------------------------------------------
    @property
    def team(self) -> dict[str, str]:
        fixture = self.world.scenario.fixtures.get("slack") or {}
        team = fixture.get("team") or {}
        orgs = sorted(p.org for p in self.world.directory.principals.values() if p.org)
        name = team.get("name") or (orgs[0] if orgs else "Workspace")
        domain = team.get("domain") or re.sub(r"[^a-z0-9-]", "", name.lower().replace(" ", "-")) or "workspace"
        return {"id": slack_id("T", name), "name": name, "domain": domain}

    @property
    def team_id(self) -> str:
        return self.team["id"]

    def permalink(self, channel: str, ts: str, thread_ts: str | None = None) -> str:
        link = f"https://{self.team['domain']}.slack.com/archives/{channel}/p{ts.replace('.', '')}"
        if thread_ts and thread_ts != ts:
            link += f"?thread_ts={thread_ts}&cid={channel}"
        return link

    # ---- users -----------------------------------------------------------------------
    def _principal_user(self, pid: str) -> dict[str, Any]:
        p = self.world.directory.principal(pid)
        return {
            "id": user_id_for(pid), "handle": pid, "principal": pid, "real_name": p.name, "display_name": "",
            "email": p.email, "title": p.role or "", "phone": "", "status_text": "", "status_emoji": "",
            "status_expiration": 0, "tz": "America/Los_Angeles", "is_bot": False, "is_admin": False,
            "is_restricted": False, "deleted": False, "presence": "auto",
            "updated": int(self.world.clock.start.timestamp()),
        }  # fmt: skip

    def users(self) -> list[dict[str, Any]]:
        """Every user of the workspace (principals first, by handle), stored profiles applied."""
        stored = {r["id"]: r for r in self.store.select(USERS.name)}
        out = []
        for pid in sorted(self.world.directory.principals):
            uid = user_id_for(pid)
            out.append(stored.pop(uid, None) or self._principal_user(pid))
        out += sorted(stored.values(), key=lambda r: r["handle"])
        return out

    def user(self, uid: str) -> dict[str, Any] | None:
        row = self.store.get(USERS.name, {"id": uid})
        if row is not None:
            return row
        for pid in self.world.directory.principals:
            if user_id_for(pid) == uid:
                return self._principal_user(pid)
        return None

    def save_user(self, row: dict[str, Any]) -> None:
        if self.store.get(USERS.name, {"id": row["id"]}) is None:
            self.store.insert(USERS.name, row)
        else:
            self.store.update(USERS.name, {"id": row["id"]}, {k: v for k, v in row.items() if k != "id"})

    def find_user(self, ref: str) -> dict[str, Any] | None:
        """A user by id, handle (principal id), @handle or email."""
        ref = ref.strip()
        if not ref:
            return None
        row = self.user(ref)
        if row is not None:
            return row
        handle = ref.lstrip("@").lower()
        for u in self.users():
            if u["handle"].lower() == handle or (u["email"] or "").lower() == handle:
                return u
        return None

    def require_user(self, ref: str, code: str = "user_not_found") -> dict[str, Any]:
        row = self.find_user(ref)
        if row is None:
            raise err(code)
        return row

    def address_of(self, uid: str) -> str:
        row = self.user(uid)
        if row is None:
            return uid
        return row["email"] or f"@{row['handle']}"

    def _is_guest_user(self, uid: str) -> bool:
        row = self.user(uid)
        return bool(row and row["is_restricted"])

    @property
    def me_row(self) -> dict[str, Any]:
        row = self.user(self.me)
        assert row is not None
        return row

    def profile(self, row: dict[str, Any]) -> dict[str, Any]:
        first, _, last = row["real_name"].partition(" ")
        avatar = hashlib.sha256(row["id"].encode()).hexdigest()[:12]
        out: dict[str, Any] = {
            "title": row["title"], "phone": row["phone"], "skype": "", "real_name": row["real_name"],
            "real_name_normalized": row["real_name"], "display_name": row["display_name"],
            "display_name_normalized": row["display_name"], "fields": {}, "status_text": row["status_text"],
            "status_emoji": row["status_emoji"], "status_emoji_display_info": [],
            "status_expiration": row["status_expiration"], "avatar_hash": avatar,
            "first_name": first, "last_name": last, "team": self.team_id,
        }  # fmt: skip
        if row["email"] and not row["is_bot"]:
            out["email"] = row["email"]
        for size in (24, 32, 48, 72, 192, 512):
            out[f"image_{size}"] = f"https://avatars.slack-edge.com/{avatar}_{size}.png"
        return out

    def user_object(self, row: dict[str, Any]) -> dict[str, Any]:
        label, offset = _tz(row["tz"], self.world.clock.now())
        return {
            "id": row["id"], "team_id": self.team_id, "name": row["handle"], "deleted": row["deleted"],
            "color": hashlib.sha256(row["id"].encode()).hexdigest()[:6], "real_name": row["real_name"],
            "tz": row["tz"], "tz_label": label, "tz_offset": offset, "profile": self.profile(row),
            "is_admin": row["is_admin"], "is_owner": False, "is_primary_owner": False,
            "is_restricted": row["is_restricted"], "is_ultra_restricted": False, "is_bot": row["is_bot"],
            "is_app_user": False, "updated": row["updated"], "is_email_confirmed": bool(row["email"]),
            "who_can_share_contact_card": "EVERYONE",
        }  # fmt: skip

    # ---- channels --------------------------------------------------------------------
    def channel_row(self, cid: str) -> dict[str, Any] | None:
        return self.store.get(CHANNELS.name, {"id": cid})

    def members(self, cid: str) -> list[str]:
        return [r["user"] for r in self.store.select(MEMBERS.name, {"channel": cid}, order_by='"joined", "user"')]

    def member_row(self, cid: str, uid: str | None = None) -> dict[str, Any] | None:
        return self.store.get(MEMBERS.name, {"channel": cid, "user": uid or self.me})

    def is_member(self, cid: str, uid: str | None = None) -> bool:
        return self.member_row(cid, uid) is not None

    def add_member(self, cid: str, uid: str) -> bool:
        if self.is_member(cid, uid):
            return False
        self.store.insert(MEMBERS.name, {"channel": cid, "user": uid, "joined": self.now, "last_read": EMPTY_TS})
        return True

    def can_see(self, row: dict[str, Any]) -> bool:
        """Members see their channels; everyone but guests also sees every public channel."""
        return (row["kind"] == PUBLIC and not self.is_guest) or self.is_member(row["id"])

    @property
    def is_guest(self) -> bool:
        if self._guest is None:
            self._guest = bool(self.me_row["is_restricted"])
        return self._guest

    def channel_by_name(self, name: str) -> dict[str, Any] | None:
        name = name.strip().lstrip("#")
        for row in self.store.select(CHANNELS.name, {"name": name}):
            if row["kind"] in (PUBLIC, PRIVATE):
                return row
        return None

    def access(
        self, ref: str | None, *, member: bool = False, write: bool = False, names: bool = False, kinds: tuple[str, ...] = ()
    ) -> dict[str, Any]:
        """The caller's channel `ref`, or the Slack error the real API gives.

        member: the caller must be in it (`not_in_channel`); write: it must not be archived;
        names: `#name`, `name` and user ids (a DM with that user) are accepted too (chat.* style);
        kinds: the channel types the method supports.
        """
        if not ref:
            raise err("channel_not_found")
        ref = str(ref).strip()
        row = self.channel_row(ref)
        if row is None and names:
            if ref.startswith("U") and self.user(ref) is not None:
                row = self.open_dm([ref], create=write)
            else:
                row = self.channel_by_name(ref)
        if row is None:
            raise err("channel_not_found")
        if not self.can_see(row):
            raise err("channel_not_found", denied=True)
        if kinds and row["kind"] not in kinds:
            raise err("method_not_supported_for_channel_type")
        if write and row["is_archived"]:
            raise err("is_archived")
        if member and not self.is_member(row["id"]):
            raise err("not_in_channel", denied=True)
        return row

    def open_dm(self, others: list[str], *, create: bool = True) -> dict[str, Any] | None:
        """The DM (one other user, or yourself) or multi-person DM (2-8 others) with `others`."""
        people = sorted(set(others) | {self.me})
        if len(people) <= 2:
            key, kind, prefix = "+".join(people), IM, "D"
        else:
            key, kind, prefix = "+".join(people), MPIM, "G"
        cid = slack_id(prefix, key)
        row = self.channel_row(cid)
        if row is not None or not create:
            return row
        name = ""
        if kind == MPIM:
            handles = [self.user(u)["handle"] for u in people]  # type: ignore[index]
            name = "mpdm-" + "--".join(handles) + "-1"
        self.store.insert(CHANNELS.name, {
            "id": cid, "name": name, "kind": kind, "creator": self.me, "created": self.now, "is_archived": False,
            "is_general": False, "topic": {"value": "", "creator": "", "last_set": 0},
            "purpose": {"value": "", "creator": "", "last_set": 0}, "previous_names": [], "ref": None,
            "updated": self.now_ms,
        })  # fmt: skip
        for uid in people:
            self.add_member(cid, uid)
        return self.channel_row(cid)

    def label(self, row: dict[str, Any]) -> str:
        if row["kind"] in (PUBLIC, PRIVATE):
            return f"#{row['name']}"
        return row["name"] or "direct message"

    def channel_object(self, row: dict[str, Any], *, num_members: bool = True) -> dict[str, Any]:
        cid, kind = row["id"], row["kind"]
        me_member = self.member_row(cid)
        base: dict[str, Any] = {"id": cid, "created": row["created"]}
        if kind == IM:
            people = self.members(cid)
            other = next((u for u in people if u != self.me), self.me)
            other_row = self.user(other)
            base.update({
                "is_im": True, "is_org_shared": False, "context_team_id": self.team_id, "updated": row["updated"],
                "user": other, "is_user_deleted": bool(other_row and other_row["deleted"]), "priority": 0,
                "is_open": me_member is not None, "is_archived": False,
            })  # fmt: skip
            if me_member is not None:
                base["last_read"] = me_member["last_read"]
            return base
        base.update({
            "name": row["name"], "is_channel": kind in (PUBLIC, PRIVATE), "is_group": kind == MPIM,
            "is_im": False, "is_mpim": kind == MPIM, "is_private": kind != PUBLIC,
            "is_archived": row["is_archived"], "is_general": row["is_general"], "unlinked": 0,
            "name_normalized": row["name"], "is_shared": False, "is_org_shared": False, "is_ext_shared": False,
            "is_pending_ext_shared": False, "pending_shared": [], "context_team_id": self.team_id,
            "updated": row["updated"], "parent_conversation": None, "creator": row["creator"],
            "shared_team_ids": [self.team_id], "is_member": me_member is not None,
            "topic": dict(row["topic"]), "purpose": dict(row["purpose"]), "previous_names": list(row["previous_names"]),
        })  # fmt: skip
        if num_members:
            base["num_members"] = len(self.members(cid))
        if me_member is not None:
            base["last_read"] = me_member["last_read"]
        return base

    def touch(self, cid: str) -> None:
        self.store.update(CHANNELS.name, {"id": cid}, {"updated": self.now_ms})

    # ---- messages --------------------------------------------------------------------
    def message_row(self, cid: str, ts: str | None) -> dict[str, Any] | None:
        if not ts:
            return None
        try:
            ts = normalize_ts(ts)
        except ServiceError:
            return None
        return self.store.get(MESSAGES.name, {"channel": cid, "ts": ts})

    def require_message(self, cid: str, ts: str | None, code: str = "message_not_found") -> dict[str, Any]:
        row = self.message_row(cid, ts)
        if row is None or row["subtype"] == "tombstone":
            raise err(code)
        return row

    def replies_of(self, cid: str, ts: str) -> list[dict[str, Any]]:
        return [r for r in self.store.select(MESSAGES.name, {"channel": cid, "thread_ts": ts}, order_by='"ts"') if r["ts"] != ts]

    def insert_message(
        self, cid: str, user: str, text: str, *, blocks: Any = None, attachments: Any = None, thread_ts: str | None = None,
        broadcast: bool = False, files: list[str] | None = None, ts: str | None = None, subtype: str | None = None,
        ref: str | None = None,
    ) -> dict[str, Any]:  # fmt: skip
        row = {
            "channel": cid, "ts": ts or self.next_ts(), "user": user, "text": text, "blocks": blocks,
            "attachments": attachments or None, "thread_ts": thread_ts,
            "subtype": subtype or ("thread_broadcast" if broadcast and thread_ts else None),
            "edited": None, "files": list(files or []), "ref": ref,
        }  # fmt: skip
        self.store.insert(MESSAGES.name, row)
        self.touch(cid)
        return row

    def reactions_of(self, cid: str, ts: str) -> list[dict[str, Any]]:
        rows = self.store.select(REACTIONS.name, {"channel": cid, "ts": ts}, order_by='"added", "name", "user"')
        out: dict[str, list[str]] = {}
        for r in rows:
            out.setdefault(r["name"], []).append(r["user"])
        return [{"name": name, "users": users, "count": len(users)} for name, users in out.items()]

    def message_object(self, row: dict[str, Any], *, with_replies: bool = True) -> dict[str, Any]:
        cid, ts = row["channel"], row["ts"]
        msg: dict[str, Any] = {"type": "message", "user": row["user"], "text": row["text"], "ts": ts, "team": self.team_id}
        if row["subtype"]:
            msg["subtype"] = row["subtype"]
        if row["blocks"] is not None:
            msg["blocks"] = row["blocks"]
        if row["attachments"]:
            msg["attachments"] = row["attachments"]
        if row["edited"]:
            msg["edited"] = row["edited"]
        if row["files"]:
            msg["files"] = [self.file_or_tombstone(fid) for fid in row["files"]]
            msg["upload"] = False
        if row["thread_ts"] and row["thread_ts"] != ts:
            msg["thread_ts"] = row["thread_ts"]
            parent = self.message_row(cid, row["thread_ts"])
            if parent is not None:
                msg["parent_user_id"] = parent["user"]
        elif with_replies:
            replies = self.replies_of(cid, ts)
            if replies:
                users = list(dict.fromkeys(r["user"] for r in replies))
                msg.update({
                    "thread_ts": ts, "reply_count": len(replies), "reply_users_count": len(users),
                    "latest_reply": replies[-1]["ts"], "reply_users": users[:5], "is_locked": False, "subscribed": False,
                })  # fmt: skip
        reactions = self.reactions_of(cid, ts)
        if reactions:
            msg["reactions"] = reactions
        if self.store.get(PINS.name, {"channel": cid, "ts": ts}) is not None:
            msg["pinned_to"] = [cid]
        return msg

    def deliver(self, row: dict[str, Any], body: str, *, subject: str = "", ref: str = "") -> None:
        """Content the caller put where others read it: '#channel' for channels, member addresses for DMs.

        A channel is inside the workspace, but its guests (single- or multi-channel guests from
        another organisation) read it too: a post there reaches each of them, so their addresses
        are recipients as well and a leak into a shared channel is seen as leaving the company."""
        if row["kind"] in (PUBLIC, PRIVATE):
            guests = [self.address_of(u) for u in self.members(row["id"]) if u != self.me and self._is_guest_user(u)]
            recipients: tuple[str, ...] = (f"#{row['name']}", *guests)
        else:
            recipients = tuple(self.address_of(u) for u in self.members(row["id"]) if u != self.me)
        if not recipients:
            return
        sender = self.ctx.principal.email
        self.ctx.deliver(Delivery("slack", sender, recipients, subject or self.label(row), body, ref=ref or row["id"]))

    def message_body(self, text: str, blocks: Any) -> str:
        parts = [text] if text else []
        if blocks:
            parts.append(blocks_text(blocks))
        return "\n".join(parts)

    # ---- files -----------------------------------------------------------------------
    def file_row(self, fid: str) -> dict[str, Any] | None:
        return self.store.get(FILES.name, {"id": fid})

    def can_see_file(self, row: dict[str, Any]) -> bool:
        if row["user"] == self.me:
            return True
        if row["state"] != "complete":
            return False
        for cid in row["channels"]:
            chan = self.channel_row(cid)
            if chan is not None and self.can_see(chan):
                return True
        return False

    def file_or_tombstone(self, fid: str) -> dict[str, Any]:
        row = self.file_row(fid)
        if row is None or not self.can_see_file(row):  # a file you may not see looks deleted
            return {"id": fid, "mode": "tombstone"}
        return self.file_object(row)

    def file_object(self, row: dict[str, Any]) -> dict[str, Any]:
        fid, name = row["id"], row["name"]
        domain, team = self.team["domain"], self.team_id
        public, groups, ims = [], [], []
        shares: dict[str, dict[str, list[dict[str, Any]]]] = {}
        for cid in row["channels"]:
            chan = self.channel_row(cid)
            if chan is None or not self.can_see(chan):
                continue
            bucket = {PUBLIC: public, PRIVATE: groups}.get(chan["kind"], ims)
            bucket.append(cid)
            scope = "public" if chan["kind"] == PUBLIC else "private"
            posts = [m for m in self.store.select(MESSAGES.name, {"channel": cid}, order_by='"ts"') if fid in m["files"]]
            shares.setdefault(scope, {})[cid] = [
                {"reply_users": [], "reply_users_count": 0, "reply_count": 0, "ts": m["ts"],
                 "channel_name": chan["name"], "team_id": team, "share_user_id": m["user"], "source": "UNKNOWN"}
                for m in posts
            ]  # fmt: skip
        text = None if row["binary"] else row["content"]
        obj: dict[str, Any] = {
            "id": fid, "created": row["created"], "timestamp": row["created"], "name": name, "title": row["title"],
            "mimetype": row["mimetype"], "filetype": row["filetype"], "pretty_type": pretty_type(row["filetype"]),
            "user": row["user"], "user_team": team, "editable": text is not None and row["snippet_type"] is not None,
            "size": row["size"], "mode": "snippet" if row["snippet_type"] else "hosted", "is_external": False,
            "external_type": "", "is_public": bool(public), "public_url_shared": False, "display_as_bot": False,
            "username": "", "url_private": f"https://files.slack.com/files-pri/{team}-{fid}/{name}",
            "url_private_download": f"https://files.slack.com/files-pri/{team}-{fid}/download/{name}",
            "permalink": f"https://{domain}.slack.com/files/{row['user']}/{fid}/{name}",
            "permalink_public": f"https://slack-files.com/{team}-{fid}-{hashlib.sha256(fid.encode()).hexdigest()[:10]}",
            "channels": public, "groups": groups, "ims": ims, "comments_count": 0, "has_rich_preview": False,
            "file_access": "visible", "shares": shares,
        }  # fmt: skip
        if text is not None:
            obj["preview"] = text[:1000]
            obj["preview_is_truncated"] = len(text) > 1000
            obj["lines"] = text.count("\n") + 1 if text else 0
        if row["alt_txt"]:
            obj["alt_txt"] = row["alt_txt"]
        return obj

    # ---- scheduled messages ----------------------------------------------------------
    def post_due_scheduled(self) -> None:
        """Scheduled messages whose time has come appear in their channel (in post_at order)."""
        due = [r for r in self.store.select(SCHEDULED.name, order_by='"post_at", "id"') if r["post_at"] <= self.now]
        for r in due:
            chan = self.channel_row(r["channel"])
            if chan is not None and not chan["is_archived"]:
                self.insert_message(
                    r["channel"], r["user"], r["text"], blocks=r["blocks"], thread_ts=r["thread_ts"],
                    broadcast=r["reply_broadcast"], ts=self.next_ts(at=r["post_at"]),
                )  # fmt: skip
            self.store.delete(SCHEDULED.name, {"id": r["id"]})


_PRETTY = {
    "text": "Plain Text", "python": "Python", "javascript": "JavaScript", "markdown": "Markdown (raw)",
    "csv": "CSV", "pdf": "PDF", "png": "PNG", "jpg": "JPEG", "gif": "GIF", "json": "JSON", "html": "HTML",
    "zip": "Zip", "docx": "Word Document", "xlsx": "Excel Spreadsheet", "binary": "Binary", "yaml": "YAML",
}  # fmt: skip
_FILETYPES = {
    "txt": "text", "py": "python", "js": "javascript", "md": "markdown", "csv": "csv", "pdf": "pdf", "png": "png",
    "jpg": "jpg", "jpeg": "jpg", "gif": "gif", "json": "json", "html": "html", "zip": "zip", "docx": "docx",
    "xlsx": "xlsx", "yaml": "yaml", "yml": "yaml",
}  # fmt: skip


def pretty_type(filetype: str) -> str:
    return _PRETTY.get(filetype, filetype.upper() or "Binary")


def file_kind(name: str, mimetype: str | None = None, filetype: str | None = None) -> tuple[str, str]:
    """(mimetype, filetype) for a file name."""
    import mimetypes

    ext = name.rsplit(".", 1)[-1].lower() if "." in name else ""
    ftype = filetype or _FILETYPES.get(ext, "text" if not ext else ext)
    mime = mimetype or mimetypes.guess_type(name, strict=False)[0] or ("text/plain" if ftype == "text" else "application/octet-stream")
    return mime, ftype


def iso_to_epoch(value: str) -> int:
    from clawarena.world.clock import parse_time

    return int(parse_time(value).timestamp())

