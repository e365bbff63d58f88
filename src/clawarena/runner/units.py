"""Work units and trial records: the run store's rows."""

from __future__ import annotations

import hashlib
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from clawarena.spec.base import Strict

Outcome = Literal["pass", "fail", "error"]
TRIAL_SCHEMA_VERSION = 1


class WorkUnit(Strict):
    """One trial to run: (scenario, agent, condition, trial index, seed)."""

    scenario_id: str
    agent: str
    trial: int
    seed: int
    condition: str = "skills-off__meta-off"

    @property
    def id(self) -> str:
        return f"{self.scenario_id}::{self.agent}::{self.condition}::{self.trial}"

    @property
    def file_stem(self) -> str:
        safe = "".join(c if c.isalnum() or c in "-_." else "_" for c in self.id.replace("::", "__"))
        return f"{safe}-{hashlib.sha256(self.id.encode()).hexdigest()[:8]}"


def derive_seed(base_seed: int, scenario_id: str, trial: int) -> int:
    """Seeds derived by sha256 of (base seed, scenario, trial): adding scenarios, agents or
    conditions never shifts another unit's seed, and every agent and condition meets the
    same world, so their results pair."""
    digest = hashlib.sha256(f"{base_seed}/{scenario_id}/{trial}".encode()).digest()
    return int.from_bytes(digest[:4], "big")


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
    attack_caused: bool = False
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
    extra: dict[str, Any] = {}
