"""The mutation gate on the bundled suites, as CI runs it: every scenario's reference mutated
(a bounded, seed-fixed set per scenario), a mutation score of at least 90%, and every survivor
listed with its reason in docs/suites/<suite>.md. A weakened check, a new task with checks a
shortcut satisfies, or a survivor nobody explained fails this test."""

import re
import subprocess
import sys

import pytest

MIN_SCORE = "0.9"


# Mutants per scenario: the default 12 for the workspace suites; the network suite (620
# scenarios of three-agent episodes) is sampled with 3 per scenario, seed-fixed, so the gate fits
# CI; its full figure (12 per scenario) is in docs/benchmarks.md.
PER_SCENARIO = {"workspace": "12", "email": "12", "network": "3"}


@pytest.mark.parametrize("suite", ["workspace", "email", "network"])
def test_the_bundled_suite_passes_the_mutation_gate(suite):
    out = subprocess.run(
        [sys.executable, "-m", "clawarena.cli", "check", "--suite", suite, "--mutants-only", "--min-mutation-score", MIN_SCORE,
         "--mutants-per-scenario", PER_SCENARIO[suite]],
        capture_output=True, text=True, timeout=1800,
    )  # fmt: skip
    assert out.returncode == 0, out.stdout[-4000:] + out.stderr[-4000:]
    score = re.search(r"mutation score: (\d+)%", out.stdout)
    assert score and int(score.group(1)) >= 90, out.stdout[-2000:]
    assert "mutation gate passed" in out.stdout
    assert "0 false alarm(s)" in out.stdout
