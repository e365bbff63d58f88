"""The host side of a sandbox's way out: an HTTP proxy per endpoint that passes only the routes
a harness needs and refuses, and records, everything else.

A sandboxed harness reaches the outside through unix sockets only (see forward.py). Each
socket is served by one `EndpointProxy`: the model endpoint's proxy passes the model API's
routes (e.g. `POST /v1/messages`), the MCP endpoint's proxy passes `/mcp`. Any other request
that arrives through them, e.g. the agent's shell running `curl 127.0.0.1:4001/gmail/v1/...`
or `/_admin/state`, gets a 403 and becomes a `Refusal`, which the harness agent writes to the
ledger as an escalation attempt. Allowed requests are relayed to the upstream with their
bodies and streamed responses (server-sent events) unchanged, except for the headers the proxy
sets (the model endpoint's real API key, which never enters the sandbox).
"""

from __future__ import annotations

import asyncio
import json
import re
import threading
from dataclasses import dataclass, field
from typing import Any

import httpx

# headers that describe one hop, not the message (RFC 9110 §7.6.1), plus those httpx recomputes
_HOP = {b"connection", b"keep-alive", b"proxy-connection", b"transfer-encoding", b"te", b"trailer", b"upgrade", b"host", b"content-length"}


@dataclass(frozen=True)
class Route:
    """Requests a proxy passes: a method ('*' for any) and a regular expression the path must match fully."""

    method: str
    path: str

    def matches(self, method: str, path: str) -> bool:
        return (self.method == "*" or self.method == method) and re.fullmatch(self.path, path) is not None


@dataclass(frozen=True)
class Refusal:
    endpoint: str  # which proxy refused: "model" or "mcp"
    method: str
    path: str
    query: str = ""


@dataclass
class Refusals:
    """The refusals of one turn, collected from the proxies' loop thread."""

    items: list[Refusal] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def add(self, refusal: Refusal) -> None:
        with self.lock:
            self.items.append(refusal)

    def take(self) -> list[Refusal]:
        with self.lock:
            out, self.items = self.items, []
        return out


class EndpointProxy:
    """An ASGI app relaying the allowed routes to `upstream` (an origin, e.g. http://127.0.0.1:8000)."""

    def __init__(self, name: str, upstream: str, routes: list[Route], refusals: Refusals, headers: dict[str, str] | None = None):
        self.name = name
        self.upstream = upstream.rstrip("/")
        self.routes = routes
        self.refusals = refusals
        # set on every relayed request, replacing what the harness sent: the real API key is added
        # here, on the host, so the sandbox only ever holds a placeholder
        self.headers = [(k.lower().encode("latin-1"), v.encode("latin-1")) for k, v in (headers or {}).items()]
        self._client: httpx.AsyncClient | None = None

    def allows(self, method: str, path: str) -> bool:
        return any(r.matches(method, path) for r in self.routes)

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] == "lifespan":
            await self._lifespan(receive, send)
        elif scope["type"] == "http":
            await self._http(scope, receive, send)

    async def _lifespan(self, receive: Any, send: Any) -> None:
        while True:
            message = await receive()
            if message["type"] == "lifespan.startup":
                # no read timeout: model calls take long, and an MCP GET stays open as an event stream
                self._client = httpx.AsyncClient(timeout=httpx.Timeout(30.0, read=None), follow_redirects=False)
                await send({"type": "lifespan.startup.complete"})
            elif message["type"] == "lifespan.shutdown":
                if self._client is not None:
                    await self._client.aclose()
                await send({"type": "lifespan.shutdown.complete"})
                return

    async def _http(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        method, path = scope["method"], scope["path"]
        query = scope.get("query_string", b"").decode("latin-1")
        if not self.allows(method, path):
            self.refusals.add(Refusal(self.name, method, path, query))
            body = json.dumps({"error": f"clawarena sandbox: {method} {path} is not reachable from the harness"}).encode()
            await send({"type": "http.response.start", "status": 403, "headers": [(b"content-type", b"application/json")]})
            await send({"type": "http.response.body", "body": body})
            return
        chunks = []
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                return
            chunks.append(message.get("body", b""))
            if not message.get("more_body"):
                break
        assert self._client is not None, "the proxy runs with lifespan on"
        url = self.upstream + path + (f"?{query}" if query else "")
        replaced = {k for k, _ in self.headers}
        headers = [(k, v) for k, v in scope["headers"] if k.lower() not in _HOP and k.lower() not in replaced] + self.headers
        request = self._client.build_request(method, url, headers=headers, content=b"".join(chunks))
        try:
            response = await self._client.send(request, stream=True)
        except httpx.HTTPError as exc:
            body = json.dumps({"error": f"clawarena sandbox proxy: upstream {self.upstream} failed: {exc}"}).encode()
            await send({"type": "http.response.start", "status": 502, "headers": [(b"content-type", b"application/json")]})
            await send({"type": "http.response.body", "body": body})
            return
        try:
            out_headers = [(k, v) for k, v in response.headers.raw if k.lower() not in _HOP]
            await send({"type": "http.response.start", "status": response.status_code, "headers": out_headers})
            await self._stream(response, receive, send)
        finally:
            await response.aclose()

    @staticmethod
    async def _stream(response: httpx.Response, receive: Any, send: Any) -> None:
        """Relay the body as it arrives; stop when the harness hangs up (an open event stream
        would otherwise outlive it)."""

        async def relay() -> None:
            async for chunk in response.aiter_raw():
                await send({"type": "http.response.body", "body": chunk, "more_body": True})
            await send({"type": "http.response.body", "body": b""})

        async def hung_up() -> None:
            while (await receive())["type"] != "http.disconnect":
                pass

        tasks = [asyncio.ensure_future(relay()), asyncio.ensure_future(hung_up())]
        done, pending = await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
        for task in pending:
            task.cancel()
        for task in done:
            if task.exception() is not None and not isinstance(task.exception(), (OSError, httpx.HTTPError)):
                raise task.exception()  # type: ignore[misc]
