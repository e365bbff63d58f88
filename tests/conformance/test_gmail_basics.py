"""Gmail conformance, basics: the pattern every conformance test follows."""

from tests.conformance.harness import assert_schema

MAIL = {
    "gmail": {
        "messages": [
            {"id": "m1", "owner": "alice", "from": "Carol <carol@northwind.example>", "subject": "Hello", "body": "Hi", "labels": ["INBOX", "UNREAD"]},
            {"id": "m2", "owner": "bob", "from": "Dana <dana@x.example>", "subject": "Bob's", "body": "private"},
        ]
    }
}


def test_messages_list_matches_the_discovery_schema(served):
    served.start(MAIL)
    resp = served.google("gmail").users().messages().list(userId="me").execute()
    assert_schema("gmail.users.messages.list", resp)
    assert [m["id"] for m in resp["messages"]] == ["m1"]


def test_messages_get_full_matches_the_discovery_schema(served):
    served.start(MAIL)
    resp = served.google("gmail").users().messages().get(userId="me", id="m1").execute()
    assert_schema("gmail.users.messages.get", resp)


def test_labels_list_matches_the_discovery_schema(served):
    served.start(MAIL)
    assert_schema("gmail.users.labels.list", served.google("gmail").users().labels().list(userId="me").execute())
