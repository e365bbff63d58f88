"""The near-duplicate gate of task synthesis (issue 14): index build, check cost, and how close
the hand-written tasks come to each other.

Run: python benchmarks/synth_dedup.py

Loads the bundled suites (workspace, network, email), fingerprints every task and builds the
similarity index, times one candidate check against the whole index, and prints, per suite and
component (prompt, fixtures), the min / median / max of each task's nearest-neighbour Jaccard:
the distribution the gate's default thresholds were set above.
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from clawarena.spec.loader import load_suite  # noqa: E402
from clawarena.synth.dedup import DedupThresholds, SimilarityIndex, check_candidate, fingerprint, jaccard  # noqa: E402

SUITES = ["workspace", "network", "email"]


def main() -> None:
    t0 = time.perf_counter()
    tasks = {}
    for suite in SUITES:
        for scenario in load_suite(suite):
            tasks.setdefault(scenario.task.id, (suite, scenario.task))
    t1 = time.perf_counter()
    index = SimilarityIndex(fingerprint(task, suite) for suite, task in tasks.values())
    t2 = time.perf_counter()
    print(f"{len(index)} tasks; loading the suites {t1 - t0:.2f} s; fingerprints and index {1000 * (t2 - t1):.1f} ms")
    entries = list(index.entries)
    t3 = time.perf_counter()
    for entry in entries:
        check_candidate(entry, index)
    print(f"one candidate checked against {len(index)} tasks: {1000 * (time.perf_counter() - t3) / len(entries):.2f} ms")
    print(f"defaults: {DedupThresholds()}")
    for suite in SUITES:
        members = [e for e in entries if e.suite == suite]
        if len(members) < 2:
            continue
        for component in ("prompt", "fixtures"):
            nearest = sorted(max(jaccard(getattr(e, component), getattr(o, component)) for o in members if o is not e) for e in members)
            print(f"{suite:<10} {component:<9} nearest-neighbour Jaccard: min {nearest[0]:.3f}  median {statistics.median(nearest):.3f}  max {nearest[-1]:.3f}")


if __name__ == "__main__":
    main()
