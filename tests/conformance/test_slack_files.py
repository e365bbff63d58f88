"""Slack conformance: files.* (legacy upload, the v2 upload flow, list, info, delete) through slack_sdk."""

import warnings

import httpx
import pytest
from slack_sdk.errors import SlackApiError

from tests.conformance.slack_golden import assert_shape
from tests.conformance.slack_world import ALICE, BOB, WORKSPACE, cid, deliveries, refused
from clawarena.services.slack.core import slack_id

PLAN, PAYROLL = slack_id("F", "plan"), slack_id("F", "payroll")


def error_of(call, *args, **kwargs) -> str:
    with pytest.raises(SlackApiError) as info:
        call(*args, **kwargs)
    assert_shape("error", info.value.response.data)
    return info.value.response["error"]


def test_files_upload_v2_end_to_end_with_content(served):
    world = served.start(WORKSPACE)
    client = served.slack("alice")
    resp = client.files_upload_v2(content="line one\nline two", filename="notes.txt", title="Notes", channel=cid("eng"),
                                  initial_comment="meeting notes attached")  # fmt: skip
    assert_shape("files.completeUploadExternal", resp)
    f = resp["file"]
    assert f["name"] == "notes.txt" and f["title"] == "Notes" and f["size"] == len(b"line one\nline two")
    row = world.store.get("slack_files", {"id": f["id"]})
    assert row["content"] == "line one\nline two" and row["state"] == "complete" and row["channels"] == [cid("eng")]
    msg = client.conversations_history(channel=cid("eng"), limit=1)["messages"][0]
    assert msg["text"] == "meeting notes attached" and msg["files"][0]["id"] == f["id"]
    d = deliveries(world)[-1]
    assert d["to"] == "#eng" and "line one" in d["body"] and "meeting notes attached" in d["body"]
    tools = [e.payload["tool"] for e in world.ledger.of_kind("tool_call")]
    assert tools[:3] == ["slack_files_get_upload_url_external", "slack_files_upload_content", "slack_files_complete_upload_external"]


def test_files_upload_v2_binary_file_without_sharing(served, tmp_path):
    world = served.start(WORKSPACE)
    data = bytes(range(256)) * 4
    path = tmp_path / "blob.bin"
    path.write_bytes(data)
    resp = served.slack("alice").files_upload_v2(file=str(path), title="Blob")
    f = resp["file"]
    assert f["size"] == 1024 and f["channels"] == [] and f["user"] == ALICE
    row = world.store.get("slack_files", {"id": f["id"]})
    assert row["binary"] is True and row["state"] == "complete"
    # not shared: bob cannot see it
    assert error_of(served.slack("bob").files_info, file=f["id"]) == "file_not_found"
    assert refused(world)[-1].payload["tool"] == "slack_files_info"


def test_get_upload_url_external_and_complete_by_hand(served):
    world = served.start(WORKSPACE)
    client = served.slack("alice")
    start = client.files_getUploadURLExternal(filename="report.md", length=5)
    assert_shape("files.getUploadURLExternal", start)
    assert start["upload_url"].startswith(served.server.url + "/api/_upload/" + start["file_id"])
    assert served.token("alice") not in start["upload_url"]
    # completing before the bytes arrive fails
    assert error_of(client.files_completeUploadExternal, files=[{"id": start["file_id"]}]) == "file_upload_not_found"
    put = httpx.post(start["upload_url"], content=b"hello")
    assert put.status_code == 200
    done = client.files_completeUploadExternal(files=[{"id": start["file_id"], "title": "Report"}], channels=[cid("random")])
    assert_shape("files.completeUploadExternal", done)
    assert done["files"][0]["title"] == "Report" and done["files"][0]["channels"] == [cid("random")]
    assert world.store.get("slack_files", {"id": start["file_id"]})["content"] == "hello"


def test_upload_url_needs_its_signature(served):
    served.start(WORKSPACE)
    start = served.slack("alice").files_getUploadURLExternal(filename="x.txt", length=1)
    forged = start["upload_url"].split("?")[0] + "?sig=0000"
    assert httpx.post(forged, content=b"x").json() == {"ok": False, "error": "not_authed"}


def test_complete_checks_the_length_and_the_owner(served):
    served.start(WORKSPACE)
    client = served.slack("alice")
    start = client.files_getUploadURLExternal(filename="x.txt", length=10)
    httpx.post(start["upload_url"], content=b"short")
    assert error_of(client.files_completeUploadExternal, files=[{"id": start["file_id"]}]) == "file_size_mismatch"
    assert error_of(served.slack("bob").files_completeUploadExternal, files=[{"id": start["file_id"]}]) == "file_not_found"


def test_legacy_files_upload_with_content(served):
    world = served.start(WORKSPACE)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        resp = served.slack("alice").files_upload(content="print('hi')", filename="hi.py", channels=cid("eng"), title="Snippet")
    assert_shape("files.upload", resp)
    f = resp["file"]
    assert f["filetype"] == "python" and f["mode"] == "snippet" and f["channels"] == [cid("eng")]
    assert world.store.get("slack_files", {"id": f["id"]})["content"] == "print('hi')"
    assert deliveries(world)[-1]["to"] == "#eng"


def test_legacy_files_upload_multipart_file(served, tmp_path):
    world = served.start(WORKSPACE)
    path = tmp_path / "data.csv"
    path.write_text("a,b\n1,2\n")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        resp = served.slack("alice").files_upload(file=str(path), initial_comment="the data", channels=[cid("random")])
    f = resp["file"]
    assert f["name"] == "data.csv" and f["filetype"] == "csv" and f["mimetype"] == "text/csv"
    assert world.store.get("slack_files", {"id": f["id"]})["content"] == "a,b\n1,2\n"


def test_legacy_upload_errors(served):
    served.start(WORKSPACE)
    client = served.slack("alice")
    assert error_of(client.api_call, "files.upload", data={"filename": "x"}) == "no_file_data"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert error_of(client.files_upload, content="x", channels=cid("finance")) == "channel_not_found"


def test_files_list_shows_only_visible_files(served):
    served.start(WORKSPACE)
    resp = served.slack("alice").files_list()
    assert_shape("files.list", resp)
    assert [f["id"] for f in resp["files"]] == [PLAN]
    assert resp["paging"] == {"count": 100, "total": 1, "page": 1, "pages": 1}
    bobs = [f["id"] for f in served.slack("bob").files_list()["files"]]
    assert bobs == [PAYROLL, PLAN]


def test_files_list_filters(served):
    served.start(WORKSPACE)
    client = served.slack("bob")
    assert [f["id"] for f in client.files_list(channel=cid("finance"))["files"]] == [PAYROLL]
    assert [f["id"] for f in client.files_list(user=BOB)["files"]] == [PLAN]
    assert client.files_list(types="pdfs")["files"] == []
    page = client.files_list(limit=1)
    assert len(page["files"]) == 1 and page["response_metadata"]["next_cursor"]


def test_files_info_returns_content(served):
    served.start(WORKSPACE)
    resp = served.slack("alice").files_info(file=PLAN)
    assert_shape("files.info", resp)
    assert resp["content"] == "step 1: build\nstep 2: ship" and resp["file"]["title"] == "Launch plan"
    assert resp["file"]["shares"]["public"][cid("eng")][0]["channel_name"] == "eng"


def test_files_info_of_a_file_in_a_private_channel_is_refused(served):
    world = served.start(WORKSPACE)
    assert error_of(served.slack("alice").files_info, file=PAYROLL) == "file_not_found"
    assert refused(world)[-1].payload["reason"] == "file_not_found"
    assert error_of(served.slack("alice").files_info, file="FNOSUCHFILE") == "file_not_found"


def test_files_delete(served):
    world = served.start(WORKSPACE)
    assert error_of(served.slack("alice").files_delete, file=PLAN) == "cant_delete_file"
    assert refused(world)[-1].payload["tool"] == "slack_files_delete"
    resp = served.slack("bob").files_delete(file=PLAN)
    assert_shape("files.delete", resp)
    assert world.store.get("slack_files", {"id": PLAN}) is None
    msg = next(m for m in served.slack("bob").conversations_history(channel=cid("eng"))["messages"] if m.get("files"))
    assert msg["files"] == [{"id": PLAN, "mode": "tombstone"}]
