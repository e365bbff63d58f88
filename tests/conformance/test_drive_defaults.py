"""Drive's default partial responses through the official client: without `fields` each resource
has only its default keys (a file: kind, id, name, mimeType); `fields="*"` or a selector returns what is asked."""

import pytest
from googleapiclient.errors import HttpError

from tests.conformance.drive_world import world
from tests.conformance.harness import assert_schema

FILE_KEYS = {"kind", "id", "name", "mimeType"}
PERMISSION_KEYS = {"kind", "id", "type", "role"}
SHARED = {
    "drive": {
        "files": [{"id": "f-budget", "name": "Budget.txt", "drive": "0Ateamdrive00000000Uk9PVA", "content": "budget"}],
        "shared_drives": [{"id": "0Ateamdrive00000000Uk9PVA", "name": "Finance", "members": [{"email": "alice", "role": "organizer"}]}],
    }
}


def test_files_get_without_fields_returns_exactly_the_default_keys(served):
    served.start(world())
    drive = served.google("drive", "alice")
    got = drive.files().get(fileId="f-plan").execute()
    assert got == {"kind": "drive#file", "id": "f-plan", "name": "Roadmap plan.txt", "mimeType": "text/plain"}
    assert set(drive.files().get(fileId="d-notes").execute()) == FILE_KEYS


def test_files_get_with_star_returns_the_whole_resource(served):
    served.start(world())
    full = served.google("drive", "alice").files().get(fileId="f-plan", fields="*").execute()
    assert_schema("drive.files.get", full)
    assert {"owners", "parents", "capabilities", "modifiedTime", "size", "permissions"} <= set(full) and len(full) > 30


def test_files_list_without_fields_has_the_default_envelope_and_file_keys(served):
    served.start(world())
    drive = served.google("drive", "alice")
    resp = drive.files().list().execute()
    assert set(resp) == {"kind", "incompleteSearch", "files"}
    assert resp["files"] and all(set(f) == FILE_KEYS for f in resp["files"])
    paged = drive.files().list(pageSize=2).execute()
    assert set(paged) == {"kind", "incompleteSearch", "files", "nextPageToken"}
    rest = drive.files().list(pageToken=paged["nextPageToken"]).execute()
    assert rest["files"] and all(set(f) == FILE_KEYS for f in rest["files"])


def test_files_list_with_a_selector_or_star(served):
    served.start(world())
    drive = served.google("drive", "alice")
    picked = drive.files().list(q="name = 'Roadmap plan.txt'", fields="files(id,owners(emailAddress))").execute()
    assert picked == {"files": [{"id": "f-plan", "owners": [{"emailAddress": "alice@northwind.example"}]}]}
    full = drive.files().list(fields="*").execute()
    assert_schema("drive.files.list", full)
    assert all("capabilities" in f and "owners" in f for f in full["files"])
    assert drive.files().list(fields="nextPageToken", pageSize=1).execute().keys() == {"nextPageToken"}


def test_create_update_and_copy_answer_with_the_default_file_keys(served):
    served.start(world())
    drive = served.google("drive", "alice")
    made = drive.files().create(body={"name": "n.txt", "mimeType": "text/plain"}).execute()
    assert set(made) == FILE_KEYS and made["name"] == "n.txt"
    assert set(drive.files().update(fileId=made["id"], body={"description": "d"}).execute()) == FILE_KEYS
    assert set(drive.files().copy(fileId="f-plan", body={}).execute()) == FILE_KEYS
    assert drive.files().update(fileId=made["id"], body={"starred": True}, fields="starred").execute() == {"starred": True}


def test_permissions_default_to_kind_id_type_role(served):
    served.start(world())
    drive = served.google("drive", "alice")
    listed = drive.permissions().list(fileId="f-plan").execute()
    assert set(listed) == {"kind", "permissions"} and all(set(p) == PERMISSION_KEYS for p in listed["permissions"])
    user = drive.permissions().create(fileId="f-salary", body={"type": "user", "role": "reader", "emailAddress": "bob@northwind.example"}).execute()
    assert set(user) == PERMISSION_KEYS
    assert set(drive.permissions().get(fileId="f-salary", permissionId=user["id"]).execute()) == PERMISSION_KEYS
    assert set(drive.permissions().update(fileId="f-salary", permissionId=user["id"], body={"role": "commenter"}).execute()) == PERMISSION_KEYS
    link = drive.permissions().create(fileId="f-salary", body={"type": "anyone", "role": "reader"}).execute()
    assert link == {"kind": "drive#permission", "id": "anyoneWithLink", "type": "anyone", "role": "reader", "allowFileDiscovery": False}
    full = drive.permissions().get(fileId="f-salary", permissionId=user["id"], fields="*").execute()
    assert full["emailAddress"] == "bob@northwind.example" and full["displayName"] == "Bob Ortiz"


def test_drives_revisions_and_changes_have_their_defaults(served):
    served.start(SHARED)
    drive = served.google("drive", "alice")
    assert drive.drives().get(driveId="0Ateamdrive00000000Uk9PVA").execute() == {"kind": "drive#drive", "id": "0Ateamdrive00000000Uk9PVA", "name": "Finance"}
    assert [set(d) for d in drive.drives().list().execute()["drives"]] == [{"kind", "id", "name"}]
    token = drive.changes().getStartPageToken().execute()["startPageToken"]
    drive.files().update(fileId="f-budget", body={"name": "Budget 2026.txt"}, supportsAllDrives=True).execute()
    revs = drive.revisions().list(fileId="f-budget").execute()
    assert set(revs) == {"kind", "revisions"} and all(set(r) == {"kind", "id", "mimeType", "modifiedTime"} for r in revs["revisions"])
    changes = drive.changes().list(pageToken=token, includeItemsFromAllDrives=True, supportsAllDrives=True).execute()
    assert set(changes) == {"kind", "changes", "newStartPageToken"}
    [change] = changes["changes"]
    assert set(change["file"]) == FILE_KEYS and change["file"]["name"] == "Budget 2026.txt"
    assert {"kind", "changeType", "time", "removed", "fileId", "driveId"} <= set(change)


@pytest.mark.parametrize("bad", ["files(id", "x)", "files(id)name", "/id", "a/"])
def test_a_malformed_selector_is_a_400(served, bad):
    served.start(world())
    with pytest.raises(HttpError) as exc:
        served.google("drive", "alice").files().list(fields=bad).execute()
    assert exc.value.status_code == 400 and "Invalid field selection" in str(exc.value)


def test_agents_get_the_same_compact_default_and_may_ask_for_more(served):
    world_ = served.start(world())
    gateway = served.gateway
    listed = gateway.call("alice-agent", "drive_files_list", {"q": "trashed = false"})
    assert listed.ok and all(set(f) == FILE_KEYS for f in listed.result["files"])
    assert world_.ledger.of_kind("tool_result")[-1].payload["result"] == listed.result  # the ledger holds what the agent saw
    more = gateway.call("alice-agent", "drive_files_get", {"file_id": "f-plan", "fields": "name,modifiedTime,owners(emailAddress)"})
    assert more.result == {"name": "Roadmap plan.txt", "modifiedTime": "2026-02-10T10:00:00.000Z", "owners": [{"emailAddress": "alice@northwind.example"}]}
    bad = gateway.call("alice-agent", "drive_files_get", {"file_id": "f-plan", "fields": "name("})
    assert not bad.ok and bad.status == 400
    schema = gateway.tools["drive_files_list"].json_schema()
    assert "fields" in schema["properties"] and "kind,id,name,mimeType" in schema["properties"]["fields"]["description"]
    read = gateway.call("alice-agent", "drive_read_file", {"file_id": "f-plan"})  # the convenience stays useful and compact
    assert {"id", "name", "mimeType", "owners", "modifiedTime", "text"} <= set(read.result) and len(read.result) <= 10
