"""Every data file the package reads ships in a wheel: each non-Python file under
src/clawarena matches a package-data glob of pyproject.toml (a file that matches none works
from the editable install and is missing from an installed wheel)."""

from __future__ import annotations

import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "src" / "clawarena"


def test_every_data_file_matches_a_package_data_glob():
    globs = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["package-data"]["clawarena"]
    shipped = {p for pattern in globs for p in PACKAGE.glob(pattern) if p.is_file()}
    data = {p for p in PACKAGE.rglob("*") if p.is_file() and p.suffix not in (".py", ".pyc") and "__pycache__" not in p.parts}
    assert data, "no data files found: the package layout moved"
    missing = sorted(str(p.relative_to(PACKAGE)) for p in data - shipped)
    assert not missing, f"not in [tool.setuptools.package-data]: {missing}"
