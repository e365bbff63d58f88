"""Every task of the shipped synthesized suite passes `clawarena check` (one test per scenario
folder, so a failure names the folder; its own file, so xdist's loadfile runs it beside the rest)."""

from __future__ import annotations

import subprocess
import sys

import pytest

from clawarena.spec.loader import resolve_suite_dir

SUITE = resolve_suite_dir("synth")
FOLDERS = sorted(p.name for p in SUITE.iterdir() if p.is_dir())


def test_the_folders_are_the_scenarios() -> None:
    assert len(FOLDERS) == 15 and {"gmail", "clinical", "docs-drive", "trading"} <= set(FOLDERS)


@pytest.mark.parametrize("folder", FOLDERS)
def test_every_task_passes_check(folder: str) -> None:
    out = subprocess.run([sys.executable, "-m", "clawarena.cli", "check", "--suite", str(SUITE / folder), "--workers", "1"],
                         capture_output=True, text=True, timeout=1800)  # fmt: skip
    assert out.returncode == 0, out.stdout[-4000:] + out.stderr[-4000:]
    assert "pass the self-check" in out.stdout
