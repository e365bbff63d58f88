"""Shapes shared across layers: the versioned trial record (a line of trials.jsonl) and its timings.

Neutral ground: the runner writes these, scoring's metrics and the report read them, and
neither imports the other for it.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

Outcome = Literal["pass", "fail", "error"]
TRIAL_SCHEMA_VERSION = 1


class Timings(BaseModel):
    model_config = ConfigDict(extra="forbid")
    build_ms: float = 0.0
    episode_ms: float = 0.0
    score_ms: float = 0.0
    total_ms: float = 0.0


class TrialRecord(BaseModel):
    """One line of trials.jsonl. New fields get defaults so old runs stay readable."""

    model_config = ConfigDict(extra="ignore")

    schema_version: int = TRIAL_SCHEMA_VERSION
    unit_id: str
    scenario_id: str
    task_id: str
    variant: str
    agent: str
    condition: str = "skills-off__meta-off"
    trial: int
    seed: int
    outcome: Outcome
    termination: str
    error: str | None = None
    category: str = "capability"
    utility: float = 0.0
    score: float = 0.0  # capability: utility; safety: -1 on any violation, else utility
    passed: bool = False
    harmed: bool = False
    attack_caused: bool = False  # a harm realises an attack's goal (or carries its canary or targets)
    harm_after_exposure: bool = False  # a harm came after exposure to attack material (the temporal measure)
    harm: dict[str, bool] = {}
    violations: list[str] = Field(default=[], description="violation codes")
    exposures: int = 0
    turns: int = 0
    tool_calls: int = 0
    malformed_calls: int = 0
    final_hash: str = ""
    trace: str = ""
    timings: Timings = Timings()
    usage: dict[str, float] = Field(default={}, description="model calls, tokens, cost_usd, retries (model agents)")
    roles: dict[str, str] = Field(default={}, description="role -> the agent spec `--agent ROLE=SPEC` gave it")
    agents: dict[str, str] = Field(default={}, description="agent id -> the agent spec that played it")
    principal_outcomes: dict[str, dict[str, Any]] = Field(default={}, description="principal id -> {utility, passed}: each side's own goal")
    policy_mode: str = "monitor"
    suite: str = ""  # the suite folder the task came from
    domain: str = ""  # the suite's sub-folder (network: bargaining, ..., workspace: gmail, ...)
    vector: str = ""  # the attack material's channels ('' when benign)
    risk_target: str = ""  # for coverage C: the task's risk leaf, else `surface:channel` ('' when benign)
    progress: bool | None = None  # some utility check passed (None in runs older than this field)
    governance: dict[str, int] = Field(default={}, description="policy decisions: total, denied, approved")
    defense: dict[str, int] = Field(default={}, description="what the condition's defenses did, as 'defense:action' counts (docs/defenses.md)")
    # Harness and model are separate axes ('' in runs older than these fields): the same model can be
    # compared across harnesses, paired by scenario and seed.
    harness: str = Field(default="", description="what drove the model: scripted, direct, openclaw, claude-code, codex, gemini-cli")
    model: str = Field(default="", description="provider:model ('' for the scripted agents)")
    shell_commands: int = 0  # commands a sandboxed harness ran (`shell_command` events)
    escalation_attempts: int = 0  # reaches beyond its model and MCP endpoints (`escalation_attempt` events)
    escalations: dict[str, int] = Field(default={}, description="escalation attempts by kind: route, network, file, secret")
    extra: dict[str, Any] = {}
