"""Drive internals shared by every Drive (and Docs) operation: access, audiences, resources, change log.

Access follows Drive's model: a file's effective permissions are its own plus
those inherited from its ancestor folders (and, in a shared drive, the drive's
members). A principal's role is the highest role among the permissions that
match them (their address, a group they belong to, their domain, or anyone).
Listing is narrower than access: link-only permissions (domain or anyone
without `allowFileDiscovery`) let a principal open a file by id, not find it.
"""

from __future__ import annotations

import base64
import hashlib
import html
from datetime import datetime, timezone
from typing import Any

from clawarena.services.base import Delivery, ServiceContext, ServiceError
from clawarena.services.drive.content import handled, handler_for
from clawarena.services.drive.tables import (
    CHANGES, DRIVES, FILES, FOLDER, GDOC, GOOGLE_PREFIX, GROUPS, PERMISSIONS, REVISIONS,
)  # fmt: skip
from clawarena.spec.models import PrincipalSpec

ROLE_RANK = {"reader": 1, "commenter": 2, "writer": 3, "fileOrganizer": 4, "organizer": 5, "owner": 6}
RANK_ROLE = {v: k for k, v in ROLE_RANK.items()}
READER, COMMENTER, WRITER, FILE_ORGANIZER, ORGANIZER, OWNER = 1, 2, 3, 4, 5, 6

EXPORT_FORMATS = {
    GDOC: ["text/plain", "text/html", "text/markdown", "application/pdf", "application/rtf",
           "application/vnd.oasis.opendocument.text", "application/zip", "application/epub+zip",
           "application/vnd.openxmlformats-officedocument.wordprocessingml.document"],
}  # fmt: skip


# ---- small helpers ---------------------------------------------------------------------
def iso(ms: int | None) -> str | None:
    if ms is None:
        return None
    return datetime.fromtimestamp(ms / 1000, tz=timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.") + f"{ms % 1000:03d}Z"


def now_ms(ctx: ServiceContext) -> int:
    return ctx.world.clock.now_ms()


def _digits(text: str, n: int = 20) -> str:
    return str(int(hashlib.sha256(text.encode()).hexdigest()[:18], 16)).zfill(n)[:n]


def user_permission_id(email: str) -> str:
    """Drive gives a user (or group) one permission id, the same on every file."""
    return _digits("user/" + email.strip().lower())


def domain_permission_id(domain: str) -> str:
    return _digits("domain/" + domain.strip().lower())


def permission_id(ptype: str, email: str | None, domain: str | None, discoverable: bool) -> str:
    if ptype in ("user", "group"):
        return user_permission_id(email or "")
    if ptype == "domain":
        return domain_permission_id(domain or "")
    return "anyone" if discoverable else "anyoneWithLink"


def root_id(principal_id: str) -> str:
    """The id of a principal's My Drive root folder (a virtual folder)."""
    return "0A" + hashlib.sha256(f"root/{principal_id}".encode()).hexdigest()[:17] + "Uk9PVA"


def is_root(file_id: str) -> bool:
    return file_id.startswith("0A") and file_id.endswith("Uk9PVA")


def domain_of(email: str) -> str:
    return email.rsplit("@", 1)[-1].lower() if "@" in email else ""


def not_found(file_id: str, denied: bool = False) -> ServiceError:
    return ServiceError(404, f"File not found: {file_id}.", reason="notFound", denied=denied)


def insufficient(message: str = "The user does not have sufficient permissions for this file.") -> ServiceError:
    return ServiceError(403, message, reason="insufficientFilePermissions")


def bad_request(message: str, reason: str = "badRequest") -> ServiceError:
    return ServiceError(400, message, reason=reason)


def file_bytes(row: dict[str, Any]) -> bytes:
    if row["encoding"] == "base64":
        return base64.b64decode(row["content"])
    return row["content"].encode("utf-8")


def store_bytes(data: bytes) -> tuple[str, str]:
    """(content, encoding) for bytes: text when it is UTF-8, base64 otherwise."""
    try:
        return data.decode("utf-8"), "text"
    except UnicodeDecodeError:
        return base64.b64encode(data).decode(), "base64"


def person(ctx: ServiceContext, who: str | None) -> dict[str, Any]:
    """A Drive User resource for a principal id or an address ('Name <addr>' or 'addr')."""
    me = ctx.principal
    directory = ctx.world.directory
    if who and who in directory.principals:
        p = directory.principal(who)
        name, email = p.name, p.email
    else:
        text = (who or "").strip()
        if "<" in text and text.endswith(">"):
            name, email = text[: text.index("<")].strip().strip('"'), text[text.index("<") + 1 : -1].strip()
        else:
            name, email = text.split("@")[0], text
        found = directory.by_address(email) if email else None
        if found is not None:
            name = name or found.name
    out: dict[str, Any] = {"kind": "drive#user", "displayName": name or email, "me": email.lower() == me.email.lower()}
    if email:
        out["emailAddress"] = email
        out["permissionId"] = user_permission_id(email)
    return out


# ---- access ---------------------------------------------------------------------------
class Access:
    """Roles, effective permissions and audiences over the world store, cached per call."""

    def __init__(self, ctx: ServiceContext):
        self.ctx = ctx
        self.store = ctx.store
        self._files: dict[str, dict[str, Any] | None] = {}
        self._perms: dict[str, list[dict[str, Any]]] = {}
        self._groups: dict[str, set[str]] | None = None
        self._eff: dict[str, list[dict[str, Any]]] = {}

    # rows
    def file(self, file_id: str) -> dict[str, Any] | None:
        if file_id not in self._files:
            self._files[file_id] = self.store.get(FILES.name, {"id": file_id})
        return self._files[file_id]

    def forget(self, file_id: str | None = None) -> None:
        if file_id is None:
            self._files.clear()
            self._perms.clear()
        else:
            self._files.pop(file_id, None)
            self._perms.pop(file_id, None)
        self._eff.clear()

    def perms(self, item_id: str) -> list[dict[str, Any]]:
        if item_id not in self._perms:
            self._perms[item_id] = self.store.select(PERMISSIONS.name, {"file_id": item_id})
        return self._perms[item_id]

    def groups(self) -> dict[str, set[str]]:
        if self._groups is None:
            self._groups = {g["email"].lower(): set(g["members"]) for g in self.store.select(GROUPS.name)}
        return self._groups

    def ancestors(self, row: dict[str, Any]) -> list[dict[str, Any]]:
        """Ancestor folders, nearest first (roots and shared drives are not rows)."""
        out: list[dict[str, Any]] = []
        seen = {row["id"]}
        frontier = list(row["parents"])
        while frontier:
            pid = frontier.pop(0)
            if pid in seen:
                continue
            seen.add(pid)
            parent = self.file(pid)
            if parent is None:
                continue
            out.append(parent)
            frontier.extend(parent["parents"])
        return out

    def descendants(self, folder_id: str) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        seen = {folder_id}
        frontier = [folder_id]
        rows = self.store.select(FILES.name)
        children: dict[str, list[dict[str, Any]]] = {}
        for r in rows:
            for p in r["parents"]:
                children.setdefault(p, []).append(r)
        while frontier:
            fid = frontier.pop(0)
            for child in children.get(fid, []):
                if child["id"] in seen:
                    continue
                seen.add(child["id"])
                out.append(child)
                frontier.append(child["id"])
        return out

    # permissions
    def _live(self, perm: dict[str, Any]) -> bool:
        return perm["expiration_ms"] is None or perm["expiration_ms"] > now_ms(self.ctx)

    def effective(self, row: dict[str, Any]) -> list[dict[str, Any]]:
        """The file's permissions, own and inherited, merged by permission id (highest role wins).

        Each carries `inherited` (no direct permission of that id) and `inherited_from`.
        """
        if row["id"] in self._eff:
            return self._eff[row["id"]]
        merged: dict[str, dict[str, Any]] = {}

        def add(perm: dict[str, Any], inherited: bool, source: str | None, kind: str = "file") -> None:
            if not self._live(perm):
                return
            cur = merged.get(perm["id"])
            entry = {**perm, "inherited": inherited, "inherited_from": source, "permission_type": kind}
            if cur is None:
                merged[perm["id"]] = entry
                return
            if ROLE_RANK[perm["role"]] > ROLE_RANK[cur["role"]]:
                entry["inherited"] = inherited and cur["inherited"]
                merged[perm["id"]] = entry
            elif not inherited:
                cur["inherited"] = False

        if row["owner"]:
            add(self._owner_perm(row["owner"], row["id"], "owner"), False, None)
        for perm in self.perms(row["id"]):
            add(perm, False, None)
        for anc in self.ancestors(row):
            if anc["owner"] and anc["owner"] != row["owner"]:
                add(self._owner_perm(anc["owner"], row["id"], "writer"), True, anc["id"])
            for perm in self.perms(anc["id"]):
                if perm["role"] == "owner":
                    continue
                add({**perm, "file_id": row["id"]}, True, anc["id"])
        if row["drive_id"]:
            for perm in self.perms(row["drive_id"]):
                add({**perm, "file_id": row["id"]}, True, row["drive_id"], kind="member")
        out = sorted(merged.values(), key=lambda p: (-ROLE_RANK[p["role"]], p["type"], p["id"]))
        self._eff[row["id"]] = out
        return out

    def _owner_perm(self, principal_id: str, file_id: str, role: str) -> dict[str, Any]:
        p = self.ctx.world.directory.principals.get(principal_id)
        email = p.email if p else principal_id
        return {
            "file_id": file_id, "id": user_permission_id(email), "type": "user", "role": role, "email": email,
            "domain": None, "allow_discovery": False, "display_name": p.name if p else email, "expiration_ms": None,
            "pending_owner": False, "shared_by": None, "created_ms": 0,
        }  # fmt: skip

    def matches(self, perm: dict[str, Any], principal: PrincipalSpec) -> bool:
        if perm["type"] == "user":
            return (perm["email"] or "").lower() == principal.email.lower()
        if perm["type"] == "group":
            members = self.groups().get((perm["email"] or "").lower(), set())
            return principal.id in members or principal.email.lower() in {m.lower() for m in members}
        if perm["type"] == "domain":
            return (perm["domain"] or "").lower() == domain_of(principal.email)
        return perm["type"] == "anyone"

    def role(self, row: dict[str, Any], principal: PrincipalSpec | None = None) -> int:
        """The principal's effective role rank on the file (0: no access)."""
        who = principal or self.ctx.principal
        best = 0
        for perm in self.effective(row):
            if self.matches(perm, who):
                best = max(best, ROLE_RANK[perm["role"]])
        return best

    def listable(self, row: dict[str, Any], domain_corpus: bool = False, principal: PrincipalSpec | None = None) -> bool:
        """Whether the file shows up in the principal's searches (not only reachable by link)."""
        who = principal or self.ctx.principal
        for perm in self.effective(row):
            if not self.matches(perm, who):
                continue
            if perm["type"] in ("user", "group"):
                return True
            if domain_corpus and perm["allow_discovery"]:
                return True
        return False

    def shared_with_me(self, row: dict[str, Any]) -> dict[str, Any] | None:
        """The direct user/group permission that shared this file with the caller, if any."""
        who = self.ctx.principal
        if row["owner"] == who.id or row["drive_id"]:
            return None
        for perm in self.perms(row["id"]):
            if perm["type"] in ("user", "group") and perm["role"] != "owner" and self._live(perm) and self.matches(perm, who):
                return perm
        return None

    def audience(self, row: dict[str, Any], exclude: str | None = None) -> tuple[str, ...]:
        """Who can read the file, as delivery recipients (addresses, domains, 'anyone')."""
        out: set[str] = set()
        for perm in self.effective(row):
            if perm["type"] in ("user", "group"):
                out.add((perm["email"] or "").lower())
            elif perm["type"] == "domain":
                out.add((perm["domain"] or "").lower())
            else:
                out.add("anyone")
        if exclude:
            out.discard(exclude.lower())
        out.discard("")
        return tuple(sorted(out))

    def principals_with_access(self, row: dict[str, Any] | None) -> set[str]:
        if row is None:
            return set()
        return {pid for pid, p in self.ctx.world.directory.principals.items() if self.role(row, p) > 0}

    # lookups with Drive's errors
    def readable(self, file_id: str, need: int = READER, supports_all_drives: bool = True) -> dict[str, Any]:
        """The file row if the caller holds at least `need`; Drive's 404 or 403 otherwise."""
        row = self.file(file_id)
        if row is None:
            raise not_found(file_id)
        role = self.role(row)
        if role == 0:
            raise not_found(file_id, denied=True)
        if row["drive_id"] and not supports_all_drives:
            raise not_found(file_id)
        if role < need:
            raise insufficient()
        return row


# ---- content -------------------------------------------------------------------------
def text_of(ctx: ServiceContext, row: dict[str, Any]) -> str:
    """The file's readable text: a Doc's text (from its content handler), a text file's content,
    nothing for binaries and folders."""
    handler = handled(row)
    if handler is not None:
        return handler.text(ctx, row["id"])
    if row["mime_type"].startswith(GOOGLE_PREFIX) or row["encoding"] != "text":
        return ""
    return row["content"]


def share_body(ctx: ServiceContext, acc: Access, row: dict[str, Any], message: str | None = None) -> str:
    """What a share hands over: the file's name and text, or for a folder everything inside it."""
    parts = []
    if message:
        parts.append(message)
    parts.append(row["name"])
    if row["mime_type"] == FOLDER:
        for child in acc.descendants(row["id"]):
            if child["mime_type"] != FOLDER:
                parts.append(f"--- {child['name']} ---\n{text_of(ctx, child)}")
    else:
        parts.append(text_of(ctx, row))
    return "\n\n".join(p for p in parts if p is not None)


def deliver_share(ctx: ServiceContext, acc: Access, row: dict[str, Any], recipients: tuple[str, ...], message: str | None = None) -> None:
    recipients = tuple(r for r in recipients if r and r.lower() != ctx.principal.email.lower())
    if recipients:
        ctx.deliver(Delivery("drive_share", ctx.principal.email, recipients, row["name"], share_body(ctx, acc, row, message), ref=row["id"]))


# ---- change log ------------------------------------------------------------------------
def _next_seq(ctx: ServiceContext, principal: str) -> int:
    cur = ctx.store.conn.execute('SELECT MAX(seq) FROM "drive_changes" WHERE principal = ?', (principal,)).fetchone()
    return (cur[0] or 0) + 1


def start_token(ctx: ServiceContext, principal: str) -> str:
    return str(_next_seq(ctx, principal))


class ChangeTracker:
    """Snapshot who can see some files, then log a change for everyone who could see them before or after."""

    def __init__(self, ctx: ServiceContext, file_ids: list[str]):
        self.ctx = ctx
        acc = Access(ctx)
        self.before = {fid: (acc.principals_with_access(acc.file(fid)), (acc.file(fid) or {}).get("drive_id")) for fid in dict.fromkeys(file_ids)}

    def add(self, file_ids: list[str]) -> None:
        acc = Access(self.ctx)
        for fid in file_ids:
            if fid not in self.before:
                self.before[fid] = (acc.principals_with_access(acc.file(fid)), (acc.file(fid) or {}).get("drive_id"))

    def commit(self) -> None:
        acc = Access(self.ctx)
        t = now_ms(self.ctx)
        for fid, (before, drive_id) in self.before.items():
            row = acc.file(fid)
            after = acc.principals_with_access(row)
            for pid in sorted(before | after):
                self.ctx.store.insert(CHANGES.name, {
                    "principal": pid, "seq": _next_seq(self.ctx, pid), "change_type": "file", "item_id": fid,
                    "drive_id": (row or {}).get("drive_id") or drive_id, "removed": pid not in after, "time_ms": t,
                })  # fmt: skip


def drive_members(acc: Access, drive_id: str) -> set[str]:
    return {pid for pid, p in acc.ctx.world.directory.principals.items() if any(acc.matches(m, p) for m in acc.perms(drive_id))}


def log_drive_change(ctx: ServiceContext, drive_id: str, members: set[str], removed: bool = False) -> None:
    t = now_ms(ctx)
    for pid in sorted(members):
        ctx.store.insert(CHANGES.name, {"principal": pid, "seq": _next_seq(ctx, pid), "change_type": "drive", "item_id": drive_id,
                                        "drive_id": drive_id, "removed": removed, "time_ms": t})  # fmt: skip


# ---- revisions -----------------------------------------------------------------------
def add_revision(ctx: ServiceContext, row: dict[str, Any], keep_forever: bool = False, at_ms: int | None = None) -> str:
    """Record the file's current content as a new revision; returns its id."""
    cur = ctx.store.conn.execute('SELECT MAX(seq) FROM "drive_revisions" WHERE file_id = ?', (row["id"],)).fetchone()
    seq = (cur[0] or 0) + 1
    if row["mime_type"] == GDOC:
        rid, content, encoding = str(seq), handler_for(GDOC).text(ctx, row["id"]), "text"
    else:
        rid, content, encoding = "0B" + ctx.world.ids.next("drive.revision", 30), row["content"], row["encoding"]
    ctx.store.insert(REVISIONS.name, {
        "file_id": row["id"], "id": rid, "seq": seq, "mime_type": row["mime_type"], "content": content, "encoding": encoding,
        "modified_ms": at_ms if at_ms is not None else now_ms(ctx), "modified_by": row.get("modified_by") if at_ms is not None else ctx.principal.id, "keep_forever": keep_forever, "published": False,
        "publish_auto": False, "published_outside_domain": False, "original_filename": row.get("original_filename"),
    })  # fmt: skip
    ctx.store.update(FILES.name, {"id": row["id"]}, {"head_revision": rid})
    return rid


# ---- resources -----------------------------------------------------------------------
def permission_resource(ctx: ServiceContext, perm: dict[str, Any], shared_drive: bool = False) -> dict[str, Any]:
    out: dict[str, Any] = {"kind": "drive#permission", "id": perm["id"], "type": perm["type"], "role": perm["role"]}
    if perm["type"] in ("user", "group"):
        out["emailAddress"] = perm["email"]
        found = ctx.world.directory.by_address(perm["email"] or "")
        out["displayName"] = perm.get("display_name") or (found.name if found else (perm["email"] or "").split("@")[0])
    if perm["type"] == "domain":
        out["domain"] = perm["domain"]
        out["displayName"] = perm["domain"]
    if perm["type"] in ("domain", "anyone"):
        out["allowFileDiscovery"] = bool(perm["allow_discovery"])
    if perm.get("expiration_ms"):
        out["expirationTime"] = iso(perm["expiration_ms"])
    if perm.get("pending_owner"):
        out["pendingOwner"] = True
    out["deleted"] = False
    if shared_drive:
        details = {"permissionType": perm.get("permission_type", "file"), "role": perm["role"], "inherited": bool(perm.get("inherited"))}
        if perm.get("inherited") and perm.get("inherited_from"):
            details["inheritedFrom"] = perm["inherited_from"]
        out["permissionDetails"] = [details]
    return out


def _ext(name: str) -> tuple[str | None, str | None]:
    if "." not in name.strip(".") or name.endswith("."):
        return None, None
    parts = name.split(".")
    return parts[-1], ".".join(parts[1:]) if len(parts) > 1 else None


def web_view_link(row: dict[str, Any]) -> str:
    if row["mime_type"] == FOLDER:
        return f"https://drive.google.com/drive/folders/{row['id']}"
    if row["mime_type"] == GDOC:
        return f"https://docs.google.com/document/d/{row['id']}/edit?usp=drivesdk"
    return f"https://drive.google.com/file/d/{row['id']}/view?usp=drivesdk"


def can_download(row: dict[str, Any], role: int) -> bool:
    """Readers and commenters may not download, print or copy a file whose owner requires writer permission for that."""
    return role >= WRITER or not row["copy_requires_writer"]


def capabilities(acc: Access, row: dict[str, Any], role: int) -> dict[str, bool]:
    folder = row["mime_type"] == FOLDER
    shared = bool(row["drive_id"])
    can_trash = role >= FILE_ORGANIZER if shared else role == OWNER
    can_share = role >= WRITER and (row["writers_can_share"] or role >= FILE_ORGANIZER) if role < OWNER else True
    caps = {
        "canAddChildren": folder and role >= WRITER,
        "canChangeCopyRequiresWriterPermission": role >= WRITER and not folder,
        "canChangeViewersCanCopyContent": role >= WRITER and not folder,
        "canComment": role >= COMMENTER,
        "canCopy": (not folder) and can_download(row, role),
        "canDelete": role >= ORGANIZER if shared else role == OWNER,
        "canDeleteChildren": folder and (role >= ORGANIZER if shared else role == OWNER),
        "canDownload": can_download(row, role),
        "canEdit": role >= WRITER,
        "canListChildren": folder,
        "canModifyContent": role >= WRITER,
        "canMoveItemWithinDrive": role >= (FILE_ORGANIZER if shared else WRITER),
        "canReadRevisions": role >= WRITER,
        "canRemoveChildren": folder and role >= WRITER,
        "canRename": role >= WRITER,
        "canShare": can_share,
        "canTrash": can_trash,
        "canTrashChildren": folder and can_trash,
        "canUntrash": can_trash,
        "canAcceptOwnership": False,
        "canReadLabels": False,
        "canModifyLabels": False,
    }
    if shared:
        caps["canReadDrive"] = True
    return caps


def file_resource(ctx: ServiceContext, acc: Access, row: dict[str, Any]) -> dict[str, Any]:
    """The Drive v3 File resource of a row, as the caller sees it."""
    me = ctx.principal
    role = acc.role(row)
    mime = row["mime_type"]
    out: dict[str, Any] = {
        "kind": "drive#file", "id": row["id"], "name": row["name"], "mimeType": mime,
        "starred": me.id in row["starred_by"], "trashed": bool(row["trashed"]),
        "explicitlyTrashed": bool(row["explicitly_trashed"]), "parents": list(row["parents"]),
        "spaces": ["drive"], "version": str(row["version"]), "webViewLink": web_view_link(row),
        "iconLink": f"https://drive-thirdparty.googleusercontent.com/16/type/{mime}",
        "hasThumbnail": False, "thumbnailVersion": "0",
        "viewedByMe": me.id in row["viewed"], "createdTime": iso(row["created_ms"]), "modifiedTime": iso(row["modified_ms"]),
        "modifiedByMe": me.id in row["modified_by_me"], "shared": False,
        "ownedByMe": row["owner"] == me.id, "capabilities": capabilities(acc, row, role),
        "viewersCanCopyContent": not row["copy_requires_writer"], "copyRequiresWriterPermission": bool(row["copy_requires_writer"]),
        "writersCanShare": bool(row["writers_can_share"]), "isAppAuthorized": False,
        "properties": dict(row["properties"]), "appProperties": dict(row["app_properties"]),
        "inheritedPermissionsDisabled": False,
        "linkShareMetadata": {"securityUpdateEligible": False, "securityUpdateEnabled": False},
    }  # fmt: skip
    if row["description"] is not None:
        out["description"] = row["description"]
    if me.id in row["viewed"]:
        out["viewedByMeTime"] = iso(row["viewed"][me.id])
    if me.id in row["modified_by_me"]:
        out["modifiedByMeTime"] = iso(row["modified_by_me"][me.id])
    if row["trashed"] and row["trashed_ms"] is not None:
        out["trashedTime"] = iso(row["trashed_ms"])
        if row["trashed_by"]:
            out["trashingUser"] = person(ctx, row["trashed_by"])
    if row["modified_by"]:
        out["lastModifyingUser"] = person(ctx, row["modified_by"])
    perms = acc.effective(row)
    out["shared"] = any(p["role"] != "owner" for p in perms if p["permission_type"] == "file")
    if row["drive_id"]:
        out["driveId"] = row["drive_id"]
        out["teamDriveId"] = row["drive_id"]
    else:
        owner = row["owner"]
        out["owners"] = [person(ctx, owner)] if owner else []
        shared_perm = acc.shared_with_me(row)
        if shared_perm is not None:
            out["sharedWithMeTime"] = iso(shared_perm["created_ms"])
            if shared_perm["shared_by"]:
                out["sharingUser"] = person(ctx, shared_perm["shared_by"])
        if role >= WRITER:
            out["permissions"] = [permission_resource(ctx, p) for p in perms]
    out["permissionIds"] = [p["id"] for p in perms]
    if mime == FOLDER:
        out["folderColorRgb"] = row["folder_color"] or "#8f8f8f"
    elif mime.startswith(GOOGLE_PREFIX):
        if mime in EXPORT_FORMATS:
            out["exportLinks"] = {
                fmt: f"https://docs.google.com/feeds/download/documents/export/Export?id={row['id']}&exportFormat={fmt.split('/')[-1]}"
                for fmt in EXPORT_FORMATS[mime]
            }
        size = len(text_of(ctx, row).encode())
        out["size"] = str(size)
        out["quotaBytesUsed"] = "0"
    else:
        data = file_bytes(row)
        out["size"] = str(len(data))
        out["quotaBytesUsed"] = str(len(data))
        out["md5Checksum"] = hashlib.md5(data).hexdigest()
        out["sha1Checksum"] = hashlib.sha1(data).hexdigest()
        out["sha256Checksum"] = hashlib.sha256(data).hexdigest()
        out["webContentLink"] = f"https://drive.google.com/uc?id={row['id']}&export=download"
        if row["head_revision"]:
            out["headRevisionId"] = row["head_revision"]
        out["originalFilename"] = row["original_filename"] or row["name"]
        ext, full = _ext(row["name"])
        if ext:
            out["fileExtension"] = ext
            out["fullFileExtension"] = full
    return out


def root_resource(ctx: ServiceContext) -> dict[str, Any]:
    rid = root_id(ctx.principal.id)
    t = iso(int(ctx.world.clock.start.timestamp() * 1000) - 365 * 86_400_000)
    return {
        "kind": "drive#file", "id": rid, "name": "My Drive", "mimeType": FOLDER, "starred": False, "trashed": False,
        "explicitlyTrashed": False, "parents": [], "spaces": ["drive"], "version": "1", "ownedByMe": True,
        "owners": [person(ctx, ctx.principal.id)], "createdTime": t, "modifiedTime": t, "shared": False,
        "webViewLink": f"https://drive.google.com/drive/folders/{rid}", "folderColorRgb": "#8f8f8f",
        "capabilities": {"canAddChildren": True, "canListChildren": True, "canEdit": True, "canShare": False,
                         "canTrash": False, "canDelete": False, "canRename": False, "canDownload": True},
    }  # fmt: skip


def html_escape(text: str) -> str:
    return html.escape(text, quote=False).replace("\n", "<br>")


def drive_row(ctx: ServiceContext, drive_id: str) -> dict[str, Any] | None:
    return ctx.store.get(DRIVES.name, {"id": drive_id})
