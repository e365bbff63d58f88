"""Access errors do not reveal existence: for every Drive and Docs method, an item the caller may not
see answers exactly like one that does not exist (same status, same body with the id swapped), and
only the first is recorded as a refusal. An item the caller sees but may not change is a 403 with
Drive's reason. Official clients throughout."""

import json

import pytest
from googleapiclient.errors import HttpError

from tests.conformance.drive_world import GDOC, world

HIDDEN, MISSING = "f-bob", "f-none"  # bob's private file (alice may not see it), and an id that exists nowhere
DRIVE_ID, NO_DRIVE = "0Ateamdrive00000000Uk9PVA", "0Anodrive0000000000Uk9PVA"
REQS = {"requests": [{"insertText": {"location": {"index": 1}, "text": "x"}}]}
USER = {"type": "user", "role": "reader", "emailAddress": "carol@northwind.example"}

# (name, call(drive, docs, id)): every method that takes a file (or document) id.
FILE_METHODS = [
    ("files.get", lambda d, _, i: d.files().get(fileId=i)),
    ("files.get media", lambda d, _, i: d.files().get_media(fileId=i)),
    ("files.export", lambda d, _, i: d.files().export(fileId=i, mimeType="text/plain")),
    ("files.update", lambda d, _, i: d.files().update(fileId=i, body={"name": "x"})),
    ("files.update star", lambda d, _, i: d.files().update(fileId=i, body={"starred": True})),
    ("files.copy", lambda d, _, i: d.files().copy(fileId=i, body={})),
    ("files.delete", lambda d, _, i: d.files().delete(fileId=i)),
    ("files.listLabels", lambda d, _, i: d.files().listLabels(fileId=i)),
    ("files.watch", lambda d, _, i: d.files().watch(fileId=i, body={"id": "ch", "type": "web_hook", "address": "https://h.example"})),
    ("files.create in it", lambda d, _, i: d.files().create(body={"name": "x", "parents": [i]})),
    ("files.update move into it", lambda d, _, i: d.files().update(fileId="f-plan", addParents=i, removeParents="fold-proj")),
    ("permissions.list", lambda d, _, i: d.permissions().list(fileId=i)),
    ("permissions.get", lambda d, _, i: d.permissions().get(fileId=i, permissionId="anyoneWithLink")),
    ("permissions.create", lambda d, _, i: d.permissions().create(fileId=i, body=USER)),
    ("permissions.update", lambda d, _, i: d.permissions().update(fileId=i, permissionId="anyoneWithLink", body={"role": "writer"})),
    ("permissions.delete", lambda d, _, i: d.permissions().delete(fileId=i, permissionId="anyoneWithLink")),
    ("comments.list", lambda d, _, i: d.comments().list(fileId=i, fields="*")),
    ("comments.get", lambda d, _, i: d.comments().get(fileId=i, commentId="c1", fields="*")),
    ("comments.create", lambda d, _, i: d.comments().create(fileId=i, body={"content": "hi"}, fields="*")),
    ("comments.update", lambda d, _, i: d.comments().update(fileId=i, commentId="c1", body={"content": "hi"}, fields="*")),
    ("comments.delete", lambda d, _, i: d.comments().delete(fileId=i, commentId="c1")),
    ("replies.list", lambda d, _, i: d.replies().list(fileId=i, commentId="c1", fields="*")),
    ("replies.get", lambda d, _, i: d.replies().get(fileId=i, commentId="c1", replyId="r1", fields="*")),
    ("replies.create", lambda d, _, i: d.replies().create(fileId=i, commentId="c1", body={"content": "hi"}, fields="*")),
    ("replies.update", lambda d, _, i: d.replies().update(fileId=i, commentId="c1", replyId="r1", body={"content": "hi"}, fields="*")),
    ("replies.delete", lambda d, _, i: d.replies().delete(fileId=i, commentId="c1", replyId="r1")),
    ("revisions.list", lambda d, _, i: d.revisions().list(fileId=i)),
    ("revisions.get", lambda d, _, i: d.revisions().get(fileId=i, revisionId="head")),
    ("revisions.update", lambda d, _, i: d.revisions().update(fileId=i, revisionId="head", body={"keepForever": True})),
    ("revisions.delete", lambda d, _, i: d.revisions().delete(fileId=i, revisionId="head")),
    ("docs.documents.get", lambda _, g, i: g.documents().get(documentId=i)),
    ("docs.documents.batchUpdate", lambda _, g, i: g.documents().batchUpdate(documentId=i, body=REQS)),
]
# Methods that take a shared drive id.
DRIVE_METHODS = [
    ("drives.get", lambda d, i: d.drives().get(driveId=i)),
    ("drives.update", lambda d, i: d.drives().update(driveId=i, body={"name": "x"})),
    ("drives.delete", lambda d, i: d.drives().delete(driveId=i)),
    ("drives.hide", lambda d, i: d.drives().hide(driveId=i)),
    ("permissions.list of a drive", lambda d, i: d.permissions().list(fileId=i, supportsAllDrives=True)),
    ("permissions.create on a drive", lambda d, i: d.permissions().create(fileId=i, supportsAllDrives=True, body=USER)),
    ("files.list corpora=drive", lambda d, i: d.files().list(corpora="drive", driveId=i, includeItemsFromAllDrives=True, supportsAllDrives=True)),
    ("files.emptyTrash of a drive", lambda d, i: d.files().emptyTrash(driveId=i)),
    ("files.create in a drive", lambda d, i: d.files().create(body={"name": "x", "parents": [i]}, supportsAllDrives=True)),
]
SHARED = {"shared_drives": [{"id": DRIVE_ID, "name": "Finance", "members": [{"email": "bob", "role": "organizer"}]}]}


def _error(call, item_id: str) -> tuple[int, dict]:
    with pytest.raises(HttpError) as exc:
        call.execute()
    body = json.loads(exc.value.content.decode().replace(item_id, "<id>"))
    return exc.value.status_code, body


def _refusals(world_) -> int:
    return len(world_.ledger.of_kind("refused"))


@pytest.fixture
def hidden_world(served):
    fixtures = world()  # f-bob is private to bob; d-notes is alice's, shared with carol only; f-public is anyone-with-link
    fixtures["drive"].update(SHARED)
    return served.start(fixtures)


def _who_cannot_see(name: str) -> tuple[str, str, str]:
    """(caller, hidden id, missing id): Docs methods use bob and alice's Doc; Drive methods alice and bob's file."""
    return ("bob", "d-notes", "d-none") if name.startswith("docs.") else ("alice", HIDDEN, MISSING)


@pytest.mark.parametrize("name,call", FILE_METHODS, ids=[m[0] for m in FILE_METHODS])
def test_a_hidden_file_answers_like_a_missing_one(served, hidden_world, name, call):
    caller, hidden, missing = _who_cannot_see(name)
    drive, docs = served.google("drive", caller), served.google("docs", caller)
    before = _refusals(hidden_world)
    seen_hidden = _error(call(drive, docs, hidden), hidden)
    assert _refusals(hidden_world) == before + 1, "the hidden item's refusal is recorded"
    seen_missing = _error(call(drive, docs, missing), missing)
    assert _refusals(hidden_world) == before + 1, "a missing item is not a refusal"
    assert seen_hidden == seen_missing
    assert seen_hidden[0] == 404


@pytest.mark.parametrize("name,call", DRIVE_METHODS, ids=[m[0] for m in DRIVE_METHODS])
def test_a_hidden_shared_drive_answers_like_a_missing_one(served, hidden_world, name, call):
    alice = served.google("drive", "alice")
    assert _error(call(alice, DRIVE_ID), DRIVE_ID) == _error(call(alice, NO_DRIVE), NO_DRIVE)


# A caller who sees the item but may not change it: 403 with Drive's (or Docs') reason, not a 404.
READER_DENIED = [  # carol reads f-public (anyone with the link, reader)
    ("files.update", lambda d, _: d.files().update(fileId="f-public", body={"name": "x"}), "insufficientFilePermissions"),
    ("files.delete", lambda d, _: d.files().delete(fileId="f-public"), "insufficientFilePermissions"),
    ("trash", lambda d, _: d.files().update(fileId="f-public", body={"trashed": True}), "insufficientFilePermissions"),
    ("permissions.create", lambda d, _: d.permissions().create(fileId="f-public", body=USER), "insufficientFilePermissions"),
    ("permissions.list", lambda d, _: d.permissions().list(fileId="f-public"), "insufficientFilePermissions"),
    ("comments.create", lambda d, _: d.comments().create(fileId="f-public", body={"content": "hi"}, fields="*"), "insufficientFilePermissions"),
    ("revisions.list", lambda d, _: d.revisions().list(fileId="f-public"), "insufficientFilePermissions"),
]
COMMENTER_DENIED = [  # carol comments on d-notes
    ("docs.batchUpdate", lambda _, g: g.documents().batchUpdate(documentId="d-notes", body=REQS), "forbidden"),
    ("files.update", lambda d, _: d.files().update(fileId="d-notes", body={"name": "x"}), "insufficientFilePermissions"),
    ("permissions.create", lambda d, _: d.permissions().create(fileId="d-notes", body=USER), "insufficientFilePermissions"),
]


@pytest.mark.parametrize("name,call,reason", READER_DENIED + COMMENTER_DENIED, ids=[m[0] for m in READER_DENIED + COMMENTER_DENIED])
def test_a_visible_item_the_caller_may_not_change_is_a_403_with_its_reason(served, hidden_world, name, call, reason):
    status, body = _error(call(served.google("drive", "carol"), served.google("docs", "carol")), "-")
    assert status == 403 and body["error"]["errors"][0]["reason"] == reason
    assert hidden_world.ledger.of_kind("refused")


def test_the_doc_world_is_what_the_table_assumes(served, hidden_world):
    assert hidden_world.store.get("drive_files", {"id": "d-notes"})["mime_type"] == GDOC
    assert served.google("drive", "carol").files().get(fileId="f-public").execute()["id"] == "f-public"


def test_an_unreserved_id_cannot_probe_for_a_hidden_file(served, hidden_world):
    """files.create with `id`: only ids from generateIds are usable, checked before existence."""
    alice = served.google("drive", "alice")
    assert _error(alice.files().create(body={"id": HIDDEN, "name": "x"}), HIDDEN) == _error(alice.files().create(body={"id": MISSING, "name": "x"}), MISSING)
    [reserved] = alice.files().generateIds(count=1).execute()["ids"]
    assert alice.files().create(body={"id": reserved, "name": "x"}).execute()["id"] == reserved
