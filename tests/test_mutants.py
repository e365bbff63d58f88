"""Mutation testing of the checks: mutants of a reference are generated deterministically, the
bundled checks kill the outcome-changing ones and pass the equivalent ones, and a weak check lets
a mutant survive, which `clawarena check --mutants` lists (without changing the exit code)."""

from __future__ import annotations

from pathlib import Path

import yaml
from typer.testing import CliRunner

from clawarena.cli import app
from clawarena.runner.mutants import (
    MUTANT_KINDS,
    OUTSIDER,
    generate_mutants,
    run_mutant,
    with_reference,
)
from clawarena.services import world_factory
from clawarena.spec.loader import BUNDLED_SUITES, load_suite
from clawarena.spec.models import ToolCall

BASE = BUNDLED_SUITES / "email" / "email-triage-summary.yaml"


def _scenario(suite: str | Path, scenario_id: str):
    return next(s for s in load_suite(str(suite)) if s.id == scenario_id)


def test_generation_is_deterministic_bounded_and_never_the_reference():
    scenario = _scenario("email", "email-triage-summary/benign")
    first = generate_mutants(scenario)
    again = generate_mutants(_scenario("email", "email-triage-summary/benign"))
    assert [(m.kind, m.what, m.reference) for m in first] == [(m.kind, m.what, m.reference) for m in again]
    assert {m.kind for m in first} == set(MUTANT_KINDS) - {"change-value"}  # its calls carry no number or date
    for m in first:
        assert m.reference != scenario.task.reference
    assert len(generate_mutants(scenario, limit=3)) == 3
    # round-robin: a small bound still spans several kinds rather than all drops
    assert len({m.kind for m in generate_mutants(scenario, limit=4)}) == 4
    outsider = next(m for m in first if m.kind == "swap-recipient-outsider")
    assert OUTSIDER in str(outsider.reference["alice-agent"][3].args["to"])
    assert next(m for m in first if m.kind == "extra-read").expect == "should_pass"


def test_change_value_moves_numbers_and_iso_dates_but_not_flags():
    scenario = _scenario("email", "email-triage-summary/benign")
    call = ToolCall(tool="gmail_send_email", args={"to": ["bob@northwind.example"], "n": 3, "urgent": True, "at": "2026-03-02T09:00:00Z"})
    mutants = [m for m in generate_mutants(with_reference(scenario, {"alice-agent": [call]}), limit=50) if m.kind == "change-value"]
    assert sorted(m.reference["alice-agent"][0].args["n"] for m in mutants) == [3, 4]
    assert {m.reference["alice-agent"][0].args["at"] for m in mutants} == {"2026-03-02T09:00:00Z", "2026-03-03T09:00:00Z"}
    assert all(m.reference["alice-agent"][0].args["urgent"] is True for m in mutants)


def test_dropping_the_reply_is_killed_and_an_extra_read_still_passes():
    scenario = _scenario("email", "email-triage-summary/benign")
    worlds = world_factory()
    mutants = generate_mutants(scenario)
    drop_send = next(m for m in mutants if m.kind == "drop-call" and "gmail_send_email" in m.what)
    assert run_mutant(scenario, drop_send, worlds).killed
    extra = next(m for m in mutants if m.kind == "extra-read")
    result = run_mutant(scenario, extra, worlds)
    assert result.passed_clean and not result.false_alarm and result.error is None


def _weak_task(tmp_path: Path) -> Path:
    """The triage task whose only utility check is that the inbox was listed (a read)."""
    data = yaml.safe_load(BASE.read_text())
    data["utility"] = [{"id": "inbox-listed", "kind": "tool_called", "tool": "gmail_messages_list"}]
    data["harm"] = []
    data["variants"] = {"benign": data["variants"]["benign"]}
    suite = tmp_path / "weak"
    suite.mkdir()
    (suite / "task.yaml").write_text(yaml.safe_dump(data, sort_keys=False))
    return suite


def test_a_weak_check_lets_dropping_the_send_survive_and_the_cli_lists_it(tmp_path):
    suite = _weak_task(tmp_path)
    scenario = _scenario(suite, "email-triage-summary/benign")
    drop_send = next(m for m in generate_mutants(scenario) if m.kind == "drop-call" and "gmail_send_email" in m.what)
    assert run_mutant(scenario, drop_send, world_factory()).survived

    result = CliRunner().invoke(app, ["check", "--suite", str(suite), "--mutants"], env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output  # reported, not gated: the gates pass
    assert "survivor: email-triage-summary/benign drop-call: dropped alice-agent call 4 (gmail_send_email)" in result.stdout
    assert "mutation score: 0%" in result.stdout
    assert "reported, not gated" in result.stdout


def test_check_without_mutants_runs_none(tmp_path):
    result = CliRunner().invoke(app, ["check", "--suite", str(_weak_task(tmp_path))], env={"COLUMNS": "200"})
    assert result.exit_code == 0
    assert "mutation score" not in result.stdout and "survivor" not in result.stdout


def test_the_bound_is_validated():
    result = CliRunner().invoke(app, ["check", "--suite", "email", "--mutants", "--mutants-per-scenario", "0"])
    assert result.exit_code == 2
    assert "mutants-per-scenario" in result.stderr
