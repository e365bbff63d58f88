"""MCP: each delegate agent's tools as an MCP server (streamable HTTP or stdio), for any harness.

`server.py` builds one agent's server on the official SDK and the token-routed
HTTP app; `session.py` drives a world from outside and scores it like a trial;
`http.py` runs the REST and MCP apps on one event loop; `commands.py` is what
`clawarena serve --agent-port`, `clawarena mcp` and `clawarena score` do.
"""

from clawarena.mcp.server import INBOX_TOOL, MCP_PATH, AgentsHTTPApp, agent_server, tool_entry, tools_server

__all__ = ["INBOX_TOOL", "MCP_PATH", "AgentsHTTPApp", "agent_server", "tool_entry", "tools_server"]
