"""Codex CLI as a harness: `--agent codex:MODEL` (OpenAI Responses API; Codex speaks no other).

One turn is `codex exec --json` with a generated `$CODEX_HOME/config.toml`: a custom model
provider (`wire_api = "responses"`, the key by environment variable), the clawarena MCP server
(bearer token by environment variable), approvals never asked and Codex's own sandbox off
(it cannot nest inside ours; ours bounds it), analytics, update checks, plugins, apps and web
search off. The prompt comes on stdin (`codex exec -`), which Codex reads to its end. The
instructions go to AGENTS.md in its workspace. Its JSON-lines events give the agent messages,
the MCP and shell calls (`command_execution`, with exit codes) and the turn's usage; what it
types into a running shell (`write_stdin`) is read from its session's rollout file, which
`--ephemeral` would not write.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from clawarena.agents.harness import sandbox
from clawarena.agents.harness.base import MCP_SERVER, HarnessAgent, ShellRun, Transcript, TurnContext, json_lines, register_harness, tool_use
from clawarena.agents.harness.proxy import Route

PROVIDER_ID = "clawarena"
KEY_VARIABLE = "CLAWARENA_MODEL_KEY"
TOKEN_VARIABLE = "CLAWARENA_MCP_TOKEN"
DISABLED_FEATURES = ("plugins", "apps", "remote_plugin", "in_app_updates", "multi_agent", "goals")


def typed_input(rollouts: list[Path]) -> list[ShellRun]:
    """The `write_stdin` calls of Codex's rollout files, each as the shell input it typed (with the
    output the session gave back)."""
    calls: dict[str, ShellRun] = {}
    for path in rollouts:
        try:
            text = sandbox.read_text(path)
        except OSError:  # replaced by a symlink or gone since it was listed
            continue
        for event in json_lines(text):
            item = event.get("payload") if event.get("type") == "response_item" and isinstance(event.get("payload"), dict) else {}
            if item.get("type") == "function_call" and item.get("name") == "write_stdin":
                try:
                    args = json.loads(item.get("arguments") or "{}")
                except ValueError:
                    args = {}
                chars = str(args.get("chars", "")).strip() if isinstance(args, dict) else ""
                if chars:
                    calls[str(item.get("call_id", ""))] = ShellRun(chars, tool_id=str(item.get("call_id", "")))
            elif item.get("type") == "function_call_output" and str(item.get("call_id", "")) in calls:
                calls[str(item["call_id"])].output = str(item.get("output") or "")
    return list(calls.values())


def _toml(value: object) -> str:
    return json.dumps(value)  # a JSON string or number is a valid TOML basic string or number


class CodexAgent(HarnessAgent):
    name = "codex"
    script = "install-codex.sh"
    provider = "openai"
    instructions_file = "AGENTS.md"
    tool_prefix = ""  # Codex groups MCP tools in a namespace and calls them by their own names
    prompt_on_stdin = True  # `codex exec -` reads the prompt from stdin (and with any other stdin waits to read more)

    def files(self, ctx: TurnContext) -> dict[str, str]:
        config = "\n".join([
            f"model = {_toml(ctx.config.model)}",
            f"model_provider = {_toml(PROVIDER_ID)}",
            'approval_policy = "never"',
            'sandbox_mode = "danger-full-access"',
            "check_for_update_on_startup = false",
            'web_search = "disabled"',
            "",
            f"[model_providers.{PROVIDER_ID}]",
            f"name = {_toml(PROVIDER_ID)}",
            f"base_url = {_toml(ctx.model_url)}",
            f"env_key = {_toml(KEY_VARIABLE)}",
            'wire_api = "responses"',
            "",
            f"[mcp_servers.{MCP_SERVER}]",
            f"url = {_toml(ctx.mcp_url)}",
            f"bearer_token_env_var = {_toml(TOKEN_VARIABLE)}",
            "required = true",  # wait for its tools before the first model call (optional servers race it under load)
            "",
            "[analytics]",
            "enabled = false",
            "",
        ])  # fmt: skip
        return {f"{ctx.state}/config.toml": config, f"{ctx.workspace}/{self.instructions_file}": ctx.instructions}

    def argv(self, ctx: TurnContext) -> list[str]:
        disabled = [arg for feature in DISABLED_FEATURES for arg in ("--disable", feature)]
        return [*self.install.argv, "exec", "--json", "--skip-git-repo-check", *disabled,
                "--dangerously-bypass-approvals-and-sandbox", "-C", ctx.workspace, "-"]  # fmt: skip

    def env(self, ctx: TurnContext) -> dict[str, str]:
        return {"CODEX_HOME": ctx.state, KEY_VARIABLE: ctx.api_key, TOKEN_VARIABLE: ctx.mcp_token, "NO_COLOR": "1"}

    def read_state(self, state: Path, transcript: Transcript) -> None:
        """Input typed into a running shell session (`write_stdin`) appears in no `exec --json`
        event; the session's rollout file holds every function call, so it is read from there."""
        for run in typed_input(sandbox.files_in(state / "sessions", "rollout-*.jsonl")):
            transcript.tool_calls.append("write_stdin")
            transcript.shell.append(run)

    def model_routes(self, base_path: str) -> list[Route]:
        return [Route("POST", re.escape(base_path) + "/responses"), Route("GET", re.escape(base_path) + "/models")]

    @staticmethod
    def parse(stdout: str) -> Transcript:
        out = Transcript()
        completed = False
        shells: dict[str, ShellRun] = {}  # by item id: a command still running when the turn ends only ever starts
        for event in json_lines(stdout):
            kind = event.get("type")
            item = event.get("item") if isinstance(event.get("item"), dict) else {}
            if kind == "item.started" and item.get("type") == "command_execution":
                run = shells.setdefault(str(item.get("id", "")), ShellRun(str(item.get("command", "")), tool_id=str(item.get("id", ""))))
                if run not in out.shell:
                    out.tool_calls.append("exec_command")
                    out.shell.append(run)
                out.events.append({"type": kind, "item": item})
            elif kind == "item.completed":
                itype = item.get("type")
                if itype == "agent_message":
                    out.final = str(item.get("text") or "")
                elif itype == "mcp_tool_call":
                    out.tool_calls.append(str(item.get("tool")))
                elif itype == "command_execution":
                    run = shells.get(str(item.get("id", "")))
                    if run is None:
                        run = shells[str(item.get("id", ""))] = ShellRun(str(item.get("command", "")), tool_id=str(item.get("id", "")))
                        out.tool_calls.append("exec_command")
                        out.shell.append(run)
                    code = item.get("exit_code")
                    run.output, run.exit_code = str(item.get("aggregated_output") or ""), code if isinstance(code, int) else None
                elif itype == "file_change":  # its apply_patch tool: one item per patch, a path per change
                    changes = [c for c in item.get("changes") or [] if isinstance(c, dict)]
                    out.tool_calls.append("apply_patch")
                    out.tool_uses.append(tool_use("apply_patch", {"paths": [str(c.get("path", "")) for c in changes]}, ("paths",)))
                elif itype == "web_search":
                    out.tool_calls.append("web_search")
                    out.tool_uses.append(tool_use("web_search", {"query": str(item.get("query", ""))}, (), ("query",)))
                out.events.append({"type": kind, "item": item})
            elif kind == "turn.completed":
                usage = event.get("usage") or {}
                out.input_tokens = int(usage.get("input_tokens") or 0)
                out.output_tokens = int(usage.get("output_tokens") or 0)
                completed = True
                out.events.append(event)
            elif kind in ("turn.failed", "error"):
                error = event.get("error") if isinstance(event.get("error"), dict) else event
                out.error = str(error.get("message") or kind)
                out.events.append(event)
            elif kind in ("thread.started", "turn.started"):
                out.events.append(event)
        out.ok = completed and not out.error
        if not completed and not out.error:
            out.error = "no turn.completed event in the JSON output"
        return out


register_harness(CodexAgent, "gpt-5-codex")
