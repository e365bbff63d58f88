"""Slack: a workspace of channels, DMs, threads, files, pins, reactions and reminders on the real /api/<method> paths.

Users are the world's principals (ids derived from the principal id) plus
outside people declared in the fixtures. Channel membership governs access.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal, Union

from pydantic import Discriminator, Field, Tag

from clawarena.services.base import Service, ServiceContext
from clawarena.services.registry import register_service
from clawarena.services.slack import tools_chat, tools_conversations, tools_files, tools_items, tools_people
from clawarena.services.slack.core import (
    EMPTY_TS, IM, MPIM, PRIVATE, PUBLIC, Slack, file_kind, iso_to_epoch, micro_to_ts, normalize_ts, slack_id,
    ts_to_micro, user_id_for,
)  # fmt: skip
from clawarena.services.slack.tables import (
    BOOKMARKS, CHANNELS, FILES, MEMBERS, MESSAGES, PINS, REACTIONS, REMINDERS, TABLES, USERGROUPS, USERS, SlackFixtures,
    SlackUserRef,
)  # fmt: skip
from clawarena.services.slack.tools_files import store_content
from clawarena.services.slack.when import CannotParse, parse_when
from clawarena.spec.base import Strict
from clawarena.spec.models import AttackSpec, Instant
from clawarena.world.world import World

TOOLS = tools_conversations.TOOLS + tools_chat.TOOLS + tools_files.TOOLS + tools_items.TOOLS + tools_people.TOOLS



class _Seeder:
    """Fixture references (principal ids, handles, channel names, message ids) -> stored rows.

    Seeding resolves thousands of references; with `INDEXED` they go through in-memory indexes kept
    in step with the rows this seeder writes, instead of re-reading and decoding whole tables per
    lookup. `INDEXED = False` keeps the plain table reads as the reference the indexes are tested
    against (same rows, same state hash)."""

    INDEXED = True

    def __init__(self, world: World):
        self.world = world
        self.store = world.store
        first = sorted(world.directory.principals)[0]
        self.s = Slack(ServiceContext(world=world, principal=world.directory.principal(first)), materialize=False)
        self.now = self.s.now
        self._users: dict[str, str] = {}  # ref -> user id (valid while the users table is unchanged)
        self._channels: list[dict[str, Any]] | None = None  # every channel row, in the table's order
        self._ts: set[str] | None = None  # every message ts in the world

    # ---- references ----------------------------------------------------------------------
    def user(self, ref: str, where: str) -> str:
        if self.INDEXED and ref in self._users:
            return self._users[ref]
        row = self.s.find_user(ref)
        if row is None:
            raise ValueError(f"{where}: unknown user {ref!r} (a principal id or a fixture user id)")
        self._users[ref] = row["id"]
        return row["id"]

    def insert_user(self, row: dict[str, Any]) -> None:
        self.store.insert(USERS.name, row)
        self._users.clear()  # a new user can shadow what a handle or email resolved to

    def channel(self, ref: str, where: str) -> dict[str, Any]:
        ref = ref.strip()
        if self.INDEXED:
            if self._channels is None:
                self._channels = self.store.select(CHANNELS.name)
            rows = self._channels
        else:
            rows = self.store.select(CHANNELS.name)
        for row in rows:
            if ref in (row["id"], row["ref"]) or (row["kind"] in (PUBLIC, PRIVATE) and ref.lstrip("#") == row["name"]):
                return row
        raise ValueError(f"{where}: unknown channel {ref!r}")

    def message(self, ref: str, where: str) -> dict[str, Any]:
        rows = self.store.select(MESSAGES.name, {"ref": ref})
        if not rows:
            try:
                rows = self.store.select(MESSAGES.name, {"ts": normalize_ts(ref)})
            except Exception:  # not a ts either
                rows = []
        if not rows:
            raise ValueError(f"{where}: no message {ref!r} (a message fixture id or ts)")
        return rows[0]

    def unique_ts(self, seconds: int) -> str:
        micro = seconds * 1_000_000 + 100
        if self.INDEXED:
            if self._ts is None:
                self._ts = {r[0] for r in self.store.conn.execute(f'SELECT "ts" FROM "{MESSAGES.name}"')}
            while micro_to_ts(micro) in self._ts:
                micro += 100
            return micro_to_ts(micro)
        while self.store.select(MESSAGES.name, {"ts": micro_to_ts(micro)}):
            micro += 100
        return micro_to_ts(micro)

    def when(self, at: str | None, default: int) -> int:
        return iso_to_epoch(at) if at else default

    # ---- rows --------------------------------------------------------------------------------
    def add_channel(self, cid: str, name: str, kind: str, creator: str, created: int, members: list[str], *,
                    topic: str = "", purpose: str = "", archived: bool = False, general: bool = False,
                    ref: str | None = None) -> None:  # fmt: skip
        if self.store.get(CHANNELS.name, {"id": cid}) is not None:
            raise ValueError(f"channels: duplicate channel {name or ref!r}")
        self._channels = None  # re-read on the next lookup, in the table's (primary key) order
        self.store.insert(CHANNELS.name, {
            "id": cid, "name": name, "kind": kind, "creator": creator, "created": created, "is_archived": archived,
            "is_general": general, "topic": {"value": topic, "creator": creator if topic else "", "last_set": created if topic else 0},
            "purpose": {"value": purpose, "creator": creator if purpose else "", "last_set": created if purpose else 0},
            "previous_names": [], "ref": ref, "updated": created * 1000,
        })  # fmt: skip
        for uid in dict.fromkeys(members):
            self.store.insert(MEMBERS.name, {"channel": cid, "user": uid, "joined": created, "last_read": EMPTY_TS})

    def add_message(self, cid: str, user: str, text: str, ts: str, *, blocks: Any = None, thread_ts: str | None = None,
                    broadcast: bool = False, files: list[str] | None = None, ref: str | None = None) -> dict[str, Any]:  # fmt: skip
        if self.store.get(MESSAGES.name, {"channel": cid, "ts": ts}) is not None:
            raise ValueError(f"messages: two messages with ts {ts} in one channel")
        row = {"channel": cid, "ts": ts, "user": user, "text": text, "blocks": blocks, "attachments": None,
               "thread_ts": thread_ts, "subtype": "thread_broadcast" if broadcast and thread_ts else None,
               "edited": None, "files": list(files or []), "ref": ref}  # fmt: skip
        self.store.insert(MESSAGES.name, row)
        if self._ts is not None:
            self._ts.add(ts)
        return row


# ---- attack material: the `slack_message` channel -------------------------------------------------
class SlackMessageEdit(Strict):
    """The payload goes into an existing message (appended, or replacing its text)."""

    message: str = Field(description="a message fixture id or ts")
    mode: Literal["append", "replace"] = "append"


class NewSlackMessage(Strict):
    """The payload is a new message in `channel` by `user` (optionally a thread reply)."""

    channel: str = Field(description="a channel name or id")
    user: SlackUserRef = Field(description="a principal id or a fixture user")
    thread: str | None = Field(default=None, description="the parent message (fixture id or ts): the payload is a reply")
    at: Instant | None = Field(default=None, description="default: half an hour before `now` (after the parent)")
    id: str | None = None


SlackMessagePlacement = Annotated[
    Union[Annotated[SlackMessageEdit, Tag("edit-message")], Annotated[NewSlackMessage, Tag("new-message")]],
    Discriminator(lambda v: "edit-message" if isinstance(v, SlackMessageEdit) or (isinstance(v, dict) and "message" in v) else "new-message"),
]


class SlackService(Service):
    name = "slack"
    wire_compatible = True
    tables = TABLES
    fixture_model = SlackFixtures
    tools = TOOLS
    channels = {"slack_message": SlackMessagePlacement}
    error_style = "slack"

    def seed(self, world: World, fixture: dict[str, Any]) -> None:
        data = SlackFixtures.model_validate(fixture)
        sd = _Seeder(world)
        principals = world.directory.principals
        now = sd.now
        # people
        for i, u in enumerate(data.users):
            where = f"users[{i}]"
            if u.id in principals:
                row = dict(sd.s._principal_user(u.id))
            else:
                if sd.s.find_user(u.id) is not None:
                    raise ValueError(f"{where}: duplicate user {u.id!r}")
                row = {"id": user_id_for(u.id), "handle": u.id, "principal": None, "real_name": u.id, "email": None,
                       "presence": "away", "updated": now}  # fmt: skip
            row.update({
                "real_name": u.name or row["real_name"], "display_name": u.display_name, "email": u.email or row["email"],
                "title": u.title or row.get("title", ""), "phone": u.phone, "status_text": u.status_text,
                "status_emoji": u.status_emoji, "status_expiration": 0, "tz": u.tz, "is_bot": u.is_bot,
                "is_admin": u.is_admin, "is_restricted": u.guest, "deleted": u.deleted,
            })  # fmt: skip
            sd.insert_user(row)
        everyone = [u["id"] for u in sd.s.users() if not u["deleted"] and not u["is_bot"] and not u["is_restricted"]]
        first = user_id_for(sorted(principals)[0])
        week_ago = now - 7 * 86400
        # channels
        if data.general and not any(c.name.lstrip("#") == "general" for c in data.channels):
            sd.add_channel(slack_id("C", "general"), "general", PUBLIC, first, week_ago, everyone, general=True,
                           purpose="This is the one channel that will always include everyone.", ref="general")  # fmt: skip
        for i, c in enumerate(data.channels):
            where = f"channels[{i}]"
            kind = c.type or (PRIVATE if c.private else PUBLIC)
            created = sd.when(c.at, week_ago)
            if kind in (IM, MPIM):
                if not c.members:
                    raise ValueError(f"{where}.members: a {kind} needs its members")
                members = sorted({sd.user(m, f"{where}.members") for m in c.members})
                if kind == IM and len(members) > 2:
                    raise ValueError(f"{where}.members: an im has one or two members; use type mpim")
                if kind == MPIM and len(members) < 3:
                    raise ValueError(f"{where}.members: an mpim has at least three members")
                key = "+".join(members)
                cid = c.id or slack_id("D" if kind == IM else "G", key)
                name = "" if kind == IM else "mpdm-" + "--".join(sd.s.user(m)["handle"] for m in members) + "-1"  # type: ignore[index]
                creator = sd.user(c.creator, f"{where}.creator") if c.creator else members[0]
                sd.add_channel(cid, name, kind, creator, created, members, ref=c.name)
                continue
            name = c.name.lstrip("#")
            if c.members is None:
                members = everyone if kind == PUBLIC else ([sd.user(c.creator, f"{where}.creator")] if c.creator else [first])
            else:
                members = [sd.user(m, f"{where}.members") for m in c.members]
            creator = sd.user(c.creator, f"{where}.creator") if c.creator else (members[0] if members else first)
            sd.add_channel(c.id or slack_id("C", name), name, kind, creator, created, members, topic=c.topic, purpose=c.purpose,
                           archived=c.archived, general=name == "general", ref=c.name)  # fmt: skip
        # files (messages may carry them)
        file_ids: dict[str, str] = {}
        for i, f in enumerate(data.files):
            where = f"files[{i}]"
            uid = sd.user(f.user, f"{where}.user")
            fid = f.id if f.id and f.id.startswith("F") else slack_id("F", f.id or f"{i}/{f.name}")
            created = sd.when(f.at, now - 3 * 3600)
            mimetype, ftype = file_kind(f.name, f.mimetype)
            content, binary = store_content(f.content.encode())
            chans = [sd.channel(ch, f"{where}.channels") for ch in f.channels]
            sd.store.insert(FILES.name, {
                "id": fid, "user": uid, "name": f.name, "title": f.title or f.name, "mimetype": mimetype, "filetype": ftype,
                "size": len(f.content.encode()), "content": content, "binary": binary, "created": created,
                "channels": [ch["id"] for ch in chans], "state": "complete", "expected_length": None, "alt_txt": None,
                "snippet_type": None, "ref": f.id,
            })  # fmt: skip
            if f.id:
                file_ids[f.id] = fid
            for ch in chans:
                sd.add_message(ch["id"], uid, "", sd.unique_ts(created), files=[fid])
        # messages
        n = len(data.messages)
        for i, m in enumerate(data.messages):
            where = f"messages[{i}]"
            chan = sd.channel(m.channel, f"{where}.channel")
            uid = sd.user(m.user, f"{where}.user")
            if m.ts:
                try:
                    ts = normalize_ts(m.ts)
                except Exception:
                    raise ValueError(f"{where}.ts: {m.ts!r} is not a Slack ts like '1772440000.000100'") from None
            else:
                ts = sd.unique_ts(sd.when(m.at, now - (n - i) * 60))
            thread = None
            if m.thread:
                parent = sd.message(m.thread, f"{where}.thread")
                if parent["channel"] != chan["id"]:
                    raise ValueError(f"{where}.thread: the parent {m.thread!r} is in another channel")
                thread = parent["thread_ts"] or parent["ts"]
                if ts_to_micro(ts) <= ts_to_micro(thread):
                    raise ValueError(f"{where}.ts: a reply must come after its parent")
            fids = []
            for ref in m.files:
                if ref not in file_ids:
                    raise ValueError(f"{where}.files: unknown file fixture {ref!r}")
                fids.append(file_ids[ref])
                frow = sd.store.get(FILES.name, {"id": file_ids[ref]})
                if frow is not None and chan["id"] not in frow["channels"]:
                    sd.store.update(FILES.name, {"id": frow["id"]}, {"channels": [*frow["channels"], chan["id"]]})
            sd.add_message(chan["id"], uid, m.text, ts, blocks=m.blocks, thread_ts=thread, broadcast=m.reply_broadcast,
                           files=fids, ref=m.id)  # fmt: skip
        # pins, reactions
        for i, p in enumerate(data.pins):
            msg = sd.message(p.message, f"pins[{i}].message")
            by = sd.user(p.by, f"pins[{i}].by") if p.by else msg["user"]
            sd.store.insert(PINS.name, {"channel": msg["channel"], "ts": msg["ts"], "pinned_by": by,
                                        "created": ts_to_micro(msg["ts"]) // 1_000_000})  # fmt: skip
        for i, r in enumerate(data.reactions):
            msg = sd.message(r.message, f"reactions[{i}].message")
            for j, who in enumerate(r.users):
                sd.store.insert(REACTIONS.name, {"channel": msg["channel"], "ts": msg["ts"], "name": r.name.strip(":"),
                                                 "user": sd.user(who, f"reactions[{i}].users"), "added": i * 100 + j})  # fmt: skip
        # reminders, bookmarks, user groups
        for i, r in enumerate(data.reminders):
            uid = sd.user(r.user, f"reminders[{i}].user")
            try:
                when, recurring, rule = parse_when(r.time, now)
            except CannotParse:
                raise ValueError(f"reminders[{i}].time: cannot parse {r.time!r}") from None
            if r.recurrence:
                recurring, rule = True, r.recurrence
            sd.store.insert(REMINDERS.name, {
                "id": r.id or slack_id("Rm", f"{i}/{r.text}", 9), "user": uid, "creator": uid, "text": r.text, "time": when,
                "complete_ts": when if r.complete else 0, "recurring": recurring, "recurrence": rule,
            })  # fmt: skip
        for i, b in enumerate(data.bookmarks):
            chan = sd.channel(b.channel, f"bookmarks[{i}].channel")
            by = sd.user(b.by, f"bookmarks[{i}].by") if b.by else chan["creator"]
            sd.store.insert(BOOKMARKS.name, {
                "id": slack_id("Bk", f"{i}/{b.title}"), "channel": chan["id"], "title": b.title, "link": b.link, "emoji": b.emoji,
                "type": "link", "created_by": by, "updated_by": by, "date_created": week_ago + i, "date_updated": week_ago + i,
            })  # fmt: skip
        for i, g in enumerate(data.usergroups):
            sd.store.insert(USERGROUPS.name, {
                "id": slack_id("S", g.handle), "name": g.name or g.handle, "handle": g.handle, "description": g.description,
                "channels": [sd.channel(c, f"usergroups[{i}].channels")["id"] for c in g.channels],
                "users": [sd.user(u, f"usergroups[{i}].users") for u in g.users], "created_by": first, "updated_by": first,
                "date_create": week_ago, "date_update": week_ago, "date_delete": 0,
            })  # fmt: skip

    def place(self, world: World, attack: AttackSpec, placement: SlackMessageEdit | NewSlackMessage) -> None:
        """slack_message: the payload is put into an existing message (`SlackMessageEdit`) or is a new one (`NewSlackMessage`)."""
        p = placement
        sd = _Seeder(world)
        if isinstance(p, SlackMessageEdit):
            msg = sd.message(p.message, "placement.message")
            text = attack.payload if p.mode == "replace" else f"{msg['text']}\n\n{attack.payload}"
            world.store.update(MESSAGES.name, {"channel": msg["channel"], "ts": msg["ts"]}, {"text": text})
            return
        chan = sd.channel(p.channel, "placement.channel")
        uid = sd.user(p.user, "placement.user")
        thread = None
        default = sd.now - 30 * 60
        if p.thread:
            parent = sd.message(p.thread, "placement.thread")
            if parent["channel"] != chan["id"]:
                raise ValueError("placement.thread: the parent message is in another channel")
            thread = parent["thread_ts"] or parent["ts"]
            default = max(default, ts_to_micro(thread) // 1_000_000 + 1)
        seconds = sd.when(p.at, default)
        sd.add_message(chan["id"], uid, attack.payload, sd.unique_ts(seconds), thread_ts=thread, ref=p.id)


register_service(SlackService())
