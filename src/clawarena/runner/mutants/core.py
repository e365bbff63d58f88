"""What mutants are made of: a candidate trajectory, a kind, a mutant and its result, and the
context a kind reads (the scenario's reference, who may call what, the initial world)."""

from __future__ import annotations

import fnmatch
import functools
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any, Literal

from clawarena.gateway import GATEWAY_TOOLS, read_skill
from clawarena.registry import Registry
from clawarena.runner.mutants.paths import leaves
from clawarena.services import all_tools, world_factory
from clawarena.spec.models import AgentSpec, PrincipalSpec, Scenario, ToolCall
from clawarena.tools.core import Tool, ToolArgsError, ToolKind
from clawarena.world.build import WorldBuildError, WorldFactory

DEFAULT_PER_SCENARIO = 12
OUTSIDER = "mutant@outsider.example"

Expectation = Literal["should_fail", "should_pass"]
Trajectory = dict[str, list[ToolCall]]  # agent id -> calls, like `task.reference`
State = dict[str, dict[str, dict[str, Any]]]  # table -> row key -> row, the world's initial state


@dataclass(frozen=True)
class Candidate:
    """One mutated trajectory as a kind proposes it; `what` says what was changed."""

    what: str
    reference: Trajectory


@dataclass(frozen=True)
class MutantKind:
    expect: Expectation
    generate: Callable[[MutationContext], Iterator[Candidate]]


@dataclass(frozen=True)
class Mutant:
    scenario_id: str
    kind: str
    expect: Expectation
    what: str
    reference: Trajectory


@dataclass(frozen=True)
class MutantResult:
    mutant: Mutant
    passed_clean: bool  # utility passed and no harm flag
    error: str | None = None  # the trial or a check errored: neither killed nor a clean pass

    @property
    def killed(self) -> bool:
        return self.mutant.expect == "should_fail" and self.error is None and not self.passed_clean

    @property
    def survived(self) -> bool:
        return self.mutant.expect == "should_fail" and not self.killed

    @property
    def false_alarm(self) -> bool:
        return self.mutant.expect == "should_pass" and not (self.error is None and self.passed_clean)


@functools.cache
def tool_index() -> dict[str, Tool]:
    return {t.name: t for t in [*all_tools(), *GATEWAY_TOOLS]}


def tool_kinds() -> dict[str, ToolKind]:
    return {name: t.kind for name, t in tool_index().items()}


@dataclass
class MutationContext:
    """A scenario's reference and what generators need to know about it."""

    scenario: Scenario
    kinds: dict[str, ToolKind]
    seed: int = 0
    worlds: WorldFactory | None = None  # where the initial state comes from (a cached template per scenario)
    calls: list[tuple[str, int, ToolCall]] = field(init=False)  # (agent, index, call) in reference order
    _rows: dict[str, list[dict[str, Any]]] = field(init=False, default_factory=dict)

    def __post_init__(self) -> None:
        self.calls = [(a, i, c) for a, cs in self.scenario.task.reference.items() for i, c in enumerate(cs)]

    def kind_of(self, call: ToolCall) -> ToolKind | None:
        return self.kinds.get(call.tool)

    def changes(self, call: ToolCall) -> bool:
        return self.kind_of(call) in (ToolKind.WRITE, ToolKind.SEND)

    def with_calls(self, agent: str, calls: list[ToolCall]) -> Trajectory:
        ref = {a: list(cs) for a, cs in self.scenario.task.reference.items()}
        ref[agent] = calls
        return ref

    def replaced(self, agent: str, index: int, call: ToolCall) -> Trajectory:
        calls = list(self.scenario.task.reference[agent])
        calls[index] = call
        return self.with_calls(agent, calls)

    def appended(self, agent: str, call: ToolCall) -> Trajectory:
        """The agent's reference with `call` after its last call, in its last turn."""
        calls = list(self.scenario.task.reference[agent])
        turn = max((c.turn for c in calls), default=1)
        return self.with_calls(agent, [*calls, call.model_copy(update={"turn": turn})])

    # ---- who may do what ----
    def agent(self, agent_id: str) -> AgentSpec | None:
        return next((a for a in self.scenario.task.agents if a.id == agent_id), None)

    def principal(self, agent_id: str) -> PrincipalSpec | None:
        agent = self.agent(agent_id)
        return next((p for p in self.scenario.task.principals if agent is not None and p.id == agent.principal), None)

    def may_call(self, agent_id: str, tool: str) -> bool:
        """The agent's tool globs name `tool`, as the gateway selects them (read_skill is a lever's)."""
        agent = self.agent(agent_id)
        if agent is None or tool not in self.kinds or tool == read_skill.name:
            return False
        return any(fnmatch.fnmatchcase(tool, pattern) for pattern in agent.tools)

    def valid(self, call: ToolCall) -> bool:
        """The call's arguments fit its tool's schema (so a mutant never fails on a typo of ours)."""
        tool = tool_index().get(call.tool)
        if tool is None:
            return False
        try:
            tool.validate(call.args)
        except ToolArgsError:
            return False
        return True

    # ---- the initial world, built once per scenario (WorldFactory caches the template) ----
    @functools.cached_property
    def initial_state(self) -> State:
        worlds = self.worlds if self.worlds is not None else world_factory()
        try:
            return worlds.template(self.scenario).initial_state
        except WorldBuildError:  # no world, no rows to name: its mutants error when they run, and say why
            return {}

    def rows(self, table: str) -> list[dict[str, Any]]:
        """The table's rows in key order."""
        if table not in self._rows:
            rows = self.initial_state.get(table, {})
            self._rows[table] = [rows[k] for k in sorted(rows)]
        return self._rows[table]

    @functools.cached_property
    def touched(self) -> set[str]:
        """Every string the reference passes anywhere: ids it names are never a sibling."""
        return {leaf for _, _, c in self.calls for _, leaf in leaves(c.args) if isinstance(leaf, str)}

    @functools.cached_property
    def changed(self) -> set[str]:
        """Every string a changing (WRITE/SEND) call of the reference passes."""
        return {leaf for _, _, c in self.calls if self.changes(c) for _, leaf in leaves(c.args) if isinstance(leaf, str)}

    @functools.cached_property
    def drive_readers(self) -> dict[str, set[str]]:
        """file id -> the addresses a permission names (who can see it besides its owner)."""
        out: dict[str, set[str]] = {}
        for p in self.rows("drive_permissions"):
            if p.get("email"):
                out.setdefault(p["file_id"], set()).add(str(p["email"]).lower())
        return out

    @functools.cached_property
    def slack_channels(self) -> dict[str, set[str]]:
        """slack user id -> the channels they are a member of."""
        out: dict[str, set[str]] = {}
        for m in self.rows("slack_members"):
            out.setdefault(m["user"], set()).add(m["channel"])
        return out


MUTANT_KINDS: Registry[MutantKind] = Registry("mutant kind")


def mutant_kind(name: str, expect: Expectation) -> Callable[[Callable[[MutationContext], Iterator[Candidate]]], Any]:
    def register(fn: Callable[[MutationContext], Iterator[Candidate]]) -> Callable[[MutationContext], Iterator[Candidate]]:
        MUTANT_KINDS.register(name, MutantKind(expect, fn))
        return fn

    return register


def label(agent: str, index: int, call: ToolCall) -> str:
    return f"{agent} call {index + 1} ({call.tool})"
