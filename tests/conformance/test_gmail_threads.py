"""Gmail conformance: threads (list, get, modify, trash, untrash, delete)."""

from tests.conformance.gmail_world import b64d, headers, http_error, raw, refusals, rows, world
from tests.conformance.harness import assert_schema


def test_list_groups_messages_into_threads_newest_first(served):
    served.start(world())
    resp = served.google("gmail").users().threads().list(userId="me").execute()
    assert_schema("gmail.users.threads.list", resp)
    assert [t["id"] for t in resp["threads"]] == ["d1", "t-budget", "a6", "a3", "a4"]
    budget = resp["threads"][1]
    assert budget["snippet"] == "Thanks, looks right." and int(budget["historyId"]) >= 1000
    assert resp["resultSizeEstimate"] == 5


def test_list_matches_a_thread_when_one_message_matches(served):
    served.start(world())
    t = served.google("gmail").users().threads()
    assert [x["id"] for x in t.list(userId="me", q="has:attachment").execute()["threads"]] == ["t-budget"]
    assert [x["id"] for x in t.list(userId="me", labelIds=["SENT"]).execute()["threads"]] == ["t-budget"]
    assert "threads" not in t.list(userId="me", q="subject:nothing-like-this").execute()


def test_list_pages(served):
    served.start(world())
    t = served.google("gmail").users().threads()
    first = t.list(userId="me", maxResults=3).execute()
    second = t.list(userId="me", maxResults=3, pageToken=first["nextPageToken"]).execute()
    assert_schema("gmail.users.threads.list", second)
    assert [x["id"] for x in first["threads"] + second["threads"]] == ["d1", "t-budget", "a6", "a3", "a4"]
    assert "nextPageToken" not in second


def test_get_returns_every_message_oldest_first(served):
    served.start(world())
    thread = served.google("gmail").users().threads().get(userId="me", id="t-budget").execute()
    assert_schema("gmail.users.threads.get", thread)
    assert [m["id"] for m in thread["messages"]] == ["a1", "a2"]
    assert b64d(thread["messages"][1]["payload"]["body"]["data"]) == b"Thanks, looks right."
    assert thread["historyId"] == max(m["historyId"] for m in thread["messages"])


def test_get_metadata_and_minimal(served):
    served.start(world())
    t = served.google("gmail").users().threads()
    meta = t.get(userId="me", id="t-budget", format="metadata", metadataHeaders=["Subject"]).execute()
    assert_schema("gmail.users.threads.get", meta)
    assert [headers(m) for m in meta["messages"]] == [{"Subject": "Q3 budget"}, {"Subject": "Re: Q3 budget"}]
    minimal = t.get(userId="me", id="t-budget", format="minimal").execute()
    assert all("payload" not in m for m in minimal["messages"])


def test_get_of_another_mailbox_thread_is_refused(served):
    w = served.start(world())
    t = served.google("gmail").users().threads()
    assert http_error(t.get(userId="me", id="t-bob")).status_code == 404
    assert http_error(t.get(userId="me", id="t-nowhere")).status_code == 404
    assert refusals(w) == [("alice", 404, "gmail_threads_get")]


def test_modify_relabels_every_message(served):
    w = served.start(world())
    resp = served.google("gmail").users().threads().modify(userId="me", id="t-budget", body={"addLabelIds": ["Label_projects"], "removeLabelIds": ["UNREAD"]}).execute()
    assert_schema("gmail.users.threads.modify", resp)
    assert [m["labelIds"] for m in resp["messages"]] == [["INBOX", "Label_projects"], ["SENT", "Label_projects"]]
    assert all("Label_projects" in r["label_ids"] for r in rows(w, thread_id="t-budget"))


def test_modify_with_unknown_label_or_foreign_thread_fails(served):
    w = served.start(world())
    t = served.google("gmail").users().threads()
    before = w.state_hash()
    assert http_error(t.modify(userId="me", id="t-budget", body={"addLabelIds": ["Label_x"]})).status_code == 400
    assert http_error(t.modify(userId="me", id="t-bob", body={"addLabelIds": ["STARRED"]})).status_code == 404
    assert w.state_hash() == before and refusals(w) == [("alice", 404, "gmail_threads_modify")]


def test_trash_and_untrash_a_thread(served):
    w = served.start(world())
    t = served.google("gmail").users().threads()
    trashed = t.trash(userId="me", id="t-budget").execute()
    assert_schema("gmail.users.threads.trash", trashed)
    assert all("TRASH" in m["labelIds"] for m in trashed["messages"])
    assert "t-budget" not in [x["id"] for x in t.list(userId="me").execute()["threads"]]
    restored = t.untrash(userId="me", id="t-budget").execute()
    assert_schema("gmail.users.threads.untrash", restored)
    assert all("TRASH" not in r["label_ids"] for r in rows(w, thread_id="t-budget"))


def test_delete_a_thread(served):
    w = served.start(world())
    t = served.google("gmail").users().threads()
    t.delete(userId="me", id="t-budget").execute()
    assert rows(w, thread_id="t-budget") == [] and w.store.select("gmail_attachments", {"message_id": "a1"}) == []
    assert http_error(t.delete(userId="me", id="t-bob")).status_code == 404
    assert rows(w, thread_id="t-bob")


def test_a_conversation_between_two_mailboxes_forms_one_thread_in_each(served):
    served.start(world())
    alice = served.google("gmail").users()
    bob = served.google("gmail", "bob").users()
    first = alice.messages().send(userId="me", body={"raw": raw(subject="Offsite")}).execute()
    (theirs,) = bob.threads().list(userId="me", q="subject:offsite").execute()["threads"]
    header = headers(bob.threads().get(userId="me", id=theirs["id"], format="metadata").execute()["messages"][0])["Message-ID"]
    bob.messages().send(userId="me", body={"raw": raw("alice@northwind.example", "Re: Offsite", "Count me in", headers={"In-Reply-To": header}), "threadId": theirs["id"]}).execute()
    mine = alice.threads().get(userId="me", id=first["threadId"]).execute()
    assert [headers(m)["Subject"] for m in mine["messages"]] == ["Offsite", "Re: Offsite"]
    assert [m["labelIds"] for m in mine["messages"]] == [["SENT"], ["INBOX", "UNREAD"]]
