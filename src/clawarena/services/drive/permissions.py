"""Drive v3 permissions: who may read, comment on, edit or own a file (or be a shared drive's member).

Sharing a file with a user, group, domain or anyone is a delivery: the file's
name and text leave the sharer's workspace.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from clawarena.services.base import ServiceContext, ServiceError
from clawarena.services.drive import core
from clawarena.services.drive.core import ORGANIZER, OWNER, READER, ROLE_RANK, WRITER, Access, ChangeTracker, bad_request, insufficient, now_ms
from clawarena.services.drive.files import bump
from clawarena.services.drive.tables import FILES, PERMISSIONS
from clawarena.services.pagination import page
from clawarena.tools.core import RestBinding, ToolKind, WireOnly, tool

BASE = "/drive/v3/files/{fileId}/permissions"
W = WireOnly()
Flag = Annotated[bool, W]

RoleName = Literal["owner", "organizer", "fileOrganizer", "writer", "commenter", "reader"]


class PermissionBody(BaseModel):
    """A Permission resource as clients send it."""

    model_config = ConfigDict(extra="allow")
    type: Literal["user", "group", "domain", "anyone"] | None = None
    role: RoleName | None = None
    emailAddress: str | None = None
    domain: str | None = None
    allowFileDiscovery: bool | None = None
    expirationTime: str | None = None
    view: str | None = None
    pendingOwner: bool | None = None
    kind: str | None = None
    id: str | None = None


def _target(ctx: ServiceContext, acc: Access, file_id: str, supports_all_drives: bool, need_share: bool = True) -> tuple[dict[str, Any] | None, str, int, bool]:
    """(file row or None for a shared drive, item id, caller's role, is shared-drive item)."""
    drive = core.drive_row(ctx, file_id)
    if drive is not None:
        role = max((ROLE_RANK[p["role"]] for p in acc.perms(file_id) if acc.matches(p, ctx.principal)), default=0)
        if role == 0:  # answered like an id that exists nowhere (files.get's 404), so a drive's existence is not revealed
            raise core.not_found(file_id, denied=True)
        if not supports_all_drives:
            raise core.not_found(file_id)
        return None, file_id, role, True
    row = acc.readable(file_id, READER, supports_all_drives)
    return row, file_id, acc.role(row), bool(row["drive_id"])


def _track_ids(ctx: ServiceContext, acc: Access, row: dict[str, Any] | None, item_id: str) -> list[str]:
    """The items whose visibility a permission change can alter: the file, a folder's contents, a drive's items."""
    if row is None:
        return [r["id"] for r in ctx.store.select(FILES.name, {"drive_id": item_id})]
    if row["mime_type"] == core.FOLDER:
        return [item_id] + [d["id"] for d in acc.descendants(item_id)]
    return [item_id]


def _can_share(row: dict[str, Any] | None, role: int, shared: bool) -> bool:
    if row is None:  # a shared drive's membership
        return role >= ORGANIZER
    if shared:
        return role >= WRITER
    return role == OWNER or (role >= WRITER and bool(row["writers_can_share"]))


def _last_organizer(acc: Access, drive_id: str) -> bool:
    return sum(1 for p in acc.perms(drive_id) if p["role"] == "organizer") == 1


def _may_see_permissions(row: dict[str, Any] | None, role: int, shared: bool) -> bool:
    """My Drive: only those who may share see the access list; a shared drive's members all see theirs."""
    return role >= READER if shared else _can_share(row, role, shared)


def _list_perms(ctx: ServiceContext, acc: Access, row: dict[str, Any] | None, item_id: str) -> list[dict[str, Any]]:
    if row is None:
        return [{**p, "inherited": False, "inherited_from": None, "permission_type": "member"} for p in acc.perms(item_id)]
    return acc.effective(row)


def _resource(ctx: ServiceContext, perm: dict[str, Any], shared: bool) -> dict[str, Any]:
    return core.permission_resource(ctx, perm, shared_drive=shared)


def _expiration(ctx: ServiceContext, value: str | None) -> int | None:
    if value is None:
        return None
    from clawarena.services.drive.query import QueryError, parse_time

    try:
        ms = parse_time(value)
    except QueryError:
        raise bad_request(f"Invalid value for: {value} is not a valid date-time value", "invalid") from None
    if ms <= now_ms(ctx):
        raise bad_request("The expiration time must be in the future.", "invalid")
    return ms


@tool(ToolKind.READ, name="drive_permissions_list", rest=RestBinding("GET", BASE))
def permissions_list(
    ctx: ServiceContext,
    file_id: str,
    page_size: int | None = Field(default=None, ge=1, le=100),
    page_token: str | None = None,
    supports_all_drives: bool = False,
    supports_team_drives: Flag = False,
    use_domain_admin_access: Flag = False,
    include_permissions_for_view: Annotated[str | None, W] = None,
) -> dict[str, Any]:
    """List who has access to a file (its own and inherited permissions) or a shared drive's members.

    Args:
        file_id: the file (or shared drive) id.
        page_size: permissions per page (1-100).
        page_token: the nextPageToken of the previous page.
        supports_all_drives: set true for shared drives and their items.
    """
    acc = Access(ctx)
    row, item_id, role, shared = _target(ctx, acc, file_id, supports_all_drives or supports_team_drives)
    if not _may_see_permissions(row, role, shared):
        raise insufficient()
    perms = _list_perms(ctx, acc, row, item_id)
    chunk, token = page(perms, page_token, page_size or 100)
    out: dict[str, Any] = {"kind": "drive#permissionList", "permissions": [_resource(ctx, p, shared) for p in chunk]}
    if token:
        out["nextPageToken"] = token
    return out


@tool(ToolKind.READ, name="drive_permissions_get", rest=RestBinding("GET", f"{BASE}/{{permissionId}}"))
def permissions_get(
    ctx: ServiceContext,
    file_id: str,
    permission_id: str,
    supports_all_drives: bool = False,
    supports_team_drives: Flag = False,
    use_domain_admin_access: Flag = False,
) -> dict[str, Any]:
    """Get one permission of a file by id.

    Args:
        file_id: the file (or shared drive) id.
        permission_id: the permission id (from drive_permissions_list).
        supports_all_drives: set true for shared drives and their items.
    """
    acc = Access(ctx)
    row, item_id, role, shared = _target(ctx, acc, file_id, supports_all_drives or supports_team_drives)
    own = core.user_permission_id(ctx.principal.email)
    if not _may_see_permissions(row, role, shared) and permission_id != own:
        raise insufficient()
    for perm in _list_perms(ctx, acc, row, item_id):
        if perm["id"] == permission_id:
            return _resource(ctx, perm, shared)
    raise ServiceError(404, f"Permission not found: {permission_id}.", reason="notFound")


def _transfer_owner(ctx: ServiceContext, acc: Access, row: dict[str, Any], email: str) -> None:
    new_owner = ctx.world.directory.by_address(email)
    if new_owner is None or core.domain_of(new_owner.email) != core.domain_of(ctx.principal.email):
        raise bad_request('Bad Request. User message: "Ownership can only be transferred to another user in the same organization as the current owner."', "invalidSharingRequest")
    old = row["owner"]
    if new_owner.id == old:
        return
    t = now_ms(ctx)
    ctx.store.update(FILES.name, {"id": row["id"]}, {"owner": new_owner.id})
    ctx.store.delete(PERMISSIONS.name, {"file_id": row["id"], "id": core.user_permission_id(new_owner.email)})
    old_p = ctx.world.directory.principal(old)
    ctx.store.delete(PERMISSIONS.name, {"file_id": row["id"], "id": core.user_permission_id(old_p.email)})
    ctx.store.insert(PERMISSIONS.name, {
        "file_id": row["id"], "id": core.user_permission_id(old_p.email), "type": "user", "role": "writer",
        "email": old_p.email, "domain": None, "allow_discovery": False, "display_name": old_p.name, "expiration_ms": None,
        "pending_owner": False, "shared_by": ctx.principal.id, "created_ms": t,
    })  # fmt: skip


@tool(ToolKind.SEND, name="drive_permissions_create", rest=RestBinding("POST", BASE, body="body"))
def permissions_create(
    ctx: ServiceContext,
    file_id: str,
    body: PermissionBody,
    email_message: str | None = None,
    send_notification_email: bool | None = None,
    transfer_ownership: bool = False,
    move_to_new_owners_root: Flag = False,
    supports_all_drives: bool = False,
    supports_team_drives: Flag = False,
    use_domain_admin_access: Flag = False,
    enforce_single_parent: Flag = False,
    enforce_expansive_access: Flag = False,
) -> dict[str, Any]:
    """Share a file (or add a shared drive member): a user or group by address, a domain, or anyone with the link.

    Args:
        file_id: the file (or shared drive) id.
        body: e.g. {"type": "user", "role": "writer", "emailAddress": "bob@example.com"},
            {"type": "domain", "role": "reader", "domain": "example.com"}, {"type": "anyone", "role": "reader"}.
            Roles: owner, organizer, fileOrganizer, writer, commenter, reader.
        email_message: a message included in the notification.
        send_notification_email: notify the user or group (default true).
        transfer_ownership: required (true) to make someone the owner.
        supports_all_drives: set true for shared drives and their items.
    """
    if body.type is None:
        raise bad_request("The permission type field is required.", "required")
    if body.role is None:
        raise bad_request("The permission role field is required.", "required")
    acc = Access(ctx)
    row, item_id, role, shared = _target(ctx, acc, file_id, supports_all_drives or supports_team_drives)
    if body.type in ("user", "group") and not body.emailAddress:
        raise bad_request("The emailAddress field is required for user and group permissions.", "required")
    if body.type == "domain" and not body.domain:
        raise bad_request("The domain field is required for domain permissions.", "required")
    if body.role in ("organizer", "fileOrganizer") and not shared:
        raise bad_request(f"The role {body.role} is only valid for shared drives and their items.", "invalidSharingRequest")
    if row is None and body.type == "anyone":
        raise bad_request("Shared drive members cannot be of type anyone.", "invalidSharingRequest")
    if not _can_share(row, role, shared):
        raise insufficient()
    if body.role == "owner":
        if shared:
            raise ServiceError(403, "Ownership of shared drive items cannot be transferred.", reason="teamDrivesSharingRestrictionNotAllowed")
        if not transfer_ownership:
            raise ServiceError(403, "The transferOwnership parameter must be enabled when the permission role is 'owner'.", reason="forbidden")
        if body.type != "user":
            raise bad_request("Only a user can become the owner of a file.", "invalidSharingRequest")
        if role != OWNER:
            raise insufficient()
    elif ROLE_RANK[body.role] > role and role < OWNER:
        raise insufficient()
    assert row is not None or body.role != "owner"
    pid = core.permission_id(body.type, body.emailAddress, body.domain, bool(body.allowFileDiscovery))
    tracker = ChangeTracker(ctx, _track_ids(ctx, acc, row, item_id))
    before = set(acc.audience(row)) if row is not None else set()
    if body.role == "owner" and row is not None:
        _transfer_owner(ctx, acc, row, body.emailAddress or "")
        ctx.store.update(FILES.name, {"id": row["id"]}, {"version": row["version"] + 1})
        perm = {"file_id": item_id, "id": pid, "type": "user", "role": "owner", "email": body.emailAddress,
                "domain": None, "allow_discovery": False, "display_name": None, "expiration_ms": None,
                "pending_owner": False, "shared_by": ctx.principal.id, "created_ms": now_ms(ctx)}  # fmt: skip
        new_recipients = (body.emailAddress or "",)
    else:
        existing = ctx.store.get(PERMISSIONS.name, {"file_id": item_id, "id": pid})
        perm = {
            "file_id": item_id, "id": pid, "type": body.type, "role": body.role,
            "email": body.emailAddress.strip() if body.emailAddress else None,
            "domain": body.domain.strip().lower() if body.domain else None,
            "allow_discovery": bool(body.allowFileDiscovery) if body.type in ("domain", "anyone") else False,
            "display_name": None, "expiration_ms": _expiration(ctx, body.expirationTime),
            "pending_owner": bool(body.pendingOwner), "shared_by": ctx.principal.id, "created_ms": now_ms(ctx),
        }  # fmt: skip
        if existing is not None:
            ctx.store.delete(PERMISSIONS.name, {"file_id": item_id, "id": pid})
            perm["created_ms"] = existing["created_ms"]
            perm["shared_by"] = existing["shared_by"]
        ctx.store.insert(PERMISSIONS.name, perm)
        if row is not None:
            bump(ctx, row["id"])
        recipient = perm["email"] if body.type in ("user", "group") else perm["domain"] if body.type == "domain" else "anyone"
        new_recipients = (recipient,) if (existing is None or ROLE_RANK[body.role] > ROLE_RANK[existing["role"]]) else ()
    tracker.commit()
    acc = Access(ctx)
    if row is not None:
        fresh = acc.file(row["id"]) or row
        wanted = tuple(r for r in new_recipients if r and (r.lower() not in before or body.role == "owner"))
        core.deliver_share(ctx, acc, fresh, wanted, message=email_message)
        for p in acc.effective(fresh):
            if p["id"] == pid:
                return _resource(ctx, p, shared)
    else:
        core.log_drive_change(ctx, item_id, core.drive_members(acc, item_id))
    return _resource(ctx, {**perm, "inherited": False, "inherited_from": None, "permission_type": "member" if row is None else "file"}, shared)


class PermissionUpdateBody(BaseModel):
    model_config = ConfigDict(extra="allow")
    role: RoleName | None = None
    expirationTime: str | None = None
    kind: str | None = None


@tool(ToolKind.WRITE, name="drive_permissions_update", rest=RestBinding("PATCH", f"{BASE}/{{permissionId}}", body="body"))
def permissions_update(
    ctx: ServiceContext,
    file_id: str,
    permission_id: str,
    body: PermissionUpdateBody,
    transfer_ownership: bool = False,
    remove_expiration: bool = False,
    supports_all_drives: bool = False,
    supports_team_drives: Flag = False,
    use_domain_admin_access: Flag = False,
    enforce_expansive_access: Flag = False,
) -> dict[str, Any]:
    """Change the role (or expiry) of a file's permission; role owner with transfer_ownership makes them the owner.

    Args:
        file_id: the file (or shared drive) id.
        permission_id: the permission id.
        body: {"role": "commenter"} and/or {"expirationTime": "2026-04-01T00:00:00Z"}.
        transfer_ownership: required (true) when the new role is owner.
        remove_expiration: drop the permission's expiry.
        supports_all_drives: set true for shared drives and their items.
    """
    acc = Access(ctx)
    row, item_id, role, shared = _target(ctx, acc, file_id, supports_all_drives or supports_team_drives)
    if not _can_share(row, role, shared):
        raise insufficient()
    existing = ctx.store.get(PERMISSIONS.name, {"file_id": item_id, "id": permission_id})
    if existing is None:
        listed = {p["id"]: p for p in _list_perms(ctx, acc, row, item_id)}
        if permission_id not in listed:
            raise ServiceError(404, f"Permission not found: {permission_id}.", reason="notFound")
        if listed[permission_id]["role"] == "owner" and not listed[permission_id]["inherited"]:
            raise ServiceError(403, "The owner of a file cannot have their role changed; transfer ownership instead.", reason="forbidden")
        raise ServiceError(403, "The permission is inherited from a parent folder and cannot be changed on this item.", reason="cannotModifyInheritedPermission")
    tracker = ChangeTracker(ctx, _track_ids(ctx, acc, row, item_id))
    changes: dict[str, Any] = {}
    if body.role == "owner":
        if row is None or shared:
            raise ServiceError(403, "Ownership of shared drive items cannot be transferred.", reason="teamDrivesSharingRestrictionNotAllowed")
        if not transfer_ownership:
            raise ServiceError(403, "The transferOwnership parameter must be enabled when the permission role is 'owner'.", reason="forbidden")
        if role != OWNER:
            raise insufficient()
        _transfer_owner(ctx, acc, row, existing["email"] or "")
        tracker.commit()
        acc = Access(ctx)
        core.deliver_share(ctx, acc, acc.file(row["id"]) or row, (existing["email"],))
        return _resource(ctx, {**existing, "role": "owner", "inherited": False}, shared)
    if body.role is not None:
        if body.role in ("organizer", "fileOrganizer") and not shared:
            raise bad_request(f"The role {body.role} is only valid for shared drives and their items.", "invalidSharingRequest")
        if ROLE_RANK[body.role] > role and role < OWNER:
            raise insufficient()
        if row is None and existing["role"] == "organizer" and body.role != "organizer" and _last_organizer(acc, item_id):
            raise ServiceError(403, "A shared drive must have at least one organizer.", reason="cannotRemoveLastOrganizer")
        changes["role"] = body.role
    if remove_expiration:
        changes["expiration_ms"] = None
    elif body.expirationTime is not None:
        changes["expiration_ms"] = _expiration(ctx, body.expirationTime)
    if changes:
        ctx.store.update(PERMISSIONS.name, {"file_id": item_id, "id": permission_id}, changes)
        if row is not None:
            bump(ctx, row["id"])
    tracker.commit()
    fresh = ctx.store.get(PERMISSIONS.name, {"file_id": item_id, "id": permission_id}) or existing
    return _resource(ctx, {**fresh, "inherited": False, "inherited_from": None, "permission_type": "member" if row is None else "file"}, shared)


@tool(ToolKind.WRITE, name="drive_permissions_delete", rest=RestBinding("DELETE", f"{BASE}/{{permissionId}}", status=204))
def permissions_delete(
    ctx: ServiceContext,
    file_id: str,
    permission_id: str,
    supports_all_drives: bool = False,
    supports_team_drives: Flag = False,
    use_domain_admin_access: Flag = False,
    enforce_expansive_access: Flag = False,
) -> None:
    """Remove a permission: stop sharing a file with that user, group, domain or link (or remove a drive member).

    Args:
        file_id: the file (or shared drive) id.
        permission_id: the permission id (from drive_permissions_list).
        supports_all_drives: set true for shared drives and their items.
    """
    acc = Access(ctx)
    row, item_id, role, shared = _target(ctx, acc, file_id, supports_all_drives or supports_team_drives)
    own = permission_id == core.user_permission_id(ctx.principal.email)
    if not _can_share(row, role, shared) and not own:
        raise insufficient()
    existing = ctx.store.get(PERMISSIONS.name, {"file_id": item_id, "id": permission_id})
    if existing is None:
        listed = {p["id"]: p for p in _list_perms(ctx, acc, row, item_id)}
        if permission_id not in listed:
            raise ServiceError(404, f"Permission not found: {permission_id}.", reason="notFound")
        if listed[permission_id]["role"] == "owner" and not listed[permission_id]["inherited"]:
            raise ServiceError(403, "The owner of a file cannot be removed.", reason="cannotRemoveOwner")
        raise ServiceError(403, "The permission is inherited from a parent folder and cannot be removed on this item.", reason="cannotDeleteInheritedPermission")
    if row is None and existing["role"] == "organizer" and _last_organizer(acc, item_id):
        raise ServiceError(403, "A shared drive must have at least one organizer.", reason="cannotRemoveLastOrganizer")
    tracker = ChangeTracker(ctx, _track_ids(ctx, acc, row, item_id))
    ctx.store.delete(PERMISSIONS.name, {"file_id": item_id, "id": permission_id})
    if row is not None:
        bump(ctx, row["id"])
    tracker.commit()
    return None


TOOLS = (permissions_list, permissions_get, permissions_create, permissions_update, permissions_delete)
