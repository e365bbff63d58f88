"""Property-based fuzzing of every REST-bound route through the real app on a real socket.

For each tool with a REST binding, hypothesis draws requests from the tool's arguments
model and its binding (path parameters, query parameters, a JSON, form or multipart body,
an upload), mixing plausible values (ids that exist in the world) with hostile ones: lone
surrogates, NULs, deep nesting, huge numbers, wrong types, broken encodings. Every answer
must be below 500 and in the service's own error shape, and after each route the world
still serves: /health answers and a known-good call succeeds.

Bounded and reproducible: a fixed number of examples per route, `derandomize=True`, no
example database, and each route starts from the same world state (restored through
/_admin), so a run replays exactly.
"""

from __future__ import annotations

import json
import re
import socket
import urllib.parse
from dataclasses import dataclass
from typing import Any

import httpx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from clawarena.gateway import Gateway
from clawarena.server.app import WorldApp
from clawarena.server.serve import start_in_thread
from clawarena.services import services, world_factory
from clawarena.spec.loader import load_suite
from clawarena.tools.core import Tool

# about 214 routes x 12 requests, fixed (derandomized): the work is bounded by the count, not by a
# wall-clock budget, which a loaded machine would turn into failures (about 30 s on 2 idle cores)
EXAMPLES_PER_ROUTE = 12
SCENARIO = "docs-injection-in-comment/benign"  # rows in all five services (drive comments too), built in under a second

SERVICES = services()
ROUTES: list[tuple[str, str, Tool, bool]] = [
    (service.name, service.error_style, tool, upload)
    for service in SERVICES
    for tool in service.tools
    if tool.rest is not None
    for upload in ((False, True) if tool.rest.upload_path else (False,))
]


def _route_id(route: tuple[str, str, Tool, bool]) -> str:
    return route[2].name + (".upload" if route[3] else "")


# ---- the world under test ----------------------------------------------------------------------


@dataclass
class Served:
    url: str
    client: httpx.Client
    world: Any
    gateway: Gateway
    tokens: list[str]
    admin: str
    ids: list[str]


def _ids_in(state: dict[str, Any]) -> list[str]:
    """Strings that name things in the world (ids, emails, channel names): plausible path and query values."""
    seen: dict[str, None] = {"me": None, "primary": None, "root": None}
    for rows in state.values():
        for key, row in rows.items():
            seen.setdefault(str(key), None)
            for column in ("id", "email", "name", "ts", "channel", "owner", "calendar_id", "thread_id"):
                value = row.get(column) if isinstance(row, dict) else None
                if isinstance(value, str) and 0 < len(value) < 80:
                    seen.setdefault(value, None)
    return sorted(seen)[:400]


@pytest.fixture(scope="module")
def served():
    scenario = next(s for s in load_suite("workspace") if s.id == SCENARIO)
    world = world_factory().build(scenario, 0)
    gateway = Gateway(world, SERVICES)
    server = start_in_thread(WorldApp(gateway, SERVICES).app)
    # TCP_NODELAY: without it each request with a body waits out the peer's delayed ACK (~40 ms)
    nodelay = httpx.HTTPTransport(socket_options=[(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)])
    client = httpx.Client(base_url=server.url, timeout=60, transport=nodelay)
    admin = world.directory.admin_token
    assert client.post("/_admin/snapshot/start", headers={"Authorization": f"Bearer {admin}"}).status_code == 200
    yield Served(server.url, client, world, gateway, sorted(world.directory.tokens.values()), admin, _ids_in(world.store.state()))
    client.close()
    server.stop()


# ---- values ------------------------------------------------------------------------------------

HOSTILE_STRINGS = [
    "\ud800", "a\udfffb", "\x00", "nul\x00inside", "x" * 70_000, "", " ", "%", "%zz", "../../etc/passwd",
    "[" * 200, "{" * 200, '[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[["x"', '"\\ud800"',
    '{"a": "\\udc00"}', "[1e999]", "9" * 5000, "-1", "0", "99999999999999999999999999", "1e308", "NaN", "Infinity",
    "true", "null", "[]", "{}", "\u202e\u200b", "😀" * 50, "' OR 1=1 --", "(unbalanced", "fields(", "*",
    "2026-13-45T99:99:99Z", "1970-01-01T00:00:00Z", "\r\nX-Injected: 1", "a,b,,c", "U0,U1",
]  # fmt: skip
HOSTILE_NUMBERS = [0, -1, 2**31, 2**63, -(2**63) - 1, 10**30, 1.5, -0.0, 1e308]
HOSTILE_BODIES = [
    b'{"name": "\\ud800"}', b'{"\\udc00": 1}', b"[" * 5000 + b"]" * 5000, b'{"a":' * 3000 + b"1" + b"}" * 3000,
    json.dumps(json.loads("[" * 70 + "]" * 70)).encode(), b"NaN", b"[Infinity]", b"1e999", b'{"n": 1' + b"0" * 5000 + b"}",
    b'{"n": 123456789012345678901234567890}', b"\xff\xfe\x00", b"\xed\xa0\x80", b'"\xed\xa0\x80"', b"{", b"", b"null",
    b"[]", b'"text"', b"\x00", b'{"a": "\x00"}', b"{" + b'"k": "v",' * 20000 + b'"z": 0}', b'{"raw": "' + b"A" * 300_000 + b'"}',
]  # fmt: skip

json_scalars = st.one_of(st.none(), st.booleans(), st.integers(-(10**6), 10**6), st.floats(allow_nan=False, allow_infinity=False), st.text(max_size=20))
json_values = st.recursive(json_scalars, lambda inner: st.one_of(st.lists(inner, max_size=3), st.dictionaries(st.text(max_size=8), inner, max_size=3)), max_leaves=8)


def strings(ids: list[str]) -> st.SearchStrategy[str]:
    return st.one_of(st.sampled_from(ids), st.sampled_from(HOSTILE_STRINGS), st.text(max_size=30))


def _resolve(schema: dict[str, Any], defs: dict[str, Any]) -> dict[str, Any]:
    while "$ref" in schema:
        schema = defs[schema["$ref"].rsplit("/", 1)[-1]]
    return schema


def from_schema(schema: dict[str, Any], defs: dict[str, Any], ids: list[str], depth: int = 0) -> st.SearchStrategy[Any]:
    """Plausible values for a JSON Schema (pydantic's), with wrong types and hostile values mixed in."""
    schema = _resolve(schema, defs)
    hostile = st.one_of(st.sampled_from(HOSTILE_STRINGS), st.sampled_from(HOSTILE_NUMBERS), json_values)
    if depth > 4:
        return json_scalars
    if "enum" in schema:
        plausible: st.SearchStrategy[Any] = st.sampled_from(schema["enum"])
    elif "anyOf" in schema or "oneOf" in schema:
        options = [s for s in schema.get("anyOf", schema.get("oneOf", []))]
        plausible = st.one_of([from_schema(s, defs, ids, depth + 1) for s in options])
    elif "const" in schema:
        plausible = st.just(schema["const"])
    else:
        kind = schema.get("type")
        if kind == "string":
            plausible = strings(ids)
        elif kind == "integer":
            plausible = st.one_of(st.integers(-5, 500), st.sampled_from([n for n in HOSTILE_NUMBERS if isinstance(n, int)]))
        elif kind == "number":
            plausible = st.one_of(st.floats(allow_nan=False, allow_infinity=False), st.sampled_from(HOSTILE_NUMBERS))
        elif kind == "boolean":
            plausible = st.booleans()
        elif kind == "null":
            plausible = st.none()
        elif kind == "array":
            plausible = st.lists(from_schema(schema.get("items", {}), defs, ids, depth + 1), max_size=3)
        elif kind == "object" or "properties" in schema:
            props = schema.get("properties", {})
            if props:
                plausible = st.fixed_dictionaries({}, optional={k: from_schema(v, defs, ids, depth + 1) for k, v in props.items()})
            else:
                plausible = st.dictionaries(st.text(max_size=8), json_values, max_size=3)
        else:
            plausible = json_values
    return st.one_of(plausible, plausible, plausible, hostile)  # mostly plausible: deep paths get reached


# ---- requests ----------------------------------------------------------------------------------


@dataclass
class Call:
    method: str
    path: str
    query: list[tuple[str, str]]
    headers: dict[str, str]
    body: bytes = b""


def _quote(value: Any) -> str:
    text = (value if isinstance(value, str) else json.dumps(value))[:1500]  # a URL stays under the client's 64 KiB
    return urllib.parse.quote(text.encode("utf-8", "surrogatepass"), safe="")


def _form_text(value: Any) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return ""
    return json.dumps(value)


def _query_string(pairs: list[tuple[str, str]]) -> str:
    return "&".join(f"{_quote(k)}={_quote(v)}" for k, v in pairs)


def _json_body(value: Any) -> bytes:
    return json.dumps(value, ensure_ascii=True).encode()  # lone surrogates go out as \ud800 escapes


def _multipart_form(fields: dict[str, Any], boundary: str) -> bytes:
    out = b""
    for name, value in fields.items():
        out += f"--{boundary}\r\nContent-Disposition: form-data; name=\"{name}\"\r\n\r\n".encode()
        out += _form_text(value).encode("utf-8", "surrogatepass") + b"\r\n"
    out += f"--{boundary}\r\nContent-Disposition: form-data; name=\"file\"; filename=\"f.txt\"\r\nContent-Type: text/plain\r\n\r\nhello\r\n".encode()
    return out + f"--{boundary}--\r\n".encode()


def _related(meta: bytes, media: bytes, media_type: str, boundary: str) -> bytes:
    return (
        f"--{boundary}\r\nContent-Type: application/json; charset=UTF-8\r\n\r\n".encode() + meta
        + f"\r\n--{boundary}\r\nContent-Type: {media_type}\r\n\r\n".encode() + media + f"\r\n--{boundary}--".encode()
    )  # fmt: skip


MEDIA = [b"", b"hello", b"\x00\xff" * 100, b"From: a@b\r\nSubject: \xed\xa0\x80\r\n\r\nbody"]


def requests_for(route: tuple[str, str, Tool, bool], served: Served) -> st.SearchStrategy[Call]:
    """Requests for one route; the sub-strategies are built once, so drawing stays cheap."""
    _, style, tool, upload = route
    binding = tool.rest
    assert binding is not None
    schema = tool.args_model.model_json_schema(by_alias=True)
    defs = schema.get("$defs", {})
    props: dict[str, Any] = schema.get("properties", {})
    ids = served.ids
    template = binding.upload_path if upload else binding.path
    assert template is not None
    path_names = re.findall(r"\{(\w+)\}", template)
    tokens = st.one_of(st.sampled_from(served.tokens), st.sampled_from(served.tokens), st.sampled_from(["", "forged-token", served.admin]))
    path_values = st.tuples(*[strings(ids) for _ in path_names])
    arg_names = [n for n in props if n not in path_names and n not in (binding.body, binding.media)]
    args_s = st.fixed_dictionaries({}, optional={n: from_schema(props[n], defs, ids) for n in arg_names})
    extras = st.lists(st.tuples(st.sampled_from(["fields", "alt", "prettyPrint", "pageToken", "unknownParam", "token"]),
                                st.sampled_from(HOSTILE_STRINGS + ["*", "id,name", "media", "json"])), max_size=2)  # fmt: skip
    methods = st.sampled_from([binding.method, *binding.methods])
    body_s = st.one_of(from_schema(props.get(binding.body or "", {}), defs, ids).map(_json_body), st.sampled_from(HOSTILE_BODIES))

    @st.composite
    def calls(draw: st.DrawFn) -> Call:
        token = draw(tokens)
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        path = template
        for name, value in zip(path_names, draw(path_values)):
            path = path.replace("{" + name + "}", _quote(value), 1)
        args = draw(args_s)
        extra = draw(extras)
        if style.startswith("google"):
            query = [(k, _form_text(x)) for k, v in args.items() for x in (v if isinstance(v, list) else [v])] + extra
            body = b""
            if upload:
                query.append(("uploadType", draw(st.sampled_from(["multipart", "media", "resumable", "bogus"]))))
                meta, media = draw(body_s), draw(st.sampled_from(MEDIA))
                if draw(st.booleans()):
                    headers["Content-Type"] = "multipart/related; boundary=BOUNDARY"
                    body = draw(st.sampled_from([_related(meta, media, "message/rfc822", "BOUNDARY"), _related(meta, media, "text/plain", "BOUNDARY"), b"--BOUNDARY\r\n\r\n", meta]))
                else:
                    headers["Content-Type"] = draw(st.sampled_from(["message/rfc822", "application/octet-stream", "text/plain", "multipart/related", "multipart/related; boundary="]))
                    body = media
            elif binding.body:
                headers["Content-Type"] = "application/json"
                body = draw(body_s)
            return Call(draw(methods), path, query, headers, body)
        # Slack: the same arguments as a query string, a form, JSON or multipart
        if binding.media:  # the raw upload URL of files_upload_v2
            return Call("POST", path, [(k, _form_text(v)) for k, v in args.items()] + extra, headers, draw(st.sampled_from([b"", b"bytes", b"\xff" * 1000])))
        encoding = draw(st.sampled_from(["query", "form", "json", "multipart", "raw-json"]))
        if encoding == "query":
            return Call(draw(methods), path, [(k, _form_text(v)) for k, v in args.items()] + extra, headers)
        if encoding == "form":
            headers["Content-Type"] = "application/x-www-form-urlencoded"
            return Call("POST", path, extra, headers, _query_string([(k, _form_text(v)) for k, v in args.items()]).encode())
        if encoding == "multipart":
            headers["Content-Type"] = draw(st.sampled_from(["multipart/form-data; boundary=B0UND", "multipart/form-data", "multipart/form-data; boundary=OTHER"]))
            return Call("POST", path, extra, headers, _multipart_form(args, "B0UND"))
        headers["Content-Type"] = "application/json; charset=utf-8"
        return Call("POST", path, extra, headers, _json_body(args) if encoding == "json" else draw(st.sampled_from(HOSTILE_BODIES)))

    return calls()


# ---- checks ------------------------------------------------------------------------------------


def send(served: Served, call: Call) -> httpx.Response:
    url = call.path + (("?" + _query_string(call.query)) if call.query else "")
    return served.client.request(call.method, url, headers=call.headers, content=call.body)


def assert_in_service_shape(style: str, response: httpx.Response, call: Call) -> None:
    where = f"{call.method} {call.path} query={call.query!r:.300} body={call.body[:300]!r}"
    assert response.status_code < 500, f"{response.status_code} from {where}: {response.text[:500]}"
    if response.status_code < 400 and not response.headers.get("content-type", "").startswith("application/json"):
        return  # media downloads and 204s
    if not response.content:
        return
    body = response.json()
    if style.startswith("google") and response.status_code >= 400:
        assert body["error"]["code"] == response.status_code, f"not Google's error shape from {where}: {body}"
    if style == "slack":
        assert "ok" in body, f"not Slack's shape from {where}: {body}"


def still_serves(served: Served) -> None:
    assert served.client.get("/health").json() == {"status": "ok"}
    token = served.world.directory.tokens[sorted(served.world.directory.tokens)[0]]
    good = served.client.get("/gmail/v1/users/me/labels", headers={"Authorization": f"Bearer {token}"})
    assert good.status_code == 200 and "labels" in good.json(), good.text[:300]
    slack = served.client.post("/api/auth.test", headers={"Authorization": f"Bearer {token}"})
    assert slack.status_code == 200 and slack.json()["ok"] is True, slack.text[:300]
    assert served.gateway.fault is None, served.gateway.fault


def restore(served: Served) -> None:
    done = served.client.post("/_admin/restore/start", headers={"Authorization": f"Bearer {served.admin}"})
    assert done.status_code == 200, done.text


FUZZ = settings(
    max_examples=EXAMPLES_PER_ROUTE, derandomize=True, database=None, deadline=None, print_blob=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much],
)  # fmt: skip


@pytest.mark.parametrize("route", ROUTES, ids=_route_id)
def test_no_input_gives_a_5xx_and_the_world_still_serves(served, route):
    restore(served)  # every route starts from the same world; its examples are one fixed sequence

    @FUZZ
    @given(call=requests_for(route, served))
    def fuzz(call):
        assert_in_service_shape(route[1], send(served, call), call)

    fuzz()
    still_serves(served)


def test_the_fuzz_covers_every_rest_route():
    names = {tool.name for _, _, tool, _ in ROUTES}
    every = {t.name for s in SERVICES for t in s.tools if t.rest is not None}
    assert names == every and len(every) > 150
    assert any(upload for *_, upload in ROUTES)

