"""Gmail's tables and fixture format."""

from __future__ import annotations

from pydantic import Field

from clawarena.spec.base import Strict
from clawarena.world.store import Column, TableSpec

MESSAGES = TableSpec(
    name="gmail_messages",
    columns=(
        Column("id", nullable=False),
        Column("owner", nullable=False),
        Column("thread_id", nullable=False),
        Column("label_ids", "json", nullable=False),
        Column("sender", nullable=False),
        Column("to_addrs", "json", nullable=False),
        Column("cc_addrs", "json", nullable=False),
        Column("bcc_addrs", "json", nullable=False),
        Column("subject", nullable=False),
        Column("body", nullable=False),
        Column("date_ms", "integer", nullable=False),
        Column("message_id_header", nullable=False),
        Column("in_reply_to"),
        Column("history_id", "integer", nullable=False),
    ),
    indexes=(("owner", "date_ms"),),
)

LABELS = TableSpec(
    name="gmail_labels",
    columns=(
        Column("owner", nullable=False),
        Column("id", nullable=False),
        Column("name", nullable=False),
        Column("type", nullable=False),
    ),
    primary_key=("owner", "id"),
)

SYSTEM_LABELS = (
    "INBOX", "SENT", "DRAFT", "TRASH", "SPAM", "UNREAD", "STARRED", "IMPORTANT", "CHAT",
    "CATEGORY_PERSONAL", "CATEGORY_SOCIAL", "CATEGORY_PROMOTIONS", "CATEGORY_UPDATES", "CATEGORY_FORUMS",
)  # fmt: skip


class MessageFixture(Strict):
    """A mail in one principal's mailbox."""

    id: str | None = None
    owner: str = Field(description="principal id of the mailbox")
    sender: str = Field(alias="from", description="'Name <address>' or an address")
    to: list[str] = []
    cc: list[str] = []
    subject: str = ""
    body: str = ""
    labels: list[str] = ["INBOX"]
    thread: str | None = None
    at: str | None = Field(default=None, description="ISO time; default: spaced an hour apart before the world's now")


class LabelFixture(Strict):
    id: str
    owner: str
    name: str


class GmailFixtures(Strict):
    labels: list[LabelFixture] = []
    messages: list[MessageFixture] = []
