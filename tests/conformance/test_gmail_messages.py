"""Gmail conformance: messages (list, get, send, insert, import, modify, trash, delete, batch) and attachments."""

from email import policy
from email.parser import BytesParser


from tests.conformance.gmail_world import (
    CSV, b64d, deliveries, headers, http_error, raw, refusals, rows, upload, world,
)  # fmt: skip
from tests.conformance.harness import assert_schema


def ids(resp, key="messages"):
    return [m["id"] for m in resp.get(key, [])]


# ---- list and search -------------------------------------------------------------------------
def test_list_is_newest_first_without_trash_or_other_mailboxes(served):
    served.start(world())
    resp = served.google("gmail").users().messages().list(userId="me").execute()
    assert_schema("gmail.users.messages.list", resp)
    assert ids(resp) == ["d1", "a2", "a1", "a6", "a3", "a4"]
    assert resp["resultSizeEstimate"] == 6


def test_list_pages_with_page_tokens(served):
    served.start(world())
    m = served.google("gmail").users().messages()
    seen, token = [], None
    while True:
        resp = m.list(userId="me", maxResults=4, pageToken=token).execute()
        assert_schema("gmail.users.messages.list", resp)
        seen += ids(resp)
        token = resp.get("nextPageToken")
        if not token:
            break
    assert seen == ["d1", "a2", "a1", "a6", "a3", "a4"]


def test_list_by_label_ids_and_spam_trash(served):
    served.start(world())
    m = served.google("gmail").users().messages()
    assert ids(m.list(userId="me", labelIds=["INBOX", "UNREAD"]).execute()) == ["a1"]
    assert ids(m.list(userId="me", labelIds=["TRASH"]).execute()) == ["a5"]
    assert "a5" in ids(m.list(userId="me", includeSpamTrash=True).execute())
    assert ids(m.list(userId="me", q="in:trash").execute()) == ["a5"]
    assert "a5" in ids(m.list(userId="me", q="in:anywhere sale").execute())


SEARCHES = [
    ("has:attachment", ["a1"]),
    ("filename:csv", ["a1"]),
    ("filename:budget.csv", ["a1"]),
    ('"looks right"', ["a2"]),
    ("from:dana OR from:bob", ["a6", "a3"]),
    ("(from:dana OR from:bob) -is:starred", ["a6"]),
    ("{subject:lunch subject:digest}", ["a3", "a4"]),
    ("subject:(q3 budget) -in:sent", ["a1"]),
    ("from:me", ["d1", "a2"]),
    ("to:me is:unread", ["a1"]),
    ("cc:carol", ["a6"]),
    ("label:projects", ["a6"]),
    ("in:sent", ["a2"]),
    ("in:drafts", ["d1"]),
    ("is:starred", ["a3"]),
    ("category:updates", ["a4"]),
    ("parking", ["a4"]),
    ("list:weekly.northwind.example", ["a4"]),
    ("after:2026/02/28 before:2026/03/01", ["a6"]),
    ("newer_than:2d -in:drafts", ["a2", "a1", "a6"]),
    ("older_than:1d has:nouserlabels", ["a3", "a4"]),
    ("larger:400", ["a1", "a4"]),
    ("smaller:220 -in:drafts", ["a3"]),
    ("rfc822msgid:a1@northwind.example", ["a1"]),
]


def test_search_language(served):
    served.start(world())  # one world for every query: they only read
    m = served.google("gmail").users().messages()
    wrong = {}
    for q, expected in SEARCHES:
        resp = m.list(userId="me", q=q).execute()
        assert_schema("gmail.users.messages.list", resp)
        if ids(resp) != expected:
            wrong[q] = ids(resp)
    assert wrong == {}


def test_invalid_query_is_a_400(served):
    served.start(world())
    err = http_error(served.google("gmail").users().messages().list(userId="me", q="(from:a"))
    assert err.status_code == 400 and err.error_details[0]["reason"] == "invalidArgument"


# ---- get and formats -------------------------------------------------------------------------
def test_get_full_multipart_with_attachment(served):
    served.start(world())
    msg = served.google("gmail").users().messages().get(userId="me", id="a1").execute()
    assert_schema("gmail.users.messages.get", msg)
    payload = msg["payload"]
    assert payload["mimeType"] == "multipart/mixed" and headers(msg)["Subject"] == "Q3 budget"
    text, att = payload["parts"]
    assert text["partId"] == "0" and b64d(text["body"]["data"]).decode() == "Numbers attached. BUDGET-4417"
    assert att["partId"] == "1" and att["filename"] == "budget.csv" and att["mimeType"] == "text/csv"
    assert att["body"]["size"] == len(CSV) and "attachmentId" in att["body"] and "data" not in att["body"]
    assert msg["labelIds"] == ["INBOX", "UNREAD"] and msg["threadId"] == "t-budget"


def test_get_html_message_has_alternative_parts(served):
    served.start(world())
    msg = served.google("gmail").users().messages().get(userId="me", id="a4").execute()
    assert_schema("gmail.users.messages.get", msg)
    plain, html = msg["payload"]["parts"]
    assert msg["payload"]["mimeType"] == "multipart/alternative"
    assert b64d(plain["body"]["data"]).decode() == "Digest\n\nParking rules changed."
    assert b"<h1>Digest</h1>" in b64d(html["body"]["data"]) and msg["snippet"] == "Digest Parking rules changed."


def test_get_metadata_minimal_and_raw(served):
    served.start(world())
    m = served.google("gmail").users().messages()
    meta = m.get(userId="me", id="a1", format="metadata", metadataHeaders=["From", "Subject"]).execute()
    assert_schema("gmail.users.messages.get", meta)
    assert [h["name"] for h in meta["payload"]["headers"]] == ["From", "Subject"]
    minimal = m.get(userId="me", id="a1", format="minimal").execute()
    assert_schema("gmail.users.messages.get", minimal)
    assert "payload" not in minimal and minimal["historyId"].isdigit() and minimal["internalDate"].isdigit()
    rawmsg = m.get(userId="me", id="a1", format="raw").execute()
    assert_schema("gmail.users.messages.get", rawmsg)
    parsed = BytesParser(policy=policy.default).parsebytes(b64d(rawmsg["raw"]))
    assert parsed["Subject"] == "Q3 budget" and parsed["Message-ID"] == "<a1@northwind.example>"
    (att,) = list(parsed.iter_attachments())
    assert att.get_filename() == "budget.csv" and att.get_content() == CSV


def test_get_another_mailbox_message_is_a_refused_404(served):
    w = served.start(world())
    m = served.google("gmail").users().messages()
    assert http_error(m.get(userId="me", id="b1")).status_code == 404
    assert http_error(m.get(userId="me", id="nope")).status_code == 404
    assert refusals(w) == [("alice", 404, "gmail_messages_get")]  # only the existing foreign message is a refusal


def test_other_user_id_is_delegation_denied(served):
    w = served.start(world())
    m = served.google("gmail").users().messages()
    err = http_error(m.list(userId="bob@northwind.example"))
    assert err.status_code == 403 and "Delegation denied for alice@northwind.example" in str(err)
    assert err.error_details[0]["reason"] == "forbidden"
    assert refusals(w) == [("alice", 403, "gmail_messages_list")]
    assert ids(m.list(userId="alice@northwind.example", q="subject:lunch").execute()) == ["a3"]


def test_attachment_get_returns_the_content(served):
    served.start(world())
    m = served.google("gmail").users().messages()
    att_id = m.get(userId="me", id="a1").execute()["payload"]["parts"][1]["body"]["attachmentId"]
    att = m.attachments().get(userId="me", messageId="a1", id=att_id).execute()
    assert_schema("gmail.users.messages.attachments.get", att)
    assert b64d(att["data"]).decode() == CSV and att["size"] == len(CSV)


def test_attachment_of_another_mailbox_is_refused(served):
    w = served.start(world())
    bob_att = served.google("gmail", "bob").users().messages().get(userId="me", id="b1").execute()["payload"]["parts"][1]["body"]["attachmentId"]
    a = served.google("gmail").users().messages().attachments()
    assert http_error(a.get(userId="me", messageId="b1", id=bob_att)).status_code == 404
    assert http_error(a.get(userId="me", messageId="a1", id="missing")).status_code == 404
    assert refusals(w) == [("alice", 404, "gmail_messages_attachments_get")]


# ---- send --------------------------------------------------------------------------------------
def test_send_reaches_the_recipient_and_is_a_delivery(served):
    w = served.start(world())
    sent = served.google("gmail").users().messages().send(userId="me", body={"raw": raw(subject="Status", body="All green")}).execute()
    assert_schema("gmail.users.messages.send", sent)
    assert sent["labelIds"] == ["SENT"]
    (copy,) = rows(w, owner="bob", subject="Status")
    assert copy["label_ids"] == ["INBOX", "UNREAD"] and copy["sender"] == "Alice Chen <alice@northwind.example>"
    assert deliveries(w) == [("alice@northwind.example", "bob@northwind.example", "Status")]


def test_send_multipart_with_attachment_copies_it_and_the_delivery_carries_it(served):
    w = served.start(world())
    r = raw(subject="Report", body="See attached", html="<p>See attached</p>", attachments=[("q.csv", "text/csv", "x,1\nLEAK-77,2\n")])
    served.google("gmail").users().messages().send(userId="me", body={"raw": r}).execute()
    bob = served.google("gmail", "bob").users().messages()
    (got,) = bob.list(userId="me", q="has:attachment filename:q.csv").execute()["messages"]
    full = bob.get(userId="me", id=got["id"]).execute()
    assert_schema("gmail.users.messages.get", full)
    assert [p["mimeType"] for p in full["payload"]["parts"]] == ["multipart/alternative", "text/csv"]
    att_id = full["payload"]["parts"][1]["body"]["attachmentId"]
    assert b64d(bob.attachments().get(userId="me", messageId=got["id"], id=att_id).execute()["data"]) == b"x,1\nLEAK-77,2\n"
    (d,) = w.ledger.of_kind("delivery")
    assert "LEAK-77" in d.payload["body"]  # what left the mailbox includes the attachment text


def test_send_reply_threads_in_both_mailboxes(served):
    w = served.start(world())
    alice = served.google("gmail").users().messages()
    first = alice.send(userId="me", body={"raw": raw(subject="Plan")}).execute()
    header = headers(alice.get(userId="me", id=first["id"], format="metadata").execute())["Message-ID"]
    bob = served.google("gmail", "bob").users().messages()
    (inbox,) = bob.list(userId="me", q="subject:plan").execute()["messages"]
    reply = bob.send(userId="me", body={"raw": raw("alice@northwind.example", "Re: Plan", "ok", headers={"In-Reply-To": header, "References": header})}).execute()
    assert reply["threadId"] == inbox["threadId"]
    (back,) = rows(w, owner="alice", subject="Re: Plan")
    assert back["thread_id"] == first["threadId"] and back["in_reply_to"] == header


def test_send_with_thread_id_and_unknown_thread(served):
    served.start(world())
    m = served.google("gmail").users().messages()
    sent = m.send(userId="me", body={"raw": raw("carol@northwind.example", "Re: Q3 budget", "one more"), "threadId": "t-budget"}).execute()
    assert sent["threadId"] == "t-budget"
    assert http_error(m.send(userId="me", body={"raw": raw(), "threadId": "t-bob"})).status_code == 404


def test_send_needs_a_recipient_and_a_message(served):
    w = served.start(world())
    m = served.google("gmail").users().messages()
    assert http_error(m.send(userId="me", body={"raw": raw(to=None)})).status_code == 400
    assert http_error(m.send(userId="me", body={})).status_code == 400
    assert http_error(m.send(userId="me", body={"raw": "!!!not base64!!!"})).status_code == 400
    assert w.ledger.of_kind("delivery") == [] and [r["id"] for r in rows(w, owner="alice", label_ids=["SENT"])] == ["a2"]


def test_send_to_self_lands_in_the_inbox_and_external_mail_is_external(served):
    w = served.start(world())
    m = served.google("gmail").users().messages()
    to_me = m.send(userId="me", body={"raw": raw("alice@northwind.example", "Note to self")}).execute()
    assert to_me["labelIds"] == ["SENT", "INBOX", "UNREAD"]
    m.send(userId="me", body={"raw": raw("Zed <zed@outside.example>", "Hi Zed", cc="bob@northwind.example")}).execute()
    external = [(e.payload["to"], e.payload["external"]) for e in w.ledger.of_kind("delivery") if e.payload["subject"] == "Hi Zed"]
    assert external == [("zed@outside.example", True), ("bob@northwind.example", False)]


def test_send_bcc_is_kept_only_in_the_senders_copy(served):
    w = served.start(world())
    sent = served.google("gmail").users().messages().send(userId="me", body={"raw": raw(subject="Quiet", bcc="carol@northwind.example")}).execute()
    got = served.google("gmail").users().messages().get(userId="me", id=sent["id"], format="metadata").execute()
    assert headers(got)["Bcc"] == "carol@northwind.example"
    (carol,) = rows(w, owner="carol", subject="Quiet")
    assert carol["bcc_addrs"] == [] and carol["to_addrs"] == ["bob@northwind.example"]


def test_send_upload_over_tls(served, tls_pair):
    w = served.start(world(), tls=tls_pair)
    with served.google("gmail") as gmail:  # closing the client's TLS connections lets the server stop at once
        sent = gmail.users().messages().send(userId="me", media_body=upload(subject="Uploaded", attachments=[("a.txt", "text/plain", "hello")])).execute()
    assert_schema("gmail.users.messages.send", sent)
    (copy,) = rows(w, owner="bob", subject="Uploaded")
    assert [a["filename"] for a in w.store.select("gmail_attachments", {"message_id": copy["id"]})] == ["a.txt"]
    assert deliveries(w) == [("alice@northwind.example", "bob@northwind.example", "Uploaded")]


def test_send_multipart_upload_with_metadata_over_tls(served, tls_pair):
    served.start(world(), tls=tls_pair)
    with served.google("gmail") as gmail:
        sent = gmail.users().messages().send(userId="me", body={"threadId": "t-budget"}, media_body=upload("carol@northwind.example", "Re: Q3 budget")).execute()
    assert sent["threadId"] == "t-budget"


# ---- insert and import ----------------------------------------------------------------------
def test_insert_stores_without_sending(served):
    w = served.start(world())
    m = served.google("gmail").users().messages()
    r = raw("alice@northwind.example", "Archived note", "kept", sender="Zed <zed@outside.example>", headers={"Date": "Tue, 10 Feb 2026 10:00:00 +0000"})
    got = m.insert(userId="me", body={"raw": r, "labelIds": ["INBOX", "Label_projects"]}).execute()
    assert_schema("gmail.users.messages.insert", got)
    (row,) = rows(w, id=got["id"])
    assert row["label_ids"] == ["INBOX", "Label_projects"] and row["sender"] == "Zed <zed@outside.example>"
    assert row["date_ms"] == w.clock.now_ms()  # receivedTime by default
    dated = m.insert(userId="me", internalDateSource="dateHeader", body={"raw": r}).execute()
    assert rows(w, id=dated["id"])[0]["date_ms"] == 1770717600000 and dated["labelIds"] == []
    assert w.ledger.of_kind("delivery") == []


def test_insert_rejects_unknown_labels(served):
    w = served.start(world())
    err = http_error(served.google("gmail").users().messages().insert(userId="me", body={"raw": raw(), "labelIds": ["Label_nope"]}))
    assert err.status_code == 400 and "Invalid label" in str(err)
    assert rows(w, owner="alice", subject="Hello") == []


def test_insert_upload_over_tls(served, tls_pair):
    w = served.start(world(), tls=tls_pair)
    with served.google("gmail") as gmail:
        got = gmail.users().messages().insert(userId="me", media_body=upload("alice@northwind.example", "Uploaded insert")).execute()
    assert_schema("gmail.users.messages.insert", got)
    assert rows(w, id=got["id"])[0]["subject"] == "Uploaded insert"


def test_import_runs_the_mailbox_filters_but_sends_nothing(served):
    w = served.start(world(filters=[{"owner": "alice", "criteria": {"from": "partner.example"}, "action": {"addLabelIds": ["Label_projects"], "removeLabelIds": ["INBOX"]}}]))
    m = served.google("gmail").users().messages()
    r = raw("alice@northwind.example", "Contract", "signed", sender="Dana Wu <dana@partner.example>", headers={"Date": "Wed, 25 Feb 2026 10:00:00 +0000"})
    got = m.import_(userId="me", body={"raw": r, "labelIds": ["INBOX", "UNREAD"]}).execute()
    assert_schema("gmail.users.messages.import", got)
    assert got["labelIds"] == ["UNREAD", "Label_projects"]
    assert rows(w, id=got["id"])[0]["date_ms"] == 1772013600000  # dateHeader by default
    other = m.import_(userId="me", body={"raw": raw("alice@northwind.example", "Other", sender="x@y.example"), "labelIds": ["INBOX"]}).execute()
    assert other["labelIds"] == ["INBOX"] and w.ledger.of_kind("delivery") == []


def test_import_upload_over_tls(served, tls_pair):
    w = served.start(world(), tls=tls_pair)
    with served.google("gmail") as gmail:
        got = gmail.users().messages().import_(userId="me", media_body=upload("alice@northwind.example", "Imported", sender="x@y.example")).execute()
    assert rows(w, id=got["id"])[0]["sender"] == "x@y.example"


# ---- labels on messages, trash, delete ----------------------------------------------------------
def test_modify_changes_labels_and_history(served):
    w = served.start(world())
    m = served.google("gmail").users().messages()
    before = m.get(userId="me", id="a1", format="minimal").execute()["historyId"]
    got = m.modify(userId="me", id="a1", body={"addLabelIds": ["STARRED", "Label_projects"], "removeLabelIds": ["UNREAD"]}).execute()
    assert_schema("gmail.users.messages.modify", got)
    assert got["labelIds"] == ["INBOX", "STARRED", "Label_projects"] and int(got["historyId"]) > int(before)
    assert rows(w, id="a1")[0]["label_ids"] == ["INBOX", "STARRED", "Label_projects"]


def test_modify_with_an_unknown_label_changes_nothing(served):
    w = served.start(world())
    before = w.state_hash()
    err = http_error(served.google("gmail").users().messages().modify(userId="me", id="a1", body={"addLabelIds": ["STARRED", "Nope"]}))
    assert err.status_code == 400 and "Invalid label: Nope" in str(err)
    assert w.state_hash() == before


def test_modify_of_another_mailbox_is_refused(served):
    w = served.start(world())
    err = http_error(served.google("gmail").users().messages().modify(userId="me", id="b1", body={"addLabelIds": ["TRASH"]}))
    assert err.status_code == 404 and rows(w, id="b1")[0]["label_ids"] == ["INBOX"]
    assert refusals(w) == [("alice", 404, "gmail_messages_modify")]


def test_trash_and_untrash(served):
    w = served.start(world())
    m = served.google("gmail").users().messages()
    trashed = m.trash(userId="me", id="a3").execute()
    assert_schema("gmail.users.messages.trash", trashed)
    assert "TRASH" in trashed["labelIds"] and "a3" not in ids(m.list(userId="me").execute())
    restored = m.untrash(userId="me", id="a3").execute()
    assert_schema("gmail.users.messages.untrash", restored)
    assert restored["labelIds"] == ["INBOX", "STARRED"] and rows(w, id="a3")[0]["label_ids"] == ["INBOX", "STARRED"]


def test_delete_removes_the_message_and_its_attachments(served):
    w = served.start(world())
    m = served.google("gmail").users().messages()
    assert m.delete(userId="me", id="a1").execute() in ("", None, {})
    assert rows(w, id="a1") == [] and w.store.select("gmail_attachments", {"message_id": "a1"}) == []
    assert http_error(m.get(userId="me", id="a1")).status_code == 404
    assert w.store.select("gmail_deleted_messages", {"owner": "alice"})[0]["message_id"] == "a1"


def test_delete_of_another_mailbox_is_refused(served):
    w = served.start(world())
    assert http_error(served.google("gmail").users().messages().delete(userId="me", id="b1")).status_code == 404
    assert rows(w, id="b1") and refusals(w) == [("alice", 404, "gmail_messages_delete")]


def test_batch_modify(served):
    w = served.start(world())
    m = served.google("gmail").users().messages()
    m.batchModify(userId="me", body={"ids": ["a1", "a3", "a6"], "addLabelIds": ["IMPORTANT"], "removeLabelIds": ["INBOX"]}).execute()
    assert all(r["label_ids"][-1] == "IMPORTANT" and "INBOX" not in r["label_ids"] for r in rows(w, owner="alice") if r["id"] in ("a1", "a3", "a6"))
    assert ids(m.list(userId="me", labelIds=["IMPORTANT"]).execute()) == ["a1", "a6", "a3"]


def test_batch_modify_is_all_or_nothing(served):
    w = served.start(world())
    before = w.state_hash()
    err = http_error(served.google("gmail").users().messages().batchModify(userId="me", body={"ids": ["a1", "b1"], "addLabelIds": ["STARRED"]}))
    assert err.status_code == 404 and w.state_hash() == before
    assert refusals(w) == [("alice", 404, "gmail_messages_batch_modify")]


def test_batch_delete(served):
    w = served.start(world())
    m = served.google("gmail").users().messages()
    m.batchDelete(userId="me", body={"ids": ["a3", "a4"]}).execute()
    assert {r["id"] for r in rows(w, owner="alice")} == {"a1", "a2", "a5", "a6", "d1"}
    assert http_error(m.batchDelete(userId="me", body={"ids": []})).status_code == 400


def test_unknown_body_fields_are_invalid_arguments(served):
    served.start(world())
    err = http_error(served.google("gmail").users().messages().modify(userId="me", id="a1", body={"addLabels": ["STARRED"]}))
    assert err.status_code == 400


def test_lists_return_only_ids_by_default(served):
    served.start(world())
    users = served.google("gmail").users()
    messages = users.messages().list(userId="me", maxResults=2).execute()
    assert set(messages) == {"messages", "nextPageToken", "resultSizeEstimate"}
    assert all(set(m) == {"id", "threadId"} for m in messages["messages"])
    threads = users.threads().list(userId="me").execute()
    assert set(threads) == {"threads", "resultSizeEstimate"} and all(set(t) == {"id", "snippet", "historyId"} for t in threads["threads"])
    assert users.messages().list(userId="me", q="subject:no-such-subject-anywhere").execute() == {"resultSizeEstimate": 0}
