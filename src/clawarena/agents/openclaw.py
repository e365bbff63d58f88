"""OpenClaw as a harness: `--agent openclaw:PROVIDER/MODEL`.

Each turn of a delegate agent is one real `openclaw agent exec` run:

- a generated, pinned JSON config (`--config`): the agent's tools served over
  MCP (streamable HTTP on 127.0.0.1, a fresh bearer token per turn) as the only
  tool source (`tools.allow: ["clawarena__*"]`, Tool Search and Code Mode off,
  shell exec denied, memory search off), and one model provider built from the
  model config (`base_url`, `model`; api `openai-completions` or
  `anthropic-messages`), with the API key passed by environment reference;
- an isolated folder per turn: `--state-dir`, `--cwd` workspace and `HOME`,
  removed afterwards (kept with `CLAWARENA_OPENCLAW_KEEP=1`);
- the prompt: the agent's system prompt (with the condition's sections), the
  earlier turns' events and replies, and the new events.

Every tool call lands in the ledger through the MCP server (it calls the
agent's gateway session). OpenClaw's `--json` envelope (final text, usage,
tool summary) and the trajectory events of its SQLite transcript are kept as
trace data (`trace["agents"][agent_id]`); usage is recorded as `model_call`
events so tokens and cost count like any model agent's.

PROVIDER/MODEL is `openai/MODEL` or `anthropic/MODEL` (with `--base-url` for
a local OpenAI-compatible server), or `model/NAME` for a models-file entry.
The `openclaw` command is `$CLAWARENA_OPENCLAW`, else `.tools/bin/openclaw`
(made by scripts/install-openclaw.sh), else `openclaw` on PATH.
"""

from __future__ import annotations

import json
import os
import secrets
import shutil
import sqlite3
import subprocess
import tempfile
import time
from functools import lru_cache
from pathlib import Path
from typing import Any

from clawarena.agents.base import AgentSession, AgentSetup, BudgetExceeded, TurnInput, TurnOutput
from clawarena.agents.harness.base import MAX_TRACE_STRING, clip
from clawarena.agents.prompt import render_events, system_prompt
from clawarena.agents.registry import register_agent
from clawarena.llm.config import DEFAULT_KEY_ENV, ModelConfig, ModelConfigError, resolve
from clawarena.llm.retry import InfrastructureError
from clawarena.llm.types import ModelCallRecord

SERVER_NAME = "clawarena"  # OpenClaw exposes MCP tools as <server>__<tool>
PROVIDER_ID = "clawarena"
PROVIDER_API = {"openai": "openai-completions", "anthropic": "anthropic-messages"}
DEFAULT_BASE_URL = {"openai": "https://api.openai.com/v1", "anthropic": "https://api.anthropic.com"}
DEFAULT_TURN_TIMEOUT = 600
TOOLS_ROOT = Path(__file__).resolve().parents[3] / ".tools"  # the repository's .tools when installed editable


class OpenClawUnavailable(RuntimeError):
    """No working `openclaw` (or Node too old): the trial is an error, with the way to fix it."""


# ---- finding the command ------------------------------------------------------------
def candidates() -> list[str]:
    found = []
    if os.environ.get("CLAWARENA_OPENCLAW"):
        found.append(os.environ["CLAWARENA_OPENCLAW"])
    local = TOOLS_ROOT / "bin" / "openclaw"
    if local.is_file():
        found.append(str(local))
    on_path = shutil.which("openclaw")
    if on_path:
        found.append(on_path)
    return found


@lru_cache(maxsize=8)
def _probe(command: str) -> tuple[str | None, str]:
    """(version, problem): runs `openclaw --version`, which fails on a Node older than OpenClaw needs."""
    try:
        out = subprocess.run([command, "--version"], capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return None, f"{command} --version: {exc}"
    text = (out.stdout + out.stderr).strip()
    if out.returncode != 0 or "openclaw" not in text.lower():
        return None, f"{command} --version exited {out.returncode}: {text[-300:]}"
    return text.splitlines()[-1], ""


def find_openclaw() -> tuple[str, str]:
    """(command, version) of a working OpenClaw, or OpenClawUnavailable saying how to get one."""
    problems = []
    for command in candidates():
        version, problem = _probe(command)
        if version:
            return command, version
        problems.append(problem)
    hint = "run scripts/install-openclaw.sh (installs Node 24 and openclaw into .tools/), or set CLAWARENA_OPENCLAW to an openclaw on Node >= 24.16"
    raise OpenClawUnavailable("no working openclaw: " + ("; ".join(problems) if problems else "not installed") + f"; {hint}")


# ---- model and config -----------------------------------------------------------------
def parse_model_spec(spec: str) -> tuple[str, str]:
    """`openai/gpt-4o-mini` -> ('openai', 'gpt-4o-mini'); the first '/' or ':' separates."""
    cut = min((i for i in (spec.find("/"), spec.find(":")) if i >= 0), default=-1)
    if cut <= 0 or cut == len(spec) - 1:
        raise ValueError(f"--agent openclaw:{spec}: expected openclaw:PROVIDER/MODEL, e.g. openclaw:openai/gpt-4o-mini or openclaw:model/NAME")
    return spec[:cut], spec[cut + 1 :]


def model_config(spec: str, models: dict[str, ModelConfig] | None = None, base_url: str | None = None) -> ModelConfig:
    provider, model = parse_model_spec(spec)
    if provider not in ("openai", "anthropic", "model"):
        raise ValueError(f"--agent openclaw:{spec}: provider {provider!r} is not openai, anthropic or model (a models-file name)")
    return resolve(f"{provider}:{model}", models, base_url)


def openclaw_config(config: ModelConfig, mcp_url: str, log_file: str | None = None) -> dict[str, Any]:
    """The pinned OpenClaw config of one turn. Secrets are `${VAR}` references resolved from the
    environment of the run (CLAWARENA_MCP_TOKEN, and the provider's key variable)."""
    key_env = config.api_key_env or DEFAULT_KEY_ENV[config.provider]
    api_key = f"${{{key_env}}}" if os.environ.get(key_env) else "sk-local"
    model_entry: dict[str, Any] = {
        "id": config.model,
        "name": config.name or config.model,
        "reasoning": bool(config.reasoning),
        "input": ["text"],
        "cost": {"input": config.price.input_per_mtok, "output": config.price.output_per_mtok, "cacheRead": 0, "cacheWrite": 0},
        "contextWindow": 128000,
        "maxTokens": config.max_tokens,
    }
    cfg: dict[str, Any] = {
        "agents": {"defaults": {"model": {"primary": f"{PROVIDER_ID}/{config.model}"}, "skipBootstrap": True, "skills": []}},
        "models": {
            "mode": "replace",
            "providers": {
                PROVIDER_ID: {
                    "baseUrl": config.base_url or DEFAULT_BASE_URL[config.provider],
                    "apiKey": api_key,
                    "api": PROVIDER_API[config.provider],
                    "timeoutSeconds": int(config.timeout_s),
                    "agentRuntime": {"id": "openclaw"},
                    "models": [model_entry],
                }
            },
        },
        "mcp": {
            "servers": {
                SERVER_NAME: {
                    "url": mcp_url,
                    "transport": "streamable-http",
                    "headers": {"Authorization": "Bearer ${CLAWARENA_MCP_TOKEN}"},
                    "connectionTimeoutMs": 15000,
                    "requestTimeoutMs": 120000,
                }
            }
        },
        "tools": {
            "toolSearch": False,
            "codeMode": False,
            "allow": [f"{SERVER_NAME}__*"],
            "deny": ["exec", "process", "sessions_spawn", "sessions_yield"],
            "exec": {"mode": "deny"},
        },
        "memory": {"search": {"enabled": False}},
    }
    if log_file:
        cfg["logging"] = {"file": log_file}
    return cfg


# ---- transcript ---------------------------------------------------------------------
def read_trajectory(state_dir: Path) -> list[dict[str, Any]]:
    """The `openclaw-trajectory` events (tool.call, tool.result, model.completed, ...) of the run's SQLite transcript."""
    events: list[dict[str, Any]] = []
    for db in sorted(state_dir.glob("agents/*/agent/openclaw-agent.sqlite")):
        try:
            conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
            try:
                cols = [r[1] for r in conn.execute("PRAGMA table_info(trajectory_runtime_events)")]
                if not cols:
                    continue
                order = "rowid"
                for row in conn.execute(f"SELECT * FROM trajectory_runtime_events ORDER BY {order}"):
                    rec = dict(zip(cols, row))
                    for k, v in list(rec.items()):
                        if isinstance(v, str) and v[:1] in "{[":
                            try:
                                rec[k] = json.loads(v)
                            except ValueError:
                                pass
                    events.append(clip(rec))
            finally:
                conn.close()
        except sqlite3.Error as exc:
            events.append({"error": f"{db.name}: {exc}"})
    return events


def _compact_event(rec: dict[str, Any]) -> dict[str, Any]:
    """One trajectory row as {seq, type, ts, data}; the compiled context and the submitted prompt are
    reduced to their type (the prompt is the turn's message, kept separately)."""
    body = rec.get("event_json") if isinstance(rec.get("event_json"), dict) else rec
    kind = str(body.get("type") or "")
    out: dict[str, Any] = {"seq": rec.get("seq"), "type": kind, "ts": body.get("ts")}
    if kind not in ("context.compiled", "prompt.submitted"):
        out["data"] = body.get("data")
    return out


# ---- the agent ------------------------------------------------------------------------
class OpenClawAgent:
    blocking = True  # each turn waits on an `openclaw` subprocess: the episode runs it on a thread

    def __init__(self, setup: AgentSetup):
        self.setup = setup
        opts = setup.options
        self.config = model_config(str(opts.get("model", "")), opts.get("models"), opts.get("base_url"))
        self.command, self.version = find_openclaw()
        self.turn_timeout = int(opts.get("openclaw_timeout", os.environ.get("CLAWARENA_OPENCLAW_TIMEOUT", DEFAULT_TURN_TIMEOUT)))
        self.keep = bool(opts.get("openclaw_keep", os.environ.get("CLAWARENA_OPENCLAW_KEEP") == "1"))
        self.extra_sections: list[str] = list(opts.get("prompt_sections", []))
        self.history: list[tuple[str, str]] = []  # (events rendered, final reply) of earlier turns
        self.turns: list[dict[str, Any]] = []
        self.tokens = 0

    # -- prompt --
    def message(self, turn: TurnInput, session: AgentSession) -> str:
        parts = [system_prompt(turn.principal, self.setup.spec, session.now_iso(), self.extra_sections)]
        parts.append(f"Your tools are the `{SERVER_NAME}__*` tools; they act in your principal's workspace.")
        for i, (events, reply) in enumerate(self.history, start=1):
            parts.append(f"--- Earlier turn {i} ---\n{events}\n\nYour reply then:\n{reply or '(none)'}")
        parts.append(f"--- New events (turn {turn.turn}) ---\n{render_events(turn.events)}")
        return "\n\n".join(parts)

    # -- one turn --
    def take_turn(self, turn: TurnInput, session: AgentSession) -> TurnOutput:
        from clawarena.mcp.http import AppSpec, start_on_one_loop
        from clawarena.mcp.server import AgentsHTTPApp, tools_server

        agent_id = session.agent_id
        token = secrets.token_urlsafe(24)
        server = tools_server(agent_id, lambda: session.tools, session.call)
        app = AgentsHTTPApp({agent_id: server}, {agent_id: turn.principal.id}, {turn.principal.id: token})
        root = Path(tempfile.mkdtemp(prefix=f"clawarena-openclaw-{agent_id}-"))
        servers = start_on_one_loop([AppSpec(app, 0, lifespan="on")])
        try:
            return self._exec(turn, session, root, f"{servers.urls[0]}/mcp", token)
        finally:
            servers.stop()
            if not self.keep:
                shutil.rmtree(root, ignore_errors=True)

    def _exec(self, turn: TurnInput, session: AgentSession, root: Path, mcp_url: str, token: str) -> TurnOutput:
        state, home, workspace, tmp = (root / n for n in ("state", "home", "workspace", "tmp"))
        for d in (state, home, workspace, tmp):
            d.mkdir()
        config_path = root / "openclaw.json"
        config_path.write_text(json.dumps(openclaw_config(self.config, mcp_url, str(root / "openclaw.log")), indent=2))
        message = self.message(turn, session)
        (root / "message.md").write_text(message)
        key_env = self.config.api_key_env or DEFAULT_KEY_ENV[self.config.provider]
        env = {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "HOME": str(home),
            "TMPDIR": str(tmp),
            "LANG": os.environ.get("LANG", "C.UTF-8"),
            "NO_COLOR": "1",
            "CLAWARENA_MCP_TOKEN": token,
        }
        if os.environ.get(key_env):
            env[key_env] = os.environ[key_env]
        argv = [
            self.command, "agent", "exec", "--config", str(config_path), "--state-dir", str(state), "--cwd", str(workspace),
            "--model", f"{PROVIDER_ID}/{self.config.model}", "--timeout", str(self.turn_timeout), "--json",
            "--message-file", str(root / "message.md"),
        ]  # fmt: skip
        t0 = time.perf_counter()
        try:
            proc = subprocess.run(argv, capture_output=True, text=True, env=env, cwd=workspace, timeout=self.turn_timeout + 120)
        except subprocess.TimeoutExpired as exc:
            raise InfrastructureError(f"openclaw agent exec did not exit within {self.turn_timeout + 120} s") from exc
        seconds = round(time.perf_counter() - t0, 3)
        envelope = self._envelope(proc.stdout)
        trajectory = read_trajectory(state)
        self.turns.append({
            "turn": turn.turn, "exit_code": proc.returncode, "seconds": seconds, "message": message, "envelope": envelope,
            "trajectory": [_compact_event(e) for e in trajectory], "stderr": clip(proc.stderr[-MAX_TRACE_STRING:]),
        })  # fmt: skip
        self._record_usage(session, envelope, seconds)
        status = envelope.get("status") if envelope else None
        if proc.returncode == 2 or status == "timeout":
            raise BudgetExceeded(f"openclaw turn timed out after {self.turn_timeout} s")
        if proc.returncode != 0 or not envelope or not envelope.get("ok", False):
            error = (envelope or {}).get("error") or {}
            detail = error.get("message") if isinstance(error, dict) else str(error)
            detail = detail or (proc.stderr.strip().splitlines() or ["no output"])[-1]
            raise InfrastructureError(f"openclaw agent exec exited {proc.returncode}: {detail}")
        final = str(envelope.get("final") or "")
        self.history.append((render_events(turn.events), final))
        return TurnOutput(text=final)

    @staticmethod
    def _envelope(stdout: str) -> dict[str, Any]:
        text = stdout.strip()
        if not text:
            return {}
        try:
            return json.loads(text)
        except ValueError:
            start = text.rfind("\n{")  # diagnostics before the envelope
            try:
                return json.loads(text[start + 1 :]) if start >= 0 else {}
            except ValueError:
                return {}

    def _record_usage(self, session: AgentSession, envelope: dict[str, Any], seconds: float) -> None:
        usage = envelope.get("usage") or {}
        tin, tout = int(usage.get("input") or 0), int(usage.get("output") or 0)
        record = ModelCallRecord(
            provider="openclaw", model=f"{self.config.provider}/{self.config.model}", input_tokens=tin, output_tokens=tout,
            cost_usd=self.config.price.cost(tin, tout), finish_reason=str(envelope.get("status") or "error"),
            latency_ms=round(seconds * 1000, 1),
        )  # fmt: skip
        reply = session.put_content({"role": "assistant", "content": str(envelope.get("final") or "")})  # what the turn ended with
        session.record_model_call({**record.model_dump(), "response": reply}, decides=False)
        self.tokens += tin + tout
        budget = self.config.budget
        if budget.max_tokens is not None and self.tokens > budget.max_tokens:
            raise BudgetExceeded(f"token budget of {budget.max_tokens} exceeded ({self.tokens})")

    def trace_data(self) -> dict[str, Any]:
        return {self.setup.spec.id: {"harness": "openclaw", "version": self.version, "model": f"{self.config.provider}/{self.config.model}", "turns": self.turns}}


def _check_installed() -> None:
    try:
        find_openclaw()
    except OpenClawUnavailable as exc:
        raise ModelConfigError(str(exc)) from None


register_agent("openclaw", harness="openclaw", model=model_config, check=_check_installed)(OpenClawAgent)
