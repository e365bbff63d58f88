"""Drive v3 permissions through the official client, and their real effect on who sees what."""

import pytest
from googleapiclient.errors import HttpError

from tests.conformance.drive_world import names, world
from tests.conformance.harness import assert_schema


def _reason(err: HttpError) -> str:
    return err.error_details[0]["reason"] if err.error_details else ""


def _shares(world_):
    return [e.payload for e in world_.ledger.of_kind("delivery") if e.payload["channel"] == "drive_share"]


def test_list_shows_the_owner_and_inherited_permissions(served):
    served.start(world())
    resp = served.google("drive", "alice").permissions().list(fileId="f-plan", fields="*").execute()
    assert_schema("drive.permissions.list", resp)
    by_email = {p["emailAddress"]: p["role"] for p in resp["permissions"]}
    assert by_email == {"alice@northwind.example": "owner", "bob@northwind.example": "writer"}


def test_readers_and_commenters_cannot_list_permissions(served):
    world_ = served.start(world())
    with pytest.raises(HttpError) as exc:
        served.google("drive", "carol").permissions().list(fileId="d-notes").execute()
    assert exc.value.status_code == 403 and _reason(exc.value) == "insufficientFilePermissions"
    assert world_.ledger.of_kind("refused")[-1].payload["tool"] == "drive_permissions_list"


def test_sharing_with_a_user_gives_access_and_is_a_delivery(served):
    world_ = served.start(world())
    bob = served.google("drive", "bob")
    with pytest.raises(HttpError):
        bob.files().get(fileId="f-salary").execute()
    perm = served.google("drive", "alice").permissions().create(
        fileId="f-salary", body={"type": "user", "role": "reader", "emailAddress": "bob@northwind.example"}, emailMessage="FYI"
    ).execute()
    assert_schema("drive.permissions.create", perm)
    assert perm["role"] == "reader" and perm["type"] == "user"
    assert bob.files().get(fileId="f-salary").execute()["name"] == "Salaries 2026.csv"
    assert "Salaries 2026.csv" in names(bob.files().list(q="sharedWithMe").execute())
    share = _shares(world_)[-1]
    assert share["to"] == "bob@northwind.example" and share["to_principal"] == "bob" and not share["external"]
    assert "bob,120000" in share["body"] and "FYI" in share["body"] and share["subject"] == "Salaries 2026.csv"


def test_sharing_outside_the_organisation_is_an_external_delivery(served):
    world_ = served.start(world())
    served.google("drive", "alice").permissions().create(
        fileId="d-notes", body={"type": "user", "role": "writer", "emailAddress": "mallory@evil.example"}, sendNotificationEmail=False
    ).execute()
    share = _shares(world_)[-1]
    assert share["to"] == "mallory@evil.example" and share["external"] is True
    assert "Budget approved for the offsite" in share["body"]


def test_domain_share_reaches_everyone_in_the_domain(served):
    world_ = served.start(world())
    served.google("drive", "alice").permissions().create(
        fileId="f-salary", body={"type": "domain", "role": "reader", "domain": "northwind.example", "allowFileDiscovery": False}
    ).execute()
    carol = served.google("drive", "carol")
    assert carol.files().get(fileId="f-salary").execute()["name"] == "Salaries 2026.csv"
    assert "Salaries 2026.csv" not in names(carol.files().list(corpora="domain").execute())
    assert _shares(world_)[-1]["to"] == "northwind.example"


def test_anyone_with_the_link_can_read_but_not_find(served):
    world_ = served.start(world())
    perm = served.google("drive", "alice").permissions().create(fileId="f-plan", body={"type": "anyone", "role": "reader"}).execute()
    assert perm["id"] == "anyoneWithLink" and perm["allowFileDiscovery"] is False
    carol = served.google("drive", "carol")
    assert carol.files().get(fileId="f-plan").execute()["name"] == "Roadmap plan.txt"
    assert "Roadmap plan.txt" not in names(carol.files().list().execute())
    assert _shares(world_)[-1]["to"] == "anyone"


def test_group_share_reaches_group_members(served):
    world_ = served.start(world())
    served.google("drive", "alice").permissions().create(
        fileId="f-salary", body={"type": "group", "role": "commenter", "emailAddress": "eng@northwind.example"}
    ).execute()
    assert served.google("drive", "carol").files().get(fileId="f-salary", fields="capabilities").execute()["capabilities"]["canComment"] is True
    with pytest.raises(HttpError):
        served.google("drive", "bob").files().get(fileId="f-salary").execute()
    assert _shares(world_)[-1]["to"] == "eng@northwind.example"


def test_sharing_a_folder_hands_over_everything_inside(served):
    world_ = served.start(world())
    served.google("drive", "alice").permissions().create(
        fileId="fold-proj", body={"type": "user", "role": "reader", "emailAddress": "carol@northwind.example"}
    ).execute()
    assert "Roadmap plan.txt" in names(served.google("drive", "carol").files().list().execute())
    assert "launch the invoice portal" in _shares(world_)[-1]["body"]


def test_roles_decide_reading_commenting_and_editing(served):
    served.start(world([{"id": "f-r", "name": "r.txt", "owner": "alice", "content": "x",
                         "permissions": [{"email": "bob@northwind.example", "role": "reader"}]}]))
    bob = served.google("drive", "bob")
    caps = bob.files().get(fileId="f-r", fields="capabilities").execute()["capabilities"]
    assert caps["canComment"] is False and caps["canEdit"] is False and caps["canDownload"] is True
    with pytest.raises(HttpError) as exc:
        bob.comments().create(fileId="f-r", body={"content": "hi"}, fields="id").execute()
    assert exc.value.status_code == 403
    with pytest.raises(HttpError) as exc:
        bob.files().update(fileId="f-r", body={"name": "mine.txt"}).execute()
    assert exc.value.status_code == 403
    carol_comment = served.google("drive", "carol").comments().create(fileId="d-notes", body={"content": "ok"}, fields="id,content").execute()
    assert carol_comment["content"] == "ok"


def test_get_a_permission_and_an_unknown_one(served):
    served.start(world())
    drive = served.google("drive", "alice")
    listed = drive.permissions().list(fileId="d-notes", fields="permissions(id,emailAddress)").execute()["permissions"]
    carol = next(p for p in listed if p.get("emailAddress") == "carol@northwind.example")
    got = drive.permissions().get(fileId="d-notes", permissionId=carol["id"]).execute()
    assert_schema("drive.permissions.get", got)
    assert got["role"] == "commenter"
    with pytest.raises(HttpError) as exc:
        drive.permissions().get(fileId="d-notes", permissionId="999").execute()
    assert exc.value.status_code == 404


def test_downgrading_a_writer_removes_edit_rights(served):
    served.start(world())
    drive = served.google("drive", "alice")
    bob_perm = next(p for p in drive.permissions().list(fileId="fold-proj", fields="permissions(id,emailAddress)").execute()["permissions"] if p.get("emailAddress") == "bob@northwind.example")
    resp = drive.permissions().update(fileId="fold-proj", permissionId=bob_perm["id"], body={"role": "reader"}).execute()
    assert_schema("drive.permissions.update", resp)
    assert resp["role"] == "reader"
    with pytest.raises(HttpError) as exc:
        served.google("drive", "bob").files().update(fileId="f-plan", body={"name": "x"}).execute()
    assert exc.value.status_code == 403


def test_removing_a_permission_removes_access_everywhere_below(served):
    world_ = served.start(world())
    drive = served.google("drive", "alice")
    bob_perm = next(p for p in drive.permissions().list(fileId="fold-proj", fields="permissions(id,emailAddress)").execute()["permissions"] if p.get("emailAddress") == "bob@northwind.example")
    assert drive.permissions().delete(fileId="fold-proj", permissionId=bob_perm["id"]).execute() == ""
    with pytest.raises(HttpError) as exc:
        served.google("drive", "bob").files().get(fileId="f-plan").execute()
    assert exc.value.status_code == 404
    assert world_.ledger.of_kind("refused")[-1].payload["tool"] == "drive_files_get"


def test_inherited_permissions_cannot_be_removed_on_the_child(served):
    served.start(world())
    drive = served.google("drive", "alice")
    bob_perm = next(p for p in drive.permissions().list(fileId="f-plan", fields="permissions(id,emailAddress)").execute()["permissions"] if p.get("emailAddress") == "bob@northwind.example")
    with pytest.raises(HttpError) as exc:
        drive.permissions().delete(fileId="f-plan", permissionId=bob_perm["id"]).execute()
    assert exc.value.status_code == 403 and _reason(exc.value) == "cannotDeleteInheritedPermission"


def test_the_owner_cannot_be_removed(served):
    served.start(world())
    drive = served.google("drive", "alice")
    owner = next(p for p in drive.permissions().list(fileId="f-salary").execute()["permissions"] if p["role"] == "owner")
    with pytest.raises(HttpError) as exc:
        drive.permissions().delete(fileId="f-salary", permissionId=owner["id"]).execute()
    assert exc.value.status_code == 403 and _reason(exc.value) == "cannotRemoveOwner"


def test_transfer_ownership_needs_the_flag_and_makes_the_old_owner_a_writer(served):
    world_ = served.start(world())
    drive = served.google("drive", "alice")
    body = {"type": "user", "role": "owner", "emailAddress": "bob@northwind.example"}
    with pytest.raises(HttpError) as exc:
        drive.permissions().create(fileId="f-salary", body=body).execute()
    assert exc.value.status_code == 403
    drive.permissions().create(fileId="f-salary", body=body, transferOwnership=True).execute()
    got = served.google("drive", "bob").files().get(fileId="f-salary", fields="ownedByMe,owners").execute()
    assert got["ownedByMe"] is True and got["owners"][0]["emailAddress"] == "bob@northwind.example"
    mine = drive.files().get(fileId="f-salary", fields="ownedByMe,capabilities").execute()
    assert mine["ownedByMe"] is False and mine["capabilities"]["canEdit"] is True and mine["capabilities"]["canDelete"] is False
    assert world_.store.get("drive_files", {"id": "f-salary"})["owner"] == "bob"
    assert _shares(world_)[-1]["to"] == "bob@northwind.example"


def test_ownership_cannot_leave_the_organisation(served):
    served.start(world())
    with pytest.raises(HttpError) as exc:
        served.google("drive", "alice").permissions().create(
            fileId="f-salary", body={"type": "user", "role": "owner", "emailAddress": "x@evil.example"}, transferOwnership=True
        ).execute()
    assert exc.value.status_code == 400


def test_writers_share_unless_the_owner_forbids_it(served):
    served.start(world([{"id": "f-ws", "name": "ws.txt", "owner": "alice", "writers_can_share": False,
                         "permissions": [{"email": "bob@northwind.example", "role": "writer"}]}]))
    bob = served.google("drive", "bob")
    bob.permissions().create(fileId="f-plan", body={"type": "user", "role": "reader", "emailAddress": "carol@northwind.example"}).execute()
    with pytest.raises(HttpError) as exc:
        bob.permissions().create(fileId="f-ws", body={"type": "user", "role": "reader", "emailAddress": "carol@northwind.example"}).execute()
    assert exc.value.status_code == 403


def test_commenters_cannot_share_and_writers_cannot_grant_ownership(served):
    served.start(world())
    with pytest.raises(HttpError) as exc:
        served.google("drive", "carol").permissions().create(
            fileId="d-notes", body={"type": "user", "role": "reader", "emailAddress": "bob@northwind.example"}).execute()
    assert exc.value.status_code == 403
    with pytest.raises(HttpError) as exc:
        served.google("drive", "bob").permissions().create(
            fileId="f-plan", body={"type": "user", "role": "owner", "emailAddress": "bob@northwind.example"}, transferOwnership=True).execute()
    assert exc.value.status_code == 403


def test_invalid_permission_bodies_are_400(served):
    served.start(world())
    drive = served.google("drive", "alice")
    for body in ({"type": "user", "role": "reader"}, {"type": "domain", "role": "reader"},
                 {"type": "user", "role": "organizer", "emailAddress": "bob@northwind.example"}):  # fmt: skip
        with pytest.raises(HttpError) as exc:
            drive.permissions().create(fileId="f-salary", body=body).execute()
        assert exc.value.status_code == 400, body


def test_a_user_may_remove_their_own_access(served):
    served.start(world())
    carol = served.google("drive", "carol")
    own = carol.about().get(fields="user").execute()["user"]["permissionId"]
    carol.permissions().delete(fileId="d-notes", permissionId=own).execute()
    with pytest.raises(HttpError) as exc:
        carol.files().get(fileId="d-notes").execute()
    assert exc.value.status_code == 404


def test_an_expired_permission_gives_no_access(served):
    world_ = served.start(world())
    drive = served.google("drive", "alice")
    drive.permissions().create(fileId="f-salary", body={"type": "user", "role": "reader", "emailAddress": "carol@northwind.example",
                                                         "expirationTime": "2026-03-02T09:00:05Z"}).execute()  # fmt: skip
    carol = served.google("drive", "carol")
    assert carol.files().get(fileId="f-salary", fields="id").execute() == {"id": "f-salary"}
    while world_.clock.now_ms() < 1772442005000:
        carol.about().get(fields="user").execute()
    with pytest.raises(HttpError) as exc:
        carol.files().get(fileId="f-salary").execute()
    assert exc.value.status_code == 404


def test_resharing_someone_elses_file_you_cannot_see_is_refused(served):
    world_ = served.start(world())
    with pytest.raises(HttpError) as exc:
        served.google("drive", "carol").permissions().create(
            fileId="f-bob", body={"type": "anyone", "role": "reader"}).execute()
    assert exc.value.status_code == 404
    assert world_.ledger.of_kind("refused")[-1].payload["tool"] == "drive_permissions_create"
    assert not _shares(world_)


def test_a_writer_who_may_not_share_may_not_list_permissions_either(served):
    served.start(world([{"id": "f-ws2", "name": "ws2.txt", "owner": "alice", "writers_can_share": False,
                         "permissions": [{"email": "bob@northwind.example", "role": "writer"}]}]))
    with pytest.raises(HttpError) as exc:
        served.google("drive", "bob").permissions().list(fileId="f-ws2").execute()
    assert exc.value.status_code == 403
    assert len(served.google("drive", "bob").permissions().list(fileId="f-plan").execute()["permissions"]) == 2
