"""The one-way layers of docs/architecture.md hold: import-linter's contracts (pyproject.toml) are kept."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def test_import_contracts_are_kept():
    exe = shutil.which("lint-imports")
    if exe is None:
        pytest.fail("lint-imports is missing: install the dev extra (pip install -e '.[dev]')")
    done = subprocess.run([exe, "--no-cache"], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    assert "0 broken" in done.stdout


def test_a_backward_import_breaks_the_contract(tmp_path):
    """The check can fail: a copy of the package with one import against the direction is caught."""
    exe = shutil.which("lint-imports")
    if exe is None:
        pytest.fail("lint-imports is missing: install the dev extra (pip install -e '.[dev]')")
    src = tmp_path / "src"
    shutil.copytree(ROOT / "src" / "clawarena", src / "clawarena", ignore=shutil.ignore_patterns("suites", "__pycache__", "skills"))
    world = src / "clawarena" / "world" / "world.py"
    world.write_text(world.read_text() + "\nfrom clawarena.gateway import Gateway  # noqa: E402  (against the layers)\n")
    (tmp_path / "pyproject.toml").write_text((ROOT / "pyproject.toml").read_text())
    env = {"PYTHONPATH": str(src), "PATH": str(Path(exe).parent)}
    done = subprocess.run([exe, "--no-cache"], cwd=tmp_path, capture_output=True, text=True, timeout=120, env=env)
    assert done.returncode != 0
    assert "clawarena.world is not allowed to import clawarena.gateway" in done.stdout
