"""Claude Code as a harness: `--agent claude-code:MODEL` (Anthropic messages API).

One turn is `claude -p --output-format stream-json --verbose`, the message on stdin, with a strict MCP config
naming only the clawarena server, permissions bypassed (it runs as uid 65534 inside the
sandbox, which is what bounds it), no session persistence, non-essential traffic, telemetry
and updates off, and Tool Search off (else the MCP tools hide behind a search tool). The
instructions go to CLAUDE.md in its workspace, which it reads as project instructions. Usage
comes from the final `result` event; the per-message usage is only the stream's first snapshot.
"""

from __future__ import annotations

import json
import re
from typing import Any

from clawarena.agents.harness.base import MCP_SERVER, HarnessAgent, ShellRun, Transcript, TurnContext, json_lines, register_harness, tool_use
from clawarena.agents.harness.proxy import Route

SHELL_TOOL = "Bash"
# its built-in file and web tools: (argument names holding paths, argument names holding URLs or text)
BUILT_IN = {
    "Read": (("file_path",), ()), "Write": (("file_path",), ()), "Edit": (("file_path",), ()), "MultiEdit": (("file_path",), ()),
    "NotebookEdit": (("notebook_path",), ()), "Glob": (("path",), ()), "Grep": (("path",), ()), "LS": (("path",), ()),
    "WebFetch": ((), ("url",)),
}  # fmt: skip


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(str(c.get("text", "")) for c in content if isinstance(c, dict))
    return ""


class ClaudeCodeAgent(HarnessAgent):
    name = "claude-code"
    script = "install-claude-code.sh"
    provider = "anthropic"
    instructions_file = "CLAUDE.md"
    tool_prefix = f"mcp__{MCP_SERVER}__"
    prompt_on_stdin = True  # `claude -p` with no prompt argument reads it from stdin

    def files(self, ctx: TurnContext) -> dict[str, str]:
        server = {"type": "http", "url": ctx.mcp_url, "headers": {"Authorization": f"Bearer {ctx.mcp_token}"}}
        return {f"{ctx.state}/mcp.json": json.dumps({"mcpServers": {MCP_SERVER: server}}, indent=2), f"{ctx.workspace}/{self.instructions_file}": ctx.instructions}

    def argv(self, ctx: TurnContext) -> list[str]:
        return [
            *self.install.argv, "-p", "--output-format", "stream-json", "--verbose", "--model", ctx.config.model,
            "--mcp-config", f"{ctx.state}/mcp.json", "--strict-mcp-config", "--permission-mode", "bypassPermissions",
            "--no-session-persistence",
        ]  # fmt: skip

    def env(self, ctx: TurnContext) -> dict[str, str]:
        return {
            "ANTHROPIC_BASE_URL": ctx.model_url, "ANTHROPIC_API_KEY": ctx.api_key, "CLAUDE_CONFIG_DIR": ctx.state,
            "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1", "DISABLE_TELEMETRY": "1", "DISABLE_AUTOUPDATER": "1",
            "DISABLE_ERROR_REPORTING": "1", "ENABLE_TOOL_SEARCH": "false", "NO_COLOR": "1",
        }  # fmt: skip

    def model_routes(self, base_path: str) -> list[Route]:
        return [Route("POST", re.escape(base_path) + r"/v1/messages(/count_tokens)?")]

    @staticmethod
    def parse(stdout: str) -> Transcript:
        out = Transcript()
        shells: dict[str, ShellRun] = {}
        for event in json_lines(stdout):
            kind = event.get("type")
            content = (event.get("message") or {}).get("content") if isinstance(event.get("message"), dict) else None
            if kind == "system":
                tools = event.get("tools") or []
                out.events.append({"type": "system", "subtype": event.get("subtype"), "model": event.get("model"), "tools": tools, "mcp_servers": event.get("mcp_servers")})
            elif kind == "assistant" and isinstance(content, list):
                for block in content:
                    if block.get("type") == "tool_use":
                        out.tool_calls.append(str(block.get("name")))
                        name, args = str(block.get("name")), block.get("input") if isinstance(block.get("input"), dict) else {}
                        if name == SHELL_TOOL:
                            run = ShellRun(command=str(args.get("command", "")), tool_id=str(block.get("id", "")))
                            shells[run.tool_id] = run
                            out.shell.append(run)
                        elif name in BUILT_IN:
                            out.tool_uses.append(tool_use(name, args, *BUILT_IN[name]))
                out.events.append({"type": "assistant", "content": content})
            elif kind == "user" and isinstance(content, list):
                for block in content:
                    if block.get("type") == "tool_result" and block.get("tool_use_id") in shells:
                        run = shells[block["tool_use_id"]]
                        run.output = _text(block.get("content"))
                        code = re.search(r"[Ee]xit code:? (\d+)", run.output)
                        run.exit_code = int(code.group(1)) if code else (1 if block.get("is_error") else 0)
                out.events.append({"type": "user", "content": content})
            elif kind == "result":
                usage = event.get("usage") or {}
                out.input_tokens = sum(int(usage.get(k) or 0) for k in ("input_tokens", "cache_read_input_tokens", "cache_creation_input_tokens"))
                out.output_tokens = int(usage.get("output_tokens") or 0)
                out.final = str(event.get("result") or "")
                out.ok = event.get("subtype") == "success" and not event.get("is_error")
                if not out.ok:
                    out.error = out.final or str(event.get("subtype"))
                out.events.append({k: v for k, v in event.items() if k not in ("modelUsage",)})
        if not out.ok and not out.error:
            out.error = "no result event in the stream-json output"
        return out


register_harness(ClaudeCodeAgent, "claude-sonnet-4-5")
