"""Google Drive v3: files, folders, sharing, comments, revisions, changes and shared drives,
on the real /drive/v3 paths (uploads on /upload/drive/v3/files)."""

from __future__ import annotations

import base64
from datetime import timedelta
from typing import Annotated, Any, Literal, Union

from pydantic import Discriminator, Field, Tag

from clawarena.services.base import Service, ServiceContext
from clawarena.services.drive import comments as drive_comments
from clawarena.services.drive import core
from clawarena.services.drive import files as drive_files
from clawarena.services.drive import other as drive_other
from clawarena.services.drive import permissions as drive_permissions
from clawarena.services.drive.content import handler_for
from clawarena.services.drive.partial import with_partial_responses
from clawarena.services.drive.tables import (
    DRIVES, FILES, FOLDER, GDOC, GROUPS, PERMISSIONS, TABLES, DriveFixtures, FileFixture, PermissionFixture, Role,
)  # fmt: skip
from clawarena.services.registry import register_service
from clawarena.spec.base import Strict
from clawarena.spec.models import AttackSpec, Instant
from clawarena.spec.refs import PrincipalOrAddress
from clawarena.tools.core import Tool, ToolKind, tool
from clawarena.world.clock import parse_time
from clawarena.world.world import World

MIME_SHORTHANDS = {"folder": FOLDER, "doc": GDOC, "document": GDOC}


@tool(ToolKind.SEND, name="drive_share_file")
def share_file(ctx: ServiceContext, file_id: str, email: str | None = None, role: str = "reader", type: str = "user", domain: str | None = None, message: str | None = None) -> dict[str, Any]:
    """Share a file or folder with a person or group (by address), a domain, or anyone with the link.

    Args:
        file_id: the file or folder id.
        email: the address to share with (type user or group).
        role: reader, commenter or writer.
        type: user, group, domain or anyone.
        domain: the domain (type domain).
        message: a note for the recipient.
    """
    body: dict[str, Any] = {"type": type, "role": role}
    if email:
        body["emailAddress"] = email
    if domain:
        body["domain"] = domain
    return drive_permissions.permissions_create(ctx, file_id=file_id, body=body, email_message=message, supports_all_drives=True)


TOOLS: tuple[Tool, ...] = with_partial_responses((
    *drive_files.TOOLS, *drive_permissions.TOOLS, *drive_comments.TOOLS, *drive_other.TOOLS, share_file,
))


# ---- attack material: the `drive_file` channel ----------------------------------------------------
class FileEdit(Strict):
    """The payload goes into an existing text file or Doc (appended, or replacing its content)."""

    file: str = Field(description="id of a fixture file or document")
    mode: Literal["append", "replace"] = "append"


class NewFile(Strict):
    """The payload is the content of a new file, owned by a principal or an outside address."""

    owner: PrincipalOrAddress = Field(description="a principal id, or an outside address (then share_with is required)")
    name: str
    parents: list[str] = []
    mime_type: str = "text/plain"
    id: str | None = None
    share_with: list[PrincipalOrAddress] = Field(default=[], description="principal ids or addresses it is shared with")
    role: Role = "reader"
    at: Instant | None = Field(default=None, description="created at; default half an hour before `now`")
    description: str | None = None


DriveFilePlacement = Annotated[
    Union[Annotated[FileEdit, Tag("edit-file")], Annotated[NewFile, Tag("new-file")]],
    Discriminator(lambda v: "edit-file" if isinstance(v, FileEdit) or (isinstance(v, dict) and "file" in v) else "new-file"),
]


class DriveService(Service):
    name = "drive"
    wire_compatible = True
    tables = TABLES
    fixture_model = DriveFixtures
    tools = TOOLS
    channels = {"drive_file": DriveFilePlacement}
    error_style = "google-drive"  # type: ignore[assignment]  (GoogleWire + alt=media; see DriveWire)

    @staticmethod
    def ctx_for(world: World, who: str | None) -> ServiceContext:
        directory = world.directory
        if who and who in directory.principals:
            return ServiceContext(world=world, principal=directory.principal(who))
        if who:
            raise ValueError(f"unknown principal {who!r}")
        first = sorted(directory.principals)[0]
        return ServiceContext(world=world, principal=directory.principal(first))

    def seed(self, world: World, fixture: dict[str, Any]) -> None:
        data = DriveFixtures.model_validate(fixture)
        directory = world.directory
        for g in data.groups:
            members = []
            for m in g.members:
                p = directory.principals.get(m) or directory.by_address(m)
                members.append(p.id if p else m)
            world.store.insert(GROUPS.name, {"email": g.email.lower(), "name": g.name or g.email, "members": sorted(set(members))})
        now = world.clock.now()
        created = int((now - timedelta(days=30)).timestamp() * 1000)
        for d in data.shared_drives:
            world.store.insert(DRIVES.name, {"id": d.id, "name": d.name, "created_ms": created, "hidden_by": list(d.hidden_by),
                                             "color_rgb": None, "theme_id": None, "restrictions": {}, "request_id": None})  # fmt: skip
            for m in d.members:
                email = m.email
                if m.type == "user" and email in directory.principals:
                    email = directory.principal(email).email
                insert_permission(world, d.id, None, raw={"type": m.type, "role": m.role, "email": email, "domain": m.domain}, at=created)
        for i, f in enumerate(data.files):
            seed_file(world, f, default_ms=int((now - timedelta(hours=len(data.files) - i + 24)).timestamp() * 1000))
        check_parents(world)

    def place(self, world: World, attack: AttackSpec, placement: FileEdit | NewFile) -> None:
        """drive_file: the payload goes into an existing file (`FileEdit`) or becomes a new one (`NewFile`)."""
        p = placement
        if isinstance(p, FileEdit):
            row = world.store.get(FILES.name, {"id": p.file})
            if row is None:
                raise ValueError(f"placement.file: no file {p.file!r} in the fixtures")
            mode = p.mode
            ctx = self.ctx_for(world, row["owner"] if row["owner"] in world.directory.principals else None)
            if row["mime_type"] == GDOC:
                doc = handler_for(GDOC)  # the Docs service's content handler
                if mode == "replace":
                    doc.replace_text(ctx, row["id"], attack.payload)
                else:
                    doc.append_text(ctx, row["id"], attack.payload)
            elif row["mime_type"] == FOLDER or row["encoding"] != "text":
                raise ValueError(f"placement.file: {p.file!r} is a folder or binary file; text goes into text files and Docs")
            else:
                content = attack.payload if mode == "replace" else (f"{row['content']}\n\n{attack.payload}" if row["content"] else attack.payload)
                world.store.update(FILES.name, {"id": row["id"]}, {"content": content})
            return
        owner = p.owner
        if owner not in world.directory.principals and not p.share_with:
            raise ValueError("placement.share_with: a file owned by an outside address must be shared with someone (principal ids or addresses)")
        perms = []
        for who in p.share_with:
            target = world.directory.principals.get(who)
            perms.append(PermissionFixture(type="user", role=p.role, email=target.email if target else who))
        fixture = FileFixture(
            id=p.id, name=p.name, owner=owner, mime_type=p.mime_type, content=attack.payload,
            parents=list(p.parents), permissions=perms, created=p.at, description=p.description,
        )  # fmt: skip
        now = world.clock.now()
        seed_file(world, fixture, default_ms=int((now - timedelta(minutes=30)).timestamp() * 1000))
        check_parents(world)


def insert_permission(world: World, item_id: str, perm: PermissionFixture | None, *, raw: dict[str, Any] | None = None, at: int, shared_by: str | None = None) -> None:
    spec = raw or perm.model_dump()  # type: ignore[union-attr]
    ptype, role = spec["type"], spec["role"]
    email, domain = spec.get("email"), spec.get("domain")
    discoverable = bool(spec.get("discoverable"))
    if ptype in ("user", "group"):
        if not email:
            raise ValueError(f"permission of type {ptype} on {item_id!r} needs an email")
        p = world.directory.principals.get(email)
        email = p.email if p else email
    if ptype == "domain" and not domain:
        raise ValueError(f"permission of type domain on {item_id!r} needs a domain")
    pid = core.permission_id(ptype, email, domain, discoverable)
    world.store.delete(PERMISSIONS.name, {"file_id": item_id, "id": pid})
    world.store.insert(PERMISSIONS.name, {
        "file_id": item_id, "id": pid, "type": ptype, "role": role, "email": email, "domain": (domain or "").lower() or None,
        "allow_discovery": discoverable if ptype in ("domain", "anyone") else False, "display_name": None,
        "expiration_ms": None, "pending_owner": False, "shared_by": shared_by, "created_ms": at,
    })  # fmt: skip


def _ms(value: str | None, default: int) -> int:
    return int(parse_time(value).timestamp() * 1000) if value else default


def seed_file(world: World, f: FileFixture, default_ms: int) -> dict[str, Any]:
    """Insert one fixture file with its permissions and comments; returns the row."""
    directory = world.directory
    owner = f.owner
    if f.drive is None and owner is None:
        raise ValueError(f"file {f.name!r}: needs an owner (a principal id) or a shared drive")
    if f.drive is not None:
        if world.store.get(DRIVES.name, {"id": f.drive}) is None:
            raise ValueError(f"file {f.name!r}: no shared drive {f.drive!r}")
        owner = None
    external_owner = owner is not None and owner not in directory.principals
    if external_owner and "@" not in (owner or ""):
        raise ValueError(f"file {f.name!r}: unknown principal {owner!r} as owner")
    ctx = DriveService.ctx_for(world, owner if owner and not external_owner else None)
    mime = MIME_SHORTHANDS.get(f.mime_type, f.mime_type)
    created = _ms(f.created, default_ms)
    modified = _ms(f.modified, created)
    if f.parents:
        parents = list(f.parents)
    elif f.drive:
        parents = [f.drive]
    elif external_owner:
        parents = []
    else:
        parents = [core.root_id(owner or "")]
    data = base64.b64decode(f.content_base64) if f.content_base64 else f.content.encode()
    if isinstance(f.starred, bool):
        starred = [owner] if f.starred and owner and not external_owner else []
    else:
        starred = list(f.starred)
    modified_by = f.modified_by or owner or ctx.principal.id
    row = drive_files.new_file(
        ctx, name=f.name, mime_type=mime, owner=owner, parents=parents, drive_id=f.drive, data=data if mime != GDOC else b"",
        doc_text=f.content if mime == GDOC else None, file_id=f.id, description=f.description, properties=dict(f.properties),
        starred_by=starred, created_ms=created, modified_ms=modified, modified_by=modified_by,
        writers_can_share=f.writers_can_share, copy_requires_writer=f.copy_requires_writer_permission,
    )  # fmt: skip
    viewed = {owner: modified} if owner and not external_owner else {}
    updates: dict[str, Any] = {"viewed": viewed, "modified_by_me": {modified_by: modified} if modified_by in directory.principals else {}}
    if f.trashed:
        updates.update({"trashed": True, "explicitly_trashed": True, "trashed_ms": modified, "trashed_by": owner})
    world.store.update(FILES.name, {"id": row["id"]}, updates)
    for perm in f.permissions:
        insert_permission(world, row["id"], perm, at=modified, shared_by=owner)
    for c in f.comments:
        author = _author(world, c.author)
        crow = drive_comments.insert_comment(ctx, row["id"], author, c.content, c.quoted, None, False, _ms(c.at, modified), c.id)
        for r in c.replies:
            drive_comments.insert_reply(ctx, row["id"], crow["id"], _author(world, r.author), r.content, r.action, _ms(r.at, modified))
        if c.resolved:
            world.store.update(drive_comments.COMMENTS.name, {"id": crow["id"]}, {"resolved": True})
    return world.store.get(FILES.name, {"id": row["id"]}) or row


def _author(world: World, who: str) -> str:
    if who in world.directory.principals:
        return who
    if "@" not in who:
        raise ValueError(f"comment author {who!r}: a principal id or 'Name <address>'")
    found = world.directory.by_address(who.split("<")[-1].rstrip(">").strip())
    return found.id if found else who


def check_parents(world: World) -> None:
    files = {r["id"]: r for r in world.store.select(FILES.name)}
    drives = {r["id"] for r in world.store.select(DRIVES.name)}
    for row in files.values():
        for pid in row["parents"]:
            if core.is_root(pid) and pid not in drives:
                continue
            if pid in drives:
                continue
            parent = files.get(pid)
            if parent is None:
                raise ValueError(f"file {row['name']!r}: parent {pid!r} is not a folder in the fixtures")
            if parent["mime_type"] != FOLDER:
                raise ValueError(f"file {row['name']!r}: parent {pid!r} is not a folder")


register_service(DriveService())
