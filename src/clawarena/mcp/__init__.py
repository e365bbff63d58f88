"""MCP: each delegate agent's tools as an MCP server (streamable HTTP or stdio), for any harness.

`server.py` builds one agent's server on the official SDK and the token-routed
HTTP app; `http.py` runs the REST and MCP apps on one event loop. A session
(a world driven from outside, scored like a trial) is `runner/session.py`;
the commands are `commands/serve.py`. Importing this package does not import
the MCP SDK (about a second): `clawarena serve` without `--agent-port` never needs it.
"""

from typing import Any

__all__ = ["INBOX_TOOL", "MCP_PATH", "AgentsHTTPApp", "agent_server", "tool_entry", "tools_server"]


def __getattr__(name: str) -> Any:
    if name in __all__:
        from clawarena.mcp import server

        return getattr(server, name)
    raise AttributeError(f"module 'clawarena.mcp' has no attribute {name!r}")
