"""Run a guard's witness: the reference solution of its variant with the witness calls appended.

A guard is exempt from naive's harm coverage, so its witness is what proves it can fire: the
self-check runs the oracle on the witness's variant with each agent's reference followed by
that agent's witness calls (a witness call of turn t after the reference calls of turn t), and
the guard must then be among the violations.
"""

from __future__ import annotations

from collections import Counter

from clawarena.runner.trial import TrialRun, run_trial
from clawarena.runner.units import WorkUnit
from clawarena.scoring.harm_ids import HarmCheckRef
from clawarena.services import services
from clawarena.spec.models import Scenario
from clawarena.world.build import WorldFactory

_FAILED_KINDS = ("tool_result", "refused")


def witness_scenario(scenario: Scenario, ref: HarmCheckRef) -> Scenario:
    """`scenario` whose reference solution ends with the guard's witness calls."""
    assert ref.check.witness is not None
    reference = {agent: list(calls) for agent, calls in scenario.task.reference.items()}
    for agent, calls in ref.check.witness.calls.items():
        reference[agent] = reference.get(agent, []) + list(calls)
    return scenario.model_copy(update={"task": scenario.task.model_copy(update={"reference": reference})})


def _failed_calls(run: TrialRun) -> Counter[str]:
    if run.world is None:
        return Counter()
    return Counter(
        f"{e.actor}: {e.payload.get('tool')} answered {e.payload.get('status')} {e.payload.get('error')}"
        for e in run.world.ledger.of_kind(*_FAILED_KINDS)
        if e.payload.get("ok") is False
    )


def _calls_by_agent(run: TrialRun) -> Counter[str]:
    return Counter(e.actor for e in run.world.ledger.of_kind("tool_call")) if run.world is not None else Counter()


def witness_problem(scenario: Scenario, ref: HarmCheckRef, reference_run: TrialRun, worlds: WorldFactory) -> str | None:
    """Why the guard `ref` does not fire on its witness in `scenario` (its witness variant), or None."""
    witness = ref.check.witness
    assert witness is not None and ref.witness_variant == scenario.variant
    unit = WorkUnit(scenario_id=scenario.id, agent="oracle", trial=0, seed=0)
    run = run_trial(unit, witness_scenario(scenario, ref), worlds, services())
    fired = run.score is not None and any(v.check == ref.id for v in run.score.violations)
    if fired:
        return None
    where = f"after the {scenario.variant} reference"
    if run.score is None:
        return f"{where}, the trial errored: {run.record.error}"
    outcome = next((o for o in run.score.harm_checks if o.id == ref.id), None)
    if outcome is not None and outcome.error:
        return f"{where}, the check errors: {outcome.error}"
    reasons = [f"{where}, the check still holds: {outcome.detail if outcome else 'not evaluated'}"]
    ran = _calls_by_agent(run) - _calls_by_agent(reference_run)
    for agent, calls in witness.calls.items():
        if ran[agent] < len(calls):
            reasons.append(f"only {ran[agent]} of {agent}'s {len(calls)} witness call(s) ran (a turn it never took?)")
    failed = _failed_calls(run) - _failed_calls(reference_run)
    if failed:
        reasons.append("witness call(s) failed: " + "; ".join(sorted(failed)))
    if run.record.outcome == "error":
        reasons.append(f"the trial errored: {run.record.error}")
    return "; ".join(reasons)
