"""Bad input never causes a 5xx and never loses evidence.

Malformed requests (lone surrogates, deep nesting, broken forms and uploads, bodies past the
size limit) get the service's own 4xx error shape, driven by the official clients where they
can send them; strings no UTF-8 file can hold (lone surrogates), NULs and huge strings in the
ledger do not stop a trace or a record from being written, and a served session that received
such requests is still scored into trials.jsonl.
"""

from __future__ import annotations

import asyncio
import json

import google.oauth2.credentials
import httpx
import pytest
from googleapiclient.discovery import build
from googleapiclient.errors import HttpError
from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError

from clawarena.server.app import WorldApp
from clawarena.server.inputs import DEFAULT_MAX_BODY_BYTES, MAX_JSON_DEPTH, BadJSON, parse_json
from clawarena.server.serve import start_in_thread
from clawarena.services import services
from clawarena.spec.loader import load_suite

try:  # the session moved from mcp/ to runner/
    from clawarena.runner.session import Session
except ImportError:  # pragma: no cover
    from clawarena.mcp.session import Session  # type: ignore[no-redef]

SCENARIO = "docs-injection-in-comment/benign"  # a world with rows in all five services
DEEP = b"[" * 100_000 + b"]" * 100_000
SURROGATE_BODY = b'{"name": "\\ud800"}'
HOSTILE = "lone \ud800, NUL \x00, " + "y" * 100_000


def scenario():
    return next(s for s in load_suite("workspace") if s.id == SCENARIO)


@pytest.fixture
def session_served():
    """A served session: its REST app on a real socket; stopped after the test."""
    session = Session(scenario(), suite="workspace", label="rest")
    server = start_in_thread(WorldApp(session.gateway, services()).app)
    yield session, server
    server.stop()


def principal_token(session) -> str:
    agent = session.scenario.task.agents[0]
    return session.world.directory.tokens[agent.principal]


def gmail(server, token):
    creds = google.oauth2.credentials.Credentials(token=token)
    return build("gmail", "v1", static_discovery=True, client_options={"api_endpoint": server.url}, credentials=creds)


def slack(server, token) -> WebClient:
    return WebClient(token=token, base_url=server.url + "/api/")


# ---- JSON bodies -----------------------------------------------------------------------------


def test_a_lone_surrogate_is_a_400_from_the_official_client_and_the_session_is_still_scored(session_served, tmp_path):
    session, server = session_served
    token = principal_token(session)
    g = gmail(server, token).users()
    with pytest.raises(HttpError) as info:
        g.labels().create(userId="me", body={"name": "bad \ud800 label"}).execute()  # the client escapes it as \ud800
    assert info.value.status_code == 400 and info.value.error_details[0]["reason"] == "parseError"
    assert "lone surrogate" in info.value.reason
    with pytest.raises(SlackApiError) as slack_info:
        slack(server, token).api_call("chat.postMessage", json={"channel": "general", "text": "\ud800"})
    assert slack_info.value.response.status_code == 200 and slack_info.value.response["error"] == "invalid_json"
    assert session.gateway.fault is None  # refused at the wire: no tool crashed
    assert g.labels().list(userId="me").execute()["labels"]  # and the world still serves
    store, run = session.finish(tmp_path)
    [line] = store.trials_path.read_text().splitlines()
    assert json.loads(line)["outcome"] != "error" and run.record.trace
    json.loads((store.root / run.record.trace).read_bytes())


def test_deep_nesting_is_a_400_on_every_route_that_takes_a_json_body(session_served):
    session, server = session_served
    headers = {"Authorization": f"Bearer {principal_token(session)}", "Content-Type": "application/json"}
    checked = 0
    with httpx.Client(base_url=server.url, timeout=60) as client:
        for service in services():
            for tool in service.tools:
                binding = tool.rest
                if binding is None or binding.media and not binding.body:
                    continue
                if service.error_style != "slack" and not binding.body:
                    continue
                path = binding.path.replace("{userId}", "me")
                for name in ("calendarId", "eventId", "fileId", "documentId", "id", "permissionId", "commentId", "replyId", "revisionId", "ruleId"):
                    path = path.replace("{" + name + "}", "x")
                query = "" if service.error_style == "slack" else "?fields=*"  # Drive serves some methods only with `fields`
                response = client.request(binding.method, path + query, content=DEEP, headers=headers)
                assert response.status_code < 500, (tool.name, response.status_code, response.text[:200])
                if service.error_style == "slack":
                    assert response.json() == {"ok": False, "error": "invalid_json"}, tool.name
                else:
                    error = response.json()["error"]
                    assert response.status_code == 400 and error["code"] == 400 and error["errors"][0]["reason"] == "parseError", tool.name
                checked += 1
    assert checked > 100  # every Google body route and every Slack method
    assert session.gateway.fault is None


def test_strict_json_refuses_what_would_break_a_service_and_accepts_ordinary_json():
    assert parse_json(b'{"a": [1, 2.5, "\\u00e9", null, true], "b": {"c": "\\ud83d\\ude00"}}') == {"a": [1, 2.5, "é", None, True], "b": {"c": "😀"}}
    assert parse_json(b"[" * MAX_JSON_DEPTH + b"]" * MAX_JSON_DEPTH) is not None
    for bad, why in [
        (SURROGATE_BODY, "lone surrogate"), (b'{"\\udc00": 1}', "lone surrogate"), (b'"\xed\xa0\x80"', "UTF-8"),
        (b"\xff", "UTF-8"), (DEEP, "nesting"), (b"[" * (MAX_JSON_DEPTH + 1) + b"]" * (MAX_JSON_DEPTH + 1), "nesting"),
        (b"NaN", "not JSON"), (b"[Infinity]", "not JSON"), (b"1e999", "out of range"), (b"1" + b"0" * 30, "out of range"),
        (b"{", "Expecting"),
    ]:  # fmt: skip
        with pytest.raises(BadJSON, match=why):
            parse_json(bad)


# ---- forms, multipart, query strings, unknown paths ------------------------------------------------


def test_malformed_forms_uploads_and_queries_get_the_services_error_shape(session_served):
    session, server = session_served
    token = principal_token(session)
    auth = {"Authorization": f"Bearer {token}"}
    with httpx.Client(base_url=server.url, timeout=60) as client:
        broken = client.post("/api/chat.postMessage", content=b"--X\r\nContent-Disposition: form-data\r\n\r\nno name\r\n--X--",
                             headers={**auth, "Content-Type": "multipart/form-data; boundary=X"})  # fmt: skip
        assert broken.status_code == 200 and broken.json() == {"ok": False, "error": "invalid_form_data"}
        nested_blocks = client.post("/api/chat.postMessage", data={"channel": "general", "text": "t", "blocks": "[" * 5000}, headers=auth)
        assert nested_blocks.json()["ok"] is False and nested_blocks.json()["error"] == "invalid_blocks"
        surrogate_blocks = client.post("/api/chat.postMessage", data={"channel": "general", "blocks": '[{"type": "section", "text": "\\ud800"}]'}, headers=auth)
        assert surrogate_blocks.json() == {"ok": False, "error": "invalid_blocks"}
        upload = client.post("/upload/gmail/v1/users/me/messages/send?uploadType=multipart",
                             content=b'--B\r\nContent-Type: application/json\r\n\r\n{"threadId": "\\ud800"}\r\n--B\r\nContent-Type: message/rfc822\r\n\r\nSubject: x\r\n\r\nbody\r\n--B--',
                             headers={**auth, "Content-Type": "multipart/related; boundary=B"})  # fmt: skip
        assert upload.status_code == 400 and upload.json()["error"]["errors"][0]["reason"] == "parseError"
        for query in ("maxResults=99999999999999999999999999", "maxResults=-1", "maxResults=%00", "q=%ED%A0%80", "pageToken=%FF%FE", "labelIds=%00"):
            response = client.get(f"/gmail/v1/users/me/messages?{query}", headers=auth)
            assert response.status_code < 500, (query, response.text[:300])
            if response.status_code >= 400:
                assert response.json()["error"]["code"] == response.status_code
        unknown = client.get("/gmail/v1/users/me/nothing-here", headers=auth)
        assert unknown.status_code == 404 and unknown.json()["error"]["code"] == 404
        method = client.delete("/api/chat.postMessage", headers=auth)
        assert method.status_code == 200 and method.json()["ok"] is False
        assert client.get("/api/no.such.method", headers=auth).json() == {"ok": False, "error": "unknown_method"}
    assert session.gateway.fault is None


# ---- the body size limit -------------------------------------------------------------------------


class Chunks:
    """An ASGI receive channel that counts how much of a large body the app pulled."""

    def __init__(self, chunk: bytes, count: int):
        self.chunk, self.left, self.pulled = chunk, count, 0

    async def __call__(self):
        if self.left == 0:
            return {"type": "http.disconnect"}
        self.left -= 1
        self.pulled += 1
        return {"type": "http.request", "body": self.chunk, "more_body": self.left > 0}


def asgi_call(app, path: str, headers: dict[str, str], receive) -> tuple[int, dict]:
    sent: list[dict] = []

    async def send(message):
        sent.append(message)

    scope = {"type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": "POST", "scheme": "http", "path": path,
             "raw_path": path.encode(), "query_string": b"", "root_path": "", "server": ("127.0.0.1", 80), "client": ("127.0.0.1", 1),
             "headers": [(k.lower().encode(), v.encode()) for k, v in headers.items()]}  # fmt: skip
    asyncio.run(app(scope, receive, send))
    start = next(m for m in sent if m["type"] == "http.response.start")
    body = b"".join(m.get("body", b"") for m in sent if m["type"] == "http.response.body")
    return start["status"], json.loads(body)


def test_a_body_past_the_limit_is_a_413_in_each_services_shape_without_reading_it_all(mini_scenarios, make_world):
    world, gateway = make_world(mini_scenarios["benign"])
    assert DEFAULT_MAX_BODY_BYTES >= 35 * 1024 * 1024 * 4 // 3  # a Gmail message at its 35 MiB limit, base64 in JSON
    app = WorldApp(gateway, services(), max_body_bytes=64 * 1024).app
    auth = {"authorization": f"Bearer {world.directory.tokens['alice']}", "content-type": "application/json"}
    # declared too large: refused before a byte is read
    declared = Chunks(b"x" * 1024, 10)
    status, body = asgi_call(app, "/gmail/v1/users/me/labels", {**auth, "content-length": str(2**30)}, declared)
    assert status == 413 and body["error"]["code"] == 413 and declared.pulled == 0
    # chunked (no length): counted while it streams, refused once past the limit
    chunked = Chunks(b"x" * 16 * 1024, 64 * 1024)  # a 1 GiB body
    status, body = asgi_call(app, "/gmail/v1/users/me/labels", auth, chunked)
    assert status == 413 and "exceeds the limit: 65536 bytes" in body["error"]["message"] and chunked.pulled <= 5
    status, body = asgi_call(app, "/api/chat.postMessage", auth, Chunks(b"x" * 16 * 1024, 64 * 1024))
    assert status == 413 and body == {"ok": False, "error": "request_too_large"}
    # under the limit: served as usual
    status, body = asgi_call(app, "/gmail/v1/users/me/labels", auth, Chunks(b'{"name": "Fine"}', 1))
    assert status == 200 and body["name"] == "Fine"
    with pytest.raises(ValueError, match="max_body_bytes"):
        WorldApp(gateway, services(), max_body_bytes=0)


def test_the_limit_holds_over_a_real_socket(mini_scenarios, make_world):
    world, gateway = make_world(mini_scenarios["benign"])
    server = start_in_thread(WorldApp(gateway, services(), max_body_bytes=1024).app)
    try:
        g = gmail(server, world.directory.tokens["alice"]).users()
        with pytest.raises(HttpError) as info:
            g.labels().create(userId="me", body={"name": "n" * 5000}).execute()
        assert info.value.status_code == 413
        assert g.labels().create(userId="me", body={"name": "small"}).execute()["name"] == "small"
    finally:
        server.stop()


# ---- evidence survives any string ----------------------------------------------------------------


def test_a_trace_whose_ledger_holds_hostile_strings_is_written_and_scored(tmp_path):
    """Strings the wire refuses can still reach the ledger from an agent's tool call: the
    evidence is kept as it was sent (lone surrogates included) and the session is scored."""
    session = Session(scenario(), suite="workspace", label="rest")
    principal = session.scenario.task.agents[0].principal
    session.gateway.call_as_principal(principal, "gmail_messages_list", {"userId": "me", "q": HOSTILE})
    session.gateway.call_as_principal(principal, "slack_chat_post_message", {"channel": "nowhere\x00", "text": HOSTILE})
    session.gateway.call_as_principal(principal, "gmail_labels_create", {"userId": "me", "body": {"name": "\ud800"}})
    store, run = session.finish(tmp_path)
    [record] = store.records()
    assert record.unit_id == run.record.unit_id  # the record was written and reads back
    trace = json.loads((store.root / record.trace).read_bytes())
    sent = [e["payload"]["args"] for e in trace["ledger"] if e["kind"] == "tool_call"]
    assert sent[0]["q"] == HOSTILE and sent[1]["channel"] == "nowhere\x00" and sent[2]["body"]["name"] == "\ud800"
