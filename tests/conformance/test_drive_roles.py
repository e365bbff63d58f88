"""Who may change what, method by method, through the official clients: each row is a rule of the
real Drive (and Docs) API, tried by a caller just below the role it needs (refused with Drive's
reason, recorded as `refused`) and, where it matters, by one who holds it (allowed)."""

import pytest
from googleapiclient.errors import HttpError

from tests.conformance.drive_world import world

TEAM = "0Ateamdrive00000000Uk9PVA"
REQS = {"requests": [{"insertText": {"location": {"index": 1}, "text": "x"}}]}


def roles_world():
    w = world([
        # My Drive: bob may edit but not share (writersCanShare off); readers may not download or export (copy restricted)
        {"id": "f-locked", "name": "Locked.txt", "owner": "alice", "content": "locked", "writers_can_share": False,
         "copy_requires_writer_permission": True, "permissions": [{"email": "bob", "role": "writer"}, {"email": "carol", "role": "reader"}]},
        {"id": "d-locked", "name": "Locked doc", "owner": "alice", "mime_type": "doc", "content": "text", "copy_requires_writer_permission": True,
         "permissions": [{"email": "bob", "role": "writer"}, {"email": "carol", "role": "commenter"}]},
        # a shared drive: alice organizer, bob contributor (writer), carol content manager (fileOrganizer)
        {"id": "sd-a", "name": "A", "mime_type": "folder", "drive": TEAM},
        {"id": "sd-b", "name": "B", "mime_type": "folder", "drive": TEAM},
        {"id": "sd-file", "name": "Plan.txt", "drive": TEAM, "parents": ["sd-a"], "content": "plan"},
    ])  # fmt: skip
    w["drive"]["shared_drives"] = [{"id": TEAM, "name": "Team", "members": [
        {"email": "alice", "role": "organizer"}, {"email": "bob", "role": "writer"}, {"email": "carol", "role": "fileOrganizer"}]}]  # fmt: skip
    return w


def owner_of(email):
    return {"type": "user", "role": "owner", "emailAddress": email}


def share(email, role="reader"):
    return {"type": "user", "role": role, "emailAddress": email}


def _perm_id(world_, file_id, email):
    return next(p["id"] for p in world_.store.select("drive_permissions", {"file_id": file_id}) if p["email"] == email)


# (rule, caller, call(drive, docs, world), expected: "ok" or the 403 reason)
RULES = [
    ("files.update: a commenter cannot rename", "carol", lambda d, g, w: d.files().update(fileId="d-notes", body={"name": "x"}), "insufficientFilePermissions"),
    ("files.update: a writer edits", "bob", lambda d, g, w: d.files().update(fileId="f-locked", body={"description": "x"}), "ok"),
    ("files.update: a writer cannot trash in My Drive", "bob", lambda d, g, w: d.files().update(fileId="f-locked", body={"trashed": True}), "insufficientFilePermissions"),
    ("files.update: the owner trashes", "alice", lambda d, g, w: d.files().update(fileId="f-locked", body={"trashed": True}), "ok"),
    ("files.update: only the owner sets writersCanShare", "bob", lambda d, g, w: d.files().update(fileId="f-locked", body={"writersCanShare": True}), "insufficientFilePermissions"),
    ("files.delete: a writer cannot delete in My Drive", "bob", lambda d, g, w: d.files().delete(fileId="f-locked"), "insufficientFilePermissions"),
    ("files.delete: the owner deletes", "alice", lambda d, g, w: d.files().delete(fileId="f-locked"), "ok"),
    ("files.get media: a reader cannot download a copy-restricted file", "carol", lambda d, g, w: d.files().get_media(fileId="f-locked"), "cannotDownloadFile"),
    ("files.get media: a writer downloads it", "bob", lambda d, g, w: d.files().get_media(fileId="f-locked"), "ok"),
    ("files.export: a commenter cannot export a copy-restricted Doc", "carol", lambda d, g, w: d.files().export(fileId="d-locked", mimeType="text/plain"), "cannotDownloadFile"),
    ("files.copy: a reader cannot copy a copy-restricted file", "carol", lambda d, g, w: d.files().copy(fileId="f-locked", body={}), "cannotCopyFile"),
    ("shared drive: a contributor cannot move an item", "bob",
     lambda d, g, w: d.files().update(fileId="sd-file", addParents="sd-b", removeParents="sd-a", supportsAllDrives=True), "insufficientFilePermissions"),
    ("shared drive: a content manager moves it", "carol",
     lambda d, g, w: d.files().update(fileId="sd-file", addParents="sd-b", removeParents="sd-a", supportsAllDrives=True), "ok"),
    ("shared drive: a contributor cannot trash", "bob", lambda d, g, w: d.files().update(fileId="sd-file", body={"trashed": True}, supportsAllDrives=True), "insufficientFilePermissions"),
    ("shared drive: a content manager trashes", "carol", lambda d, g, w: d.files().update(fileId="sd-file", body={"trashed": True}, supportsAllDrives=True), "ok"),
    ("shared drive: a content manager cannot delete", "carol", lambda d, g, w: d.files().delete(fileId="sd-file", supportsAllDrives=True), "insufficientFilePermissions"),
    ("shared drive: an organizer deletes", "alice", lambda d, g, w: d.files().delete(fileId="sd-file", supportsAllDrives=True), "ok"),
    ("permissions.create: a reader cannot share", "carol", lambda d, g, w: d.permissions().create(fileId="f-locked", body=share("bob@northwind.example")), "insufficientFilePermissions"),
    ("permissions.create: a writer cannot share when writersCanShare is off", "bob",
     lambda d, g, w: d.permissions().create(fileId="f-locked", body=share("carol@northwind.example", "writer")), "insufficientFilePermissions"),
    ("permissions.create: a writer shares when it is on", "bob", lambda d, g, w: d.permissions().create(fileId="f-plan", body=share("carol@northwind.example")), "ok"),
    ("permissions.create: only the owner transfers ownership", "bob",
     lambda d, g, w: d.permissions().create(fileId="f-plan", body=owner_of("bob@northwind.example"), transferOwnership=True), "insufficientFilePermissions"),
    ("permissions.create: the owner transfers", "alice",
     lambda d, g, w: d.permissions().create(fileId="f-locked", body=owner_of("bob@northwind.example"), transferOwnership=True), "ok"),
    ("permissions.update: a writer cannot change roles when writersCanShare is off", "bob",
     lambda d, g, w: d.permissions().update(fileId="f-locked", permissionId=_perm_id(w, "f-locked", "carol@northwind.example"), body={"role": "writer"}), "insufficientFilePermissions"),
    ("permissions.update: the owner's role cannot be changed", "alice",
     lambda d, g, w: d.permissions().update(fileId="f-locked", permissionId=_owner_id(d, "f-locked"), body={"role": "reader"}), "forbidden"),
    ("permissions.update: the last organizer cannot be demoted", "alice",
     lambda d, g, w: d.permissions().update(fileId=TEAM, permissionId=_perm_id(w, TEAM, "alice@northwind.example"), body={"role": "writer"}, supportsAllDrives=True),
     "cannotRemoveLastOrganizer"),
    ("permissions.delete: the owner cannot be removed", "alice",
     lambda d, g, w: d.permissions().delete(fileId="f-locked", permissionId=_owner_id(d, "f-locked")), "cannotRemoveOwner"),
    ("permissions.delete: a writer cannot remove the owner either", "bob",
     lambda d, g, w: d.permissions().delete(fileId="f-plan", permissionId=_owner_id(d, "f-plan")), "cannotRemoveOwner"),
    ("permissions.delete: anyone may remove their own access", "carol",
     lambda d, g, w: d.permissions().delete(fileId="f-locked", permissionId=_perm_id(w, "f-locked", "carol@northwind.example")), "ok"),
    ("comments.create: a reader cannot comment", "carol", lambda d, g, w: d.comments().create(fileId="f-locked", body={"content": "hi"}, fields="id"), "insufficientFilePermissions"),
    ("comments.create: a commenter comments", "carol", lambda d, g, w: d.comments().create(fileId="d-notes", body={"content": "hi"}, fields="id"), "ok"),
    ("comments.update: only the author edits a comment", "alice",
     lambda d, g, w: d.comments().update(fileId="d-notes", commentId="c1", body={"content": "mine now"}, fields="id"), "insufficientPermissions"),
    ("replies.create: a reader cannot resolve", "carol",
     lambda d, g, w: d.replies().create(fileId="f-public", commentId="c1", body={"action": "resolve"}, fields="id"), "insufficientFilePermissions"),
    ("docs.batchUpdate: a commenter cannot edit a Doc", "carol", lambda d, g, w: g.documents().batchUpdate(documentId="d-locked", body=REQS), "forbidden"),
    ("docs.batchUpdate: a writer edits", "bob", lambda d, g, w: g.documents().batchUpdate(documentId="d-locked", body=REQS), "ok"),
]


def _owner_id(drive, file_id):
    perms = drive.permissions().list(fileId=file_id, fields="permissions(id,role)").execute()["permissions"]
    return next(p["id"] for p in perms if p["role"] == "owner")


@pytest.mark.parametrize("rule,caller,call,expected", RULES, ids=[r[0] for r in RULES])
def test_role_rules(served, rule, caller, call, expected):
    world_ = served.start(roles_world())
    drive, docs = served.google("drive", caller), served.google("docs", caller)
    request = call(drive, docs, world_)
    refused_before = len(world_.ledger.of_kind("refused"))
    if expected == "ok":
        request.execute()
        return
    with pytest.raises(HttpError) as exc:
        request.execute()
    assert exc.value.status_code == 403, exc.value
    assert exc.value.error_details[0]["reason"] == expected
    assert len(world_.ledger.of_kind("refused")) == refused_before + 1  # denied=True: the ledger records a refusal
