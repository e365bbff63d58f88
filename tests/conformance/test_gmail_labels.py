"""Gmail conformance: labels (list, get with counts, create, update, patch, delete)."""

from tests.conformance.gmail_world import http_error, rows, world
from tests.conformance.harness import assert_schema


def labels_of(served, principal="alice"):
    return {l["id"]: l for l in served.google("gmail", principal).users().labels().list(userId="me").execute()["labels"]}


def test_list_has_system_and_the_owners_user_labels(served):
    served.start(world())
    resp = served.google("gmail").users().labels().list(userId="me").execute()
    assert_schema("gmail.users.labels.list", resp)
    labels = {l["id"]: l for l in resp["labels"]}
    assert labels["INBOX"]["type"] == "system" and labels["Label_projects"] == {
        "id": "Label_projects", "name": "Projects", "type": "user", "messageListVisibility": "show", "labelListVisibility": "labelShow",
    }  # fmt: skip
    assert "Label_projects" not in labels_of(served, "bob")


def test_system_labels_name_their_visibility_only_where_gmail_hides_them(served):
    served.start(world())
    labels = labels_of(served)
    for hidden in ("SPAM", "TRASH", "IMPORTANT", "CHAT"):
        assert labels[hidden] == {"id": hidden, "name": hidden, "type": "system", "messageListVisibility": "hide", "labelListVisibility": "labelHide"}
    for shown in ("INBOX", "SENT", "DRAFT", "STARRED", "UNREAD", "CATEGORY_SOCIAL"):
        assert labels[shown] == {"id": shown, "name": shown, "type": "system"}
    inbox = served.google("gmail").users().labels().get(userId="me", id="INBOX").execute()
    assert "messageListVisibility" not in inbox and inbox["messagesTotal"] == 4


def test_get_counts_messages_and_threads(served):
    served.start(world())
    l = served.google("gmail").users().labels()
    inbox = l.get(userId="me", id="INBOX").execute()
    assert_schema("gmail.users.labels.get", inbox)
    assert (inbox["messagesTotal"], inbox["messagesUnread"], inbox["threadsTotal"], inbox["threadsUnread"]) == (4, 1, 4, 1)
    sent = l.get(userId="me", id="SENT").execute()
    assert (sent["messagesTotal"], sent["threadsTotal"]) == (1, 1)
    projects = l.get(userId="me", id="Label_projects").execute()
    assert_schema("gmail.users.labels.get", projects)
    assert projects["name"] == "Projects" and projects["messagesTotal"] == 1 and projects["messagesUnread"] == 0


def test_get_unknown_label_is_404(served):
    served.start(world())
    assert http_error(served.google("gmail", "bob").users().labels().get(userId="me", id="Label_projects")).status_code == 404


def test_create_a_label(served):
    w = served.start(world())
    l = served.google("gmail").users().labels()
    made = l.create(userId="me", body={"name": "Clients/Acme", "labelListVisibility": "labelShowIfUnread", "messageListVisibility": "hide",
                                       "color": {"textColor": "#ffffff", "backgroundColor": "#16a766"}}).execute()  # fmt: skip
    assert_schema("gmail.users.labels.create", made)
    assert made["id"] == "Label_1" and made["type"] == "user" and made["color"]["backgroundColor"] == "#16a766"
    assert w.store.get("gmail_labels", {"owner": "alice", "id": "Label_1"})["name"] == "Clients/Acme"
    assert l.create(userId="me", body={"name": "Second"}).execute()["id"] == "Label_2"
    served.google("gmail").users().messages().modify(userId="me", id="a3", body={"addLabelIds": ["Label_1"]}).execute()
    assert [m["id"] for m in served.google("gmail").users().messages().list(userId="me", q="label:clients-acme").execute()["messages"]] == ["a3"]


def test_create_conflicts_and_reserved_names(served):
    served.start(world())
    l = served.google("gmail").users().labels()
    err = http_error(l.create(userId="me", body={"name": "projects"}))
    assert err.status_code == 409 and "Label name exists or conflicts" in str(err)
    assert http_error(l.create(userId="me", body={"name": "INBOX"})).status_code == 400
    assert http_error(l.create(userId="me", body={"name": " "})).status_code == 400
    assert http_error(l.create(userId="me", body={"name": "x", "color": {"textColor": "white", "backgroundColor": "#000000"}})).status_code == 400
    assert http_error(l.create(userId="me", body={"name": "x", "labelListVisibility": "sometimes"})).status_code == 400
    # the same name in another mailbox is no conflict
    assert served.google("gmail", "bob").users().labels().create(userId="me", body={"name": "Projects"}).execute()["id"] == "Label_1"


def test_update_replaces_the_label(served):
    w = served.start(world())
    l = served.google("gmail").users().labels()
    l.patch(userId="me", id="Label_projects", body={"color": {"textColor": "#000000", "backgroundColor": "#ffffff"}}).execute()
    updated = l.update(userId="me", id="Label_projects", body={"id": "Label_projects", "name": "Work", "labelListVisibility": "labelHide"}).execute()
    assert_schema("gmail.users.labels.update", updated)
    assert updated == {"id": "Label_projects", "name": "Work", "type": "user", "messageListVisibility": "show", "labelListVisibility": "labelHide"}
    assert w.store.get("gmail_labels", {"owner": "alice", "id": "Label_projects"})["color"] is None


def test_patch_changes_only_what_is_given(served):
    served.start(world())
    l = served.google("gmail").users().labels()
    patched = l.patch(userId="me", id="Label_projects", body={"name": "Projects 2026"}).execute()
    assert_schema("gmail.users.labels.patch", patched)
    assert patched["name"] == "Projects 2026" and patched["labelListVisibility"] == "labelShow"
    hits = served.google("gmail").users().messages().list(userId="me", q='label:"projects 2026"').execute()
    assert [m["id"] for m in hits["messages"]] == ["a6"]


def test_system_labels_cannot_be_changed_or_deleted(served):
    w = served.start(world())
    l = served.google("gmail").users().labels()
    assert http_error(l.patch(userId="me", id="INBOX", body={"name": "Box"})).status_code == 400
    assert http_error(l.update(userId="me", id="STARRED", body={"name": "Box"})).status_code == 400
    assert http_error(l.delete(userId="me", id="INBOX")).status_code == 400
    assert http_error(l.patch(userId="me", id="Label_missing", body={"name": "Box"})).status_code == 404
    assert w.ledger.of_kind("refused") == []


def test_delete_removes_the_label_from_its_messages(served):
    w = served.start(world())
    l = served.google("gmail").users().labels()
    l.delete(userId="me", id="Label_projects").execute()
    assert "Label_projects" not in labels_of(served)
    assert rows(w, id="a6")[0]["label_ids"] == ["INBOX"]
    assert http_error(l.get(userId="me", id="Label_projects")).status_code == 404
