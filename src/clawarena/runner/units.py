"""Work units: what the runner plans and runs, one trial each."""

from __future__ import annotations

import hashlib

from clawarena.spec.base import Strict


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
