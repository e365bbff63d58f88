"""Slack's tables and fixture format.

Access is governed by channel membership (`slack_members`): public channels are
readable by every workspace member, private channels, DMs and multi-person DMs
only by their members. Users of the world's principals are derived from the
directory; `slack_users` holds outside people and any profile a principal changed.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field

from clawarena.spec.base import Strict
from clawarena.spec.refs import PrincipalRef
from clawarena.world.store import Column, TableSpec

USERS = TableSpec(
    name="slack_users",
    columns=(
        Column("id", nullable=False),  # U + 10 chars
        Column("handle", nullable=False),  # the `name` field (principal id or the fixture's id)
        Column("principal"),  # principal id when the user is a principal of the world
        Column("real_name", nullable=False),
        Column("display_name", nullable=False),
        Column("email"),
        Column("title", nullable=False),
        Column("phone", nullable=False),
        Column("status_text", nullable=False),
        Column("status_emoji", nullable=False),
        Column("status_expiration", "integer", nullable=False),
        Column("tz", nullable=False),
        Column("is_bot", "bool", nullable=False),
        Column("is_admin", "bool", nullable=False),
        Column("is_restricted", "bool", nullable=False),
        Column("deleted", "bool", nullable=False),
        Column("presence", nullable=False),  # auto | away
        Column("updated", "integer", nullable=False),
    ),
)

CHANNELS = TableSpec(
    name="slack_channels",
    columns=(
        Column("id", nullable=False),
        Column("name", nullable=False),  # channel name; mpdm-... for mpims; "" for ims
        Column("kind", nullable=False),  # public | private | im | mpim
        Column("creator", nullable=False),
        Column("created", "integer", nullable=False),
        Column("is_archived", "bool", nullable=False),
        Column("is_general", "bool", nullable=False),
        Column("topic", "json", nullable=False),  # {value, creator, last_set}
        Column("purpose", "json", nullable=False),
        Column("previous_names", "json", nullable=False),
        Column("ref"),  # the fixture's reference name (for DMs: the fixture name)
        Column("updated", "integer", nullable=False),  # ms
    ),
)

MEMBERS = TableSpec(
    name="slack_members",
    columns=(
        Column("channel", nullable=False),
        Column("user", nullable=False),
        Column("joined", "integer", nullable=False),
        Column("last_read", nullable=False),
    ),
    primary_key=("channel", "user"),
    indexes=(("user",),),
)

MESSAGES = TableSpec(
    name="slack_messages",
    columns=(
        Column("channel", nullable=False),
        Column("ts", nullable=False),
        Column("user", nullable=False),
        Column("text", nullable=False),
        Column("blocks", "json"),
        Column("attachments", "json"),
        Column("thread_ts"),  # set on replies (and on parents once they have replies)
        Column("subtype"),  # thread_broadcast, tombstone, channel_join, ...
        Column("edited", "json"),  # {user, ts}
        Column("files", "json", nullable=False),  # file ids
        Column("ref"),  # fixture id
    ),
    primary_key=("channel", "ts"),
    indexes=(("channel", "thread_ts"), ("user",)),
)

REACTIONS = TableSpec(
    name="slack_reactions",
    columns=(
        Column("channel", nullable=False),
        Column("ts", nullable=False),
        Column("name", nullable=False),
        Column("user", nullable=False),
        Column("added", "integer", nullable=False),
    ),
    primary_key=("channel", "ts", "name", "user"),
)

PINS = TableSpec(
    name="slack_pins",
    columns=(
        Column("channel", nullable=False),
        Column("ts", nullable=False),
        Column("pinned_by", nullable=False),
        Column("created", "integer", nullable=False),
    ),
    primary_key=("channel", "ts"),
)

FILES = TableSpec(
    name="slack_files",
    columns=(
        Column("id", nullable=False),
        Column("user", nullable=False),  # uploader: only they see a file until it is shared
        Column("name", nullable=False),
        Column("title", nullable=False),
        Column("mimetype", nullable=False),
        Column("filetype", nullable=False),
        Column("size", "integer", nullable=False),
        Column("content", nullable=False),  # text, or base64 when `binary`
        Column("binary", "bool", nullable=False),
        Column("created", "integer", nullable=False),
        Column("channels", "json", nullable=False),  # channel ids it is shared in
        Column("state", nullable=False),  # pending (upload URL issued) | uploaded | complete
        Column("expected_length", "integer"),
        Column("alt_txt"),
        Column("snippet_type"),
        Column("ref"),
    ),
)

REMINDERS = TableSpec(
    name="slack_reminders",
    columns=(
        Column("id", nullable=False),
        Column("user", nullable=False),  # whom it reminds (only they see it)
        Column("creator", nullable=False),
        Column("text", nullable=False),
        Column("time", "integer", nullable=False),
        Column("complete_ts", "integer", nullable=False),
        Column("recurring", "bool", nullable=False),
        Column("recurrence"),  # e.g. "every day"
    ),
)

SCHEDULED = TableSpec(
    name="slack_scheduled_messages",
    columns=(
        Column("id", nullable=False),
        Column("channel", nullable=False),
        Column("user", nullable=False),  # only the scheduler sees it
        Column("text", nullable=False),
        Column("blocks", "json"),
        Column("thread_ts"),
        Column("reply_broadcast", "bool", nullable=False),
        Column("post_at", "integer", nullable=False),
        Column("date_created", "integer", nullable=False),
    ),
)

BOOKMARKS = TableSpec(
    name="slack_bookmarks",
    columns=(
        Column("id", nullable=False),
        Column("channel", nullable=False),  # channel members see it
        Column("title", nullable=False),
        Column("link", nullable=False),
        Column("emoji", nullable=False),
        Column("type", nullable=False),
        Column("created_by", nullable=False),
        Column("updated_by", nullable=False),
        Column("date_created", "integer", nullable=False),
        Column("date_updated", "integer", nullable=False),
    ),
)

USERGROUPS = TableSpec(
    name="slack_usergroups",
    columns=(
        Column("id", nullable=False),
        Column("name", nullable=False),
        Column("handle", nullable=False),
        Column("description", nullable=False),
        Column("channels", "json", nullable=False),
        Column("users", "json", nullable=False),
        Column("created_by", nullable=False),
        Column("updated_by", nullable=False),
        Column("date_create", "integer", nullable=False),
        Column("date_update", "integer", nullable=False),
        Column("date_delete", "integer", nullable=False),
    ),
)

TABLES = (USERS, CHANNELS, MEMBERS, MESSAGES, REACTIONS, PINS, FILES, REMINDERS, SCHEDULED, BOOKMARKS, USERGROUPS)


# ---- fixtures ------------------------------------------------------------------------
# A user named by a principal id, a fixture user's id (handle), @handle or email.
SLACK_USER = PrincipalRef(address_ok=True, declared_in="users.id")
SlackUserRef = Annotated[str, SLACK_USER]


class TeamFixture(Strict):
    name: str
    domain: str | None = Field(default=None, description="the workspace subdomain; default: the name, lowercased")


class UserFixture(Strict):
    """An outside person in the workspace (or a principal's profile, when `id` is a principal id)."""

    id: str = Field(description="handle (the user's `name`), or a principal id to set that principal's profile")
    name: str | None = Field(default=None, description="real name")
    email: str | None = None
    display_name: str = ""
    title: str = ""
    phone: str = ""
    status_text: str = ""
    status_emoji: str = ""
    tz: str = "America/Los_Angeles"
    is_bot: bool = False
    is_admin: bool = False
    guest: bool = False
    deleted: bool = False


class ChannelFixture(Strict):
    """A channel, or a DM / multi-person DM (`type: im|mpim`; `name` is then only a fixture reference)."""

    name: str
    id: str | None = None
    type: Literal["public", "private", "im", "mpim"] | None = None
    private: bool = False
    members: Annotated[list[str] | None, SLACK_USER] = Field(default=None, description="principal ids or user handles; default: everyone for public channels")
    creator: Annotated[str | None, SLACK_USER] = None
    topic: str = ""
    purpose: str = ""
    archived: bool = False
    at: str | None = Field(default=None, description="ISO creation time; default: a week before now")


class MessageFixture(Strict):
    """A message in a channel (or, with `thread`, a reply in a thread)."""

    id: str | None = Field(default=None, description="a fixture reference for threads, pins, reactions and placements")
    channel: str = Field(description="channel name (or DM fixture name)")
    user: SlackUserRef = Field(description="principal id or user handle")
    text: str = ""
    blocks: list[dict[str, Any]] | None = None
    ts: str | None = Field(default=None, description="explicit ts like '1772440000.000100'")
    at: str | None = Field(default=None, description="ISO time; default: a minute apart, before now")
    thread: str | None = Field(default=None, description="id or ts of the thread's parent message")
    reply_broadcast: bool = False
    files: list[str] = Field(default=[], description="file fixture ids attached to the message")


class FileFixture(Strict):
    id: str | None = None
    name: str
    title: str | None = None
    user: SlackUserRef
    content: str = ""
    mimetype: str | None = None
    channels: list[str] = Field(default=[], description="channel names it is shared in (a message carrying it is posted)")
    at: str | None = None


class PinFixture(Strict):
    message: str = Field(description="id or ts of the pinned message")
    by: Annotated[str | None, SLACK_USER] = None


class ReactionFixture(Strict):
    message: str = Field(description="id or ts of the message")
    name: str
    users: list[SlackUserRef]


class ReminderFixture(Strict):
    id: str | None = None
    user: SlackUserRef
    text: str
    time: str = Field(description="ISO time or Unix seconds")
    complete: bool = False
    recurrence: str | None = None


class BookmarkFixture(Strict):
    channel: str
    title: str
    link: str
    emoji: str = ""
    by: Annotated[str | None, SLACK_USER] = None


class UsergroupFixture(Strict):
    handle: str
    name: str | None = None
    description: str = ""
    users: list[SlackUserRef] = []
    channels: list[str] = []


class SlackFixtures(Strict):
    team: TeamFixture | None = None
    general: bool = Field(default=True, description="create #general with every user unless a channel named general is declared")
    users: list[UserFixture] = []
    channels: list[ChannelFixture] = []
    messages: list[MessageFixture] = []
    files: list[FileFixture] = []
    pins: list[PinFixture] = []
    reactions: list[ReactionFixture] = []
    reminders: list[ReminderFixture] = []
    bookmarks: list[BookmarkFixture] = []
    usergroups: list[UsergroupFixture] = []
