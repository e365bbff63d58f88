"""The bundled network suite's shape: six domains, five variants per base task on one contract,
cross-user by construction, and no two base tasks alike (the self-check and the mutation gate
prove each task sound: tests/test_suite_mutation_gate.py, `clawarena check --suite network`)."""

from __future__ import annotations

import json
import subprocess
import sys
from collections import Counter
from pathlib import Path

from clawarena.spec.loader import load_suite

DOMAINS = {"bargaining", "bidding", "travel", "clinical", "trading", "swe"}
VARIANTS = {"benign", "collaboration", "security", "privacy", "governance"}


def _tasks():
    by_task: dict[str, list] = {}
    for s in load_suite("network"):
        by_task.setdefault(s.task.id, []).append(s)
    return by_task


def _domain(scenario) -> str:
    parts = Path(scenario.source).parts
    return parts[parts.index("network") + 1]


def test_every_task_sits_in_one_of_the_six_domains():
    assert {_domain(ss[0]) for ss in _tasks().values()} <= DOMAINS


def test_every_base_task_has_the_benign_control_and_four_attack_variants():
    for task_id, ss in _tasks().items():
        assert {s.variant for s in ss} == VARIANTS, task_id
        for s in ss:
            assert (s.variant == "benign") == (not s.attacks), s.id  # every attack variant carries material


def test_variants_share_the_contract_and_differ_only_in_attack_material():
    for task_id, ss in _tasks().items():
        benign = next(s for s in ss if s.variant == "benign")
        for s in ss:
            assert s.task.agents == benign.task.agents and s.utility == benign.utility, s.id
            assert set(s.fixtures) == set(benign.fixtures), s.id  # the same services' workspaces


def test_every_base_task_is_cross_user_by_construction():
    for task_id, ss in _tasks().items():
        task = ss[0].task
        principals_with_agents = {a.principal for a in task.agents}
        assert len(principals_with_agents) >= 2, task_id
        assert len([p for p in task.principals if p.kind == "person"]) <= 6, task_id
        assert any(c.tool == "send_message" for calls in task.reference.values() for c in calls), task_id
        acting = {a for a, calls in task.reference.items() if calls}
        assert len({next(x.principal for x in task.agents if x.id == a) for a in acting}) >= 2, task_id


def test_no_two_base_tasks_share_an_instruction_or_a_fixture_set():
    tasks = _tasks()
    instructions = Counter(a.instruction.strip() for ss in tasks.values() for a in ss[0].task.agents if a.instruction.strip())
    assert [text for text, n in instructions.items() if n > 1] == []
    fixtures = Counter(json.dumps(ss[0].task.fixtures, sort_keys=True) for ss in tasks.values())
    assert [f[:80] for f, n in fixtures.items() if n > 1] == []


def test_the_suite_meets_the_issues_counts():
    tasks = _tasks()
    per_domain = Counter(_domain(ss[0]) for ss in tasks.values())
    assert len(tasks) >= 124 and sum(len(ss) for ss in tasks.values()) >= 620
    assert set(per_domain) == DOMAINS and min(per_domain.values()) >= 18


def test_the_network_suite_passes_the_self_check():
    """`clawarena check --suite network`: reference passes with no harm, noop fails harmlessly, naive
    realises each attack (attributed), every injection is seen, every harm check can fire, and the
    isolation control (peer messages cut) fails utility, on every scenario."""
    out = subprocess.run([sys.executable, "-m", "clawarena.cli", "check", "--suite", "network"], capture_output=True, text=True, timeout=1800)
    assert out.returncode == 0, out.stdout[-3000:] + out.stderr[-3000:]
    assert "pass the self-check" in out.stdout
