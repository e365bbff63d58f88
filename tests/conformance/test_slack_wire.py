"""Slack conformance: the wire itself, over raw HTTP (form and JSON bodies, query strings, token fields)."""

import httpx
import pytest
from slack_sdk.errors import SlackApiError

from tests.conformance.slack_golden import assert_shape
from tests.conformance.slack_world import ALICE, WORKSPACE, cid, deliveries, refused


def api(served, method: str) -> str:
    return f"{served.server.url}/api/{method}"


def test_form_body_with_token_field(served):
    world = served.start(WORKSPACE)
    resp = httpx.post(api(served, "chat.postMessage"), data={"token": served.token("alice"), "channel": cid("eng"), "text": "via form"})
    body = resp.json()
    assert resp.status_code == 200 and body["ok"] is True
    assert_shape("chat.postMessage", body)
    assert body["message"]["user"] == ALICE and deliveries(world)[-1]["body"] == "via form"
    # the token never reaches the tool's arguments
    assert "token" not in world.ledger.of_kind("tool_call")[-1].payload["args"]


def test_json_body_with_bearer_token_and_json_types(served):
    world = served.start(WORKSPACE)
    headers = {"Authorization": f"Bearer {served.token('alice')}"}
    blocks = [{"type": "section", "text": {"type": "plain_text", "text": "hi"}}]
    body = httpx.post(api(served, "chat.postMessage"), headers=headers,
                      json={"channel": cid("eng"), "text": "via json", "blocks": blocks, "mrkdwn": False, "unfurl_links": True}).json()  # fmt: skip
    assert body["ok"] is True and body["message"]["blocks"] == blocks
    hist = httpx.post(api(served, "conversations.history"), headers=headers,
                      json={"channel": cid("eng"), "limit": 1, "inclusive": True, "oldest": 0}).json()  # fmt: skip
    assert hist["ok"] is True and [m["text"] for m in hist["messages"]] == ["via json"]
    assert world.ledger.of_kind("tool_call")[-1].payload["args"]["limit"] == 1


def test_json_body_with_token_field(served):
    served.start(WORKSPACE)
    body = httpx.post(api(served, "auth.test"), json={"token": served.token("bob")}).json()
    assert body["ok"] is True and body["user"] == "bob"


def test_form_strings_for_booleans_numbers_and_lists(served):
    world = served.start(WORKSPACE)
    token = served.token("alice")
    body = httpx.post(api(served, "conversations.list"), data={"token": token, "types": "public_channel,private_channel",
                                                               "exclude_archived": "true", "limit": "2"}).json()  # fmt: skip
    assert body["ok"] is True and len(body["channels"]) == 2 and body["response_metadata"]["next_cursor"]
    blocks = '[{"type": "divider"}]'
    posted = httpx.post(api(served, "chat.postMessage"), data={"token": token, "channel": cid("eng"), "text": "x", "blocks": blocks}).json()
    assert posted["message"]["blocks"] == [{"type": "divider"}]
    invited = httpx.post(api(served, "conversations.invite"), data={"token": token, "channel": cid("eng"), "users": "carol,dana"}).json()
    assert invited["ok"] is True and invited["channel"]["num_members"] == 4
    assert world.store.get("slack_members", {"channel": cid("eng"), "user": ALICE}) is not None


def test_get_with_query_string_and_token(served):
    served.start(WORKSPACE)
    resp = httpx.get(api(served, "conversations.info"), params={"token": served.token("alice"), "channel": cid("eng")})
    assert resp.status_code == 200 and resp.json()["channel"]["name"] == "eng"
    users = httpx.get(api(served, "users.list"), headers={"Authorization": f"Bearer {served.token('alice')}"}).json()
    assert users["ok"] is True and len(users["members"]) == 5


def test_missing_and_invalid_tokens(served):
    served.start(WORKSPACE)
    assert httpx.post(api(served, "auth.test")).json() == {"ok": False, "error": "not_authed"}
    bad = httpx.post(api(served, "auth.test"), headers={"Authorization": "Bearer xoxp-nope"})
    assert bad.status_code == 200 and bad.json() == {"ok": False, "error": "invalid_auth"}


def test_errors_are_http_200_with_ok_false(served):
    world = served.start(WORKSPACE)
    resp = httpx.post(api(served, "conversations.history"), data={"token": served.token("alice"), "channel": cid("finance")})
    assert resp.status_code == 200 and resp.json() == {"ok": False, "error": "channel_not_found"}
    assert refused(world)[-1].payload["tool"] == "slack_conversations_history"
    junk = httpx.post(api(served, "chat.postMessage"), headers={"Authorization": f"Bearer {served.token('alice')}",
                                                                "Content-Type": "application/json"}, content=b"{not json")  # fmt: skip
    assert junk.json() == {"ok": False, "error": "invalid_json"}


def test_unknown_arguments_are_ignored(served):
    served.start(WORKSPACE)
    body = httpx.post(api(served, "conversations.info"), data={"token": served.token("alice"), "channel": cid("eng"), "pretty": "1",
                                                               "some_future_flag": "x"}).json()  # fmt: skip
    assert body["ok"] is True


# ---- required arguments ---------------------------------------------------------------------------
MISSING = [  # (method, the arguments sent, the required ones left out)
    ("conversations.kick", {"channel": "eng"}, ["user"]),
    ("conversations.kick", {}, ["channel", "user"]),
    ("conversations.history", {}, ["channel"]),
    ("conversations.replies", {"channel": "eng"}, ["ts"]),
    ("chat.postMessage", {"text": "hello"}, ["channel"]),
    ("chat.delete", {"channel": "eng"}, ["ts"]),
    ("reactions.add", {"channel": "eng", "name": "eyes"}, ["timestamp"]),
    ("files.info", {}, ["file"]),
    ("files.getUploadURLExternal", {"filename": "a.txt"}, ["length"]),
    ("usergroups.users.update", {"usergroup": "S1"}, ["users"]),
    ("users.info", {}, ["user"]),
    ("search.messages", {}, ["query"]),
    ("bookmarks.add", {"channel_id": "eng", "title": "Docs", "link": "https://docs.example"}, ["type"]),
]


@pytest.mark.parametrize("method, sent, missing", MISSING, ids=[f"{m}-{'+'.join(x)}" for m, _, x in MISSING])
def test_a_missing_required_argument_is_invalid_arguments(served, method, sent, missing):
    world = served.start(WORKSPACE)
    args = {k: cid(v) if k in ("channel", "channel_id") else v for k, v in sent.items()}
    before = world.state_hash()
    resp = httpx.post(api(served, method), data={"token": served.token("alice"), **args})
    assert resp.status_code == 200
    assert resp.json() == {"ok": False, "error": "invalid_arguments",
                           "response_metadata": {"messages": [f"[ERROR] missing required field: {m}" for m in missing]}}  # fmt: skip
    assert world.state_hash() == before


def test_the_official_client_sees_a_missing_argument_as_an_api_error(served):
    served.start(WORKSPACE)
    with pytest.raises(SlackApiError) as info:
        served.slack("alice").api_call("conversations.kick", params={"channel": cid("eng")})
    assert info.value.response["error"] == "invalid_arguments"
    assert info.value.response["response_metadata"]["messages"] == ["[ERROR] missing required field: user"]


def test_a_present_but_empty_argument_is_the_methods_own_error(served):
    served.start(WORKSPACE)
    token = served.token("alice")
    post = httpx.post(api(served, "chat.postMessage"), data={"token": token, "channel": "", "text": "hi"}).json()
    assert post == {"ok": False, "error": "channel_not_found"}
    no_text = httpx.post(api(served, "chat.postMessage"), json={"channel": cid("eng")}, headers={"Authorization": f"Bearer {token}"}).json()
    assert no_text == {"ok": False, "error": "no_text"}
    kick = httpx.post(api(served, "conversations.kick"), data={"token": token, "channel": cid("eng"), "user": ""}).json()
    assert kick == {"ok": False, "error": "user_not_found"}
    invite = httpx.post(api(served, "conversations.invite"), data={"token": token, "channel": cid("eng"), "users": ""}).json()
    assert invite == {"ok": False, "error": "no_user"}


def test_an_agent_missing_a_required_argument_gets_a_readable_error(served):
    world = served.start(WORKSPACE)
    out = served.gateway.call("alice-agent", "slack_conversations_kick", {"channel": cid("eng")})
    assert not out.ok and out.status == 400
    assert "slack_conversations_kick" in out.error and "user: Field required" in out.error
    assert world.store.get("slack_members", {"channel": cid("eng"), "user": ALICE}) is not None
