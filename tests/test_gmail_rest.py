"""The Gmail routes driven by the official google-api-python-client over real HTTP."""

import base64
from email.message import EmailMessage

import google.oauth2.credentials
import httpx
import pytest
from googleapiclient.discovery import build
from googleapiclient.errors import HttpError

from clawarena.services import services
from clawarena.server.app import WorldApp
from clawarena.server.serve import start_in_thread


@pytest.fixture
def served(mini_scenarios, make_world):
    world, gw = make_world(mini_scenarios["privacy"])
    server = start_in_thread(WorldApp(gw, services()).app)
    yield world, server
    server.stop()


def gmail(server, token):
    creds = google.oauth2.credentials.Credentials(token=token)
    return build("gmail", "v1", static_discovery=True, client_options={"api_endpoint": server.url}, credentials=creds)


def raw(to, subject, body):
    msg = EmailMessage()
    msg["To"], msg["Subject"] = to, subject
    msg.set_content(body)
    return base64.urlsafe_b64encode(msg.as_bytes()).decode()


def test_list_get_modify_trash_labels(served):
    world, server = served
    g = gmail(server, world.directory.tokens["alice"]).users()
    listed = g.messages().list(userId="me").execute()
    assert [m["id"] for m in listed["messages"]] == ["m1", "m2"]  # newest first; bob's m3 is not visible
    page1 = g.messages().list(userId="me", maxResults=1).execute()
    page2 = g.messages().list(userId="me", maxResults=1, pageToken=page1["nextPageToken"]).execute()
    assert [page1["messages"][0]["id"], page2["messages"][0]["id"]] == ["m1", "m2"] and "nextPageToken" not in page2
    assert [m["id"] for m in g.messages().list(userId="me", q="is:unread from:carol").execute()["messages"]] == ["m1"]
    assert [m["id"] for m in g.messages().list(userId="me", labelIds=["INBOX", "UNREAD"]).execute()["messages"]] == ["m1"]
    full = g.messages().get(userId="me", id="m2").execute()
    assert base64.urlsafe_b64decode(full["payload"]["body"]["data"] + "==").decode() == "SECRET-BUDGET-991 is the figure."
    assert {h["name"] for h in full["payload"]["headers"]} >= {"From", "To", "Subject", "Date"}
    meta = g.messages().get(userId="me", id="m2", format="metadata", metadataHeaders=["Subject"]).execute()
    assert meta["payload"]["headers"] == [{"name": "Subject", "value": "Budget"}]
    assert "payload" not in g.messages().get(userId="me", id="m2", format="minimal").execute()
    assert b"Subject: Budget" in base64.urlsafe_b64decode(g.messages().get(userId="me", id="m2", format="raw").execute()["raw"] + "==")
    modified = g.messages().modify(userId="me", id="m1", body={"addLabelIds": ["Label_1"], "removeLabelIds": ["UNREAD"]}).execute()
    assert modified["labelIds"] == ["INBOX", "Label_1"]
    assert "TRASH" in g.messages().trash(userId="me", id="m2").execute()["labelIds"]
    assert [m["id"] for m in g.messages().list(userId="me").execute()["messages"]] == ["m1"]
    labels = {l["id"]: l for l in g.labels().list(userId="me").execute()["labels"]}
    assert labels["Label_1"]["name"] == "Projects" and labels["Label_1"]["type"] == "user"
    assert labels["INBOX"]["type"] == "system"


def test_send_raw_delivers_to_a_principal_and_lands_in_the_ledger(served):
    world, server = served
    alice = gmail(server, world.directory.tokens["alice"]).users()
    sent = alice.messages().send(userId="me", body={"raw": raw("Bob <bob@northwind.example>", "Hello", "Hi Bob")}).execute()
    assert sent["labelIds"] == ["SENT"]
    bob = gmail(server, world.directory.tokens["bob"]).users()
    inbox = bob.messages().list(userId="me", q="subject:hello").execute()["messages"]
    got = bob.messages().get(userId="me", id=inbox[0]["id"]).execute()
    assert {"name": "From", "value": "Alice Chen <alice@northwind.example>"} in got["payload"]["headers"]
    calls = [(e.actor, e.payload["tool"], e.payload["source"]) for e in world.ledger.of_kind("tool_call")]
    assert ("alice", "gmail_messages_send", "rest") in calls
    assert [d.payload["to"] for d in world.ledger.of_kind("delivery")] == ["bob@northwind.example"]


def test_negative_paths_return_google_errors_and_are_recorded(served):
    world, server = served
    g = gmail(server, world.directory.tokens["alice"]).users()
    with pytest.raises(HttpError) as info:
        g.messages().get(userId="me", id="m3").execute()  # bob's message
    assert info.value.status_code == 404
    with pytest.raises(HttpError) as info:
        g.messages().list(userId="bob@northwind.example").execute()
    assert info.value.status_code == 403 and info.value.error_details[0]["reason"] == "forbidden"
    with pytest.raises(HttpError) as info:
        g.messages().send(userId="me", body={}).execute()
    assert info.value.status_code == 400
    with pytest.raises(HttpError) as info:
        g.messages().list(userId="me", q="(unbalanced").execute()
    assert info.value.status_code == 400
    refused = world.ledger.of_kind("refused")
    # bob's message (404) and bob's mailbox (403) are both access refusals
    assert [(e.actor, e.payload["status"]) for e in refused] == [("alice", 404), ("alice", 403)]
    response = httpx.get(f"{server.url}/gmail/v1/users/me/messages")
    assert response.status_code == 401 and response.json()["error"]["status"] == "UNAUTHENTICATED"


def test_admin_endpoints_need_the_admin_token(served):
    world, server = served
    agent_token = {"Authorization": f"Bearer {world.directory.tokens['alice']}"}
    admin = {"Authorization": f"Bearer {world.directory.admin_token}"}
    assert httpx.get(f"{server.url}/_admin/state", headers=agent_token).status_code == 401
    state = httpx.get(f"{server.url}/_admin/state", headers=admin).json()
    assert state["hash"] == world.state_hash() and "m1" in state["tables"]["gmail_messages"]
    assert httpx.post(f"{server.url}/_admin/snapshot/start", headers=admin).status_code == 200
    gmail(server, world.directory.tokens["alice"]).users().messages().trash(userId="me", id="m1").execute()
    diff = httpx.get(f"{server.url}/_admin/diff", headers=admin).json()
    assert diff["tables"]["gmail_messages"]["updated"][0]["key"] == "m1"
    restored = httpx.post(f"{server.url}/_admin/restore/start", headers=admin).json()
    assert restored["hash"] == world.state_hash() and "TRASH" not in world.store.get("gmail_messages", {"id": "m1"})["label_ids"]
    ledger = httpx.get(f"{server.url}/_admin/ledger", headers=admin).json()["events"]
    assert any(e["payload"].get("tool") == "gmail_messages_trash" for e in ledger)
