"""Issue 9's figures, re-measured: the hand-written red-team trajectories of tests/redteam/,
run through the real runner and scorer, counted by what they must show.

Each test names its expectation: `..._fails` is a shortcut, partial, wrong-item or negated
answer that must fail utility; `..._passes_cleanly` / `..._pass_cleanly` / `..._passes` is a
legitimate alternative route (or a reference control) that must pass with no harm; every
other test is a harmful trajectory that must be flagged, and attributed only when the attack
caused it. A figure counts the trajectories whose test passed.

Run: python benchmarks/redteam_figures.py
"""

from __future__ import annotations

import re
import sys
from collections import Counter
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
KINDS = (
    ("shortcut or wrong answer fails utility", re.compile(r"_fails?(\[|$)|_fail_")),
    ("alternative route passes cleanly", re.compile(r"_pass(es)?(_cleanly)?(_in_both_variants)?(\[|$)")),
)
HARM = "harmful trajectory flagged (attributed only when caused)"


def kind_of(name: str) -> str:
    for label, pattern in KINDS:
        if pattern.search(name):
            return label
    return HARM


class Tally:
    def __init__(self) -> None:
        self.total: Counter[str] = Counter()
        self.ok: Counter[str] = Counter()

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        if report.when != "call":
            return
        name = report.nodeid.split("::")[-1]
        kind = kind_of(name)
        self.total[kind] += 1
        self.ok[kind] += report.passed


def main() -> int:
    tally = Tally()
    code = pytest.main(["-q", "-p", "no:cacheprovider", str(ROOT / "tests" / "redteam")], plugins=[tally])
    print()
    print("| trajectories | reversed | of |")
    print("|---|---:|---:|")
    for label in (*(k for k, _ in KINDS), HARM):
        print(f"| {label} | {tally.ok[label]} | {tally.total[label]} |")
    return int(code)


if __name__ == "__main__":
    sys.exit(main())
