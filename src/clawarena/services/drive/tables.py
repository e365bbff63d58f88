"""Drive's tables and fixture format.

Files (folders and Google Docs included) live in `drive_files`; who may do what
is in `drive_permissions` (a shared drive's members are permissions whose
`file_id` is the drive's id). Per-user state (starred, viewed, modified by me)
is kept as JSON maps keyed by principal id.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from clawarena.spec.base import Strict
from clawarena.spec.refs import PrincipalOrAddress, PrincipalRef
from clawarena.world.store import Column, TableSpec

FOLDER = "application/vnd.google-apps.folder"
GDOC = "application/vnd.google-apps.document"
GOOGLE_PREFIX = "application/vnd.google-apps."

FILES = TableSpec(
    name="drive_files",
    columns=(
        Column("id", nullable=False),
        Column("name", nullable=False),
        Column("mime_type", nullable=False),
        Column("owner"),  # principal id; None for shared-drive items
        Column("drive_id"),  # shared drive id, or None for My Drive
        Column("parents", "json", nullable=False),
        Column("content", nullable=False),  # text, or base64 when encoding == "base64"; Google Docs keep theirs in docs_documents
        Column("encoding", nullable=False),
        Column("description"),
        Column("starred_by", "json", nullable=False),
        Column("trashed", "bool", nullable=False),
        Column("explicitly_trashed", "bool", nullable=False),
        Column("trashed_ms", "integer"),
        Column("trashed_by"),
        Column("created_ms", "integer", nullable=False),
        Column("modified_ms", "integer", nullable=False),
        Column("modified_by"),  # principal id or an address
        Column("viewed", "json", nullable=False),  # {principal: ms}
        Column("modified_by_me", "json", nullable=False),  # {principal: ms}
        Column("version", "integer", nullable=False),
        Column("head_revision"),
        Column("properties", "json", nullable=False),
        Column("app_properties", "json", nullable=False),
        Column("writers_can_share", "bool", nullable=False),
        Column("copy_requires_writer", "bool", nullable=False),
        Column("original_filename"),
        Column("folder_color"),
    ),
    indexes=(("owner",), ("drive_id",)),
)

PERMISSIONS = TableSpec(
    name="drive_permissions",
    columns=(
        Column("file_id", nullable=False),  # a file id, or a shared drive id (membership)
        Column("id", nullable=False),
        Column("type", nullable=False),  # user | group | domain | anyone
        Column("role", nullable=False),
        Column("email"),
        Column("domain"),
        Column("allow_discovery", "bool", nullable=False),
        Column("display_name"),
        Column("expiration_ms", "integer"),
        Column("pending_owner", "bool", nullable=False),
        Column("shared_by"),  # principal id of whoever shared
        Column("created_ms", "integer", nullable=False),
    ),
    primary_key=("file_id", "id"),
)

COMMENTS = TableSpec(
    name="drive_comments",
    columns=(
        Column("id", nullable=False),
        Column("file_id", nullable=False),
        Column("author", nullable=False),  # principal id or 'Name <address>'
        Column("content", nullable=False),
        Column("created_ms", "integer", nullable=False),
        Column("modified_ms", "integer", nullable=False),
        Column("resolved", "bool", nullable=False),
        Column("deleted", "bool", nullable=False),
        Column("quoted", "json"),  # {"mimeType", "value"}
        Column("anchor"),
        Column("assignee"),
    ),
    indexes=(("file_id",),),
)

REPLIES = TableSpec(
    name="drive_replies",
    columns=(
        Column("id", nullable=False),
        Column("comment_id", nullable=False),
        Column("file_id", nullable=False),
        Column("author", nullable=False),
        Column("content", nullable=False),
        Column("action"),  # resolve | reopen
        Column("created_ms", "integer", nullable=False),
        Column("modified_ms", "integer", nullable=False),
        Column("deleted", "bool", nullable=False),
    ),
    indexes=(("comment_id",),),
)

REVISIONS = TableSpec(
    name="drive_revisions",
    columns=(
        Column("file_id", nullable=False),
        Column("id", nullable=False),
        Column("seq", "integer", nullable=False),
        Column("mime_type", nullable=False),
        Column("content", nullable=False),
        Column("encoding", nullable=False),
        Column("modified_ms", "integer", nullable=False),
        Column("modified_by"),
        Column("keep_forever", "bool", nullable=False),
        Column("published", "bool", nullable=False),
        Column("publish_auto", "bool", nullable=False),
        Column("published_outside_domain", "bool", nullable=False),
        Column("original_filename"),
    ),
    primary_key=("file_id", "id"),
)

CHANGES = TableSpec(
    name="drive_changes",
    columns=(
        Column("principal", nullable=False),
        Column("seq", "integer", nullable=False),
        Column("change_type", nullable=False),  # file | drive
        Column("item_id", nullable=False),
        Column("drive_id"),
        Column("removed", "bool", nullable=False),
        Column("time_ms", "integer", nullable=False),
    ),
    primary_key=("principal", "seq"),
)

DRIVES = TableSpec(
    name="drive_drives",
    columns=(
        Column("id", nullable=False),
        Column("name", nullable=False),
        Column("created_ms", "integer", nullable=False),
        Column("hidden_by", "json", nullable=False),
        Column("color_rgb"),
        Column("theme_id"),
        Column("restrictions", "json", nullable=False),
        Column("request_id"),
    ),
)

GROUPS = TableSpec(
    name="drive_groups",
    columns=(
        Column("email", nullable=False),
        Column("name", nullable=False),
        Column("members", "json", nullable=False),  # principal ids
    ),
    primary_key=("email",),
)

GENERATED_IDS = TableSpec(
    name="drive_generated_ids",
    columns=(Column("id", nullable=False), Column("principal", nullable=False)),
)

TABLES = (FILES, PERMISSIONS, COMMENTS, REPLIES, REVISIONS, CHANGES, DRIVES, GROUPS, GENERATED_IDS)

Role = Literal["owner", "organizer", "fileOrganizer", "writer", "commenter", "reader"]


# ---- fixtures ------------------------------------------------------------------------
class PermissionFixture(Strict):
    """Who else may use a file: a user or group address, a whole domain, or anyone with the link."""

    type: Literal["user", "group", "domain", "anyone"] = "user"
    role: Role = "reader"
    email: Annotated[str | None, PrincipalRef(address_ok=True)] = Field(default=None, description="address (or principal id) of the user or group (types user and group)")
    domain: str | None = Field(default=None, description="the domain (type domain)")
    discoverable: bool = Field(default=False, description="allowFileDiscovery: findable in search (types domain and anyone)")


class ReplyFixture(Strict):
    author: PrincipalOrAddress = Field(description="principal id or 'Name <address>'")
    content: str
    action: Literal["resolve", "reopen"] | None = None
    at: str | None = None


class CommentFixture(Strict):
    id: str | None = None
    author: PrincipalOrAddress = Field(description="principal id or 'Name <address>'")
    content: str
    quoted: str | None = Field(default=None, description="the text of the file the comment is anchored to")
    resolved: bool = False
    at: str | None = None
    replies: list[ReplyFixture] = []


class FileFixture(Strict):
    """A file, folder or Google Doc. Docs are given as plain text: one paragraph per line."""

    id: str | None = None
    name: str
    owner: Annotated[str | None, PrincipalRef(address_ok=True)] = Field(default=None, description="principal id of the owner, or an outside address (omit for shared-drive items)")
    drive: str | None = Field(default=None, description="id of the shared drive holding the item")
    mime_type: str = Field(default="text/plain", description="a MIME type, or the shorthands 'folder' and 'doc'")
    content: str = ""
    content_base64: str | None = Field(default=None, description="binary content, base64")
    parents: list[str] = Field(default=[], description="folder ids; default: the owner's My Drive root (or the shared drive)")
    description: str | None = None
    starred: Annotated[bool | list[str], PrincipalRef()] = Field(default=False, description="true: starred by the owner; or principal ids")
    trashed: bool = False
    permissions: list[PermissionFixture] = []
    comments: list[CommentFixture] = []
    properties: dict[str, str] = {}
    created: str | None = Field(default=None, description="ISO time; default a day before the world's now")
    modified: str | None = Field(default=None, description="ISO time; default: created")
    modified_by: Annotated[str | None, PrincipalRef(address_ok=True)] = None
    writers_can_share: bool = True
    copy_requires_writer_permission: bool = False


class GroupFixture(Strict):
    email: str
    name: str = ""
    members: list[PrincipalOrAddress] = Field(default=[], description="principal ids or addresses")


class MemberFixture(Strict):
    type: Literal["user", "group", "domain"] = "user"
    email: Annotated[str | None, PrincipalRef(address_ok=True)] = None
    domain: str | None = None
    role: Literal["organizer", "fileOrganizer", "writer", "commenter", "reader"] = "writer"


class SharedDriveFixture(Strict):
    id: str
    name: str
    members: list[MemberFixture] = []
    hidden_by: Annotated[list[str], PrincipalRef()] = []


class DriveFixtures(Strict):
    groups: list[GroupFixture] = []
    shared_drives: list[SharedDriveFixture] = []
    files: list[FileFixture] = []
