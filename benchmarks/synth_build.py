"""The offline synthesis pipeline (issue 14): where a candidate's time goes, and the near-duplicate
scores within the shipped synthesized suite.

Run: python benchmarks/synth_build.py [--count N]

For N prototypes of the seed-0 sample (coverage order), times each stage of one round: compile,
loads (the task-file loader), check (`clawarena check`'s gates), mutants, dedup; prints the share of
each and the candidates per second. Then the nearest-neighbour Jaccard of every shipped synth task
within the suite (prompt, fixtures): what the dedup thresholds leave between synthesized tasks.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from clawarena.spec.loader import expand, load_suite  # noqa: E402
from clawarena.synth.compile import CompileError, compile_prototype  # noqa: E402
from clawarena.synth.dedup import SimilarityIndex, check_candidate, fingerprint, jaccard  # noqa: E402
from clawarena.synth.gates import GateReport, Gates, dump_task, load_candidate  # noqa: E402
from clawarena.synth.sampler import sample_prototypes  # noqa: E402


def stages(count: int) -> None:
    gates = Gates(index=SimilarityIndex.from_suites(["email", "network", "workspace"]))
    totals = dict.fromkeys(("compile", "loads", "check", "mutants", "dedup"), 0.0)
    done = 0
    t_all = time.perf_counter()
    for proto in sample_prototypes(0, 1600):
        if done >= count:
            break
        t = time.perf_counter()
        try:
            compiled = compile_prototype(proto, 0)
        except CompileError:
            continue
        totals["compile"] += time.perf_counter() - t
        t = time.perf_counter()
        task = load_candidate(dump_task(compiled), proto.id)
        totals["loads"] += time.perf_counter() - t
        scenarios = expand(task, suite="synth")
        t = time.perf_counter()
        gates.check_diagnostics(scenarios)
        totals["check"] += time.perf_counter() - t
        t = time.perf_counter()
        gates.mutant_diagnostics(scenarios, GateReport())
        totals["mutants"] += time.perf_counter() - t
        t = time.perf_counter()
        check_candidate(task, gates.index)
        totals["dedup"] += time.perf_counter() - t
        done += 1
    wall = time.perf_counter() - t_all
    spent = sum(totals.values())
    print(f"{done} candidates in {wall:.1f} s ({done / wall:.2f} per second, {1000 * wall / done:.0f} ms each)")
    for name, secs in totals.items():
        print(f"  {name:8} {1000 * secs / done:7.1f} ms per candidate  ({100 * secs / spent:4.1f}%)")


def within_suite() -> None:
    tasks = {s.task.id: s.task for s in load_suite("synth")}
    prints = [fingerprint(t) for t in tasks.values()]
    for component in ("prompt", "fixtures"):
        nearest = []
        for i, a in enumerate(prints):
            nearest.append(max(jaccard(getattr(a, component), getattr(b, component)) for j, b in enumerate(prints) if j != i))
        q = statistics.quantiles(nearest, n=20)
        print(f"synth {component:8} nearest neighbour over {len(prints)} tasks: min {min(nearest):.3f}  median {statistics.median(nearest):.3f}  p95 {q[-1]:.3f}  max {max(nearest):.3f}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--count", type=int, default=40)
    args = parser.parse_args()
    stages(args.count)
    within_suite()
