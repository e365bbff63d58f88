"""Gemini CLI as a harness: `--agent gemini-cli:MODEL` (the Gemini API).

One turn is `gemini -o stream-json -m MODEL --approval-mode yolo`, the message on stdin, with a generated
`$GEMINI_CLI_HOME/.gemini/settings.json`: API-key auth (without a selected auth type it exits
41), folder trust off (in an untrusted folder it silently turns yolo off), usage statistics,
telemetry and updates off, and the clawarena MCP server with its bearer header. The endpoint is
`GOOGLE_GEMINI_BASE_URL`. The instructions go to GEMINI.md in its workspace. Its stream-json
events give the assistant text, the tool calls and results, and the turn's token counts.
"""

from __future__ import annotations

import json
import re

from clawarena.agents.harness.base import MCP_SERVER, HarnessAgent, ShellRun, Transcript, TurnContext, json_lines, register_harness, tool_use
from clawarena.agents.harness.proxy import Route

SHELL_TOOL = "run_shell_command"
# its built-in file and web tools: (argument names holding paths, argument names holding URLs or text)
BUILT_IN = {
    "read_file": (("absolute_path", "file_path", "path"), ()), "write_file": (("file_path",), ()), "replace": (("file_path",), ()),
    "read_many_files": (("paths",), ()), "list_directory": (("path", "dir_path"), ()), "glob": (("path", "dir_path"), ()),
    "grep_search": (("path", "dir_path"), ()), "web_fetch": ((), ("url", "prompt")),
}  # fmt: skip


class GeminiCliAgent(HarnessAgent):
    name = "gemini-cli"
    script = "install-gemini-cli.sh"
    provider = "google"
    instructions_file = "GEMINI.md"
    tool_prefix = f"mcp_{MCP_SERVER}_"
    prompt_on_stdin = True  # with stdin not a terminal and no -p, it runs once, non-interactively, on what stdin holds

    def files(self, ctx: TurnContext) -> dict[str, str]:
        settings = {
            "security": {"auth": {"selectedType": "gemini-api-key"}, "folderTrust": {"enabled": False}},
            "privacy": {"usageStatisticsEnabled": False},
            "telemetry": {"enabled": False},
            "general": {"enableAutoUpdate": False, "enableAutoUpdateNotification": False},
            "mcpServers": {MCP_SERVER: {"httpUrl": ctx.mcp_url, "headers": {"Authorization": f"Bearer {ctx.mcp_token}"}, "trust": True}},
        }
        return {f"{ctx.state}/.gemini/settings.json": json.dumps(settings, indent=2), f"{ctx.workspace}/{self.instructions_file}": ctx.instructions}

    def argv(self, ctx: TurnContext) -> list[str]:
        return [*self.install.argv, "-o", "stream-json", "-m", ctx.config.model, "--approval-mode", "yolo"]

    def env(self, ctx: TurnContext) -> dict[str, str]:
        return {"GOOGLE_GEMINI_BASE_URL": ctx.model_url, "GEMINI_API_KEY": ctx.api_key, "GEMINI_CLI_HOME": ctx.state, "NO_COLOR": "1"}

    def model_routes(self, base_path: str) -> list[Route]:
        return [Route("POST", re.escape(base_path) + r"/v1beta/models/[^/]+:(streamGenerateContent|generateContent|countTokens)")]

    @staticmethod
    def parse(stdout: str) -> Transcript:
        out = Transcript()
        shells: dict[str, ShellRun] = {}
        reply: list[str] = []
        for event in json_lines(stdout):
            kind = event.get("type")
            if kind == "message" and event.get("role") == "assistant":
                reply.append(str(event.get("content") or ""))
            elif kind == "tool_use":
                reply = []  # the final reply is the text after the last tool call
                name = str(event.get("tool_name"))
                out.tool_calls.append(name)
                args = event.get("parameters") if isinstance(event.get("parameters"), dict) else {}
                if name == SHELL_TOOL:
                    run = ShellRun(str(args.get("command", "")), tool_id=str(event.get("tool_id", "")))
                    shells[run.tool_id] = run
                    out.shell.append(run)
                elif name in BUILT_IN:
                    out.tool_uses.append(tool_use(name, args, *BUILT_IN[name]))
            elif kind == "tool_result" and event.get("tool_id") in shells:
                run = shells[event["tool_id"]]
                error = event.get("error") if isinstance(event.get("error"), dict) else {}
                run.output = str(event.get("output") or error.get("message") or "")
                code = re.search(r"Exit Code: (-?\d+)", run.output)
                run.exit_code = int(code.group(1)) if code else None  # its stream-json does not carry the exit code
            elif kind == "result":
                stats = event.get("stats") or {}
                out.input_tokens = int(stats.get("input_tokens") or 0)
                out.output_tokens = int(stats.get("output_tokens") or 0)
                out.ok = event.get("status") == "success"
                if not out.ok:
                    error = event.get("error")
                    out.error = str(error.get("message") if isinstance(error, dict) else error or event.get("status"))
            elif kind == "error":
                out.error = str(event.get("message") or "error")
            if kind != "message" or not event.get("delta"):
                out.events.append(event)
        out.final = "".join(reply).strip()
        if not out.ok and not out.error:
            out.error = "no successful result event in the stream-json output"
        return out


register_harness(GeminiCliAgent, "gemini-2.5-flash")
