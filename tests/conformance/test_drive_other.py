"""Drive v3 about, changes, shared drives and watch channels through the official client."""

import pytest
from googleapiclient.errors import HttpError

from tests.conformance.drive_world import names, world
from tests.conformance.harness import assert_schema

SHARED = {
    "shared_drives": [{"id": "0Ateamdrive00000000Uk9PVA", "name": "Finance team",
                       "members": [{"email": "alice", "role": "organizer"}, {"email": "bob@northwind.example", "role": "reader"}]}],
}


def shared_world():
    w = world()
    w["drive"].update(SHARED)
    w["drive"]["files"].append({"id": "f-budget", "name": "Budget.txt", "drive": "0Ateamdrive00000000Uk9PVA", "content": "budget 2026"})
    return w


def test_about_get(served):
    served.start(world())
    resp = served.google("drive", "alice").about().get(fields="*").execute()
    assert_schema("drive.about.get", resp)
    assert resp["user"]["emailAddress"] == "alice@northwind.example" and resp["user"]["me"] is True
    assert int(resp["storageQuota"]["usage"]) > 0
    with pytest.raises(HttpError) as exc:
        served.google("drive", "alice").about().get().execute()
    assert exc.value.status_code == 400


def test_changes_report_edits_visible_to_the_principal(served):
    served.start(world())
    alice, bob = served.google("drive", "alice"), served.google("drive", "bob")
    start = alice.changes().getStartPageToken().execute()
    assert_schema("drive.changes.getStartPageToken", start)
    bob_start = bob.changes().getStartPageToken().execute()["startPageToken"]
    alice.files().update(fileId="f-plan", body={"name": "Plan B.txt"}).execute()
    alice.files().update(fileId="f-salary", body={"description": "hr"}).execute()
    resp = alice.changes().list(pageToken=start["startPageToken"]).execute()
    assert_schema("drive.changes.list", resp)
    assert [c["fileId"] for c in resp["changes"]] == ["f-plan", "f-salary"]
    assert resp["changes"][0]["file"]["name"] == "Plan B.txt" and "newStartPageToken" in resp
    bob_changes = bob.changes().list(pageToken=bob_start).execute()["changes"]
    assert [c["fileId"] for c in bob_changes] == ["f-plan"]


def test_losing_access_is_a_removal_change(served):
    served.start(world())
    alice, carol = served.google("drive", "alice"), served.google("drive", "carol")
    token = carol.changes().getStartPageToken().execute()["startPageToken"]
    perms = alice.permissions().list(fileId="d-notes", fields="permissions(id,emailAddress)").execute()["permissions"]
    perm = next(p for p in perms if p.get("emailAddress") == "carol@northwind.example")
    alice.permissions().delete(fileId="d-notes", permissionId=perm["id"]).execute()
    [change] = carol.changes().list(pageToken=token).execute()["changes"]
    assert change["removed"] is True and change["fileId"] == "d-notes" and "file" not in change
    assert carol.changes().list(pageToken=token, includeRemoved=False).execute()["changes"] == []


def test_changes_paginate(served):
    served.start(world())
    alice = served.google("drive", "alice")
    token = alice.changes().getStartPageToken().execute()["startPageToken"]
    for i in range(3):
        alice.files().create(body={"name": f"n{i}.txt"}).execute()
    first = alice.changes().list(pageToken=token, pageSize=2).execute()
    assert len(first["changes"]) == 2 and "nextPageToken" in first and "newStartPageToken" not in first
    second = alice.changes().list(pageToken=first["nextPageToken"], pageSize=2).execute()
    assert len(second["changes"]) == 1 and "newStartPageToken" in second


def test_watch_channels(served):
    served.start(world())
    alice = served.google("drive", "alice")
    body = {"id": "chan-1", "type": "web_hook", "address": "https://hooks.example/drive"}
    token = alice.changes().getStartPageToken().execute()["startPageToken"]
    ch = alice.changes().watch(pageToken=token, body=body).execute()
    assert_schema("drive.changes.watch", ch)
    fch = alice.files().watch(fileId="f-plan", body={**body, "id": "chan-2"}).execute()
    assert_schema("drive.files.watch", fch)
    assert alice.channels().stop(body={"id": "chan-2", "resourceId": fch["resourceId"]}).execute() == ""


def test_shared_drive_lifecycle(served):
    world_ = served.start(world())
    alice = served.google("drive", "alice")
    made = alice.drives().create(requestId="req-1", body={"name": "Launch"}, fields="*").execute()
    assert_schema("drive.drives.create", made)
    assert made["capabilities"]["canManageMembers"] is True
    with pytest.raises(HttpError) as exc:
        alice.drives().create(requestId="req-1", body={"name": "Launch"}).execute()
    assert exc.value.status_code == 409
    listed = alice.drives().list().execute()
    assert_schema("drive.drives.list", listed)
    assert [d["name"] for d in listed["drives"]] == ["Launch"]
    got = alice.drives().get(driveId=made["id"]).execute()
    assert_schema("drive.drives.get", got)
    upd = alice.drives().update(driveId=made["id"], body={"name": "Launch 2026"}).execute()
    assert_schema("drive.drives.update", upd)
    assert upd["name"] == "Launch 2026"
    hidden = alice.drives().hide(driveId=made["id"], fields="id,hidden").execute()
    assert_schema("drive.drives.hide", hidden)
    assert hidden["hidden"] is True
    assert [d["name"] for d in alice.drives().list(q="hidden = true").execute()["drives"]] == ["Launch 2026"]
    assert alice.drives().unhide(driveId=made["id"], fields="hidden").execute()["hidden"] is False
    alice.drives().delete(driveId=made["id"]).execute()
    assert world_.store.get("drive_drives", {"id": made["id"]}) is None


def test_shared_drive_items_need_supports_all_drives(served):
    served.start(shared_world())
    alice = served.google("drive", "alice")
    with pytest.raises(HttpError) as exc:
        alice.files().get(fileId="f-budget").execute()
    assert exc.value.status_code == 404
    got = alice.files().get(fileId="f-budget", supportsAllDrives=True, fields="*").execute()
    assert got["driveId"] == "0Ateamdrive00000000Uk9PVA" and "owners" not in got
    assert "Budget.txt" not in names(alice.files().list().execute())
    listed = alice.files().list(corpora="drive", driveId="0Ateamdrive00000000Uk9PVA", includeItemsFromAllDrives=True, supportsAllDrives=True).execute()
    assert names(listed) == ["Budget.txt"]
    everything = alice.files().list(corpora="allDrives", includeItemsFromAllDrives=True, supportsAllDrives=True).execute()
    assert "Budget.txt" in names(everything) and "Team notes" in names(everything)


def test_shared_drive_roles_apply_to_its_items(served):
    served.start(shared_world())
    bob = served.google("drive", "bob")
    assert bob.files().get(fileId="f-budget", supportsAllDrives=True, fields="capabilities").execute()["capabilities"]["canEdit"] is False
    with pytest.raises(HttpError) as exc:
        bob.files().create(body={"name": "x.txt", "parents": ["0Ateamdrive00000000Uk9PVA"]}, supportsAllDrives=True).execute()
    assert exc.value.status_code == 403
    made = served.google("drive", "alice").files().create(
        body={"name": "plan.txt", "parents": ["0Ateamdrive00000000Uk9PVA"]}, supportsAllDrives=True, fields="driveId").execute()
    assert made["driveId"] == "0Ateamdrive00000000Uk9PVA"
    with pytest.raises(HttpError) as exc:
        served.google("drive", "carol").drives().get(driveId="0Ateamdrive00000000Uk9PVA").execute()
    assert exc.value.status_code == 404


def test_shared_drive_members_are_its_permissions(served):
    world_ = served.start(shared_world())
    alice = served.google("drive", "alice")
    members = alice.permissions().list(fileId="0Ateamdrive00000000Uk9PVA", supportsAllDrives=True, fields="permissions(emailAddress,role)").execute()["permissions"]
    assert {m["emailAddress"]: m["role"] for m in members} == {"alice@northwind.example": "organizer", "bob@northwind.example": "reader"}
    alice.permissions().create(fileId="0Ateamdrive00000000Uk9PVA", supportsAllDrives=True,
                               body={"type": "user", "role": "writer", "emailAddress": "carol@northwind.example"}).execute()
    assert served.google("drive", "carol").files().get(fileId="f-budget", supportsAllDrives=True).execute()["name"] == "Budget.txt"
    perms = alice.permissions().list(fileId="f-budget", supportsAllDrives=True, fields="*").execute()["permissions"]
    carol = next(p for p in perms if p.get("emailAddress") == "carol@northwind.example")
    assert carol["permissionDetails"][0]["inherited"] is True and carol["permissionDetails"][0]["permissionType"] == "member"
    with pytest.raises(HttpError) as exc:
        alice.drives().delete(driveId="0Ateamdrive00000000Uk9PVA").execute()
    assert exc.value.status_code == 403
    assert world_.store.get("drive_drives", {"id": "0Ateamdrive00000000Uk9PVA"}) is not None
