"""Work units: what the runner plans and runs, one trial each."""

from __future__ import annotations

import hashlib

from pydantic import Field

from clawarena.spec.base import Strict


class WorkUnit(Strict):
    """One trial to run: (scenario, agent, condition, trial index, seed)."""

    scenario_id: str
    agent: str
    trial: int
    seed: int
    condition: str = "skills-off__meta-off"
    roles: dict[str, str] = Field(default={}, description="role -> agent spec for the agents that play it (`--agent ROLE=SPEC`); the rest run `agent`")
    policy_mode: str = "monitor"

    @property
    def agent_label(self) -> str:
        """The agents of the unit as one name: `oracle`, or `oracle+buyer=openai:m+seller=oracle`."""
        return "+".join([self.agent, *(f"{r}={s}" for r, s in sorted(self.roles.items()))])

    @property
    def id(self) -> str:
        mode = "" if self.policy_mode == "monitor" else f"::policy-{self.policy_mode}"
        return f"{self.scenario_id}::{self.agent_label}::{self.condition}::{self.trial}{mode}"

    def agent_for(self, role: str) -> str:
        return self.roles.get(role, self.agent)

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
