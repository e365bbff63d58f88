"""Generating a scenario's mutants, replaying them with the oracle, and tallying the results."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from clawarena.runner.mutants.core import (
    DEFAULT_PER_SCENARIO,
    MUTANT_KINDS,
    Expectation,
    Mutant,
    MutantResult,
    MutationContext,
    Trajectory,
    tool_kinds,
)  # fmt: skip
from clawarena.runner.trial import run_trial
from clawarena.runner.units import WorkUnit
from clawarena.services import services, world_factory
from clawarena.spec.models import Scenario
from clawarena.tools.core import ToolKind
from clawarena.world.build import WorldFactory


def _dump(trajectory: Trajectory) -> dict[str, list[dict[str, Any]]]:
    return {a: [c.model_dump() for c in cs] for a, cs in trajectory.items() if cs}


def _only_allowed_tools(ctx: MutationContext, trajectory: Trajectory) -> bool:
    """Every tool a mutant adds is one its agent may call (the reference's own tools are given)."""
    for agent, calls in trajectory.items():
        own = {c.tool for c in ctx.scenario.task.reference.get(agent, [])}
        if any(c.tool not in own and not ctx.may_call(agent, c.tool) for c in calls):
            return False
    return True


def generate_mutants(
    scenario: Scenario,
    limit: int = DEFAULT_PER_SCENARIO,
    kinds: dict[str, ToolKind] | None = None,
    *,
    seed: int = 0,
    worlds: WorldFactory | None = None,
) -> list[Mutant]:
    """At most `limit` distinct mutants of the scenario's reference, round-robin over the kinds.
    The same scenario and seed give the same mutants."""
    ctx = MutationContext(scenario, kinds if kinds is not None else tool_kinds(), seed=seed, worlds=worlds)
    per_kind = [[(name, c) for c in MUTANT_KINDS[name].generate(ctx) if _only_allowed_tools(ctx, c.reference)] for name in MUTANT_KINDS]
    seen = [_dump(scenario.task.reference)]  # a mutant identical to the reference (or another) is skipped
    mutants: list[Mutant] = []
    for rank in range(max((len(k) for k in per_kind), default=0)):
        for candidates in per_kind:
            if rank >= len(candidates) or len(mutants) >= limit:
                continue
            name, c = candidates[rank]
            dumped = _dump(c.reference)
            if dumped in seen:
                continue
            seen.append(dumped)
            mutants.append(Mutant(scenario.id, name, MUTANT_KINDS[name].expect, c.what, c.reference))
    return mutants


def with_reference(scenario: Scenario, reference: Trajectory) -> Scenario:
    return scenario.model_copy(update={"task": scenario.task.model_copy(update={"reference": reference})})


def run_mutant(scenario: Scenario, mutant: Mutant, worlds: WorldFactory) -> MutantResult:
    """Replay the mutant with the oracle; failing tool calls count by the outcome they leave."""
    unit = WorkUnit(scenario_id=scenario.id, agent="oracle", trial=0, seed=0)
    run = run_trial(unit, with_reference(scenario, mutant.reference), worlds, services())
    if run.score is None:
        return MutantResult(mutant, False, f"the trial errored: {run.record.error}")
    if run.score.check_errors:
        return MutantResult(mutant, False, run.score.error_text())
    return MutantResult(mutant, run.score.passed and not run.score.harmed)


@dataclass
class Tally:
    """Mutation counts over some results (a task's, a kind's, a suite's)."""

    results: list[MutantResult] = field(default_factory=list)

    @property
    def should_fail(self) -> int:
        return sum(r.mutant.expect == "should_fail" for r in self.results)

    @property
    def killed(self) -> int:
        return sum(r.killed for r in self.results)

    @property
    def survived(self) -> int:
        return sum(r.survived for r in self.results)

    @property
    def false_alarms(self) -> int:
        return sum(r.false_alarm for r in self.results)

    @property
    def score(self) -> float | None:
        return mutation_score(self.results)


@dataclass
class TaskMutation(Tally):
    """The mutation tally of one base task over its scenarios."""

    task_id: str = ""


@dataclass
class KindMutation(Tally):
    """The mutation tally of one mutant kind over a suite."""

    kind: str = ""
    expect: Expectation = "should_fail"


def by_kind(results: list[MutantResult]) -> list[KindMutation]:
    """One tally per registered kind (in registry order), zero counts included."""
    return [KindMutation([r for r in results if r.mutant.kind == name], kind=name, expect=MUTANT_KINDS[name].expect) for name in MUTANT_KINDS]


def mutation_score(results: list[MutantResult]) -> float | None:
    """Killed / should-fail; None when no mutant should fail."""
    should = [r for r in results if r.mutant.expect == "should_fail"]
    return sum(r.killed for r in should) / len(should) if should else None


def mutate_suite(
    scenarios: list[Scenario],
    per_scenario: int = DEFAULT_PER_SCENARIO,
    worlds: WorldFactory | None = None,
    on_scenario: Callable[[Scenario], None] | None = None,
    seed: int = 0,
) -> list[TaskMutation]:
    """Run every scenario's mutants; one tally per base task, in suite order."""
    worlds = worlds or world_factory()
    kinds = tool_kinds()
    tasks: dict[str, TaskMutation] = {}
    for scenario in scenarios:
        tally = tasks.setdefault(scenario.task.id, TaskMutation(task_id=scenario.task.id))
        for mutant in generate_mutants(scenario, per_scenario, kinds, seed=seed, worlds=worlds):
            tally.results.append(run_mutant(scenario, mutant, worlds))
        if on_scenario is not None:
            on_scenario(scenario)
    return list(tasks.values())
