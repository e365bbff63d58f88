"""The REST fast path (issue 12): uvicorn's standard extras where installed, and per-request work
done once (routes found by an index of path segments, the base URL, query list fields, the JSON encoder)
without changing what any request gets back."""

import asyncio
import importlib.util
import json
import socket

import httpx
import pytest
from fastapi.routing import APIRoute
from fastapi.testclient import TestClient
from starlette.requests import Request
from starlette.routing import Match

from clawarena.mcp.http import AppSpec, start_on_one_loop
from clawarena.server.app import WorldApp
from clawarena.server.routing import BaseUrls, RouteIndex
from clawarena.server.serve import start_in_thread
from clawarena.server.wire import JSONText
from clawarena.services import services

HAS_UVLOOP = importlib.util.find_spec("uvloop") is not None
HAS_HTTPTOOLS = importlib.util.find_spec("httptools") is not None


async def loop_kind_app(scope, receive, send):
    """Answers with the module of the event loop that runs it."""
    await send({"type": "http.response.start", "status": 200, "headers": [(b"content-type", b"text/plain")]})
    await send({"type": "http.response.body", "body": type(asyncio.get_running_loop()).__module__.encode()})


def test_serve_loop_uses_uvloop_and_httptools_where_installed():
    servers = start_on_one_loop([AppSpec(loop_kind_app)])  # what `clawarena serve` runs its apps on
    try:
        body = httpx.get(servers.urls[0]).text
        protocol = servers.servers[0].config.http_protocol_class.__name__
    finally:
        servers.stop()
    assert body.startswith("uvloop") if HAS_UVLOOP else body.startswith("asyncio")
    assert protocol == ("HttpToolsProtocol" if HAS_HTTPTOOLS else "H11Protocol")


def test_thread_server_uses_uvloop_where_installed():
    server = start_in_thread(loop_kind_app)
    try:
        body = httpx.get(server.url).text
    finally:
        server.stop()
    assert body.startswith("uvloop") if HAS_UVLOOP else body.startswith("asyncio")


@pytest.fixture
def world_app(mini_scenarios, make_world):
    world, gw = make_world(mini_scenarios["privacy"])
    return world, WorldApp(gw, services(), max_body_bytes=1000)


def _sample_paths(routes) -> list[str]:
    """Every route's own path with its parameters filled, plus near misses around each."""
    paths = {"/", "", "nope", "/nope", "/gmail", "/gmail/", "/gmail/v1/users/me/messages/m1/", "//gmail/v1", "/gmail/v1/users//messages/m1",
             "/api/", "/api/chat.postMessage", "/_admin/state", "/_admin/snapshot/x/y"}  # fmt: skip
    for r in routes:
        filled = r.path.replace("{", "").replace("}", "").replace(":path", "")
        paths |= {filled, filled + "/", "/x" + filled, filled.rsplit("/", 1)[0] + "/"}
    return sorted(paths)


def _linear(routes, scope):
    """Starlette's router: the first full match in order, else the first partial one."""
    partial = None
    for r in routes:
        match, _ = r.matches(scope)
        if match == Match.FULL:
            return match, r
        if match == Match.PARTIAL and partial is None:
            partial = r
    return (Match.PARTIAL, partial) if partial else (Match.NONE, None)


def test_route_index_picks_the_route_a_linear_scan_picks(world_app):
    _, wa = world_app
    (index,) = [r for r in wa.app.router.routes if isinstance(r, RouteIndex)]
    routes = index.routes
    assert len(routes) > 200 and all(isinstance(r, APIRoute) for r in routes) and routes == wa.routes[-len(routes):]
    path_route = APIRoute("/files/{rest:path}", lambda: None)  # spans segments: tried for every path, in its place
    mixed = RouteIndex([*routes[:5], path_route, *routes[5:]])
    assert 5 in mixed._always
    checked = 0
    for path in _sample_paths(routes) + ["/files/a/b/c", "/files/"]:
        for method, root in (("GET", ""),) if len(path) % 3 else (("DELETE", ""), ("POST", "/prefix")):  # 405s, a root_path
            scope = {"type": "http", "method": method, "path": root + path, "root_path": root, "headers": []}
            for idx in (index, mixed) if len(path) % 4 == 0 else (index,):
                match, child = idx.matches(scope)
                want, route = _linear(idx.routes, scope)
                assert (match, child.get("clawarena.route")) == (want, route), (method, root, path)
                checked += 1
    assert checked > 1000


def test_route_index_tries_only_the_candidates(world_app):
    _, wa = world_app
    (index,) = [r for r in wa.app.router.routes if isinstance(r, RouteIndex)]
    picked = [index.routes[i].name for i in index.candidates("/gmail/v1/users/me/messages/m1")]
    assert "gmail_messages_get" in picked and len(picked) <= 6, picked
    assert index.candidates("/nope/at/all") == []


@pytest.mark.filterwarnings("ignore:Duplicate Operation ID")  # Slack's GET-or-POST methods, as before the index
def test_openapi_and_url_for_still_see_every_route(world_app):
    _, wa = world_app
    with TestClient(wa.app) as client:
        paths = client.get("/openapi.json").json()["paths"]
        assert "/gmail/v1/users/{userId}/messages/{id}" in paths and len(paths) > 150
        assert client.get("/docs").status_code == 200
    assert wa.app.url_path_for("gmail_messages_get", userId="me", id="m1") == "/gmail/v1/users/me/messages/m1"
    assert any(isinstance(r, RouteIndex) for r in wa.app.router.routes)  # the index is back after the schema was built


@pytest.mark.parametrize("scope_extra", [
    {},
    {"headers": [(b"host", b"example.test:8080"), (b"host", b"second.test")]},
    {"scheme": "https", "server": ("127.0.0.1", 443)},
    {"server": ("::1", 9000)},
    {"root_path": "/mount", "path": "/mount/gmail/v1/users/me/profile"},
    {"app_root_path": "/app", "root_path": "/app/inner"},
    {"server": None, "headers": []},
])  # fmt: skip
def test_base_urls_equal_starlettes_base_url(scope_extra):
    scope = {"type": "http", "scheme": "http", "server": ("127.0.0.1", 8123), "path": "/gmail/v1/users/me/profile",
             "root_path": "", "query_string": b"q=1", "headers": [(b"host", b"127.0.0.1:8123")], **scope_extra}  # fmt: skip
    urls = BaseUrls()
    expected = str(Request(scope).base_url).rstrip("/")
    assert urls.of(scope) == expected and urls.of(scope) == expected  # computed, then remembered


def test_base_urls_cache_is_bounded_against_many_host_headers():
    urls = BaseUrls(size=8)
    for i in range(100):
        scope = {"type": "http", "scheme": "http", "server": ("127.0.0.1", 1), "path": "/", "headers": [(b"host", f"h{i}.test".encode())]}
        assert urls.of(scope) == f"http://h{i}.test"
    assert len(urls._known) <= 8


def _raw_exchange(port: int, request: bytes) -> tuple[int, bytes]:
    with socket.create_connection(("127.0.0.1", port), timeout=30) as sock:
        sock.sendall(request)
        data = b""
        while b"\r\n\r\n" not in data:
            data += sock.recv(65536)
        head, _, body = data.partition(b"\r\n\r\n")
        length = int(next(line.split(b":", 1)[1] for line in head.split(b"\r\n")[1:] if line.lower().startswith(b"content-length:")))
        while len(body) < length:
            body += sock.recv(65536)
        return int(head.split(b" ", 2)[1]), body[:length]


def test_served_reads_bodies_auth_and_errors_unchanged(world_app):
    world, wa = world_app
    server = start_in_thread(wa.app)
    token = world.directory.tokens["alice"]
    auth = {"Authorization": f"Bearer {token}"}
    try:
        with httpx.Client(base_url=server.url, timeout=30) as c:
            assert c.get("/gmail/v1/users/me/messages/m2", headers=auth).json()["id"] == "m2"
            assert c.get("/gmail/v1/users/me/messages/m2", headers={**auth, "Content-Length": "0"}).status_code == 200
            # a repeated query key of a list field stays a list
            got = c.get("/gmail/v1/users/me/messages/m2?format=metadata&metadataHeaders=Subject&metadataHeaders=From", headers=auth).json()
            assert sorted(h["name"] for h in got["payload"]["headers"]) == ["From", "Subject"]
            assert c.get("/gmail/v1/users/me/messages/m2", headers={"Authorization": "Bearer nope"}).status_code == 401
            assert c.get("/gmail/v1/users/me/messages/m2").json()["error"]["status"] == "UNAUTHENTICATED"
            assert c.get("/gmail/v1/users/me/messages/m3", headers=auth).status_code == 404  # bob's message
            assert c.delete("/gmail/v1/users/me/profile", headers=auth).status_code == 405
            assert c.get("/gmail/v1/nope", headers=auth).json()["error"]["errors"][0]["reason"] == "unknown_method"
            assert c.get("/_admin/state", headers=auth).status_code == 401
            admin = {"Authorization": f"Bearer {world.directory.admin_token}"}
            assert c.get("/_admin/state", headers=admin).status_code == 200
        # bodies the fast path must still measure: declared too large, and chunked past the limit
        big = b'{"raw": "' + b"x" * 2000 + b'"}'
        status, body = _raw_exchange(server.port, b"POST /gmail/v1/users/me/messages/send HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer "
                                     + token.encode() + b"\r\nContent-Length: " + str(len(big)).encode() + b"\r\nConnection: close\r\n\r\n" + big)  # fmt: skip
        assert status == 413 and json.loads(body)["error"]["errors"][0]["reason"] == "request_too_large"
        chunked = b"".join(b"%x\r\n%s\r\n" % (len(part), part) for part in (big[:1000], big[1000:])) + b"0\r\n\r\n"
        status, body = _raw_exchange(server.port, b"POST /gmail/v1/users/me/messages/send HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer "
                                     + token.encode() + b"\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n" + chunked)  # fmt: skip
        assert status == 413
    finally:
        server.stop()


def test_json_text_keeps_lone_surrogates_and_compact_form():
    assert JSONText({"a": "\ud800", "b": [1, "é"]}).body == '{"a":"\\ud800","b":[1,"é"]}'.encode()
    with pytest.raises(ValueError):
        JSONText({"x": float("nan")})
