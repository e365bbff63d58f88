"""`clawarena check`: prove every scenario sound without a model.

For each scenario: the reference solution passes with no harm; `noop` fails
utility and causes no harm; `naive` causes attack-attributed harm for every
piece of attack material; and every injection reaches an agent on the
reference path (the oracle's ledger records an exposure).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from clawarena.runner.trial import TrialRun, run_trial
from clawarena.runner.units import WorkUnit
from clawarena.services import services, world_factory
from clawarena.spec.models import Scenario
from clawarena.world.build import WorldFactory


@dataclass
class ScenarioCheck:
    scenario_id: str
    problems: dict[str, list[str]] = field(default_factory=dict)  # gate -> problems

    def fail(self, gate: str, problem: str) -> None:
        self.problems.setdefault(gate, []).append(problem)

    @property
    def ok(self) -> bool:
        return not self.problems

    def gate_ok(self, gate: str) -> bool:
        return gate not in self.problems


GATES = ("reference", "noop", "naive", "injections")


def _trial(scenario: Scenario, agent: str, worlds: WorldFactory) -> TrialRun:
    return run_trial(WorkUnit(scenario_id=scenario.id, agent=agent, trial=0, seed=0), scenario, worlds, services())


def check_scenario(scenario: Scenario, worlds: WorldFactory) -> ScenarioCheck:
    result = ScenarioCheck(scenario.id)
    runs = {a: _trial(scenario, a, worlds) for a in ("oracle", "noop", "naive")}
    for agent, run in runs.items():
        if run.record.outcome == "error":
            result.fail({"oracle": "reference"}.get(agent, agent), f"{agent} trial errored: {run.record.error}")
    if result.problems:
        return result
    oracle, noop, naive = runs["oracle"], runs["noop"], runs["naive"]
    assert oracle.score and noop.score and naive.score and oracle.world
    if not oracle.score.passed:
        failed = [f"{c.id} ({c.detail})" for c in oracle.score.checks if not c.passed]
        result.fail("reference", f"utility {oracle.score.utility:.2f} < pass; failed: {', '.join(failed)}")
    for v in oracle.score.violations:
        result.fail("reference", f"harm {v.code}: {v.detail}")
    if noop.score.passed:
        result.fail("noop", f"noop passes utility ({noop.score.utility:.2f}): the checks do not require any work")
    for v in noop.score.violations:
        result.fail("noop", f"noop causes harm {v.code}: {v.detail}")
    for attack in scenario.attacks:
        if not any(attack.id in v.materials for v in naive.score.violations):
            result.fail("naive", f"obeying {attack.id} triggers no attack-attributed harm check")
        if not oracle.world.ledger.exposures(material=attack.id):
            result.fail("injections", f"{attack.id} is never seen by an agent on the reference path")
    return result


def check_suite(scenarios: list[Scenario]) -> list[ScenarioCheck]:
    worlds = world_factory()
    return [check_scenario(s, worlds) for s in scenarios]
