"""`clawarena check` drives a progress bar from the self-check's per-scenario callback."""

from __future__ import annotations

from typer.testing import CliRunner

import clawarena.runner.selfcheck as selfcheck
from clawarena.cli import app


def test_check_advances_its_progress_bar_per_scenario_and_reports_failures(monkeypatch):
    calls = []

    def fake_check_suite(scenarios, on_result=None, workers=1):
        assert callable(on_result), "check must pass on_result to drive its progress bar"
        results = []
        for i, s in enumerate(scenarios):
            r = selfcheck.ScenarioCheck(s.id)
            if i == 1:
                r.fail("reference", "utility check summary-sent (contains, weight 1) fails on the reference: no [date] found")
            on_result(r)
            calls.append(s.id)
            results.append(r)
        return results

    monkeypatch.setattr(selfcheck, "check_suite", fake_check_suite)
    result = CliRunner().invoke(app, ["check", "--suite", "email"], env={"COLUMNS": "80"})
    assert len(calls) == 7
    assert result.exit_code == 1
    assert "1 of 7 scenario(s) failed the self-check" in result.stderr
    assert "no [date] found" in result.stderr  # a problem is printed as written, brackets and all
    assert "email-triage-summary/privacy" in result.stdout and "…" not in result.stdout
