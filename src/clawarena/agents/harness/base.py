"""A coding-agent harness (Claude Code, Codex CLI, Gemini CLI) as a delegate agent.

Each turn is one non-interactive run of the real harness inside the sandbox (sandbox.py):

- a fresh trial folder: `home`, `state` (the harness's config and state), `workspace` (its
  working directory, holding its instructions file) and `tmp`, removed afterwards (kept with
  `CLAWARENA_HARNESS_KEEP=1`);
- the agent's clawarena tools served over MCP (streamable HTTP, a fresh bearer token per turn)
  as the harness's tool source, and the model endpoint from the models file or `--base-url`;
  both reached through the host's proxies (proxy.py), which pass only the model API's routes
  and `/mcp` and record everything else as an escalation attempt;
- the instructions: clawarena's system prompt (with the condition's skills and meta sections)
  in the harness's own instructions file (CLAUDE.md, AGENTS.md, GEMINI.md); the message: the
  earlier turns' events and replies, and the new events.

Every tool call lands in the ledger through the MCP server. The harness's machine-readable
transcript gives the final reply, token usage (a `model_call` event per turn) and its shell
commands (a `shell_command` event each); a command that reaches beyond the sandbox, and each
request the proxies refused, is an `escalation_attempt` event. The turns are kept as trace data.

A subclass gives only what differs: its files, command line, environment, model routes and
transcript parser.
"""

from __future__ import annotations

import json
import os
import secrets
import shutil
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar
from urllib.parse import urlsplit

from clawarena.agents.base import AgentSession, AgentSetup, BudgetExceeded, TurnInput, TurnOutput
from clawarena.agents.harness import sandbox
from clawarena.agents.harness.install import HarnessInstall, HarnessUnavailable, find_install
from clawarena.agents.harness.proxy import EndpointProxy, Refusal, Refusals, Route
from clawarena.agents.harness.shell import attempts, tool_attempts
from clawarena.agents.prompt import render_events, system_prompt
from clawarena.llm.config import DEFAULT_KEY_ENV, ModelConfig, ModelConfigError
from clawarena.llm.retry import InfrastructureError
from clawarena.llm.types import ModelCallRecord

DEFAULT_TURN_TIMEOUT = 600
MAX_TRACE_STRING = 4000
MAX_SHELL_OUTPUT = 2000
MCP_SERVER = "clawarena"  # the MCP server's name in every harness's config
SANDBOX_KEY = "sk-clawarena-sandbox"  # the only API key a harness sees; the proxy swaps in the real one
AUTH_HEADER = {"anthropic": ("x-api-key", "{}"), "openai": ("authorization", "Bearer {}"), "google": ("x-goog-api-key", "{}")}
DEFAULT_BASE_URL = {"openai": "https://api.openai.com/v1", "anthropic": "https://api.anthropic.com", "google": "https://generativelanguage.googleapis.com"}


def clip(value: Any, limit: int = MAX_TRACE_STRING) -> Any:
    """Long strings in trace data cut to `limit`, saying how much was cut."""
    if isinstance(value, str):
        return value if len(value) <= limit else value[:limit] + f"... [{len(value) - limit} more characters]"
    if isinstance(value, dict):
        return {k: clip(v, limit) for k, v in value.items()}
    if isinstance(value, list):
        return [clip(v, limit) for v in value]
    return value


@dataclass
class ShellRun:
    """One shell command the harness ran, read from its transcript."""

    command: str
    output: str = ""
    exit_code: int | None = None
    tool_id: str = ""


@dataclass
class ToolUse:
    """One call of a built-in file or web tool: the paths and URL-bearing texts among its arguments."""

    tool: str
    call: str  # the call as text: the tool's name and its arguments
    paths: list[str] = field(default_factory=list)
    texts: list[str] = field(default_factory=list)


def tool_use(tool: str, args: dict[str, Any], path_keys: tuple[str, ...], text_keys: tuple[str, ...] = ()) -> ToolUse:
    """A built-in tool call read through the argument names that hold paths (a string or a list) and texts."""

    def values(keys: tuple[str, ...]) -> list[str]:
        out: list[str] = []
        for key in keys:
            value = args.get(key)
            out += [str(v) for v in value] if isinstance(value, list) else [str(value)] if value else []
        return out

    return ToolUse(tool, clip(f"{tool} {json.dumps(args, sort_keys=True)}", MAX_SHELL_OUTPUT), values(path_keys), values(text_keys))


@dataclass
class Transcript:
    """What a harness's machine-readable output says about one turn."""

    final: str = ""
    ok: bool = False
    error: str = ""
    input_tokens: int = 0
    output_tokens: int = 0
    tool_calls: list[str] = field(default_factory=list)  # tool names as the harness called them
    shell: list[ShellRun] = field(default_factory=list)
    tool_uses: list[ToolUse] = field(default_factory=list)  # built-in file and web tools (not the shell, not MCP)
    events: list[dict[str, Any]] = field(default_factory=list)  # the transcript, compacted for the trace


@dataclass(frozen=True)
class TurnContext:
    """What a harness's files, command line and environment are built from. Paths are as the
    harness sees them inside the sandbox."""

    config: ModelConfig
    model_url: str  # the model endpoint's base URL through the proxy
    mcp_url: str
    mcp_token: str
    api_key: str  # always a placeholder: the host's proxy puts the real key on each request
    instructions: str
    message: str
    state: str = f"{sandbox.INSIDE}/state"
    workspace: str = f"{sandbox.INSIDE}/workspace"


def harness_model(harness: str, provider: str, example: str):
    """The model resolver of a harness kind: `HARNESS:MODEL` (a model of the provider the harness
    speaks) or `HARNESS:model/NAME` (a models-file entry of that provider)."""

    def resolve(rest: str, models: dict[str, ModelConfig] | None, base_url: str | None) -> ModelConfig:
        if not rest:
            raise ModelConfigError(f"--agent {harness}: needs a model, e.g. {harness}:{example} or {harness}:model/NAME")
        if rest.startswith(("model/", "model:")):
            name = rest[len("model/") :]
            if not models or name not in models:
                raise ModelConfigError(f"--agent {harness}:{rest}: no model named {name!r} in the models file")
            config = models[name]
            if config.provider != provider:
                raise ModelConfigError(f"--agent {harness}:{rest}: {harness} speaks the {provider} API, but model {name!r} is provider {config.provider}")
            return config.model_copy(update={"base_url": base_url}) if base_url else config
        return ModelConfig(name=f"{harness}:{rest}", provider=provider, model=rest, base_url=base_url)  # type: ignore[arg-type]

    return resolve


def installed_check(name: str, script: str):
    """The registry's preflight for a harness: installed, and a sandbox can start here."""

    def check() -> None:
        try:
            find_install(name, script)
        except HarnessUnavailable as exc:
            raise ModelConfigError(str(exc)) from None
        problem = sandbox.problem()
        if problem:
            raise ModelConfigError(f"{name} runs only in its sandbox: {problem}")

    return check


class HarnessAgent:
    """The turn lifecycle shared by every sandboxed harness."""

    blocking = True  # each turn waits on a subprocess: the episode runs it on a thread
    name: ClassVar[str]  # the agent kind, the install manifest's name
    script: ClassVar[str]  # the install script under scripts/
    provider: ClassVar[str]  # the model API it speaks
    instructions_file: ClassVar[str]  # where it reads project instructions, in its workspace
    tool_prefix: ClassVar[str]  # how it names the MCP server's tools
    # the message on stdin rather than in argv, where one argument holds at most 128 KiB
    prompt_on_stdin: ClassVar[bool] = False

    def __init__(self, setup: AgentSetup, config: ModelConfig):
        self.setup = setup
        self.config = config
        problem = sandbox.problem()
        if problem:
            raise HarnessUnavailable(f"{self.name} runs only in its sandbox: {problem}")
        self.install: HarnessInstall = find_install(self.name, self.script)
        opts = setup.options
        self.turn_timeout = int(opts.get("harness_timeout", os.environ.get("CLAWARENA_HARNESS_TIMEOUT", DEFAULT_TURN_TIMEOUT)))
        self.keep = bool(opts.get("harness_keep", os.environ.get("CLAWARENA_HARNESS_KEEP") == "1"))
        self.extra_sections: list[str] = list(opts.get("prompt_sections", []))
        self.history: list[tuple[str, str]] = []  # (events rendered, final reply) of earlier turns
        self.turns: list[dict[str, Any]] = []
        self.tokens = 0

    # ---- what a harness gives ---------------------------------------------------------
    def files(self, ctx: TurnContext) -> dict[str, str]:
        """Files to write before the run, by path inside the sandbox (under /agent)."""
        raise NotImplementedError

    def argv(self, ctx: TurnContext) -> list[str]:
        raise NotImplementedError

    def env(self, ctx: TurnContext) -> dict[str, str]:
        raise NotImplementedError

    def model_routes(self, base_path: str) -> list[Route]:
        """The model API's routes under the endpoint's base path (e.g. '/v1')."""
        raise NotImplementedError

    @staticmethod
    def parse(stdout: str) -> Transcript:
        """The harness's machine-readable output of one turn, read."""
        raise NotImplementedError

    def read_state(self, state: Path, transcript: Transcript) -> None:
        """What the harness's own state folder adds to the turn's transcript (after the run, on the
        host); most harnesses' output says everything."""

    # ---- prompt -------------------------------------------------------------------------
    def instructions(self, turn: TurnInput, session: AgentSession) -> str:
        head = system_prompt(turn.principal, self.setup.spec, session.now_iso(), self.extra_sections)
        return f"{head}\n\nYour tools for this work are the `{self.tool_prefix}*` tools of the `{MCP_SERVER}` MCP server; they act in your principal's workspace."

    def message(self, turn: TurnInput) -> str:
        # markdown headings, not '---' rules: a message must never look like a command-line option
        parts = [f"## Earlier turn {i}\n{events}\n\nYour reply then:\n{reply or '(none)'}" for i, (events, reply) in enumerate(self.history, start=1)]
        parts.append(f"## New events (turn {turn.turn})\n{render_events(turn.events)}")
        return "\n\n".join(parts)

    def key_env(self) -> str:
        return self.config.api_key_env or DEFAULT_KEY_ENV[self.config.provider]

    def auth_headers(self) -> dict[str, str]:
        """The real key's header, set by the model proxy on the host; none when the key variable is
        unset (a local server that takes any key gets the placeholder)."""
        key = os.environ.get(self.key_env(), "")
        if not key:
            return {}
        header, template = AUTH_HEADER[self.config.provider]
        return {header: template.format(key)}

    # ---- one turn -------------------------------------------------------------------------
    def take_turn(self, turn: TurnInput, session: AgentSession) -> TurnOutput:
        from clawarena.mcp.http import AppSpec, start_on_one_loop
        from clawarena.mcp.server import AgentsHTTPApp, tools_server

        agent_id = session.agent_id
        token = secrets.token_urlsafe(24)
        server = tools_server(agent_id, lambda: session.tools, session.call)
        app = AgentsHTTPApp({agent_id: server}, {agent_id: turn.principal.id}, {turn.principal.id: token})
        upstream = urlsplit(self.config.base_url or DEFAULT_BASE_URL[self.config.provider])
        refusals = Refusals()
        model_proxy = EndpointProxy("model", f"{upstream.scheme}://{upstream.netloc}", self.model_routes(upstream.path.rstrip("/")), refusals, self.auth_headers())
        mcp_proxy = EndpointProxy("mcp", "", [Route("*", "/mcp/?")], refusals)
        root = Path(tempfile.mkdtemp(prefix=f"clawarena-{self.name}-{agent_id}-"))
        sockets = Path(tempfile.mkdtemp(prefix="clawarena-sockets-"))
        servers = start_on_one_loop([
            AppSpec(app, 0, lifespan="on"),
            AppSpec(model_proxy, lifespan="on", uds=str(sockets / "model.sock")),
            AppSpec(mcp_proxy, lifespan="on", uds=str(sockets / "mcp.sock")),
        ])  # fmt: skip
        mcp_proxy.upstream = servers.urls[0]  # known once bound; no request comes before the harness starts
        try:
            base_path = upstream.path.rstrip("/")
            ctx = TurnContext(
                config=self.config, model_url=f"http://127.0.0.1:{sandbox.MODEL_PORT}{base_path}",
                mcp_url=f"http://127.0.0.1:{sandbox.MCP_PORT}/mcp", mcp_token=token,
                api_key=SANDBOX_KEY, instructions=self.instructions(turn, session),
                message=self.message(turn),
            )  # fmt: skip
            return self._run(turn, session, ctx, root, sockets, refusals)
        finally:
            servers.stop()
            if not self.keep:
                shutil.rmtree(root, ignore_errors=True)
            shutil.rmtree(sockets, ignore_errors=True)

    def _run(self, turn: TurnInput, session: AgentSession, ctx: TurnContext, root: Path, sockets: Path, refusals: Refusals) -> TurnOutput:
        for name in ("home", "state", "workspace", "tmp"):
            (root / name).mkdir()
        for inside, text in self.files(ctx).items():
            host = root / Path(inside).relative_to(sandbox.INSIDE)
            host.parent.mkdir(parents=True, exist_ok=True)
            host.write_text(text)
        sandbox.prepare(root, sockets)
        spec = sandbox.SandboxSpec(self.argv(ctx), self.env(ctx), root, sockets, self.install.binds, self.install.path)
        t0 = time.perf_counter()
        try:
            proc = subprocess.run(sandbox.command(spec), input=ctx.message if self.prompt_on_stdin else "", capture_output=True, text=True,
                                  timeout=self.turn_timeout, check=False)  # fmt: skip
        except subprocess.TimeoutExpired as exc:
            self._record_refusals(session, turn, refusals.take())
            raise BudgetExceeded(f"{self.name} turn did not finish within {self.turn_timeout} s") from exc
        seconds = round(time.perf_counter() - t0, 3)
        if self.keep:  # the raw output, next to the kept folder's config, for debugging a harness
            for stream, text in (("stdout", proc.stdout), ("stderr", proc.stderr)):
                try:
                    sandbox.write_text(root / f"turn-{turn.turn}.{stream}", text)
                except FileExistsError:  # the harness left that name there (maybe a symlink): not ours to write
                    pass
        transcript = self.parse(proc.stdout)
        self.read_state(root / "state", transcript)
        refused = refusals.take()
        self.turns.append({
            "turn": turn.turn, "exit_code": proc.returncode, "seconds": seconds, "message": ctx.message,
            "instructions": ctx.instructions, "final": transcript.final, "error": transcript.error,
            "tool_calls": transcript.tool_calls, "shell": [s.__dict__ for s in transcript.shell], "tool_uses": [u.__dict__ for u in transcript.tool_uses],
            "refused": [r.__dict__ for r in refused], "events": clip(transcript.events), "stderr": clip(proc.stderr[-MAX_TRACE_STRING:]),
        })  # fmt: skip
        self._record_usage(session, transcript, seconds)
        self._record_shell(session, turn, transcript.shell, ctx.mcp_token)
        self._record_tool_uses(session, turn, transcript.tool_uses)
        self._record_refusals(session, turn, refused)
        if proc.returncode != 0 or not transcript.ok:
            detail = transcript.error or (proc.stderr.strip().splitlines() or ["no output"])[-1]
            raise InfrastructureError(f"{self.name} exited {proc.returncode}: {detail[:500]}")
        self.history.append((render_events(turn.events), transcript.final))
        self._check_budget()
        return TurnOutput(text=transcript.final)

    # ---- the ledger ---------------------------------------------------------------------
    def _record_usage(self, session: AgentSession, transcript: Transcript, seconds: float) -> None:
        tin, tout = transcript.input_tokens, transcript.output_tokens
        record = ModelCallRecord(
            provider=self.name, model=f"{self.config.provider}/{self.config.model}", input_tokens=tin, output_tokens=tout,
            cost_usd=self.config.price.cost(tin, tout), finish_reason="stop" if transcript.ok else "error", latency_ms=round(seconds * 1000, 1),
        )  # fmt: skip
        # The harness makes its own model calls; the trace keeps what this turn ended with (its reply).
        reply = session.put_content({"role": "assistant", "content": transcript.final})
        session.record_model_call({**record.model_dump(), "response": reply}, decides=False)
        self.tokens += tin + tout

    def _record_shell(self, session: AgentSession, turn: TurnInput, runs: list[ShellRun], token: str) -> None:
        variables = {self.key_env()}
        for run in runs:
            if not run.command.strip():
                continue
            session.record_shell_command({
                "harness": self.name, "turn": turn.turn, "command": run.command, "exit_code": run.exit_code,
                "output": clip(run.output, MAX_SHELL_OUTPUT), "tool_id": run.tool_id,
            })  # fmt: skip
            for attempt in attempts(run.command, variables, [token]):
                session.record_escalation_attempt({
                    "harness": self.name, "turn": turn.turn, "kind": attempt.kind, "target": attempt.target,
                    "detail": attempt.detail, "source": "shell", "command": run.command,
                })  # fmt: skip

    def _record_tool_uses(self, session: AgentSession, turn: TurnInput, uses: list[ToolUse]) -> None:
        for use in uses:
            for attempt in tool_attempts(use.paths, use.texts):
                session.record_escalation_attempt({
                    "harness": self.name, "turn": turn.turn, "kind": attempt.kind, "target": attempt.target,
                    "detail": f"{attempt.detail} ({use.tool})", "source": "tool", "command": use.call,
                })  # fmt: skip

    def _record_refusals(self, session: AgentSession, turn: TurnInput, refused: list[Refusal]) -> None:
        for r in refused:
            session.record_escalation_attempt({
                "harness": self.name, "turn": turn.turn, "kind": "route", "target": f"{r.method} {r.path}",
                "detail": f"refused by the sandbox's {r.endpoint} endpoint" + (f" (query {r.query[:200]})" if r.query else ""),
                "source": "proxy", "command": "",
            })  # fmt: skip

    def _check_budget(self) -> None:
        budget = self.config.budget
        if budget.max_tokens is not None and self.tokens > budget.max_tokens:
            raise BudgetExceeded(f"token budget of {budget.max_tokens} exceeded ({self.tokens})")

    def trace_data(self) -> dict[str, Any]:
        return {self.setup.spec.id: {
            "harness": self.name, "version": self.install.version, "model": f"{self.config.provider}/{self.config.model}",
            "sandbox": "bubblewrap", "turns": self.turns,
        }}  # fmt: skip


def json_lines(stdout: str) -> list[dict[str, Any]]:
    """The JSON objects of a JSON-lines transcript; other lines (diagnostics) are skipped."""
    out = []
    for line in stdout.splitlines():
        line = line.strip()
        if line.startswith("{"):
            try:
                value = json.loads(line)
            except ValueError:
                continue
            if isinstance(value, dict):
                out.append(value)
    return out


def register_harness(cls: type[HarnessAgent], example: str) -> type[HarnessAgent]:
    """Register a harness class as the agent kind `cls.name`: `NAME:MODEL` or `NAME:model/NAME`."""
    from clawarena.agents.registry import register_agent

    resolve = harness_model(cls.name, cls.provider, example)

    def make(setup: AgentSetup) -> HarnessAgent:
        return cls(setup, resolve(str(setup.options.get("model", "")), setup.options.get("models"), setup.options.get("base_url")))

    register_agent(cls.name, harness=cls.name, model=resolve, check=installed_check(cls.name, cls.script))(make)
    return cls
