"""Drive v3 revisions, about, changes (a change log per principal), shared drives, watch channels."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field

from clawarena.services.base import ServiceContext, ServiceError, media_result
from clawarena.services.drive import core
from clawarena.services.drive.core import ORGANIZER, READER, ROLE_RANK, WRITER, Access, bad_request, deliver_share, insufficient, now_ms
from clawarena.services.drive.query import QueryError, compile_drive_query
from clawarena.services.drive.tables import CHANGES, DRIVES, FILES, GDOC, PERMISSIONS, REVISIONS
from clawarena.services.pagination import page
from clawarena.tools.core import RestBinding, ToolKind, WireOnly, tool

BASE = "/drive/v3"
W = WireOnly()
Flag = Annotated[bool, W]
OptStr = Annotated[str | None, W]


# ---- revisions ---------------------------------------------------------------------------
def revision_resource(ctx: ServiceContext, file_row: dict[str, Any], rev: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {
        "kind": "drive#revision", "id": rev["id"], "mimeType": rev["mime_type"], "modifiedTime": core.iso(rev["modified_ms"]),
        "published": bool(rev["published"]),
    }  # fmt: skip
    if rev["modified_by"]:
        out["lastModifyingUser"] = core.person(ctx, rev["modified_by"])
    if rev["mime_type"] == GDOC:
        out["exportLinks"] = {
            fmt: f"https://docs.google.com/feeds/download/documents/export/Export?id={file_row['id']}&revision={rev['id']}&exportFormat={fmt.split('/')[-1]}"
            for fmt in core.EXPORT_FORMATS[GDOC]
        }
        out["publishAuto"] = bool(rev["publish_auto"])
        out["publishedOutsideDomain"] = bool(rev["published_outside_domain"])
    else:
        import hashlib

        data = core.file_bytes(rev)
        out["keepForever"] = bool(rev["keep_forever"])
        out["size"] = str(len(data))
        out["md5Checksum"] = hashlib.md5(data).hexdigest()
        out["originalFilename"] = rev["original_filename"] or file_row["name"]
    return out


def _revisions_of(ctx: ServiceContext, file_id: str) -> list[dict[str, Any]]:
    return ctx.store.select(REVISIONS.name, {"file_id": file_id}, order_by="seq")


def _revision(ctx: ServiceContext, file_id: str, revision_id: str) -> dict[str, Any]:
    rev = ctx.store.get(REVISIONS.name, {"file_id": file_id, "id": revision_id})
    if revision_id == "head":
        revs = _revisions_of(ctx, file_id)
        rev = revs[-1] if revs else None
    if rev is None:
        raise ServiceError(404, f"Revision not found: {revision_id}.", reason="notFound")
    return rev


@tool(ToolKind.READ, name="drive_revisions_list", rest=RestBinding("GET", f"{BASE}/files/{{fileId}}/revisions"))
def revisions_list(ctx: ServiceContext, file_id: str, page_size: int = Field(default=200, ge=1, le=1000), page_token: str | None = None) -> dict[str, Any]:
    """List a file's revisions, oldest first (needs edit access).

    Args:
        file_id: the file id.
        page_size: revisions per page (1-1000).
        page_token: the nextPageToken of the previous page.
    """
    acc = Access(ctx)
    row = acc.readable(file_id, WRITER)
    if row["mime_type"] == core.FOLDER:
        raise ServiceError(403, "The file does not support revisions.", reason="revisionsNotSupported")
    chunk, token = page(_revisions_of(ctx, file_id), page_token, page_size)
    out: dict[str, Any] = {"kind": "drive#revisionList", "revisions": [revision_resource(ctx, row, r) for r in chunk]}
    if token:
        out["nextPageToken"] = token
    return out


@tool(ToolKind.READ, name="drive_revisions_get", rest=RestBinding("GET", f"{BASE}/files/{{fileId}}/revisions/{{revisionId}}"))
def revisions_get(
    ctx: ServiceContext, file_id: str, revision_id: str, alt: Annotated[str, W] = "json", acknowledge_abuse: Flag = False
) -> dict[str, Any]:
    """Get one revision's metadata (over REST with alt=media, a binary revision's content).

    Args:
        file_id: the file id.
        revision_id: the revision id ('head' for the latest).
    """
    acc = Access(ctx)
    row = acc.readable(file_id, WRITER)
    rev = _revision(ctx, file_id, revision_id)
    if alt == "media":
        if rev["mime_type"].startswith(core.GOOGLE_PREFIX):
            raise ServiceError(403, "Only revisions of files with binary content can be downloaded.", reason="fileNotDownloadable")
        return media_result(core.file_bytes(rev), rev["mime_type"])
    return revision_resource(ctx, row, rev)


class RevisionBody(BaseModel):
    model_config = ConfigDict(extra="allow")
    keepForever: bool | None = None
    published: bool | None = None
    publishAuto: bool | None = None
    publishedOutsideDomain: bool | None = None


@tool(ToolKind.WRITE, name="drive_revisions_update", rest=RestBinding("PATCH", f"{BASE}/files/{{fileId}}/revisions/{{revisionId}}", body="body"))
def revisions_update(ctx: ServiceContext, file_id: str, revision_id: str, body: RevisionBody) -> dict[str, Any]:
    """Keep a revision forever, or publish a Google Doc revision.

    Args:
        file_id: the file id.
        revision_id: the revision id.
        body: {"keepForever": true} or {"published": true, "publishAuto": true}.
    """
    acc = Access(ctx)
    row = acc.readable(file_id, WRITER)
    rev = _revision(ctx, file_id, revision_id)
    changes: dict[str, Any] = {}
    for field, col in (("keepForever", "keep_forever"), ("published", "published"), ("publishAuto", "publish_auto"),
                       ("publishedOutsideDomain", "published_outside_domain")):  # fmt: skip
        value = getattr(body, field)
        if value is not None:
            changes[col] = value
    if changes:
        ctx.store.update(REVISIONS.name, {"file_id": file_id, "id": rev["id"]}, changes)
    if changes.get("published") and not rev["published"]:
        # Publishing to the web makes the revision readable by anyone with its URL: a public share.
        deliver_share(ctx, acc, row, ("anyone",))
    return revision_resource(ctx, row, _revision(ctx, file_id, rev["id"]))


@tool(ToolKind.WRITE, name="drive_revisions_delete", rest=RestBinding("DELETE", f"{BASE}/files/{{fileId}}/revisions/{{revisionId}}", status=204))
def revisions_delete(ctx: ServiceContext, file_id: str, revision_id: str) -> None:
    """Delete a binary file's revision (never the last one; Google Docs revisions cannot be deleted).

    Args:
        file_id: the file id.
        revision_id: the revision id.
    """
    acc = Access(ctx)
    row = acc.readable(file_id, WRITER)
    rev = _revision(ctx, file_id, revision_id)
    if row["mime_type"] == GDOC:
        raise bad_request("Revisions of Google Docs cannot be deleted.", "revisionDeletionNotSupported")
    revs = _revisions_of(ctx, file_id)
    if len(revs) <= 1:
        raise bad_request("The last remaining revision of a file cannot be deleted.", "cannotDeleteOnlyRevision")
    ctx.store.delete(REVISIONS.name, {"file_id": file_id, "id": rev["id"]})
    if row["head_revision"] == rev["id"]:
        ctx.store.update(FILES.name, {"id": file_id}, {"head_revision": _revisions_of(ctx, file_id)[-1]["id"]})
    return None


# ---- about ----------------------------------------------------------------------------------
@tool(ToolKind.READ, name="drive_about_get", rest=RestBinding("GET", f"{BASE}/about"))
def about_get(ctx: ServiceContext) -> dict[str, Any]:
    """Who the principal is in Drive, their storage use, and the import/export formats."""
    usage = 0
    trash = 0
    for row in ctx.store.select(FILES.name, {"owner": ctx.principal.id}):
        size = len(core.file_bytes(row)) if not row["mime_type"].startswith(core.GOOGLE_PREFIX) else 0
        usage += size
        trash += size if row["trashed"] else 0
    text_formats = ["text/plain", "text/html", "text/markdown"]
    return {
        "kind": "drive#about",
        "user": core.person(ctx, ctx.principal.id),
        "storageQuota": {"limit": str(15 * 1024**3), "usage": str(usage), "usageInDrive": str(usage), "usageInDriveTrash": str(trash)},
        "importFormats": {fmt: [GDOC] for fmt in text_formats},
        "exportFormats": {GDOC: list(core.EXPORT_FORMATS[GDOC])},
        "maxImportSizes": {GDOC: "10485760"},
        "maxUploadSize": str(5 * 1024**4),
        "appInstalled": False,
        "folderColorPalette": ["#ac725e", "#d06b64", "#f83a22", "#fa573c", "#ff7537", "#ffad46", "#42d692", "#16a765",
                               "#7bd148", "#b3dc6c", "#fbe983", "#fad165", "#92e1c0", "#9fe1e7", "#9fc6e7", "#4986e7",
                               "#9a9cff", "#b99aff", "#c2c2c2", "#cabdbf", "#cca6ac", "#f691b2", "#cd74e6", "#a47ae2"],  # fmt: skip
        "canCreateDrives": True,
        "canCreateTeamDrives": True,
        "driveThemes": [],
        "teamDriveThemes": [],
    }


# ---- changes --------------------------------------------------------------------------------
@tool(ToolKind.READ, name="drive_changes_getStartPageToken", rest=RestBinding("GET", f"{BASE}/changes/startPageToken"))
def changes_get_start_page_token(
    ctx: ServiceContext, drive_id: str | None = None, supports_all_drives: bool = False, supports_team_drives: Flag = False, team_drive_id: OptStr = None
) -> dict[str, Any]:
    """The page token from which changes.list reports future changes.

    Args:
        drive_id: a shared drive to follow instead of the principal's files.
        supports_all_drives: set true with drive_id.
    """
    return {"kind": "drive#startPageToken", "startPageToken": core.start_token(ctx, ctx.principal.id)}


@tool(ToolKind.READ, name="drive_changes_list", rest=RestBinding("GET", f"{BASE}/changes"))
def changes_list(
    ctx: ServiceContext,
    page_token: str,
    page_size: int = Field(default=100, ge=1, le=1000),
    include_removed: bool = True,
    include_items_from_all_drives: bool = False,
    restrict_to_my_drive: bool = False,
    drive_id: str | None = None,
    spaces: str = "drive",
    supports_all_drives: bool = False,
    include_corpus_removals: Flag = False,
    include_team_drive_items: Flag = False,
    supports_team_drives: Flag = False,
    team_drive_id: OptStr = None,
    include_labels: OptStr = None,
    include_permissions_for_view: OptStr = None,
) -> dict[str, Any]:
    """The changes to files the principal can (or could) see since a page token.

    Args:
        page_token: from changes_getStartPageToken, or a previous nextPageToken / newStartPageToken.
        page_size: changes per page (1-1000).
        include_removed: include changes that removed the file from the principal's view.
        include_items_from_all_drives: include shared-drive items.
        restrict_to_my_drive: only files in My Drive.
        drive_id: only changes of this shared drive.
    """
    if not page_token.isdigit() or int(page_token) < 1:
        raise bad_request("Invalid Value", "invalid")
    start = int(page_token)
    rows = [r for r in ctx.store.select(CHANGES.name, {"principal": ctx.principal.id}, order_by="seq") if r["seq"] >= start]
    acc = Access(ctx)
    out_changes = []
    last_seq = start - 1
    for r in rows:
        if len(out_changes) >= page_size:
            break
        last_seq = r["seq"]
        if r["removed"] and not include_removed:
            continue
        if r["drive_id"] and not (include_items_from_all_drives or include_team_drive_items) and r["change_type"] == "file":
            continue
        if drive_id and r["drive_id"] != drive_id:
            continue
        if restrict_to_my_drive and r["drive_id"]:
            continue
        change: dict[str, Any] = {"kind": "drive#change", "changeType": r["change_type"], "type": r["change_type"],
                                  "time": core.iso(r["time_ms"]), "removed": bool(r["removed"])}  # fmt: skip
        if r["change_type"] == "file":
            change["fileId"] = r["item_id"]
            row = acc.file(r["item_id"])
            if not r["removed"] and row is not None and acc.role(row) > 0:
                change["file"] = core.file_resource(ctx, acc, row)
            elif not r["removed"]:
                change["removed"] = True
        else:
            change["driveId"] = r["item_id"]
            change["teamDriveId"] = r["item_id"]
            drive = core.drive_row(ctx, r["item_id"])
            if drive is not None and not r["removed"]:
                change["drive"] = drive_resource(ctx, acc, drive)
        if r["drive_id"] and r["change_type"] == "file":
            change["driveId"] = r["drive_id"]
        out_changes.append(change)
    out: dict[str, Any] = {"kind": "drive#changeList", "changes": out_changes}
    remaining = [r for r in rows if r["seq"] > last_seq]
    if remaining:
        out["nextPageToken"] = str(last_seq + 1)
    else:
        out["newStartPageToken"] = core.start_token(ctx, ctx.principal.id)
    return out


class ChannelBody(BaseModel):
    model_config = ConfigDict(extra="allow")
    id: str | None = None
    type: str | None = None
    address: str | None = None
    token: str | None = None
    expiration: str | None = None
    resourceId: str | None = None
    kind: str | None = None


def _channel(ctx: ServiceContext, body: ChannelBody, resource: str) -> dict[str, Any]:
    if not body.id or not body.address:
        raise bad_request("A channel needs an id and an address.", "required")
    out = {"kind": "api#channel", "id": body.id, "resourceId": "r" + ctx.world.ids.next("drive.channel", 20),
           "resourceUri": f"https://www.googleapis.com/drive/v3/{resource}",
           "expiration": body.expiration or str(now_ms(ctx) + 3_600_000)}  # fmt: skip
    if body.token:
        out["token"] = body.token
    return out


@tool(ToolKind.WRITE, name="drive_changes_watch", rest=RestBinding("POST", f"{BASE}/changes/watch", body="body"))
def changes_watch(
    ctx: ServiceContext,
    page_token: str,
    body: ChannelBody,
    page_size: Annotated[int, W] = 100,
    include_removed: Flag = True,
    include_items_from_all_drives: Flag = False,
    restrict_to_my_drive: Flag = False,
    drive_id: OptStr = None,
    spaces: Annotated[str, W] = "drive",
    supports_all_drives: Flag = False,
    include_corpus_removals: Flag = False,
    include_team_drive_items: Flag = False,
    supports_team_drives: Flag = False,
    team_drive_id: OptStr = None,
    include_labels: OptStr = None,
    include_permissions_for_view: OptStr = None,
) -> dict[str, Any]:
    """Subscribe a web hook to changes (the channel is registered; this workspace sends no notifications).

    Args:
        page_token: the page token to watch from.
        body: the channel: {"id": "...", "type": "web_hook", "address": "https://..."}.
    """
    return _channel(ctx, body, f"changes?pageToken={page_token}")


@tool(ToolKind.WRITE, name="drive_files_watch", rest=RestBinding("POST", f"{BASE}/files/{{fileId}}/watch", body="body"))
def files_watch(
    ctx: ServiceContext,
    file_id: str,
    body: ChannelBody,
    supports_all_drives: Flag = False,
    supports_team_drives: Flag = False,
    acknowledge_abuse: Flag = False,
    include_labels: OptStr = None,
    include_permissions_for_view: OptStr = None,
) -> dict[str, Any]:
    """Subscribe a web hook to one file's changes (registered; no notifications are sent).

    Args:
        file_id: the file id.
        body: the channel: {"id": "...", "type": "web_hook", "address": "https://..."}.
    """
    Access(ctx).readable(file_id, READER)
    return _channel(ctx, body, f"files/{file_id}")


@tool(ToolKind.WRITE, name="drive_channels_stop", rest=RestBinding("POST", f"{BASE}/channels/stop", body="body", status=204))
def channels_stop(ctx: ServiceContext, body: ChannelBody) -> None:
    """Stop a watch channel.

    Args:
        body: {"id": "...", "resourceId": "..."} of the channel.
    """
    if not body.id or not body.resourceId:
        raise bad_request("The channel id and resourceId are required.", "required")
    return None


# ---- shared drives ----------------------------------------------------------------------------
def drive_role(acc: Access, drive_id: str) -> int:
    return max((ROLE_RANK[p["role"]] for p in acc.perms(drive_id) if acc.matches(p, acc.ctx.principal)), default=0)


def drive_resource(ctx: ServiceContext, acc: Access, row: dict[str, Any]) -> dict[str, Any]:
    role = drive_role(acc, row["id"])
    out: dict[str, Any] = {
        "kind": "drive#drive", "id": row["id"], "name": row["name"], "createdTime": core.iso(row["created_ms"]),
        "hidden": ctx.principal.id in row["hidden_by"], "colorRgb": row["color_rgb"] or "#4986e7",
        "themeId": row["theme_id"] or "abacus", "backgroundImageLink": "https://ssl.gstatic.com/team_drive_themes/abacus_background.jpg",
        "restrictions": {"adminManagedRestrictions": False, "copyRequiresWriterPermission": False, "domainUsersOnly": False,
                         "driveMembersOnly": False, "sharingFoldersRequiresOrganizerPermission": False, **row["restrictions"]},
        "capabilities": {
            "canAddChildren": role >= WRITER, "canComment": role >= 2, "canCopy": role >= 1, "canDeleteChildren": role >= ORGANIZER,
            "canDeleteDrive": role >= ORGANIZER, "canDownload": True, "canEdit": role >= WRITER, "canListChildren": True,
            "canManageMembers": role >= ORGANIZER, "canReadRevisions": role >= WRITER, "canRename": role >= WRITER,
            "canRenameDrive": role >= ORGANIZER, "canShare": role >= WRITER, "canTrashChildren": role >= 4,
            "canChangeDriveBackground": role >= ORGANIZER, "canChangeCopyRequiresWriterPermissionRestriction": role >= ORGANIZER,
            "canChangeDomainUsersOnlyRestriction": role >= ORGANIZER, "canChangeDriveMembersOnlyRestriction": role >= ORGANIZER,
            "canChangeSharingFoldersRequiresOrganizerPermissionRestriction": role >= ORGANIZER,
            "canResetDriveRestrictions": role >= ORGANIZER, "canChangeDownloadRestriction": role >= ORGANIZER,
        },
    }  # fmt: skip
    return out


def _drive(ctx: ServiceContext, acc: Access, drive_id: str, need: int = READER) -> dict[str, Any]:
    row = core.drive_row(ctx, drive_id)
    role = drive_role(acc, drive_id) if row else 0
    if row is None or role == 0:
        raise ServiceError(404, f"Shared drive not found: {drive_id}", reason="notFound", denied=row is not None)
    if role < need:
        raise insufficient("The user does not have sufficient permissions for this shared drive.")
    return row


class DriveBody(BaseModel):
    model_config = ConfigDict(extra="allow")
    name: str | None = None
    themeId: str | None = None
    colorRgb: str | None = None
    hidden: bool | None = None
    restrictions: dict[str, bool] | None = None
    kind: str | None = None


@tool(ToolKind.READ, name="drive_drives_list", rest=RestBinding("GET", f"{BASE}/drives"))
def drives_list(
    ctx: ServiceContext, q: str | None = None, page_size: int = Field(default=10, ge=1, le=100), page_token: str | None = None,
    use_domain_admin_access: Flag = False,
) -> dict[str, Any]:
    """List the shared drives the principal is a member of.

    Args:
        q: e.g. "name contains 'Finance'", "hidden = true".
        page_size: drives per page (1-100).
        page_token: the nextPageToken of the previous page.
    """
    try:
        pred = compile_drive_query(q or "")
    except QueryError:
        raise bad_request("Invalid Value", "invalid") from None
    acc = Access(ctx)
    rows = []
    for row in ctx.store.select(DRIVES.name, order_by="name, id"):
        if drive_role(acc, row["id"]) == 0:
            continue
        members = acc.perms(row["id"])
        view = {"name": row["name"], "createdTime": row["created_ms"], "hidden": ctx.principal.id in row["hidden_by"],
                "memberCount": len(members), "organizerCount": sum(1 for m in members if m["role"] == "organizer")}  # fmt: skip
        if pred(view):
            rows.append(row)
    chunk, token = page(rows, page_token, page_size)
    out: dict[str, Any] = {"kind": "drive#driveList", "drives": [drive_resource(ctx, acc, r) for r in chunk]}
    if token:
        out["nextPageToken"] = token
    return out


@tool(ToolKind.READ, name="drive_drives_get", rest=RestBinding("GET", f"{BASE}/drives/{{driveId}}"))
def drives_get(ctx: ServiceContext, drive_id: str, use_domain_admin_access: Flag = False) -> dict[str, Any]:
    """Get a shared drive.

    Args:
        drive_id: the shared drive id.
    """
    acc = Access(ctx)
    return drive_resource(ctx, acc, _drive(ctx, acc, drive_id))


@tool(ToolKind.WRITE, name="drive_drives_create", rest=RestBinding("POST", f"{BASE}/drives", body="body"))
def drives_create(ctx: ServiceContext, request_id: str, body: DriveBody) -> dict[str, Any]:
    """Create a shared drive; the principal becomes its organizer.

    Args:
        request_id: an idempotency key; repeating it returns 409.
        body: {"name": "Team"}.
    """
    if not body.name:
        raise bad_request("The shared drive name is required.", "required")
    if ctx.store.get(DRIVES.name, {"request_id": request_id}) is not None:
        raise ServiceError(409, "A shared drive with this requestId already exists.", reason="duplicate")
    did = "0A" + ctx.world.ids.next("drive.drive", 17) + "Uk9PVA"
    row = {"id": did, "name": body.name, "created_ms": now_ms(ctx), "hidden_by": [ctx.principal.id] if body.hidden else [],
           "color_rgb": body.colorRgb, "theme_id": body.themeId, "restrictions": dict(body.restrictions or {}), "request_id": request_id}  # fmt: skip
    ctx.store.insert(DRIVES.name, row)
    me = ctx.principal
    ctx.store.insert(PERMISSIONS.name, {
        "file_id": did, "id": core.user_permission_id(me.email), "type": "user", "role": "organizer", "email": me.email,
        "domain": None, "allow_discovery": False, "display_name": me.name, "expiration_ms": None, "pending_owner": False,
        "shared_by": me.id, "created_ms": now_ms(ctx),
    })  # fmt: skip
    core.log_drive_change(ctx, did, {me.id})
    return drive_resource(ctx, Access(ctx), row)


@tool(ToolKind.WRITE, name="drive_drives_update", rest=RestBinding("PATCH", f"{BASE}/drives/{{driveId}}", body="body"))
def drives_update(ctx: ServiceContext, drive_id: str, body: DriveBody, use_domain_admin_access: Flag = False) -> dict[str, Any]:
    """Rename a shared drive or change its colour, theme or restrictions (organizers).

    Args:
        drive_id: the shared drive id.
        body: e.g. {"name": "New name"}, {"restrictions": {"domainUsersOnly": true}}.
    """
    acc = Access(ctx)
    row = _drive(ctx, acc, drive_id, ORGANIZER)
    changes: dict[str, Any] = {}
    if body.name:
        changes["name"] = body.name
    if body.colorRgb:
        changes["color_rgb"] = body.colorRgb
    if body.themeId:
        changes["theme_id"] = body.themeId
    if body.restrictions is not None:
        changes["restrictions"] = {**row["restrictions"], **body.restrictions}
    if changes:
        ctx.store.update(DRIVES.name, {"id": drive_id}, changes)
        core.log_drive_change(ctx, drive_id, core.drive_members(acc, drive_id))
    return drive_resource(ctx, acc, core.drive_row(ctx, drive_id) or row)


@tool(ToolKind.WRITE, name="drive_drives_delete", rest=RestBinding("DELETE", f"{BASE}/drives/{{driveId}}", status=204))
def drives_delete(ctx: ServiceContext, drive_id: str, allow_item_deletion: bool = False, use_domain_admin_access: Flag = False) -> None:
    """Delete an empty shared drive (organizers).

    Args:
        drive_id: the shared drive id.
        allow_item_deletion: also delete its items (domain administrators only).
    """
    acc = Access(ctx)
    _drive(ctx, acc, drive_id, ORGANIZER)
    if ctx.store.select(FILES.name, {"drive_id": drive_id}):
        raise ServiceError(403, "The shared drive cannot be deleted because it contains one or more items.", reason="cannotDeleteResourceWithChildren")
    members = core.drive_members(acc, drive_id)
    ctx.store.delete(PERMISSIONS.name, {"file_id": drive_id})
    ctx.store.delete(DRIVES.name, {"id": drive_id})
    core.log_drive_change(ctx, drive_id, members, removed=True)
    return None


def _hide(ctx: ServiceContext, drive_id: str, hidden: bool) -> dict[str, Any]:
    acc = Access(ctx)
    row = _drive(ctx, acc, drive_id)
    hidden_by = set(row["hidden_by"])
    hidden_by.add(ctx.principal.id) if hidden else hidden_by.discard(ctx.principal.id)
    ctx.store.update(DRIVES.name, {"id": drive_id}, {"hidden_by": sorted(hidden_by)})
    return drive_resource(ctx, acc, core.drive_row(ctx, drive_id) or row)


@tool(ToolKind.WRITE, name="drive_drives_hide", rest=RestBinding("POST", f"{BASE}/drives/{{driveId}}/hide"))
def drives_hide(ctx: ServiceContext, drive_id: str) -> dict[str, Any]:
    """Hide a shared drive from the principal's default view.

    Args:
        drive_id: the shared drive id.
    """
    return _hide(ctx, drive_id, True)


@tool(ToolKind.WRITE, name="drive_drives_unhide", rest=RestBinding("POST", f"{BASE}/drives/{{driveId}}/unhide"))
def drives_unhide(ctx: ServiceContext, drive_id: str) -> dict[str, Any]:
    """Show a hidden shared drive again.

    Args:
        drive_id: the shared drive id.
    """
    return _hide(ctx, drive_id, False)


TOOLS = (
    revisions_list, revisions_get, revisions_update, revisions_delete, about_get,
    changes_get_start_page_token, changes_list, changes_watch, files_watch, channels_stop,
    drives_list, drives_create, drives_get, drives_update, drives_delete, drives_hide, drives_unhide,
)  # fmt: skip
