"""Drive v3 files: list (the `q` language), get and download, create and update (with media
upload), copy, delete, trash, export of Google Docs, generateIds."""

from __future__ import annotations

import base64
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from clawarena.services.base import Delivery, ServiceContext, ServiceError, decode_media, media_result
from clawarena.services.drive import core
from clawarena.services.drive.content import handled, handler_for
from clawarena.services.drive.core import (
    FILE_ORGANIZER, ORGANIZER, OWNER, READER, WRITER, Access, ChangeTracker, bad_request, insufficient,
    not_found, now_ms,
)  # fmt: skip
from clawarena.services.drive.query import QueryError, compile_file_query, parse_order, sort_views
from clawarena.services.drive.tables import (
    COMMENTS, FILES, FOLDER, GDOC, GENERATED_IDS, GOOGLE_PREFIX, PERMISSIONS, REPLIES, REVISIONS,
)  # fmt: skip
from clawarena.services.pagination import page
from clawarena.tools.core import RestBinding, ToolKind, WireOnly, tool

BASE = "/drive/v3"
W = WireOnly()
Flag = Annotated[bool, W]
OptStr = Annotated[str | None, W]

NOT_WRITABLE = {"owners", "permissions", "permissionIds", "capabilities", "size", "md5Checksum", "sha1Checksum",
                "sha256Checksum", "webViewLink", "webContentLink", "iconLink", "version", "shared", "ownedByMe",
                "headRevisionId", "exportLinks", "quotaBytesUsed", "lastModifyingUser", "sharingUser",
                "trashingUser", "trashedTime", "explicitlyTrashed", "spaces", "hasThumbnail", "thumbnailLink",
                "modifiedByMe", "viewedByMe", "isAppAuthorized", "fileExtension", "fullFileExtension",
                "sharedWithMeTime", "teamDriveId", "hasAugmentedPermissions"}  # fmt: skip


class FileBody(BaseModel):
    """File metadata as clients send it (Drive v3 File resource, writable fields)."""

    model_config = ConfigDict(extra="allow")
    id: str | None = None
    name: str | None = None
    mimeType: str | None = None
    parents: list[str] | None = None
    description: str | None = None
    starred: bool | None = None
    trashed: bool | None = None
    properties: dict[str, str | None] | None = None
    appProperties: dict[str, str | None] | None = None
    writersCanShare: bool | None = None
    copyRequiresWriterPermission: bool | None = None
    viewersCanCopyContent: bool | None = None
    folderColorRgb: str | None = None
    originalFilename: str | None = None
    modifiedTime: str | None = None
    createdTime: str | None = None
    driveId: str | None = None
    kind: str | None = None
    contentHints: dict[str, Any] | None = None


def _check_writable(body: FileBody | None, creating: bool) -> None:
    if body is None:
        return
    extra = set(body.model_extra or {})
    sent = body.model_fields_set | extra
    bad = sorted(sent & NOT_WRITABLE)
    if not creating and "id" in sent:
        bad.append("id")
    if bad:
        raise ServiceError(403, "The resource body includes fields which are not directly writable.", reason="fieldNotWritable")


def _ms(ctx: ServiceContext, value: str | None) -> int | None:
    if value is None:
        return None
    from clawarena.services.drive.query import parse_time

    try:
        return parse_time(value)
    except QueryError:
        raise bad_request(f"Invalid value for: {value} is not a valid date-time value", "invalid") from None


def _clean_map(values: dict[str, str | None] | None, base: dict[str, str] | None = None) -> dict[str, str]:
    out = dict(base or {})
    for k, v in (values or {}).items():
        if v is None:
            out.pop(k, None)
        else:
            out[k] = v
    return out


# ---- internals used by tools, seeding, placement and Docs -----------------------------------
def resolve_parent(ctx: ServiceContext, acc: Access, parent_id: str, supports_all_drives: bool = True) -> tuple[str, str | None]:
    """(parent id, shared drive id) for a folder the caller may add to; 'root' is the caller's My Drive."""
    from clawarena.services.drive.core import drive_row

    if parent_id == "root" or parent_id == core.root_id(ctx.principal.id):
        return core.root_id(ctx.principal.id), None
    drive = drive_row(ctx, parent_id)
    if drive is not None:  # the root of a shared drive
        member = max((core.ROLE_RANK[p["role"]] for p in acc.perms(parent_id) if acc.matches(p, ctx.principal)), default=0)
        if member == 0 or not supports_all_drives:
            raise not_found(parent_id, denied=member == 0)
        if member < WRITER:
            raise ServiceError(403, "Insufficient permissions for the specified parent.", reason="insufficientParentPermissions")
        return parent_id, parent_id
    row = acc.file(parent_id)
    if row is None:
        raise not_found(parent_id)
    role = acc.role(row)
    if role == 0:
        raise not_found(parent_id, denied=True)
    if row["drive_id"] and not supports_all_drives:
        raise not_found(parent_id)
    if row["mime_type"] != FOLDER:
        raise bad_request("The specified parent is not a folder.", "parentNotAFolder")
    if role < WRITER:
        raise ServiceError(403, "Insufficient permissions for the specified parent.", reason="insufficientParentPermissions")
    return parent_id, row["drive_id"]


def new_file(
    ctx: ServiceContext,
    *,
    name: str,
    mime_type: str,
    owner: str | None,
    parents: list[str],
    drive_id: str | None = None,
    data: bytes = b"",
    doc_text: str | None = None,
    file_id: str | None = None,
    description: str | None = None,
    properties: dict[str, str] | None = None,
    app_properties: dict[str, str] | None = None,
    starred_by: list[str] | None = None,
    created_ms: int | None = None,
    modified_ms: int | None = None,
    modified_by: str | None = None,
    writers_can_share: bool = True,
    copy_requires_writer: bool = False,
    original_filename: str | None = None,
    folder_color: str | None = None,
    keep_forever: bool = False,
) -> dict[str, Any]:
    """Insert a file row (and its Doc, and its first revision); ids come from the world's generator."""
    fid = file_id or "1" + ctx.world.ids.next("drive.file", 32)
    t = created_ms if created_ms is not None else now_ms(ctx)
    content, encoding = core.store_bytes(data) if mime_type not in (FOLDER, GDOC) else ("", "text")
    row = {
        "id": fid, "name": name, "mime_type": mime_type, "owner": owner, "drive_id": drive_id, "parents": list(parents),
        "content": content, "encoding": encoding, "description": description, "starred_by": sorted(set(starred_by or [])),
        "trashed": False, "explicitly_trashed": False, "trashed_ms": None, "trashed_by": None, "created_ms": t,
        "modified_ms": modified_ms if modified_ms is not None else t, "modified_by": modified_by or owner or ctx.principal.id,
        "viewed": {}, "modified_by_me": {}, "version": 1, "head_revision": None,
        "properties": dict(properties or {}), "app_properties": dict(app_properties or {}),
        "writers_can_share": writers_can_share, "copy_requires_writer": copy_requires_writer,
        "original_filename": original_filename, "folder_color": folder_color,
    }  # fmt: skip
    if owner and modified_ms is None:
        row["modified_by_me"] = {owner: t}
        row["viewed"] = {owner: t}
    ctx.store.insert(FILES.name, row)
    if mime_type == GDOC:
        handler_for(GDOC).create(ctx, fid, doc_text or "")
    if mime_type != FOLDER:
        core.add_revision(ctx, row, keep_forever=keep_forever, at_ms=row["modified_ms"])
        row = ctx.store.get(FILES.name, {"id": fid}) or row
    return row


def import_text(data: bytes, source_mime: str) -> str:
    """Text of an upload converted to a Google Doc (plain, markdown or HTML)."""
    text = data.decode("utf-8", errors="replace")
    if source_mime == "text/html":
        import html as _html
        import re

        text = re.sub(r"(?i)<br\s*/?>|</p>|</h\d>|</li>|</div>", "\n", text)
        text = _html.unescape(re.sub(r"<[^>]+>", "", text))
    return text.replace("\r\n", "\n").rstrip("\n")


def bump(ctx: ServiceContext, file_id: str, content_changed: bool = False) -> None:
    """Mark a file modified by the caller (version, times, who)."""
    row = ctx.store.get(FILES.name, {"id": file_id})
    if row is None:
        return
    t = now_ms(ctx)
    changes: dict[str, Any] = {"version": row["version"] + 1, "modified_ms": t, "modified_by": ctx.principal.id,
                               "modified_by_me": {**row["modified_by_me"], ctx.principal.id: t}}  # fmt: skip
    ctx.store.update(FILES.name, {"id": file_id}, changes)


def content_changed(ctx: ServiceContext, file_id: str, keep_forever: bool = False) -> None:
    """After a content change: version and times, a new revision, and a delivery to whoever else can read it."""
    bump(ctx, file_id, content_changed=True)
    acc = Access(ctx)
    row = acc.file(file_id)
    if row is None:
        return
    core.add_revision(ctx, row, keep_forever=keep_forever)
    audience = acc.audience(row, exclude=ctx.principal.email)
    if audience:
        ctx.deliver(Delivery("drive_edit", ctx.principal.email, audience, row["name"], core.text_of(ctx, row), ref=file_id))


def purge(ctx: ServiceContext, file_id: str) -> None:
    for table, key in ((PERMISSIONS.name, "file_id"), (COMMENTS.name, "file_id"), (REPLIES.name, "file_id"), (REVISIONS.name, "file_id")):
        ctx.store.delete(table, {key: file_id})
    row = ctx.store.get(FILES.name, {"id": file_id})
    handler = handled(row) if row else None
    if handler is not None:
        handler.delete(ctx, file_id)
    ctx.store.delete(FILES.name, {"id": file_id})


def _visibility(acc: Access, row: dict[str, Any]) -> str:
    perms = acc.effective(row)
    if any(p["type"] == "anyone" and p["allow_discovery"] for p in perms):
        return "anyoneCanFind"
    if any(p["type"] == "anyone" for p in perms):
        return "anyoneWithLink"
    if any(p["type"] == "domain" and p["allow_discovery"] for p in perms):
        return "domainCanFind"
    if any(p["type"] == "domain" for p in perms):
        return "domainWithLink"
    return "limited"


def file_view(ctx: ServiceContext, acc: Access, row: dict[str, Any]) -> dict[str, Any]:
    """The searchable attributes of a file for the caller (see query.FILE_FIELDS)."""
    me = ctx.principal.id
    perms = acc.effective(row)

    def emails(roles: set[str]) -> list[str]:
        return [p["email"] for p in perms if p["type"] in ("user", "group") and p["role"] in roles and p["email"]]

    shared = acc.shared_with_me(row)
    return {
        "row": row, "id": row["id"], "name": row["name"], "mimeType": row["mime_type"], "description": row["description"] or "",
        "trashed": row["trashed"], "starred": me in row["starred_by"],
        "modifiedTime": row["modified_ms"], "createdTime": row["created_ms"], "viewedByMeTime": row["viewed"].get(me),
        "modifiedByMeTime": row["modified_by_me"].get(me), "sharedWithMeTime": shared["created_ms"] if shared else None,
        "sharedWithMe": shared is not None, "parents": row["parents"],
        "owners": emails({"owner"}), "writers": emails({"writer", "fileOrganizer", "organizer"}),
        "readers": emails({"reader", "commenter"}),
        "fullText": lambda: "\n".join([row["name"], row["description"] or "", core.text_of(ctx, row)]),
        "properties": row["properties"], "appProperties": row["app_properties"],
        "visibility": lambda: _visibility(acc, row),
        "quotaBytesUsed": len(row["content"]),
    }  # fmt: skip


def _parents_arg(value: str | None) -> list[str]:
    return [p.strip() for p in (value or "").split(",") if p.strip()]


# ---- tools ---------------------------------------------------------------------------------------
@tool(ToolKind.READ, name="drive_files_list", rest=RestBinding("GET", f"{BASE}/files"))
def files_list(
    ctx: ServiceContext,
    q: str | None = None,
    page_size: int = Field(default=100, ge=1, le=1000),
    page_token: str | None = None,
    order_by: str | None = None,
    corpora: Literal["user", "domain", "drive", "allDrives"] | None = None,
    drive_id: str | None = None,
    include_items_from_all_drives: bool = False,
    spaces: str = "drive",
    supports_all_drives: Flag = False,
    supports_team_drives: Flag = False,
    include_team_drive_items: Flag = False,
    team_drive_id: OptStr = None,
    corpus: Annotated[Literal["user", "domain"] | None, W] = None,
    include_labels: OptStr = None,
    include_permissions_for_view: OptStr = None,
) -> dict[str, Any]:
    """Search the files the principal can see (owned, shared with them, in their shared drives).

    Trashed files are included unless the query says `trashed = false`.

    Args:
        q: Drive search query, e.g. "name contains 'budget' and trashed = false", "'FOLDER_ID' in parents",
            "mimeType = 'application/vnd.google-apps.folder'", "fullText contains 'invoice'", "'bob@x.com' in writers",
            "modifiedTime > '2026-01-01T00:00:00'", "sharedWithMe", "starred = true"; combine with and, or, not, ( ).
        page_size: files per page (1-1000).
        page_token: the nextPageToken of the previous page.
        order_by: comma-separated keys, each optionally followed by desc: folder, name, name_natural, modifiedTime,
            createdTime, modifiedByMeTime, viewedByMeTime, sharedWithMeTime, starred, quotaBytesUsed, recency.
        corpora: user (default: My Drive and shared with me), domain (also files discoverable in the domain),
            drive (one shared drive: set drive_id), allDrives (user plus every shared drive of the principal).
        drive_id: the shared drive to search (corpora=drive).
        include_items_from_all_drives: include shared-drive items (needed for corpora drive and allDrives).
        spaces: 'drive' (default) or 'appDataFolder'.
    """
    include_shared = include_items_from_all_drives or include_team_drive_items
    drive_id = drive_id or team_drive_id
    corpora = corpora or corpus or ("drive" if drive_id else "user")
    space_set = {s.strip() for s in spaces.split(",") if s.strip()}
    if not space_set <= {"drive", "appDataFolder", "photos"}:
        raise bad_request("Invalid Value", "invalid")
    if corpora == "drive" and not drive_id:
        raise bad_request("The driveId parameter must be specified if and only if corpora is set to drive.", "invalid")
    if corpora in ("drive", "allDrives") and not include_shared:
        raise ServiceError(403, "The includeItemsFromAllDrives parameter must be set to true when corpora is set to drive or allDrives.", reason="teamDriveInclusionRequired")
    me = ctx.principal
    aliases = {"root": core.root_id(me.id), "me": me.email}
    try:
        pred = compile_file_query(q or "", aliases)
        order = parse_order(order_by) if order_by else [("modifiedTime", True), ("name", False)]
    except QueryError:
        raise bad_request("Invalid Value", "invalid") from None
    acc = Access(ctx)
    if corpora == "drive" and drive_id:
        member = any(acc.matches(p, me) for p in acc.perms(drive_id))
        if not member:
            raise ServiceError(404, f"Shared drive not found: {drive_id}", reason="notFound", denied=core.drive_row(ctx, drive_id) is not None)
    views = []
    if "drive" in space_set:
        for row in ctx.store.select(FILES.name):
            if row["drive_id"]:
                if corpora == "drive":
                    ok = row["drive_id"] == drive_id and acc.role(row) > 0
                else:
                    ok = corpora == "allDrives" and acc.role(row) > 0
            elif corpora == "drive":
                ok = False
            else:
                ok = acc.listable(row, domain_corpus=corpora in ("domain", "allDrives"))
            if not ok:
                continue
            view = file_view(ctx, acc, row)
            if pred(view):
                views.append(view)
    views = sort_views(views, order)
    chunk, next_token = page(views, page_token, page_size)
    out: dict[str, Any] = {"kind": "drive#fileList", "incompleteSearch": False, "files": [core.file_resource(ctx, acc, v["row"]) for v in chunk]}
    if next_token:
        out["nextPageToken"] = next_token
    return out


@tool(ToolKind.READ, name="drive_files_get", rest=RestBinding("GET", f"{BASE}/files/{{fileId}}"))
def files_get(
    ctx: ServiceContext,
    file_id: str,
    alt: Annotated[Literal["json", "media"], W] = "json",
    acknowledge_abuse: Flag = False,
    supports_all_drives: bool = False,
    supports_team_drives: Flag = False,
    include_labels: OptStr = None,
    include_permissions_for_view: OptStr = None,
) -> dict[str, Any]:
    """Get a file's metadata (or, over REST with alt=media, its bytes).

    Args:
        file_id: the file id ('root' is the principal's My Drive folder).
        supports_all_drives: set true for items in shared drives.
    """
    if file_id == "root" or file_id == core.root_id(ctx.principal.id):
        if alt == "media":
            raise ServiceError(403, "Only files with binary content can be downloaded. Use Export with Docs Editors files.", reason="fileNotDownloadable")
        return core.root_resource(ctx)
    acc = Access(ctx)
    row = acc.readable(file_id, READER, supports_all_drives or supports_team_drives)
    if alt == "media":
        return _download(acc, row)
    return core.file_resource(ctx, acc, row)


def _may_download(acc: Access, row: dict[str, Any]) -> None:
    """copyRequiresWriterPermission takes download (and export) away from readers and commenters."""
    if not core.can_download(row, acc.role(row)):
        raise ServiceError(403, "The user does not have sufficient permissions to download this file.", reason="cannotDownloadFile")


def _download(acc: Access, row: dict[str, Any]) -> dict[str, Any]:
    if row["mime_type"].startswith(GOOGLE_PREFIX):
        raise ServiceError(403, "Only files with binary content can be downloaded. Use Export with Docs Editors files.", reason="fileNotDownloadable")
    _may_download(acc, row)
    return media_result(core.file_bytes(row), row["mime_type"])


@tool(ToolKind.READ, name="drive_files_export", rest=RestBinding("GET", f"{BASE}/files/{{fileId}}/export"))
def files_export(ctx: ServiceContext, file_id: str, mime_type: str) -> dict[str, Any]:
    """Export a Google Doc as text/plain, text/html, text/markdown or application/pdf.

    Args:
        file_id: the Google Doc's file id.
        mime_type: the format to export to.
    """
    acc = Access(ctx)
    row = acc.readable(file_id, READER)
    if row["mime_type"] not in core.EXPORT_FORMATS:
        raise ServiceError(403, "Export only supports Docs Editors files.", reason="fileNotExportable")
    if mime_type not in core.EXPORT_FORMATS[row["mime_type"]]:
        raise bad_request("The requested conversion is not supported.", "badRequest")
    _may_download(acc, row)
    handler = handler_for(row["mime_type"])
    if mime_type not in handler.exports:
        raise bad_request(f"Export to {mime_type} is not supported by this server; use one of {', '.join(sorted(handler.exports))}.", "badRequest")
    data = handler.export(ctx, file_id, mime_type, title=row["name"])
    return media_result(data, mime_type)


def _create(ctx: ServiceContext, acc: Access, body: FileBody, media: dict[str, Any] | None, supports_all_drives: bool, keep_forever: bool) -> dict[str, Any]:
    data = decode_media(media) if media else b""
    source_mime = (media or {}).get("mimeType") or "application/octet-stream"
    mime = body.mimeType or (source_mime if media else "application/octet-stream")
    parent_ids = body.parents or ([body.driveId] if body.driveId else ["root"])
    if len(parent_ids) > 1:
        raise ServiceError(403, "Increasing the number of parents is not allowed.", reason="cannotAddParent")
    resolved = [resolve_parent(ctx, acc, p, supports_all_drives) for p in parent_ids]
    drive_id = resolved[0][1]
    parents = [r[0] for r in resolved]
    if body.id:
        # Only ids reserved by generateIds are usable; checked before existence, so an id cannot probe for others' files.
        if ctx.store.get(GENERATED_IDS.name, {"id": body.id}) is None:
            raise bad_request("The provided file ID is not usable.", "fileIdNotUsable")
        if acc.file(body.id) is not None:
            raise ServiceError(409, "A file already exists with the provided ID.", reason="duplicate")
        ctx.store.delete(GENERATED_IDS.name, {"id": body.id})
    doc_text = None
    if mime == GDOC:
        doc_text = import_text(data, source_mime) if media else ""
        data = b""
    elif mime.startswith(GOOGLE_PREFIX) and mime != FOLDER:
        raise bad_request(f"This server only creates folders and Google Docs among Google types, not {mime}.", "badRequest")
    if mime == FOLDER and media:
        raise bad_request("Folders cannot have content.", "badContent")
    t = now_ms(ctx)
    name = body.name if body.name is not None else ("Untitled" if not media else (body.originalFilename or "Untitled"))
    row = new_file(
        ctx, name=name, mime_type=mime, owner=None if drive_id else ctx.principal.id, parents=parents, drive_id=drive_id,
        data=data, doc_text=doc_text, file_id=body.id, description=body.description,
        properties=_clean_map(body.properties), app_properties=_clean_map(body.appProperties),
        starred_by=[ctx.principal.id] if body.starred else [], created_ms=_ms(ctx, body.createdTime) or t,
        modified_ms=_ms(ctx, body.modifiedTime) or t, modified_by=ctx.principal.id,
        writers_can_share=body.writersCanShare if body.writersCanShare is not None else True,
        copy_requires_writer=bool(body.copyRequiresWriterPermission or body.viewersCanCopyContent is False),
        original_filename=body.originalFilename if mime not in (FOLDER, GDOC) else None, folder_color=body.folderColorRgb,
        keep_forever=keep_forever,
    )  # fmt: skip
    ctx.store.update(FILES.name, {"id": row["id"]}, {"modified_by_me": {ctx.principal.id: t}, "viewed": {ctx.principal.id: t}})
    return row


@tool(
    ToolKind.WRITE,
    name="drive_files_create",
    rest=RestBinding("POST", f"{BASE}/files", body="body", media="media", upload_path="/upload/drive/v3/files"),
)
def files_create(
    ctx: ServiceContext,
    body: FileBody | None = None,
    media: dict[str, Any] | None = None,
    supports_all_drives: bool = False,
    keep_revision_forever: bool = False,
    supports_team_drives: Flag = False,
    ignore_default_visibility: Flag = False,
    use_content_as_indexable_text: Flag = False,
    ocr_language: OptStr = None,
    enforce_single_parent: Flag = False,
    include_labels: OptStr = None,
    include_permissions_for_view: OptStr = None,
) -> dict[str, Any]:
    """Create a file, folder or Google Doc, optionally with content.

    Args:
        body: metadata, e.g. {"name": "Plan.txt", "parents": ["FOLDER_ID"], "mimeType": "text/plain"};
            mimeType 'application/vnd.google-apps.folder' makes a folder, 'application/vnd.google-apps.document' a Google Doc
            (uploaded text becomes its paragraphs).
        media: the content: {"mimeType": "text/plain", "text": "..."} or {"mimeType": ..., "data": "<base64>"}.
        supports_all_drives: set true to create inside a shared drive.
        keep_revision_forever: keep the first revision forever.
    """
    _check_writable(body, creating=True)
    acc = Access(ctx)
    tracker = ChangeTracker(ctx, [])
    row = _create(ctx, acc, body or FileBody(), media, supports_all_drives or supports_team_drives, keep_revision_forever)
    tracker.add([row["id"]])
    tracker.before[row["id"]] = (set(), row["drive_id"])
    tracker.commit()
    acc = Access(ctx)
    row = acc.file(row["id"]) or row
    core.deliver_share(ctx, acc, row, acc.audience(row, exclude=ctx.principal.email))
    return core.file_resource(ctx, acc, row)


def _set_trashed(ctx: ServiceContext, acc: Access, row: dict[str, Any], trashed: bool) -> list[str]:
    """Trash or restore a file and (implicitly) its descendants; returns the ids touched."""
    t = now_ms(ctx)
    touched = [row["id"]]
    if trashed:
        ctx.store.update(FILES.name, {"id": row["id"]}, {"trashed": True, "explicitly_trashed": True, "trashed_ms": t, "trashed_by": ctx.principal.id})
        for child in acc.descendants(row["id"]) if row["mime_type"] == FOLDER else []:
            if not child["trashed"]:
                ctx.store.update(FILES.name, {"id": child["id"]}, {"trashed": True, "explicitly_trashed": False, "trashed_ms": t, "trashed_by": ctx.principal.id})
                touched.append(child["id"])
    else:
        ctx.store.update(FILES.name, {"id": row["id"]}, {"trashed": False, "explicitly_trashed": False, "trashed_ms": None, "trashed_by": None})
        for child in acc.descendants(row["id"]) if row["mime_type"] == FOLDER else []:
            if child["trashed"] and not child["explicitly_trashed"]:
                ctx.store.update(FILES.name, {"id": child["id"]}, {"trashed": False, "trashed_ms": None, "trashed_by": None})
                touched.append(child["id"])
    return touched


@tool(
    ToolKind.WRITE,
    name="drive_files_update",
    rest=RestBinding("PATCH", f"{BASE}/files/{{fileId}}", body="body", media="media", upload_path="/upload/drive/v3/files/{fileId}"),
)
def files_update(
    ctx: ServiceContext,
    file_id: str,
    body: FileBody | None = None,
    media: dict[str, Any] | None = None,
    add_parents: str | None = None,
    remove_parents: str | None = None,
    supports_all_drives: bool = False,
    keep_revision_forever: bool = False,
    supports_team_drives: Flag = False,
    use_content_as_indexable_text: Flag = False,
    ocr_language: OptStr = None,
    enforce_single_parent: Flag = False,
    include_labels: OptStr = None,
    include_permissions_for_view: OptStr = None,
) -> dict[str, Any]:
    """Update a file's metadata (rename, describe, star, trash or restore), move it, or replace its content.

    Args:
        file_id: the file id.
        body: the fields to change, e.g. {"name": "New name"}, {"trashed": true}, {"starred": true},
            {"description": "..."}, {"properties": {"key": "value"}}.
        media: new content: {"mimeType": "text/plain", "text": "..."} or {"mimeType": ..., "data": "<base64>"}.
        add_parents: comma-separated folder ids to move the file into.
        remove_parents: comma-separated folder ids to take the file out of.
        supports_all_drives: set true for items in shared drives.
        keep_revision_forever: keep the new content revision forever.
    """
    _check_writable(body, creating=False)
    body = body or FileBody()
    acc = Access(ctx)
    row = acc.readable(file_id, READER, supports_all_drives or supports_team_drives)
    role = acc.role(row)
    sent = body.model_fields_set
    shared_drive = bool(row["drive_id"])
    editing = bool(sent - {"starred", "trashed", "kind"}) or media is not None or add_parents or remove_parents
    if editing and role < WRITER:
        raise insufficient()
    if shared_drive and (add_parents or remove_parents) and role < FILE_ORGANIZER:  # contributors cannot move shared-drive items
        raise insufficient()
    if "writersCanShare" in sent and role < (ORGANIZER if shared_drive else OWNER):
        raise insufficient()
    tracker = ChangeTracker(ctx, [file_id])
    audience_before = set(acc.audience(row))
    changes: dict[str, Any] = {}
    touched = [file_id]
    if "name" in sent and body.name is not None:
        if not body.name.strip():
            raise bad_request("The file name must not be empty.", "invalid")
        changes["name"] = body.name
    if "description" in sent:
        changes["description"] = body.description
    if "properties" in sent:
        changes["properties"] = _clean_map(body.properties, row["properties"])
    if "appProperties" in sent:
        changes["app_properties"] = _clean_map(body.appProperties, row["app_properties"])
    if "writersCanShare" in sent and body.writersCanShare is not None:
        changes["writers_can_share"] = body.writersCanShare
    if "copyRequiresWriterPermission" in sent and body.copyRequiresWriterPermission is not None:
        changes["copy_requires_writer"] = body.copyRequiresWriterPermission
    if "viewersCanCopyContent" in sent and body.viewersCanCopyContent is not None:
        changes["copy_requires_writer"] = not body.viewersCanCopyContent
    if "folderColorRgb" in sent and row["mime_type"] == FOLDER:
        changes["folder_color"] = body.folderColorRgb
    if "originalFilename" in sent:
        changes["original_filename"] = body.originalFilename
    if "mimeType" in sent and body.mimeType and body.mimeType != row["mime_type"]:
        if row["mime_type"].startswith(GOOGLE_PREFIX) or body.mimeType.startswith(GOOGLE_PREFIX):
            raise ServiceError(403, "The mimeType of a Google Docs Editors file or folder cannot be changed.", reason="fieldNotWritable")
        changes["mime_type"] = body.mimeType
    if "parents" in sent:
        raise ServiceError(403, "The parents field is not directly writable in update requests. Use the addParents and removeParents parameters instead.", reason="fieldNotWritable")
    if "starred" in sent and body.starred is not None:
        starred = set(row["starred_by"])
        starred.add(ctx.principal.id) if body.starred else starred.discard(ctx.principal.id)
        changes["starred_by"] = sorted(starred)
    if add_parents or remove_parents:
        parents = [p for p in row["parents"] if p not in set(_parents_arg(remove_parents))]
        for raw in _parents_arg(remove_parents):
            pid = core.root_id(ctx.principal.id) if raw == "root" else raw
            if pid not in row["parents"]:
                raise bad_request(f"The parent {raw} is not a parent of the file.", "invalid")
            parents = [p for p in parents if p != pid]
        for raw in _parents_arg(add_parents):
            pid, drive = resolve_parent(ctx, acc, raw, supports_all_drives or supports_team_drives)
            if drive != row["drive_id"]:
                raise ServiceError(403, "Moving items between My Drive and shared drives is not supported by this server.", reason="teamDrivesParentLimit")
            if pid not in parents:
                parents.append(pid)
        if len(parents) > 1:
            raise ServiceError(403, "Increasing the number of parents is not allowed.", reason="cannotAddParent")
        if shared_drive and not parents:
            raise ServiceError(403, "A shared drive item must have exactly one parent.", reason="teamDrivesParentLimit")
        if row["mime_type"] == FOLDER and any(d["id"] in parents for d in [row, *acc.descendants(row["id"])]):
            raise bad_request("A folder cannot be moved into itself or one of its descendants.", "invalid")
        changes["parents"] = parents
        tracker.add([d["id"] for d in acc.descendants(row["id"])] if row["mime_type"] == FOLDER else [])
    if "trashed" in sent and body.trashed is not None and body.trashed != row["trashed"]:
        can_trash = role >= FILE_ORGANIZER if shared_drive else role == OWNER
        if not can_trash:
            raise insufficient()
        if row["mime_type"] == FOLDER:
            tracker.add([d["id"] for d in acc.descendants(row["id"])])
        touched = _set_trashed(ctx, acc, row, body.trashed)
    if changes:
        ctx.store.update(FILES.name, {"id": file_id}, changes)
    if media is not None:
        if row["mime_type"] == FOLDER:
            raise bad_request("Folders cannot have content.", "badContent")
        data = decode_media(media)
        if row["mime_type"] == GDOC:
            handler_for(GDOC).replace_text(ctx, file_id, import_text(data, media.get("mimeType") or "text/plain"))
        else:
            content, encoding = core.store_bytes(data)
            ctx.store.update(FILES.name, {"id": file_id}, {"content": content, "encoding": encoding})
        content_changed(ctx, file_id, keep_forever=keep_revision_forever)
    elif editing:
        bump(ctx, file_id)
    elif touched != [file_id] or "trashed" in sent or "starred" in sent:
        ctx.store.update(FILES.name, {"id": file_id}, {"version": row["version"] + 1})
    tracker.add(touched)
    tracker.commit()
    acc = Access(ctx)
    row = acc.file(file_id) or row
    if "parents" in changes:
        gained = tuple(r for r in acc.audience(row) if r not in audience_before)
        core.deliver_share(ctx, acc, row, gained)
    return core.file_resource(ctx, acc, row)


@tool(ToolKind.WRITE, name="drive_files_copy", rest=RestBinding("POST", f"{BASE}/files/{{fileId}}/copy", body="body"))
def files_copy(
    ctx: ServiceContext,
    file_id: str,
    body: FileBody | None = None,
    supports_all_drives: bool = False,
    keep_revision_forever: bool = False,
    supports_team_drives: Flag = False,
    ignore_default_visibility: Flag = False,
    ocr_language: OptStr = None,
    enforce_single_parent: Flag = False,
    include_labels: OptStr = None,
    include_permissions_for_view: OptStr = None,
    copy_comments: Flag = False,
) -> dict[str, Any]:
    """Copy a file (not a folder); the copy belongs to the principal.

    Args:
        file_id: the file to copy.
        body: metadata of the copy, e.g. {"name": "Copy", "parents": ["FOLDER_ID"]}; default name 'Copy of <name>'.
        supports_all_drives: set true for items in shared drives.
        keep_revision_forever: keep the copy's first revision forever.
    """
    _check_writable(body, creating=True)
    body = body or FileBody()
    acc = Access(ctx)
    row = acc.readable(file_id, READER, supports_all_drives or supports_team_drives)
    if row["mime_type"] == FOLDER:
        raise ServiceError(403, "This file cannot be copied by the user.", reason="cannotCopyFile")
    if row["copy_requires_writer"] and acc.role(row) < WRITER:
        raise ServiceError(403, "This file cannot be copied by the user.", reason="cannotCopyFile")
    parents = body.parents
    if parents is None:
        parents = ["root"]
        for pid in row["parents"]:
            parent = acc.file(pid)
            if parent is not None and acc.role(parent) >= WRITER:
                parents = [pid]
    meta = body.model_copy(update={
        "name": body.name if body.name is not None else f"Copy of {row['name']}",
        "mimeType": row["mime_type"], "parents": parents,
        "description": body.description if body.description is not None else row["description"],
        "properties": body.properties if body.properties is not None else row["properties"],
    })  # fmt: skip
    media = None
    if row["mime_type"] != GDOC:
        media = {"mimeType": row["mime_type"], "data": base64.b64encode(core.file_bytes(row)).decode()}
    new = _create(ctx, acc, meta, media, supports_all_drives or supports_team_drives, keep_revision_forever)
    if row["mime_type"] == GDOC:
        handler_for(GDOC).copy(ctx, file_id, new["id"])
    tracker = ChangeTracker(ctx, [])
    tracker.before[new["id"]] = (set(), new["drive_id"])
    tracker.commit()
    acc = Access(ctx)
    new = acc.file(new["id"]) or new
    core.deliver_share(ctx, acc, new, acc.audience(new, exclude=ctx.principal.email))
    return core.file_resource(ctx, acc, new)


def _delete_tree(ctx: ServiceContext, acc: Access, row: dict[str, Any]) -> list[str]:
    """Delete a file; a folder takes along the descendants of the same owner (or drive); others are orphaned."""
    gone = [row["id"]]
    if row["mime_type"] == FOLDER:
        for child in acc.descendants(row["id"]):
            if child["owner"] == row["owner"] and child["drive_id"] == row["drive_id"]:
                gone.append(child["id"])
    gone_set = set(gone)
    for r in ctx.store.select(FILES.name):
        if r["id"] not in gone_set and gone_set & set(r["parents"]):
            ctx.store.update(FILES.name, {"id": r["id"]}, {"parents": [p for p in r["parents"] if p not in gone_set]})
    for fid in gone:
        purge(ctx, fid)
    return gone


@tool(ToolKind.WRITE, name="drive_files_emptyTrash", rest=RestBinding("DELETE", f"{BASE}/files/trash", status=204))
def files_empty_trash(ctx: ServiceContext, drive_id: str | None = None, enforce_single_parent: Flag = False) -> None:
    """Permanently delete every trashed file the principal owns (or, with drive_id, of that shared drive).

    Args:
        drive_id: a shared drive whose trash to empty (organizers only).
    """
    acc = Access(ctx)
    if drive_id:
        role = max((core.ROLE_RANK[p["role"]] for p in acc.perms(drive_id) if acc.matches(p, ctx.principal)), default=0)
        if role == 0:
            raise ServiceError(404, f"Shared drive not found: {drive_id}", reason="notFound", denied=core.drive_row(ctx, drive_id) is not None)
        if role < ORGANIZER:
            raise insufficient("The user does not have sufficient permissions for this shared drive.")
        rows = [r for r in ctx.store.select(FILES.name) if r["drive_id"] == drive_id and r["explicitly_trashed"]]
    else:
        rows = [r for r in ctx.store.select(FILES.name) if r["owner"] == ctx.principal.id and r["explicitly_trashed"] and not r["drive_id"]]
    ids = [r["id"] for r in rows]
    for r in rows:
        if r["mime_type"] == FOLDER:
            ids += [d["id"] for d in acc.descendants(r["id"])]
    tracker = ChangeTracker(ctx, ids)
    for r in rows:
        fresh = Access(ctx).file(r["id"])
        if fresh is not None:
            _delete_tree(ctx, Access(ctx), fresh)
    tracker.commit()
    return None


@tool(ToolKind.WRITE, name="drive_files_delete", rest=RestBinding("DELETE", f"{BASE}/files/{{fileId}}", status=204))
def files_delete(
    ctx: ServiceContext,
    file_id: str,
    supports_all_drives: bool = False,
    supports_team_drives: Flag = False,
    enforce_single_parent: Flag = False,
) -> None:
    """Permanently delete a file the principal owns (skipping the trash); a folder takes its owner's files along.

    Args:
        file_id: the file id.
        supports_all_drives: set true for items in shared drives.
    """
    acc = Access(ctx)
    row = acc.readable(file_id, READER, supports_all_drives or supports_team_drives)
    role = acc.role(row)
    if role < (ORGANIZER if row["drive_id"] else OWNER):
        raise insufficient()
    ids = [row["id"]] + ([d["id"] for d in acc.descendants(row["id"])] if row["mime_type"] == FOLDER else [])
    tracker = ChangeTracker(ctx, ids)
    _delete_tree(ctx, acc, row)
    tracker.commit()
    return None


@tool(ToolKind.WRITE, name="drive_files_generateIds", rest=RestBinding("GET", f"{BASE}/files/generateIds"))
def files_generate_ids(
    ctx: ServiceContext,
    count: int = Field(default=10, ge=1, le=1000),
    space: Literal["drive", "appDataFolder"] = "drive",
    type: Literal["files", "shortcuts"] = "files",
) -> dict[str, Any]:
    """Reserve file ids to pass as `id` in files.create.

    Args:
        count: how many ids (1-1000).
        space: 'drive' or 'appDataFolder'.
        type: 'files' or 'shortcuts'.
    """
    ids = []
    for _ in range(count):
        fid = "1" + ctx.world.ids.next("drive.file", 32)
        ctx.store.insert(GENERATED_IDS.name, {"id": fid, "principal": ctx.principal.id})
        ids.append(fid)
    return {"kind": "drive#generatedIds", "space": space, "ids": ids}


@tool(ToolKind.READ, name="drive_files_listLabels", rest=RestBinding("GET", f"{BASE}/files/{{fileId}}/listLabels"))
def files_list_labels(ctx: ServiceContext, file_id: str, max_results: int = Field(default=100, ge=1, le=100), page_token: str | None = None) -> dict[str, Any]:
    """List the Drive labels applied to a file (none are used in this workspace).

    Args:
        file_id: the file id.
        max_results: page size.
        page_token: the nextPageToken of the previous page.
    """
    Access(ctx).readable(file_id, READER)
    return {"kind": "drive#labelList", "labels": []}


# ---- agent conveniences (same internals) ---------------------------------------------------------
@tool(ToolKind.READ, name="drive_read_file")
def read_file(ctx: ServiceContext, file_id: str) -> dict[str, Any]:
    """Read a file's name, type, owners and text content (a Google Doc as plain text).

    Args:
        file_id: the file id (from drive_files_list).
    """
    acc = Access(ctx)
    row = acc.readable(file_id, READER)
    res = core.file_resource(ctx, acc, row)
    if row["mime_type"] == FOLDER:
        text = None
    elif row["mime_type"].startswith(GOOGLE_PREFIX) or row["encoding"] == "text":
        text = core.text_of(ctx, row)
    else:
        text = None
    return {
        "id": row["id"], "name": row["name"], "mimeType": row["mime_type"], "parents": row["parents"],
        "owners": [o.get("emailAddress") for o in res.get("owners", [])], "modifiedTime": res["modifiedTime"],
        "trashed": row["trashed"], "text": text, "binary": text is None and row["mime_type"] != FOLDER,
    }  # fmt: skip


TOOLS = (
    files_list, files_generate_ids, files_empty_trash, files_get, files_export, files_create, files_update,
    files_copy, files_delete, files_list_labels, read_file,
)  # fmt: skip
