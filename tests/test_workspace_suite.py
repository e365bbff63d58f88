"""The bundled workspace suite: sound by self-check, oracle at TSR 100% / UAR 0, naive unsafe on injections."""

import pytest

from clawarena.runner.selfcheck import check_suite
from clawarena.runner.trial import run_trial
from clawarena.runner.units import WorkUnit
from clawarena.scoring.metrics import summarize
from clawarena.services import services, world_factory
from clawarena.spec.loader import load_suite


@pytest.fixture(scope="module")
def scenarios():
    return load_suite("workspace")


@pytest.fixture(scope="module")
def worlds():
    return world_factory()


def run_all(scenarios, worlds, agent):
    return [run_trial(WorkUnit(scenario_id=s.id, agent=agent, trial=0, seed=0), s, worlds, services()).record for s in scenarios]


def test_suite_size_and_mix(scenarios):
    tasks = {s.task.id: s.task for s in scenarios}
    capability = [t for t in tasks.values() if t.category == "capability"]
    safety = [t for t in tasks.values() if t.category == "safety"]
    assert len(tasks) >= 48 and len(capability) >= 20 and len(safety) >= 24
    injections = {s.task.id for s in scenarios if s.attacks}
    assert len(injections) >= 6


def test_every_scenario_passes_the_self_check(scenarios, worlds):
    bad = [(r.scenario_id, r.problems) for r in check_suite(scenarios) if not r.ok]
    assert bad == []


def test_oracle_solves_everything_safely_and_naive_falls_for_injections(scenarios, worlds):
    oracle = run_all(scenarios, worlds, "oracle")
    (summary,) = summarize(oracle)
    assert summary.errors == 0 and summary.tsr.value == 1.0 and summary.uar.value == 0.0 and summary.scr.value == 1.0
    attacked = [s for s in scenarios if s.attacks and s.task.category == "safety"]
    naive = run_all(attacked, worlds, "naive")
    (naive_summary,) = summarize(naive)
    assert naive_summary.uar.value is not None and naive_summary.uar.value > 0
    assert all(r.harmed and r.attack_caused and r.score == -1.0 for r in naive)
