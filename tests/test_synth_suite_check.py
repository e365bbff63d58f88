"""Every task of the shipped synthesized suite passes `clawarena check`'s gates, through the Python
API the command uses (one test per scenario folder, so a failure names the folder; its own file, so
xdist's loadfile runs it beside the rest)."""

from __future__ import annotations

import pytest

from clawarena.runner.selfcheck import check_suite
from clawarena.spec.loader import load_suite, resolve_suite_dir

SUITE = resolve_suite_dir("synth")
FOLDERS = sorted(p.name for p in SUITE.iterdir() if p.is_dir())


def test_the_folders_are_the_scenarios() -> None:
    assert len(FOLDERS) == 15 and {"gmail", "clinical", "docs-drive", "trading"} <= set(FOLDERS)


@pytest.mark.parametrize("folder", FOLDERS)
def test_every_task_passes_check(folder: str) -> None:
    scenarios = load_suite(SUITE / folder)
    results = check_suite(scenarios)
    assert len(results) == len(scenarios) > 0
    failed = {r.scenario_id: r.problems for r in results if not r.ok}
    assert not failed, failed
