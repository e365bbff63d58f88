"""A delegate agent's tools as an MCP server, on the official `mcp` SDK's low-level Server.

Every `tools/call` goes through `gateway.call(agent_id, ...)`, exactly like a
model agent's call, so it is checked, policed and recorded in the ledger with
the agent as actor. A result comes back as text content holding the JSON
result; a failure as an `isError` result carrying the gateway's message.

Over streamable HTTP (`AgentsHTTPApp`) each connection is bound to one agent by
its principal's bearer token: `/mcp` serves the principal's agent (when it has
exactly one), `/mcp/<agent-id>` names one explicitly; a wrong or missing token
is refused with 401, another principal's agent with 403.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Callable
from typing import Any, Protocol

import mcp_types as types
from mcp.server.lowlevel import Server
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
from mcp.server.transport_security import TransportSecuritySettings

from clawarena import __version__
from clawarena.gateway import Gateway, ToolFault, ToolOutcome
from clawarena.tools.core import Tool, ToolKind


class Session(Protocol):
    """What the MCP server needs of a session driven from outside (runner.session.Session)."""

    def read_inbox(self, agent_id: str) -> str: ...


MAX_RESULT_CHARS = 100_000
INBOX_TOOL = "clawarena_inbox"
MCP_PATH = "/mcp"


def tool_entry(t: Tool) -> types.Tool:
    """A clawarena tool as an MCP tool: same name, description and JSON schema."""
    return types.Tool(
        name=t.name,
        description=t.description,
        inputSchema=t.json_schema(),
        annotations=types.ToolAnnotations(
            readOnlyHint=t.kind is ToolKind.READ,
            destructiveHint=False if t.kind is ToolKind.READ else None,
            openWorldHint=t.kind is ToolKind.SEND,
        ),
    )


def _text(text: str, is_error: bool = False) -> types.CallToolResult:
    return types.CallToolResult(content=[types.TextContent(text=text)], isError=is_error)


def result_text(result: Any) -> str:
    text = json.dumps(result, ensure_ascii=False, default=str)
    if len(text) > MAX_RESULT_CHARS:
        text = text[:MAX_RESULT_CHARS] + f"... [truncated {len(text) - MAX_RESULT_CHARS} characters]"
    return text


def _inbox_entry() -> types.Tool:
    return types.Tool(
        name=INBOX_TOOL,
        description=(
            "Read the new events addressed to you: your principal's instruction, messages from other people's "
            "agents, approval requests and grants. Call it first, and again whenever you expect a reply."
        ),
        inputSchema={"type": "object", "properties": {}, "additionalProperties": False},
        annotations=types.ToolAnnotations(readOnlyHint=True, openWorldHint=False),
    )


def tools_server(
    agent_id: str,
    tools: Callable[[], list[Tool]],
    call: Callable[[str, Any], ToolOutcome],
    *,
    session: "Session | None" = None,
    instructions: str | None = None,
) -> Server:
    """An MCP server over one agent's tool list and call function (the gateway's, or an AgentSession's).

    With a `session` (an episode driven from outside), the server also offers
    `clawarena_inbox`, which hands the agent its new events and opens its next turn."""

    async def list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
        entries = [tool_entry(t) for t in tools()]
        if session is not None:
            entries.append(_inbox_entry())
        return types.ListToolsResult(tools=entries)

    async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        if session is not None and params.name == INBOX_TOOL:
            return _text(session.read_inbox(agent_id))
        args = {} if params.arguments is None else params.arguments
        # Synchronous on purpose: calls into one world are serialized on the server's event loop.
        try:
            outcome = call(params.name, args)
        except ToolFault as exc:  # recorded in the ledger and on the gateway: the session scores as an error
            return _text(f"ERROR 500: {exc}", is_error=True)
        if outcome.ok:
            return _text(result_text(outcome.result))
        return _text(f"ERROR {outcome.status}: {outcome.error}", is_error=True)

    return Server(
        f"clawarena-{agent_id}",
        version=__version__,
        title=f"clawarena: tools of {agent_id}",
        instructions=instructions,
        on_list_tools=list_tools,
        on_call_tool=call_tool,
    )


def agent_server(gateway: Gateway, agent_id: str, *, session: "Session | None" = None, instructions: str | None = None) -> Server:
    """One agent's MCP server on a gateway: every call is `gateway.call(agent_id, ...)`."""
    if agent_id not in gateway.world.directory.agents:
        raise KeyError(f"unknown agent {agent_id!r}; agents: {sorted(gateway.world.directory.agents)}")
    return tools_server(
        agent_id, lambda: gateway.agent_tools(agent_id), lambda name, args: gateway.call(agent_id, name, args),
        session=session, instructions=instructions,
    )  # fmt: skip


def _loopback_security() -> TransportSecuritySettings:
    return TransportSecuritySettings(
        enable_dns_rebinding_protection=True,
        allowed_hosts=["127.0.0.1:*", "localhost:*", "[::1]:*"],
        allowed_origins=["http://127.0.0.1:*", "http://localhost:*", "http://[::1]:*"],
    )


class AgentsHTTPApp:
    """ASGI app: streamable-HTTP MCP endpoints for agents, one principal per bearer token.

    `servers` maps agent ids to their MCP servers, `owners` agent ids to principal
    ids, `tokens` principal ids to the bearer tokens that authenticate them.
    """

    def __init__(self, servers: dict[str, Server], owners: dict[str, str], tokens: dict[str, str], *, path: str = MCP_PATH):
        self.path = path.rstrip("/")
        self.owners = dict(owners)
        self.principal_of_token = {tok: pid for pid, tok in tokens.items() if tok}
        self.managers = {
            a: StreamableHTTPSessionManager(app=server, security_settings=_loopback_security(), session_idle_timeout=None)
            for a, server in servers.items()
        }
        self._stack: contextlib.AsyncExitStack | None = None

    @classmethod
    def for_gateway(cls, gateway: Gateway, agents: list[str] | None = None, *, make_server: Callable[[str], Server] | None = None) -> "AgentsHTTPApp":
        """Every agent of a world (or `agents`), each behind its principal's world token."""
        directory = gateway.world.directory
        chosen = list(agents if agents is not None else directory.agents)
        make = make_server or (lambda a: agent_server(gateway, a))
        return cls({a: make(a) for a in chosen}, {a: directory.agents[a].principal for a in chosen}, directory.tokens)

    def _agents_of(self, principal: str) -> list[str]:
        return [a for a in self.managers if self.owners[a] == principal]

    def endpoint(self, base_url: str, agent_id: str) -> str:
        """The URL a client of `agent_id` connects to (with its principal's token)."""
        mine = self._agents_of(self.owners[agent_id])
        return f"{base_url}{self.path}" if mine == [agent_id] else f"{base_url}{self.path}/{agent_id}"

    async def _lifespan(self, receive: Any, send: Any) -> None:
        while True:
            message = await receive()
            if message["type"] == "lifespan.startup":
                try:
                    self._stack = contextlib.AsyncExitStack()
                    for manager in self.managers.values():
                        await self._stack.enter_async_context(manager.run())
                except Exception as exc:  # pragma: no cover - startup failure is reported to uvicorn
                    await send({"type": "lifespan.startup.failed", "message": str(exc)})
                    return
                await send({"type": "lifespan.startup.complete"})
            elif message["type"] == "lifespan.shutdown":
                if self._stack is not None:
                    await self._stack.aclose()
                await send({"type": "lifespan.shutdown.complete"})
                return

    @staticmethod
    async def _deny(send: Any, status: int, error: str, description: str) -> None:
        body = json.dumps({"error": error, "error_description": description}).encode()
        headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
        if status == 401:
            headers.append((b"www-authenticate", f'Bearer error="{error}", error_description="{description}"'.encode()))
        await send({"type": "http.response.start", "status": status, "headers": headers})
        await send({"type": "http.response.body", "body": body})

    def _resolve(self, scope: dict[str, Any]) -> tuple[str | None, tuple[int, str, str] | None]:
        """The agent this request is for, or the refusal (status, error, description)."""
        path = scope.get("path", "").rstrip("/")
        if path != self.path and not path.startswith(self.path + "/"):
            return None, (404, "not_found", f"MCP endpoints live under {self.path}")
        token = ""
        for name, value in scope.get("headers", []):
            if name == b"authorization":
                scheme, _, rest = value.decode("latin-1").partition(" ")
                token = rest.strip() if scheme.lower() == "bearer" else ""
        if not token:
            return None, (401, "invalid_token", "missing bearer token: send Authorization: Bearer <principal token>")
        principal = self.principal_of_token.get(token)
        if principal is None:
            return None, (401, "invalid_token", "unknown bearer token")
        mine = self._agents_of(principal)
        wanted = path[len(self.path) + 1 :] if path != self.path else ""
        if wanted:
            if wanted not in self.managers:
                return None, (404, "not_found", f"no agent {wanted!r} served here")
            if wanted not in mine:
                return None, (403, "forbidden", f"agent {wanted!r} does not act for {principal}")
            return wanted, None
        if len(mine) == 1:
            return mine[0], None
        if not mine:
            return None, (403, "forbidden", f"{principal} has no agent served here")
        return None, (400, "invalid_request", f"{principal} has several agents; use {self.path}/<agent-id> with one of {mine}")

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] == "lifespan":
            await self._lifespan(receive, send)
            return
        if scope["type"] != "http":  # pragma: no cover - no websockets here
            return
        agent, refusal = self._resolve(scope)
        if refusal is not None:
            await self._deny(send, *refusal)
            return
        assert agent is not None
        await self.managers[agent].handle_request(scope, receive, send)
