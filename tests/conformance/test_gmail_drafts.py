"""Gmail conformance: drafts (list, get, create, update, send, delete), with uploads over TLS."""

from email import policy
from email.parser import BytesParser

from tests.conformance.gmail_world import b64d, deliveries, headers, http_error, raw, refusals, rows, upload, world
from tests.conformance.harness import assert_schema


def test_create_stores_a_draft_and_sends_nothing(served):
    w = served.start(world())
    d = served.google("gmail").users().drafts()
    made = d.create(userId="me", body={"message": {"raw": raw("carol@northwind.example", "Agenda", "1. budget")}}).execute()
    assert_schema("gmail.users.drafts.create", made)
    assert made["id"].startswith("r") and made["message"]["labelIds"] == ["DRAFT"]
    (row,) = rows(w, id=made["message"]["id"])
    assert row["owner"] == "alice" and row["sender"] == "Alice Chen <alice@northwind.example>" and row["to_addrs"] == ["carol@northwind.example"]
    assert w.store.get("gmail_drafts", {"id": made["id"]})["message_id"] == row["id"]
    assert w.ledger.of_kind("delivery") == [] and rows(w, owner="carol") == []


def test_create_needs_a_message(served):
    served.start(world())
    d = served.google("gmail").users().drafts()
    assert http_error(d.create(userId="me", body={})).status_code == 400
    assert http_error(d.create(userId="me", body={"message": {}})).status_code == 400


def test_create_a_reply_draft_in_a_thread(served):
    served.start(world())
    d = served.google("gmail").users().drafts()
    made = d.create(userId="me", body={"message": {"raw": raw("carol@northwind.example", "Re: Q3 budget", "draft reply", headers={"In-Reply-To": "<a1@northwind.example>"})}}).execute()
    assert made["message"]["threadId"] == "t-budget"
    assert http_error(d.create(userId="me", body={"message": {"raw": raw(), "threadId": "t-bob"}})).status_code == 404


def test_get_in_every_format(served):
    served.start(world())
    d = served.google("gmail").users().drafts()
    full = d.get(userId="me", id="rdraft1").execute()
    assert_schema("gmail.users.drafts.get", full)
    assert full["message"]["id"] == "d1" and headers(full["message"])["Subject"] == "Draft plan"
    assert b64d(full["message"]["payload"]["body"]["data"]) == b"Work in progress"
    rawd = d.get(userId="me", id="rdraft1", format="raw").execute()
    assert_schema("gmail.users.drafts.get", rawd)
    assert BytesParser(policy=policy.default).parsebytes(b64d(rawd["message"]["raw"]))["To"] == "bob@northwind.example"
    assert "payload" not in d.get(userId="me", id="rdraft1", format="minimal").execute()["message"]


def test_list_and_search_drafts(served):
    served.start(world())
    d = served.google("gmail").users().drafts()
    d.create(userId="me", body={"message": {"raw": raw("carol@northwind.example", "Agenda")}}).execute()
    listed = d.list(userId="me").execute()
    assert_schema("gmail.users.drafts.list", listed)
    assert [x["message"]["id"] for x in listed["drafts"]][1:] == ["d1"] and listed["resultSizeEstimate"] == 2
    only = d.list(userId="me", q="subject:agenda").execute()
    assert len(only["drafts"]) == 1 and only["drafts"][0]["id"] != "rdraft1"
    page = d.list(userId="me", maxResults=1).execute()
    assert len(page["drafts"]) == 1 and "nextPageToken" in page
    assert [x["id"] for x in served.google("gmail", "bob").users().drafts().list(userId="me").execute()["drafts"]] == ["rdraftbob"]


def test_update_replaces_the_content(served):
    w = served.start(world())
    d = served.google("gmail").users().drafts()
    updated = d.update(userId="me", id="rdraft1", body={"id": "rdraft1", "message": {"raw": raw("carol@northwind.example", "Final plan", "Done", attachments=[("plan.txt", "text/plain", "step 1")])}}).execute()
    assert_schema("gmail.users.drafts.update", updated)
    assert updated == {"id": "rdraft1", "message": {"id": "d1", "threadId": "d1", "labelIds": ["DRAFT"]}}
    (row,) = rows(w, id="d1")
    assert (row["subject"], row["body"], row["to_addrs"]) == ("Final plan", "Done", ["carol@northwind.example"])
    assert [a["filename"] for a in w.store.select("gmail_attachments", {"message_id": "d1"})] == ["plan.txt"]


def test_send_a_stored_draft(served):
    w = served.start(world())
    sent = served.google("gmail").users().drafts().send(userId="me", body={"id": "rdraft1"}).execute()
    assert_schema("gmail.users.drafts.send", sent)
    assert sent["id"] == "d1" and sent["labelIds"] == ["SENT"]
    assert w.store.get("gmail_drafts", {"id": "rdraft1"}) is None
    (copy,) = rows(w, owner="bob", subject="Draft plan")
    assert copy["body"] == "Work in progress" and copy["label_ids"] == ["INBOX", "UNREAD"]
    assert deliveries(w) == [("alice@northwind.example", "bob@northwind.example", "Draft plan")]


def test_send_with_a_new_message_sends_that(served):
    w = served.start(world())
    served.google("gmail").users().drafts().send(userId="me", body={"id": "rdraft1", "message": {"raw": raw("carol@northwind.example", "Changed", "new text")}}).execute()
    assert rows(w, owner="bob", subject="Draft plan") == [] and rows(w, owner="carol", subject="Changed")[0]["body"] == "new text"
    assert deliveries(w) == [("alice@northwind.example", "carol@northwind.example", "Changed")]


def test_send_a_draft_without_recipients_fails_and_keeps_it(served):
    w = served.start(world())
    d = served.google("gmail").users().drafts()
    made = d.create(userId="me", body={"message": {"raw": raw(to=None, subject="No one")}}).execute()
    assert http_error(d.send(userId="me", body={"id": made["id"]})).status_code == 400
    assert w.store.get("gmail_drafts", {"id": made["id"]}) is not None and w.ledger.of_kind("delivery") == []


def test_delete_a_draft(served):
    w = served.start(world())
    d = served.google("gmail").users().drafts()
    d.delete(userId="me", id="rdraft1").execute()
    assert w.store.get("gmail_drafts", {"id": "rdraft1"}) is None and rows(w, id="d1") == []
    assert http_error(d.get(userId="me", id="rdraft1")).status_code == 404


def test_drafts_of_another_mailbox_are_refused(served):
    w = served.start(world())
    d = served.google("gmail").users().drafts()
    assert http_error(d.get(userId="me", id="rdraftbob")).status_code == 404
    assert http_error(d.send(userId="me", body={"id": "rdraftbob"})).status_code == 404
    assert http_error(d.delete(userId="me", id="rdraftbob")).status_code == 404
    assert http_error(d.update(userId="me", id="rdraftbob", body={"message": {"raw": raw()}})).status_code == 404
    assert [t for _, _, t in refusals(w)] == ["gmail_drafts_get", "gmail_drafts_send", "gmail_drafts_delete", "gmail_drafts_update"]
    assert w.ledger.of_kind("delivery") == [] and rows(w, id="db1")[0]["subject"] == "Bob draft"
    assert http_error(served.google("gmail").users().drafts().list(userId="bob@northwind.example")).status_code == 403


def test_draft_uploads_over_tls(served, tls_pair):
    w = served.start(world(), tls=tls_pair)
    with served.google("gmail") as gmail:
        d = gmail.users().drafts()
        made = d.create(userId="me", media_body=upload("carol@northwind.example", "Uploaded draft")).execute()
        assert_schema("gmail.users.drafts.create", made)
        d.update(userId="me", id=made["id"], media_body=upload("carol@northwind.example", "Uploaded draft v2")).execute()
        assert rows(w, id=made["message"]["id"])[0]["subject"] == "Uploaded draft v2"
        sent = d.send(userId="me", media_body=upload("bob@northwind.example", "Sent via drafts.send upload")).execute()
        assert_schema("gmail.users.drafts.send", sent)
    assert deliveries(w) == [("alice@northwind.example", "bob@northwind.example", "Sent via drafts.send upload")]
