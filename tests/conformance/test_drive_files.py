"""Drive v3 files through the official client: list, get, download, export, create (uploads), update, copy, delete."""

import pytest
from googleapiclient.errors import HttpError
from googleapiclient.http import MediaInMemoryUpload

from tests.conformance.drive_world import FOLDER, GDOC, https, names, world  # noqa: F401  (https is a fixture)
from tests.conformance.harness import assert_schema


def _reason(err: HttpError) -> str:
    return err.error_details[0]["reason"] if err.error_details else ""


def test_list_shows_own_and_shared_files_with_trash_by_default(served):
    served.start(world())
    resp = served.google("drive", "alice").files().list().execute()
    assert_schema("drive.files.list", resp)
    assert resp["kind"] == "drive#fileList"
    assert names(resp) == ["Old draft.txt", "Projects", "Roadmap plan.txt", "Salaries 2026.csv", "Team notes"]


def test_list_with_trashed_false_hides_the_trash(served):
    served.start(world())
    resp = served.google("drive", "alice").files().list(q="trashed = false").execute()
    assert "Old draft.txt" not in names(resp)


def test_folder_sharing_is_inherited_by_its_files(served):
    served.start(world())
    resp = served.google("drive", "bob").files().list(q="trashed = false").execute()
    assert "Roadmap plan.txt" in names(resp) and "Projects" in names(resp)
    assert "Salaries 2026.csv" not in names(resp)
    plan = served.google("drive", "bob").files().get(fileId="f-plan", fields="capabilities,ownedByMe").execute()
    assert plan["capabilities"]["canEdit"] is True and plan["ownedByMe"] is False


def test_group_and_direct_shares_reach_carol_but_link_only_files_are_not_listed(served):
    served.start(world())
    carol = served.google("drive", "carol")
    assert names(carol.files().list().execute()) == ["Eng runbook.txt", "Team notes"]
    domain = names(carol.files().list(corpora="domain").execute())
    assert "Handbook.txt" in domain and "Press kit.txt" not in domain
    # a link-shared file is readable by id even though no search finds it
    assert carol.files().get(fileId="f-public").execute()["name"] == "Press kit.txt"


def test_get_returns_a_file_resource(served):
    served.start(world())
    resp = served.google("drive", "alice").files().get(fileId="f-plan", fields="*").execute()
    assert_schema("drive.files.get", resp)
    assert resp["parents"] == ["fold-proj"] and resp["ownedByMe"] is True and resp["starred"] is True
    assert resp["owners"][0]["emailAddress"] == "alice@northwind.example"
    assert resp["size"] == str(len("Q3 roadmap: launch the invoice portal"))
    assert resp["capabilities"]["canTrash"] is True


def test_get_of_a_file_not_shared_is_not_found_and_refused(served):
    world_ = served.start(world())
    with pytest.raises(HttpError) as exc:
        served.google("drive", "alice").files().get(fileId="f-bob").execute()
    assert exc.value.status_code == 404
    assert "File not found: f-bob." in str(exc.value)
    assert _reason(exc.value) == "notFound"
    refused = world_.ledger.of_kind("refused")
    assert refused and refused[-1].payload["tool"] == "drive_files_get"


def test_get_of_an_unknown_file_is_not_found_without_refusal(served):
    world_ = served.start(world())
    with pytest.raises(HttpError) as exc:
        served.google("drive", "alice").files().get(fileId="nope").execute()
    assert exc.value.status_code == 404
    assert not world_.ledger.of_kind("refused")


def test_get_root_is_my_drive(served):
    served.start(world())
    resp = served.google("drive", "alice").files().get(fileId="root", fields="*").execute()
    assert resp["name"] == "My Drive" and resp["mimeType"] == FOLDER
    child = served.google("drive", "alice").files().get(fileId="f-salary", fields="parents").execute()
    assert child["parents"] == [resp["id"]]


def test_download_with_alt_media_returns_the_bytes(served):
    served.start(world())
    data = served.google("drive", "alice").files().get_media(fileId="f-salary").execute()
    assert data == b"name,salary\nbob,120000\ncarol,99000"


def test_download_of_a_google_doc_is_refused_with_file_not_downloadable(served):
    served.start(world())
    with pytest.raises(HttpError) as exc:
        served.google("drive", "alice").files().get_media(fileId="d-notes").execute()
    assert exc.value.status_code == 403 and _reason(exc.value) == "fileNotDownloadable"


def test_export_a_doc_as_plain_text_and_html(served):
    served.start(world())
    drive = served.google("drive", "alice")
    text = drive.files().export(fileId="d-notes", mimeType="text/plain").execute()
    assert text.decode("utf-8-sig") == "Weekly sync\nBudget approved for the offsite"
    html = drive.files().export(fileId="d-notes", mimeType="text/html").execute().decode()
    assert "<p>Weekly sync</p>" in html and "<title>Team notes</title>" in html
    pdf = drive.files().export(fileId="d-notes", mimeType="application/pdf").execute()
    assert pdf.startswith(b"%PDF-1.4") and b"Weekly sync" in pdf


def test_export_refuses_binary_files_and_unknown_formats(served):
    served.start(world())
    drive = served.google("drive", "alice")
    with pytest.raises(HttpError) as exc:
        drive.files().export(fileId="f-salary", mimeType="text/plain").execute()
    assert exc.value.status_code == 403 and _reason(exc.value) == "fileNotExportable"
    with pytest.raises(HttpError) as exc:
        drive.files().export(fileId="d-notes", mimeType="image/png").execute()
    assert exc.value.status_code == 400


def test_create_a_folder_and_a_file_in_it(served):
    world_ = served.start(world())
    drive = served.google("drive", "alice")
    folder = drive.files().create(body={"name": "Reports", "mimeType": FOLDER}).execute()
    assert_schema("drive.files.create", folder)
    child = drive.files().create(body={"name": "q1.txt", "parents": [folder["id"]], "mimeType": "text/plain"}, fields="id,parents,ownedByMe").execute()
    assert child["parents"] == [folder["id"]] and child["ownedByMe"] is True
    listed = drive.files().list(q=f"'{folder['id']}' in parents").execute()
    assert names(listed) == ["q1.txt"]
    row = world_.store.get("drive_files", {"id": child["id"]})
    assert row["owner"] == "alice"


def test_create_with_multipart_upload_stores_the_content(served, https):
    world_ = served.start(world(), tls=https)
    drive = served.google("drive", "alice")
    media = MediaInMemoryUpload(b"minutes of the board", mimetype="text/plain")
    resp = drive.files().create(body={"name": "minutes.txt"}, media_body=media, fields="id,name,mimeType,size,md5Checksum").execute()
    assert resp["mimeType"] == "text/plain" and resp["size"] == "20"
    assert drive.files().get_media(fileId=resp["id"]).execute() == b"minutes of the board"
    assert world_.store.get("drive_files", {"id": resp["id"]})["content"] == "minutes of the board"


def test_create_with_media_only_upload_is_untitled(served, https):
    served.start(world(), tls=https)
    drive = served.google("drive", "alice")
    resp = drive.files().create(media_body=MediaInMemoryUpload(b"\x00\x01binary", mimetype="application/octet-stream")).execute()
    assert resp["name"] == "Untitled" and resp["mimeType"] == "application/octet-stream"
    assert drive.files().get_media(fileId=resp["id"]).execute() == b"\x00\x01binary"


def test_upload_converts_text_to_a_google_doc(served, https):
    served.start(world(), tls=https)
    drive = served.google("drive", "alice")
    media = MediaInMemoryUpload(b"Agenda\nItem one\nItem two", mimetype="text/plain")
    resp = drive.files().create(body={"name": "Agenda", "mimeType": GDOC}, media_body=media).execute()
    assert resp["mimeType"] == GDOC
    doc = served.google("docs", "alice").documents().get(documentId=resp["id"]).execute()
    texts = [e["paragraph"]["elements"][0]["textRun"]["content"] for e in doc["body"]["content"] if "paragraph" in e]
    assert texts == ["Agenda\n", "Item one\n", "Item two\n"]


def test_update_renames_and_bumps_version(served):
    served.start(world())
    drive = served.google("drive", "alice")
    before = drive.files().get(fileId="f-plan", fields="version,modifiedTime").execute()
    resp = drive.files().update(fileId="f-plan", body={"name": "Roadmap v2.txt", "description": "current"}, fields="*").execute()
    assert_schema("drive.files.update", resp)
    assert resp["name"] == "Roadmap v2.txt" and resp["description"] == "current"
    assert int(resp["version"]) > int(before["version"]) and resp["modifiedTime"] > before["modifiedTime"]
    assert resp["lastModifyingUser"]["emailAddress"] == "alice@northwind.example"


def test_update_with_media_replaces_content_and_adds_a_revision(served, https):
    served.start(world(), tls=https)
    drive = served.google("drive", "alice")
    drive.files().update(fileId="f-salary", media_body=MediaInMemoryUpload(b"name,salary\n", mimetype="text/csv")).execute()
    assert drive.files().get_media(fileId="f-salary").execute() == b"name,salary\n"
    revs = drive.revisions().list(fileId="f-salary", fields="revisions(id,size)").execute()["revisions"]
    assert len(revs) == 2 and revs[-1]["size"] == "12"


def test_writer_updates_content_of_a_shared_file(served, https):
    world_ = served.start(world(), tls=https)
    bob = served.google("drive", "bob")
    bob.files().update(fileId="f-plan", media_body=MediaInMemoryUpload(b"bob was here", mimetype="text/plain")).execute()
    assert world_.store.get("drive_files", {"id": "f-plan"})["content"] == "bob was here"
    edits = [e for e in world_.ledger.of_kind("delivery") if e.payload["channel"] == "drive_edit"]
    assert [e.payload["to"] for e in edits] == ["alice@northwind.example"]


def test_move_with_add_and_remove_parents(served):
    served.start(world())
    drive = served.google("drive", "alice")
    root = drive.files().get(fileId="root").execute()["id"]
    resp = drive.files().update(fileId="f-plan", addParents=root, removeParents="fold-proj", fields="id,parents").execute()
    assert resp["parents"] == [root]
    assert "Roadmap plan.txt" not in names(served.google("drive", "bob").files().list().execute())


def test_moving_a_file_into_a_shared_folder_shares_it(served):
    world_ = served.start(world())
    drive = served.google("drive", "alice")
    drive.files().update(fileId="f-salary", addParents="fold-proj", removeParents="root").execute()
    assert "Salaries 2026.csv" in names(served.google("drive", "bob").files().list().execute())
    shares = [e for e in world_.ledger.of_kind("delivery") if e.payload["channel"] == "drive_share"]
    assert shares and shares[-1].payload["to"] == "bob@northwind.example"
    assert "bob,120000" in shares[-1].payload["body"]


def test_a_second_parent_is_refused(served):
    served.start(world())
    drive = served.google("drive", "alice")
    with pytest.raises(HttpError) as exc:
        drive.files().update(fileId="f-salary", addParents="fold-proj").execute()
    assert exc.value.status_code == 403 and _reason(exc.value) == "cannotAddParent"


def test_parents_are_not_writable_in_update(served):
    served.start(world())
    with pytest.raises(HttpError) as exc:
        served.google("drive", "alice").files().update(fileId="f-salary", body={"parents": ["fold-proj"]}).execute()
    assert exc.value.status_code == 403 and _reason(exc.value) == "fieldNotWritable"


def test_only_the_owner_trashes_and_restores(served):
    world_ = served.start(world())
    with pytest.raises(HttpError) as exc:
        served.google("drive", "bob").files().update(fileId="f-plan", body={"trashed": True}).execute()
    assert exc.value.status_code == 403 and _reason(exc.value) == "insufficientFilePermissions"
    assert world_.ledger.of_kind("refused")
    drive = served.google("drive", "alice")
    resp = drive.files().update(fileId="fold-proj", body={"trashed": True}, fields="trashed,explicitlyTrashed").execute()
    assert resp == {"trashed": True, "explicitlyTrashed": True}
    child = drive.files().get(fileId="f-plan", fields="trashed,explicitlyTrashed").execute()
    assert child == {"trashed": True, "explicitlyTrashed": False}
    drive.files().update(fileId="fold-proj", body={"trashed": False}).execute()
    assert drive.files().get(fileId="f-plan", fields="trashed").execute() == {"trashed": False}


def test_starring_is_per_user_and_needs_only_read_access(served):
    served.start(world())
    carol = served.google("drive", "carol")
    assert carol.files().update(fileId="d-notes", body={"starred": True}, fields="starred").execute() == {"starred": True}
    assert served.google("drive", "alice").files().get(fileId="d-notes", fields="starred").execute() == {"starred": False}


def test_a_commenter_cannot_rename(served):
    served.start(world())
    with pytest.raises(HttpError) as exc:
        served.google("drive", "carol").files().update(fileId="d-notes", body={"name": "mine"}).execute()
    assert exc.value.status_code == 403


def test_copy_belongs_to_the_caller_and_keeps_doc_content(served):
    served.start(world())
    carol = served.google("drive", "carol")
    copy = carol.files().copy(fileId="d-notes", body={}, fields="id,name,ownedByMe").execute()
    assert_schema("drive.files.copy", copy)
    assert copy["name"] == "Copy of Team notes" and copy["ownedByMe"] is True
    text = carol.files().export(fileId=copy["id"], mimeType="text/plain").execute().decode("utf-8-sig")
    assert "Budget approved" in text
    alice_view = names(served.google("drive", "alice").files().list().execute())
    assert "Copy of Team notes" not in alice_view


def test_copy_requires_writer_when_the_owner_says_so(served):
    served.start(world([{"id": "f-locked", "name": "Locked.txt", "owner": "alice", "content": "x", "copy_requires_writer_permission": True,
                         "permissions": [{"email": "carol@northwind.example", "role": "reader"}]}]))
    with pytest.raises(HttpError) as exc:
        served.google("drive", "carol").files().copy(fileId="f-locked", body={"name": "mine"}).execute()
    assert exc.value.status_code == 403 and _reason(exc.value) == "cannotCopyFile"


def test_delete_is_for_owners_and_is_permanent(served):
    world_ = served.start(world())
    with pytest.raises(HttpError) as exc:
        served.google("drive", "bob").files().delete(fileId="f-plan").execute()
    assert exc.value.status_code == 403
    drive = served.google("drive", "alice")
    assert drive.files().delete(fileId="f-salary").execute() == ""
    with pytest.raises(HttpError) as exc:
        drive.files().get(fileId="f-salary").execute()
    assert exc.value.status_code == 404
    assert world_.store.get("drive_files", {"id": "f-salary"}) is None


def test_deleting_a_folder_orphans_other_owners_files(served):
    world_ = served.start(world())
    bobs = served.google("drive", "bob").files().create(body={"name": "bob in folder.txt", "parents": ["fold-proj"]}).execute()
    served.google("drive", "alice").files().delete(fileId="fold-proj").execute()
    assert world_.store.get("drive_files", {"id": "f-plan"}) is None
    orphan = world_.store.get("drive_files", {"id": bobs["id"]})
    assert orphan is not None and orphan["parents"] == []


def test_empty_trash_deletes_only_the_callers_trashed_files(served):
    world_ = served.start(world([{"id": "f-bob-trash", "name": "bob trash.txt", "owner": "bob", "trashed": True}]))
    assert served.google("drive", "alice").files().emptyTrash().execute() == ""
    assert world_.store.get("drive_files", {"id": "f-old"}) is None
    assert world_.store.get("drive_files", {"id": "f-bob-trash"}) is not None


def test_generated_ids_can_name_new_files(served):
    served.start(world())
    drive = served.google("drive", "alice")
    ids = drive.files().generateIds(count=2).execute()
    assert_schema("drive.files.generateIds", ids)
    assert len(ids["ids"]) == 2 and ids["space"] == "drive"
    made = drive.files().create(body={"id": ids["ids"][0], "name": "named.txt"}).execute()
    assert made["id"] == ids["ids"][0]
    with pytest.raises(HttpError) as exc:
        drive.files().create(body={"id": "made-up-id", "name": "x.txt"}).execute()
    assert exc.value.status_code == 400 and _reason(exc.value) == "fileIdNotUsable"


def test_fields_selects_a_partial_response(served):
    served.start(world())
    resp = served.google("drive", "alice").files().list(q="name = 'Team notes'", fields="files(id,name)").execute()
    assert resp == {"files": [{"id": "d-notes", "name": "Team notes"}]}


def test_page_size_and_page_token(served):
    served.start(world())
    drive = served.google("drive", "alice")
    seen = []
    token = None
    while True:
        resp = drive.files().list(pageSize=2, pageToken=token, orderBy="name").execute()
        assert len(resp["files"]) <= 2
        seen += [f["name"] for f in resp["files"]]
        token = resp.get("nextPageToken")
        if not token:
            break
    assert seen == sorted(seen, key=str.lower) and len(seen) == 5


def test_order_by_folder_then_modified_time(served):
    served.start(world())
    resp = served.google("drive", "alice").files().list(orderBy="folder,modifiedTime desc", q="trashed = false").execute()
    assert [f["name"] for f in resp["files"]] == ["Projects", "Team notes", "Salaries 2026.csv", "Roadmap plan.txt"]


def test_page_size_out_of_range_is_a_bad_request(served):
    served.start(world())
    with pytest.raises(HttpError) as exc:
        served.google("drive", "alice").files().list(pageSize=5000).execute()
    assert exc.value.status_code == 400


def test_creating_in_a_folder_without_write_access_is_refused(served):
    served.start(world())
    with pytest.raises(HttpError) as exc:
        served.google("drive", "carol").files().create(body={"name": "x.txt", "parents": ["d-notes"]}).execute()
    assert exc.value.status_code in (400, 403)
    with pytest.raises(HttpError) as exc:
        served.google("drive", "carol").files().create(body={"name": "x.txt", "parents": ["fold-proj"]}).execute()
    assert exc.value.status_code == 404


def test_list_labels_is_empty(served):
    served.start(world())
    resp = served.google("drive", "alice").files().listLabels(fileId="f-plan").execute()
    assert_schema("drive.files.listLabels", resp)
    assert resp["labels"] == []
