"""Drive v3 comments, replies and revisions through the official client."""

import pytest
from googleapiclient.errors import HttpError

from tests.conformance.drive_world import world
from tests.conformance.harness import assert_schema


def _reason(err: HttpError) -> str:
    return err.error_details[0]["reason"] if err.error_details else ""


def test_comments_list_with_replies(served):
    served.start(world())
    resp = served.google("drive", "alice").comments().list(fileId="d-notes", fields="*").execute()
    assert_schema("drive.comments.list", resp)
    [c] = resp["comments"]
    assert c["id"] == "c1" and c["content"] == "Which offsite?" and c["author"]["displayName"] == "Carol Diaz"
    assert c["quotedFileContent"]["value"] == "offsite"
    assert [r["content"] for r in c["replies"]] == ["The March one"]


def test_comment_methods_require_a_fields_selector(served):
    served.start(world())
    with pytest.raises(HttpError) as exc:
        served.google("drive", "alice").comments().list(fileId="d-notes").execute()
    assert exc.value.status_code == 400
    assert "The 'fields' parameter is required for this method." in str(exc.value)


def test_a_comment_is_delivered_to_everyone_who_can_read_the_file(served):
    world_ = served.start(world())
    resp = served.google("drive", "carol").comments().create(
        fileId="d-notes", body={"content": "Please add the venue", "quotedFileContent": {"mimeType": "text/plain", "value": "offsite"}}, fields="*"
    ).execute()
    assert_schema("drive.comments.create", resp)
    assert resp["author"]["me"] is True and resp["resolved"] is False
    delivery = [e.payload for e in world_.ledger.of_kind("delivery") if e.payload["channel"] == "drive_comment"][-1]
    assert delivery["to"] == "alice@northwind.example" and delivery["body"] == "Please add the venue"


def test_get_a_comment(served):
    served.start(world())
    resp = served.google("drive", "alice").comments().get(fileId="d-notes", commentId="c1", fields="*").execute()
    assert_schema("drive.comments.get", resp)
    assert resp["replies"][0]["author"]["displayName"] == "Alice Chen"
    with pytest.raises(HttpError) as exc:
        served.google("drive", "alice").comments().get(fileId="d-notes", commentId="nope", fields="*").execute()
    assert exc.value.status_code == 404


def test_only_the_author_edits_a_comment(served):
    served.start(world())
    carol = served.google("drive", "carol")
    resp = carol.comments().update(fileId="d-notes", commentId="c1", body={"content": "Which offsite, March?"}, fields="*").execute()
    assert_schema("drive.comments.update", resp)
    assert resp["content"] == "Which offsite, March?"
    with pytest.raises(HttpError) as exc:
        served.google("drive", "alice").comments().update(fileId="d-notes", commentId="c1", body={"content": "x"}, fields="*").execute()
    assert exc.value.status_code == 403


def test_an_editor_deletes_any_comment_and_deleted_comments_lose_their_content(served):
    world_ = served.start(world())
    drive = served.google("drive", "alice")
    assert drive.comments().delete(fileId="d-notes", commentId="c1").execute() == ""
    assert drive.comments().list(fileId="d-notes", fields="*").execute()["comments"] == []
    [gone] = drive.comments().list(fileId="d-notes", includeDeleted=True, fields="*").execute()["comments"]
    assert gone["deleted"] is True and "content" not in gone
    assert world_.store.get("drive_comments", {"id": "c1"})["deleted"] is True


def test_replies_resolve_and_reopen_a_comment(served):
    served.start(world())
    alice = served.google("drive", "alice")
    reply = alice.replies().create(fileId="d-notes", commentId="c1", body={"content": "Done", "action": "resolve"}, fields="*").execute()
    assert_schema("drive.replies.create", reply)
    assert reply["action"] == "resolve"
    assert alice.comments().get(fileId="d-notes", commentId="c1", fields="resolved").execute() == {"resolved": True}
    with pytest.raises(HttpError) as exc:
        alice.replies().create(fileId="d-notes", commentId="c1", body={"action": "resolve"}, fields="*").execute()
    assert exc.value.status_code == 400
    alice.replies().create(fileId="d-notes", commentId="c1", body={"action": "reopen"}, fields="*").execute()
    assert alice.comments().get(fileId="d-notes", commentId="c1", fields="resolved").execute() == {"resolved": False}


def test_replies_list_get_update_delete(served):
    served.start(world())
    carol = served.google("drive", "carol")
    mine = carol.replies().create(fileId="d-notes", commentId="c1", body={"content": "thanks"}, fields="*").execute()
    listed = carol.replies().list(fileId="d-notes", commentId="c1", fields="*").execute()
    assert_schema("drive.replies.list", listed)
    assert [r["content"] for r in listed["replies"]] == ["The March one", "thanks"]
    got = carol.replies().get(fileId="d-notes", commentId="c1", replyId=mine["id"], fields="*").execute()
    assert_schema("drive.replies.get", got)
    upd = carol.replies().update(fileId="d-notes", commentId="c1", replyId=mine["id"], body={"content": "thank you"}, fields="*").execute()
    assert_schema("drive.replies.update", upd)
    assert upd["content"] == "thank you"
    alices = listed["replies"][0]["id"]
    with pytest.raises(HttpError) as exc:
        carol.replies().delete(fileId="d-notes", commentId="c1", replyId=alices).execute()
    assert exc.value.status_code == 403
    carol.replies().delete(fileId="d-notes", commentId="c1", replyId=mine["id"]).execute()
    assert len(carol.replies().list(fileId="d-notes", commentId="c1", fields="*").execute()["replies"]) == 1


def test_comments_on_a_file_not_shared_are_refused(served):
    world_ = served.start(world())
    with pytest.raises(HttpError) as exc:
        served.google("drive", "carol").comments().list(fileId="f-salary", fields="*").execute()
    assert exc.value.status_code == 404
    assert world_.ledger.of_kind("refused")[-1].payload["tool"] == "drive_comments_list"


def test_revisions_list_and_get(served):
    served.start(world())
    drive = served.google("drive", "alice")
    resp = drive.revisions().list(fileId="f-salary").execute()
    assert_schema("drive.revisions.list", resp)
    [rev] = resp["revisions"]
    got = drive.revisions().get(fileId="f-salary", revisionId=rev["id"], fields="*").execute()
    assert_schema("drive.revisions.get", got)
    assert got["size"] == str(len("name,salary\nbob,120000\ncarol,99000"))
    assert drive.revisions().get_media(fileId="f-salary", revisionId=rev["id"]).execute().startswith(b"name,salary")


def test_each_doc_edit_is_a_revision(served):
    served.start(world())
    docs = served.google("docs", "alice")
    for word in ("one", "two"):
        docs.documents().batchUpdate(documentId="d-notes", body={"requests": [{"insertText": {"location": {"index": 1}, "text": word}}]}).execute()
    revs = served.google("drive", "alice").revisions().list(fileId="d-notes", fields="revisions(id,exportLinks,lastModifyingUser)").execute()["revisions"]
    assert [r["id"] for r in revs] == ["1", "2", "3"]
    assert "exportLinks" in revs[-1] and revs[-1]["lastModifyingUser"]["emailAddress"] == "alice@northwind.example"


def test_revisions_keep_forever_and_delete(served):
    served.start(world())
    drive = served.google("drive", "alice")
    [rev] = drive.revisions().list(fileId="f-salary").execute()["revisions"]
    upd = drive.revisions().update(fileId="f-salary", revisionId=rev["id"], body={"keepForever": True}, fields="*").execute()
    assert_schema("drive.revisions.update", upd)
    assert upd["keepForever"] is True
    with pytest.raises(HttpError) as exc:
        drive.revisions().delete(fileId="f-salary", revisionId=rev["id"]).execute()
    assert exc.value.status_code == 400 and _reason(exc.value) == "cannotDeleteOnlyRevision"


def test_deleting_an_older_revision(served, https):
    from googleapiclient.http import MediaInMemoryUpload

    served.start(world(), tls=https)
    drive = served.google("drive", "alice")
    drive.files().update(fileId="f-salary", media_body=MediaInMemoryUpload(b"v2", mimetype="text/csv")).execute()
    first, second = drive.revisions().list(fileId="f-salary").execute()["revisions"]
    drive.revisions().delete(fileId="f-salary", revisionId=first["id"]).execute()
    assert [r["id"] for r in drive.revisions().list(fileId="f-salary").execute()["revisions"]] == [second["id"]]


def test_readers_cannot_read_revisions(served):
    served.start(world())
    with pytest.raises(HttpError) as exc:
        served.google("drive", "carol").revisions().list(fileId="d-notes").execute()
    assert exc.value.status_code == 403 and _reason(exc.value) == "insufficientFilePermissions"


from tests.conformance.drive_world import https  # noqa: E402,F401  (fixture)
