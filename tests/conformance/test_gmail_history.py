"""Gmail conformance: history.list, getProfile, watch and stop."""

from tests.conformance.gmail_world import http_error, raw, world
from tests.conformance.harness import assert_schema


def profile(served, who="alice"):
    return served.google("gmail", who).users().getProfile(userId="me").execute()


def test_get_profile(served):
    served.start(world())
    p = profile(served)
    assert_schema("gmail.users.getProfile", p)
    assert p == {"emailAddress": "alice@northwind.example", "messagesTotal": 7, "threadsTotal": 6, "historyId": "1000"}
    assert profile(served, "bob")["messagesTotal"] == 2
    assert http_error(served.google("gmail").users().getProfile(userId="carol@northwind.example")).status_code == 403


def test_history_records_label_changes_after_the_start_id(served):
    served.start(world())
    g = served.google("gmail").users()
    start = profile(served)["historyId"]
    assert "history" not in g.history().list(userId="me", startHistoryId=start).execute()
    g.messages().modify(userId="me", id="a1", body={"addLabelIds": ["STARRED"], "removeLabelIds": ["UNREAD"]}).execute()
    resp = g.history().list(userId="me", startHistoryId=start).execute()
    assert_schema("gmail.users.history.list", resp)
    (rec,) = resp["history"]
    assert rec["messages"] == [{"id": "a1", "threadId": "t-budget"}]
    assert rec["labelsAdded"] == [{"message": {"id": "a1", "threadId": "t-budget", "labelIds": ["INBOX", "STARRED"]}, "labelIds": ["STARRED"]}]
    assert rec["labelsRemoved"][0]["labelIds"] == ["UNREAD"]
    assert resp["historyId"] == rec["id"] == profile(served)["historyId"] and int(rec["id"]) > int(start)
    assert "history" not in g.history().list(userId="me", startHistoryId=resp["historyId"]).execute()


def test_history_of_arrivals_and_deletions(served):
    served.start(world())
    start = profile(served, "bob")["historyId"]
    sent = served.google("gmail").users().messages().send(userId="me", body={"raw": raw(subject="Ping")}).execute()
    bob = served.google("gmail", "bob").users()
    added = bob.history().list(userId="me", startHistoryId=start).execute()["history"]
    (new_id,) = [m["message"]["id"] for r in added for m in r.get("messagesAdded", [])]
    assert new_id != sent["id"]  # bob's copy is his own message
    bob.messages().delete(userId="me", id=new_id).execute()
    resp = bob.history().list(userId="me", startHistoryId=start, historyTypes=["messageDeleted"]).execute()
    assert_schema("gmail.users.history.list", resp)
    assert [r["messagesDeleted"] for r in resp["history"]] == [[{"message": {"id": new_id, "threadId": new_id}}]]


def test_history_filters_by_label_and_pages(served):
    served.start(world())
    g = served.google("gmail").users()
    start = profile(served)["historyId"]
    for mid in ("a3", "a4", "a6"):
        g.messages().modify(userId="me", id=mid, body={"addLabelIds": ["IMPORTANT"]}).execute()
    g.messages().modify(userId="me", id="a6", body={"addLabelIds": ["Label_projects"], "removeLabelIds": ["INBOX"]}).execute()
    proj = g.history().list(userId="me", startHistoryId=start, labelId="Label_projects", historyTypes=["labelRemoved"]).execute()["history"]
    assert [r["messages"][0]["id"] for r in proj] == ["a6"] and "labelsAdded" not in proj[0]
    first = g.history().list(userId="me", startHistoryId=start, maxResults=2).execute()
    second = g.history().list(userId="me", startHistoryId=start, maxResults=2, pageToken=first["nextPageToken"]).execute()
    ids = [int(r["id"]) for r in first["history"] + second["history"]]
    assert len(ids) == 4 and ids == sorted(ids) and len(set(ids)) == 4


def test_history_ids_are_deterministic(served):
    def run():
        served.start(world())
        g = served.google("gmail").users()
        g.messages().modify(userId="me", id="a3", body={"addLabelIds": ["IMPORTANT"]}).execute()
        g.messages().trash(userId="me", id="a4").execute()
        out = g.history().list(userId="me", startHistoryId="1000").execute()
        served.stop()
        return [(r["id"], r["messages"][0]["id"]) for r in out["history"]]

    assert run() == run() == [("1001", "a3"), ("1002", "a4")]


def test_history_needs_a_valid_start(served):
    served.start(world())
    h = served.google("gmail").users().history()
    assert http_error(h.list(userId="me")).status_code == 400
    assert http_error(h.list(userId="me", startHistoryId="abc")).status_code == 400
    assert http_error(h.list(userId="me", startHistoryId="5")).status_code == 404  # older than the mailbox's history


def test_watch_and_stop(served):
    w = served.start(world())
    g = served.google("gmail").users()
    resp = g.watch(userId="me", body={"topicName": "projects/northwind/topics/mail", "labelIds": ["INBOX"]}).execute()
    assert_schema("gmail.users.watch", resp)
    assert resp["historyId"] == "1000" and int(resp["expiration"]) == w.clock.now_ms() + 7 * 86_400_000
    assert w.store.get("gmail_settings", {"owner": "alice", "key": "watch"})["value"]["topicName"] == "projects/northwind/topics/mail"
    assert http_error(g.watch(userId="me", body={"topicName": "mail"})).status_code == 400
    g.stop(userId="me").execute()
    assert w.store.get("gmail_settings", {"owner": "alice", "key": "watch"}) is None
