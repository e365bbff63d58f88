"""Gmail's tables and fixture format.

Every row carries its mailbox (`owner`, a principal id): a principal sees only
its own mailbox. History is kept on the rows it describes (the `history`
column of a message lists that message's additions and label changes), so an
ordinary action changes only the rows it acts on; a permanently deleted
message leaves a row in `gmail_deleted_messages` for `history.list`.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field, model_validator

from clawarena.services.gmail.models import FilterAction, FilterCriteria
from clawarena.spec.base import Strict
from clawarena.spec.refs import PrincipalId
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
        Column("body", nullable=False),  # the text/plain body (derived from the HTML when there is none)
        Column("date_ms", "integer", nullable=False),
        Column("message_id_header", nullable=False),
        Column("in_reply_to"),
        Column("history_id", "integer", nullable=False),
        Column("html"),  # the text/html alternative, when the message has one
        Column("headers", "json"),  # other headers, [[name, value], ...] (Reply-To, References, Auto-Submitted, ...)
        Column("history", "json"),  # [[history id, "added"|"labelsAdded"|"labelsRemoved", [label ids], [labels after]], ...]
    ),
    indexes=(("owner", "date_ms"), ("owner", "thread_id")),
)

ATTACHMENTS = TableSpec(
    name="gmail_attachments",
    columns=(
        Column("message_id", nullable=False),
        Column("id", nullable=False),
        Column("owner", nullable=False),
        Column("position", "integer", nullable=False),  # order among the message's attachments
        Column("filename", nullable=False),
        Column("mime_type", nullable=False),
        Column("size", "integer", nullable=False),
        Column("data", nullable=False),  # standard base64 of the content
        Column("content_id"),
    ),
    primary_key=("message_id", "id"),
    indexes=(("owner",),),
)

LABELS = TableSpec(
    name="gmail_labels",
    columns=(
        Column("owner", nullable=False),
        Column("id", nullable=False),
        Column("name", nullable=False),
        Column("type", nullable=False),
        Column("message_list_visibility"),
        Column("label_list_visibility"),
        Column("color", "json"),
    ),
    primary_key=("owner", "id"),
)

DRAFTS = TableSpec(
    name="gmail_drafts",
    columns=(Column("id", nullable=False), Column("owner", nullable=False), Column("message_id", nullable=False)),
    indexes=(("owner",),),
)

FILTERS = TableSpec(
    name="gmail_filters",
    columns=(
        Column("id", nullable=False),
        Column("owner", nullable=False),
        Column("position", "integer", nullable=False),
        Column("criteria", "json", nullable=False),
        Column("action", "json", nullable=False),
    ),
    indexes=(("owner",),),
)

SEND_AS = TableSpec(
    name="gmail_send_as",
    columns=(
        Column("owner", nullable=False),
        Column("email", nullable=False),
        Column("display_name"),
        Column("reply_to"),
        Column("signature"),
        Column("is_primary", "bool", nullable=False),
        Column("is_default", "bool", nullable=False),
        Column("treat_as_alias", "bool", nullable=False),
        Column("verification_status"),
    ),
    primary_key=("owner", "email"),
)

FORWARDING = TableSpec(
    name="gmail_forwarding_addresses",
    columns=(Column("owner", nullable=False), Column("email", nullable=False), Column("verification_status", nullable=False)),
    primary_key=("owner", "email"),
)

DELEGATES = TableSpec(
    name="gmail_delegates",
    columns=(Column("owner", nullable=False), Column("email", nullable=False), Column("verification_status", nullable=False)),
    primary_key=("owner", "email"),
)

SETTINGS = TableSpec(
    name="gmail_settings",
    columns=(
        Column("owner", nullable=False),
        Column("key", nullable=False),  # vacation, autoForwarding, imap, pop, language, watch
        Column("value", "json", nullable=False),
        Column("updated_ms", "integer", nullable=False),
    ),
    primary_key=("owner", "key"),
)

DELETED = TableSpec(
    name="gmail_deleted_messages",
    columns=(
        Column("owner", nullable=False),
        Column("message_id", nullable=False),
        Column("thread_id", nullable=False),
        Column("label_ids", "json", nullable=False),
        Column("history_id", "integer", nullable=False),
        Column("history", "json"),
    ),
    primary_key=("owner", "message_id"),
)

ALL_TABLES = (MESSAGES, ATTACHMENTS, LABELS, DRAFTS, FILTERS, SEND_AS, FORWARDING, DELEGATES, SETTINGS, DELETED)

SYSTEM_LABELS = (
    "INBOX", "SENT", "DRAFT", "TRASH", "SPAM", "UNREAD", "STARRED", "IMPORTANT", "CHAT",
    "CATEGORY_PERSONAL", "CATEGORY_SOCIAL", "CATEGORY_PROMOTIONS", "CATEGORY_UPDATES", "CATEGORY_FORUMS",
)  # fmt: skip


# ---- fixtures ---------------------------------------------------------------------------
class AttachmentFixture(Strict):
    """A file attached to a mail: its content as `text` or as standard `base64`."""

    filename: str
    mime_type: str = "application/octet-stream"
    text: str | None = None
    base64: str | None = None

    @model_validator(mode="after")
    def _one_content(self) -> "AttachmentFixture":
        if (self.text is None) == (self.base64 is None):
            raise ValueError("an attachment needs exactly one of text or base64")
        return self


class MessageFixture(Strict):
    """A mail in one principal's mailbox."""

    id: str | None = None
    owner: PrincipalId = Field(description="principal id of the mailbox")
    sender: str = Field(alias="from", description="'Name <address>' or an address")
    to: list[str] = []
    cc: list[str] = []
    bcc: list[str] = []
    subject: str = ""
    body: str = ""
    html: str | None = Field(default=None, description="an HTML alternative of the body")
    attachments: list[AttachmentFixture] = []
    headers: dict[str, str] = Field(default={}, description="other headers, e.g. Reply-To or List-Id")
    labels: list[str] = ["INBOX"]
    thread: str | None = Field(default=None, description="thread id; messages sharing it form one thread")
    at: str | None = Field(default=None, description="ISO time; default: spaced an hour apart before the world's now")


class DraftFixture(Strict):
    """An unsent draft: a message with the DRAFT label plus a draft id."""

    id: str | None = Field(default=None, description="the draft id (default: generated, 'r' + hex)")
    message_id: str | None = None
    owner: PrincipalId
    to: list[str] = []
    cc: list[str] = []
    bcc: list[str] = []
    subject: str = ""
    body: str = ""
    html: str | None = None
    attachments: list[AttachmentFixture] = []
    thread: str | None = None
    at: str | None = None


class LabelColorFixture(Strict):
    textColor: str
    backgroundColor: str


class LabelFixture(Strict):
    id: str
    owner: PrincipalId
    name: str
    message_list_visibility: Literal["show", "hide"] | None = None
    label_list_visibility: Literal["labelShow", "labelShowIfUnread", "labelHide"] | None = None
    color: LabelColorFixture | None = None


class FilterFixture(Strict):
    """A filter applied to mail arriving in `owner`'s mailbox (criteria and action as in the API)."""

    id: str | None = None
    owner: PrincipalId
    criteria: FilterCriteria  # the wire models: a fixture filter is written as the API takes it
    action: FilterAction


class SendAsFixture(Strict):
    """A send-as alias of `owner` (the primary address always exists)."""

    owner: PrincipalId
    email: str
    display_name: str | None = None
    reply_to: str | None = None
    signature: str | None = None
    is_default: bool = False
    treat_as_alias: bool = True
    verification_status: Literal["accepted", "pending"] = "accepted"


class AddressFixture(Strict):
    """A forwarding address or a delegate of `owner`."""

    owner: PrincipalId
    email: str
    verification_status: Literal["accepted", "pending"] = "accepted"


class SettingsFixture(Strict):
    """Mailbox settings of `owner`, each shaped like its API resource (camelCase keys)."""

    owner: PrincipalId
    vacation: dict[str, Any] | None = None
    auto_forwarding: dict[str, Any] | None = None
    imap: dict[str, Any] | None = None
    pop: dict[str, Any] | None = None
    language: dict[str, Any] | None = None


class GmailFixtures(Strict):
    labels: list[LabelFixture] = []
    messages: list[MessageFixture] = []
    drafts: list[DraftFixture] = []
    filters: list[FilterFixture] = []
    send_as: list[SendAsFixture] = []
    forwarding_addresses: list[AddressFixture] = []
    delegates: list[AddressFixture] = []
    settings: list[SettingsFixture] = []
