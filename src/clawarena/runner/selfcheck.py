"""`clawarena check`: prove every scenario sound without a model.

For each scenario: the reference solution satisfies every utility check and
causes no harm (and realises no attack goal); `noop` fails utility and causes
no harm; `naive` realises a goal outcome of every piece of attack material,
attributed to it; every injection
reaches an agent on the reference path (the oracle's ledger records an
exposure); and no check errors in any of these trials. Across the variants of
each base task: every harm check is fired by `naive` in at least one variant,
or is declared a guard whose witness fires it (harm coverage: a harm check
nothing can fire measures nothing; runner/witness.py runs the witnesses). A
cross-user scenario (agents of two or more principals, a reference that messages
a peer) must fail utility when the reference runs with peer messages cut
(isolation: no principal holds everything needed).

Every problem names the check (its id and kind) and why it failed.

The work unit is a base task (all its variants, so harm coverage is decided where they ran); with
more than one worker, tasks go to a process pool (runner/executors), each worker with its own worlds.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from clawarena.records import TrialRecord
from clawarena.runner.trial import TrialRun, run_trial
from clawarena.runner.units import WorkUnit
from clawarena.runner.witness import witness_problem
from clawarena.scoring.harm_ids import task_harm_checks
from clawarena.scoring.score import HarmOutcome, TrialScore
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


GATES = ("reference", "noop", "naive", "injections", "harm-coverage", "isolation")
AGENTS = ("oracle", "noop", "naive")
GATE_OF_AGENT = {"oracle": "reference", "noop": "noop", "naive": "naive"}


@dataclass
class _ScenarioRuns:
    """One scenario's check and what naive fired there (for the cross-variant gate)."""

    check: ScenarioCheck
    naive_fired: set[str]
    naive_errored: set[str] = field(default_factory=set)  # harm checks already reported as errors
    scored: bool = True  # all three trials ran to scoring


def _trial(scenario: Scenario, agent: str, worlds: WorldFactory) -> TrialRun:
    return run_trial(WorkUnit(scenario_id=scenario.id, agent=agent, trial=0, seed=0), scenario, worlds, services())


def cross_user(scenario: Scenario) -> bool:
    """A network task: two or more principals' agents, and a reference that messages a peer."""
    task = scenario.task
    if len({a.principal for a in task.agents}) < 2:
        return False
    return any(call.tool == "send_message" for calls in task.reference.values() for call in calls)


def _isolation(result: ScenarioCheck, scenario: Scenario, worlds: WorldFactory) -> None:
    """The reference with peer messaging cut must fail utility: no principal holds everything needed."""
    unit = WorkUnit(scenario_id=scenario.id, agent="oracle", trial=0, seed=0)
    run = run_trial(unit, scenario, worlds, services(), isolated=True)
    if run.score is None:
        result.fail("isolation", f"the isolated reference did not run to scoring: {run.record.error}")
    elif run.score.passed:
        result.fail("isolation", f"the reference passes utility ({run.score.utility:.2f}) with peer messages cut: the task is not cross-user by construction")


def _check_errors(result: ScenarioCheck, runs: dict[str, TrialRun]) -> None:
    """A check that errors is a broken task file: report each once, under the first agent that hit it."""
    seen: set[tuple[str, str]] = set()
    for agent, run in runs.items():
        for o in run.score.check_errors if run.score else []:
            if (o.id, o.error or "") in seen:
                continue
            seen.add((o.id, o.error or ""))
            what = f"harm check {o.id} {o.code}" if isinstance(o, HarmOutcome) else f"utility check {o.id}"
            result.fail(GATE_OF_AGENT[agent], f"{what} ({o.kind}) errors in the {agent} trial: {o.error}")


def _reference(result: ScenarioCheck, score: TrialScore) -> None:
    for o in score.checks:
        if not o.passed and not o.error:
            result.fail("reference", f"utility check {o.id} ({o.kind}, weight {o.weight:g}) fails on the reference: {o.detail}")
    for v in score.violations:
        what = f"goal outcome {v.check} of {v.code.split(':', 1)[-1]} is realised" if v.goal else f"harm check {v.check} {v.code} fires"
        result.fail("reference", f"{what} on the reference: {v.detail}")


def _progress(result: ScenarioCheck, oracle: TrialRecord, noop: TrialRecord) -> None:
    """Over-refusal counts benign trials with no progress: that must mean doing nothing is none,
    and the reference's work is some."""
    if noop.progress:
        result.fail("noop", "noop makes progress: a utility check holds after doing nothing that did not hold before (scheduled or scripted events do the work)")
    if oracle.progress is False:
        result.fail("reference", "every utility check the reference passes already holds before the episode: the checks test no work")


def _noop(result: ScenarioCheck, score: TrialScore) -> None:
    if score.passed:
        result.fail("noop", f"noop passes utility ({score.utility:.2f}): the checks do not require any work")
    for v in score.violations:
        result.fail("noop", f"noop causes harm: harm check {v.check} {v.code}: {v.detail}")


def _check_scenario(scenario: Scenario, worlds: WorldFactory) -> _ScenarioRuns:
    result = ScenarioCheck(scenario.id)
    runs = {a: _trial(scenario, a, worlds) for a in AGENTS}
    for agent, run in runs.items():
        if run.record.outcome == "error" and not (run.score and run.score.check_errors):
            result.fail(GATE_OF_AGENT[agent], f"{agent} trial errored: {run.record.error}")
    _check_errors(result, runs)
    oracle, noop, naive = runs["oracle"], runs["noop"], runs["naive"]
    if not (oracle.score and noop.score and naive.score and oracle.world):
        return _ScenarioRuns(result, set(), scored=False)  # a trial did not run to scoring: its error says why
    _reference(result, oracle.score)
    _noop(result, noop.score)
    _progress(result, oracle.record, noop.record)
    for attack in scenario.attacks:
        if not attack.goal.outcomes:
            result.fail("naive", f"{attack.id} declares no goal outcomes: say what its author wants to be true (goal.outcomes)")
        elif not any(v.goal and attack.id in v.materials for v in naive.score.violations):
            result.fail("naive", f"obeying {attack.id} (its goal.calls) realises none of its goal.outcomes")
        if not any(attack.id in v.materials for v in naive.score.violations):
            result.fail("naive", f"obeying {attack.id} triggers no attack-attributed harm check")
        if not oracle.world.ledger.exposures(material=attack.id):
            result.fail("injections", f"{attack.id} is never seen by an agent on the reference path")
    _witnesses(result, scenario, oracle, worlds)
    if cross_user(scenario):
        _isolation(result, scenario, worlds)
    errored = {o.id for o in naive.score.harm_checks if o.error}
    return _ScenarioRuns(result, {v.check for v in naive.score.violations}, errored)


def _witnesses(result: ScenarioCheck, scenario: Scenario, oracle: TrialRun, worlds: WorldFactory) -> None:
    """Each guard whose witness runs in this variant must fire on it (its own trial per guard)."""
    for ref in task_harm_checks(scenario.task):
        if ref.witness_variant != scenario.variant:
            continue
        problem = witness_problem(scenario, ref, oracle, worlds)
        if problem:
            result.fail("harm-coverage", f"guard {ref.id} ({ref.check.code}) does not fire on its witness: {problem}")


def check_scenario(scenario: Scenario, worlds: WorldFactory) -> ScenarioCheck:
    """The gates of one scenario alone, with the witnesses of the guards that run in its variant
    (naive's harm coverage needs the whole base task: see check_suite)."""
    return _check_scenario(scenario, worlds).check


def _harm_coverage(task_scenarios: list[Scenario], runs: list[_ScenarioRuns]) -> list[str]:
    """Harm checks of one base task that naive fires in none of its variants and that are no guard.

    Only variants whose naive trial was scored count; a check that could still fire in a variant
    not scored here (it errored, or was not part of this check) is not judged."""
    task = task_scenarios[0].task
    scored = {s.variant for s, r in zip(task_scenarios, runs) if r.scored}
    fired = set().union(*(r.naive_fired for r in runs))
    errored = set().union(*(r.naive_errored for r in runs))
    problems = []
    for ref in task_harm_checks(task):
        if ref.check.guard or ref.id in fired or ref.id in errored:
            continue
        could_fire_in = {ref.variant} if ref.variant else set(task.variants)
        if not could_fire_in <= scored:
            continue
        where = f"variant {ref.variant}" if ref.variant else f"any variant ({', '.join(task.variants)})"
        problems.append(
            f"harm check {ref.id} {ref.check.code} ({ref.check.check.kind}) is never fired by naive in {where}: "
            "make it reachable, or declare it `guard: true` with a `reason` and a `witness`"
        )
    return problems


def check_task(scenarios: list[Scenario], worlds: WorldFactory) -> list[ScenarioCheck]:
    """The variants of one base task, in order; harm coverage's problems go on the last one."""
    runs = [_check_scenario(s, worlds) for s in scenarios]
    for problem in _harm_coverage(scenarios, runs):
        runs[-1].check.fail("harm-coverage", problem)
    return [r.check for r in runs]


@dataclass
class CheckJob:
    """One base task per item (the indexes of its scenarios), picklable: each worker process gets it
    once and builds its own worlds in `setup`."""

    scenarios: list[Scenario]
    _worlds: Any = field(default=None, repr=False)

    def __getstate__(self) -> dict[str, Any]:
        return {**self.__dict__, "_worlds": None}  # worlds stay where they were built

    def setup(self) -> None:
        if self._worlds is None:
            self._worlds = world_factory()

    def affinity(self, item: tuple[int, ...]) -> int:
        return item[0]

    def __call__(self, item: tuple[int, ...]) -> list[tuple[int, ScenarioCheck]]:
        self.setup()
        return list(zip(item, check_task([self.scenarios[i] for i in item], self._worlds)))

    async def acall(self, item: tuple[int, ...]) -> list[tuple[int, ScenarioCheck]]:
        # The gates are synchronous trials, each on its own event loop: off the worker's loop they run
        # on a thread of their own, which keeps one loop per thread (runner.loops.run_sync).
        return await asyncio.to_thread(self, item)


def check_suite(
    scenarios: list[Scenario], on_result: Callable[[ScenarioCheck], None] | None = None, workers: int = 1, executor: str = "process"
) -> list[ScenarioCheck]:
    """Check every scenario; results come back in the scenarios' order, and `on_result` is called with
    each scenario's final result as it completes (a task's variants together, in any task order).

    Harm coverage is decided once all variants of a base task are checked, and its problems are
    reported on the last scenario of that task (before its `on_result`). With `workers` > 1 the tasks
    run on that many workers of `executor` (a name in runner.executors.EXECUTORS)."""
    if workers < 1:
        raise ValueError(f"--workers: must be at least 1, got {workers}")
    by_task: dict[str, list[int]] = {}
    for i, s in enumerate(scenarios):
        by_task.setdefault(s.task.id, []).append(i)
    items = [tuple(ix) for ix in by_task.values()]
    job = CheckJob(scenarios)
    workers = min(workers, len(items))
    if workers <= 1:
        done = (job(item) for item in items)
    else:
        from clawarena.runner.executors import EXECUTORS
        from clawarena.runner.run import check_executor

        check_executor(executor)
        done = EXECUTORS[executor](workers).map_unordered(job, items)
    results: list[ScenarioCheck | None] = [None] * len(scenarios)
    for pairs in done:
        for i, check in pairs:
            results[i] = check
            if on_result is not None:
                on_result(check)
    return [r for r in results if r is not None]
