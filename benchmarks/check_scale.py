"""`clawarena check` at scale: wall time, per-scenario ms and peak RSS of the self-check gates
(controls only, no mutants) over the bundled suites, projected to 1,200 scenarios on 2 cores, with
the mutation gate's time on one suite beside it.

    python benchmarks/check_scale.py [--sample N] [--workers 2] [--mutants-suite email]

Each pass runs on a fresh private world cache (`cold`: every template seeded) and then again on
the same cache (`warm`: templates read from disk, as a second run and every CI run after the first).
Peak RSS is sampled over this process and all its descendants (the worker processes), summed.
"""

from __future__ import annotations

import argparse
import os
import tempfile
import threading
import time
from pathlib import Path

SUITES = ("workspace", "email", "network")


def _tree_rss_kb(root: int) -> int:
    """RSS of `root` and every descendant, summed (from /proc)."""
    parents: dict[int, int] = {}
    rss: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            status = (entry / "status").read_text()
        except OSError:
            continue
        pid = int(entry.name)
        parents[pid] = int(stat.rsplit(")", 1)[1].split()[1])
        rss[pid] = next((int(line.split()[1]) for line in status.splitlines() if line.startswith("VmRSS:")), 0)
    tree, frontier = {root}, [root]
    while frontier:
        parent = frontier.pop()
        children = [p for p, pp in parents.items() if pp == parent and p not in tree]
        tree.update(children)
        frontier.extend(children)
    return sum(rss.get(p, 0) for p in tree)


class PeakRss:
    """Samples the process tree's RSS on a thread until stopped; `peak_mb` is the highest sum seen."""

    def __init__(self, every: float = 0.25):
        self.every, self.peak = every, 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        while not self._stop.is_set():
            self.peak = max(self.peak, _tree_rss_kb(os.getpid()))
            self._stop.wait(self.every)

    def __enter__(self) -> PeakRss:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()
        self.peak = max(self.peak, _tree_rss_kb(os.getpid()))

    @property
    def peak_mb(self) -> float:
        return self.peak / 1024


def _sample(scenarios: list, tasks: int | None) -> list:
    if tasks is None:
        return scenarios
    keep: list[str] = []
    for s in scenarios:
        if s.task.id not in keep:
            keep.append(s.task.id)
    chosen = set(keep[:tasks])
    return [s for s in scenarios if s.task.id in chosen]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--suites", default=",".join(SUITES), help="comma-separated suites to check")
    ap.add_argument("--sample", type=int, default=None, metavar="N", help="only the first N base tasks of each suite")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--mutants-suite", default="email", help="the suite whose mutation gate is timed ('' to skip)")
    ap.add_argument("--passes", default="cold,warm", help="cold, warm or both")
    ap.add_argument("--serial", action="store_true", help="then warm passes on 1 worker and on --workers, alternating (the ratio within one run)")
    args = ap.parse_args()

    cache = tempfile.mkdtemp(prefix="clawarena-check-scale-")
    os.environ["CLAWARENA_CACHE_DIR"] = cache  # set before clawarena reads it: one private cache for every pass

    from clawarena.runner.selfcheck import check_suite
    from clawarena.spec.loader import load_suite

    scenarios = [s for name in args.suites.split(",") for s in _sample(load_suite(name), args.sample)]
    n = len(scenarios)
    print(f"scenarios: {n} ({args.suites}{'' if args.sample is None else f', first {args.sample} tasks each'}), workers {args.workers}, cores {os.cpu_count()}")
    print(f"{'pass':<8} {'wall s':>8} {'ms/scenario':>12} {'peak RSS MB':>12} {'-> 1,200 scenarios s':>21} {'failed':>7} {'cached':>8}")
    passes = [(name, args.workers) for name in args.passes.split(",")]
    if args.serial:
        passes += [("warm", 1), ("warm", args.workers), ("warm", 1)]
    for name, workers in passes:
        with PeakRss() as rss:
            started = time.perf_counter()
            results = check_suite(scenarios, workers=workers)
            wall = time.perf_counter() - started
        failed = sum(not r.ok for r in results)
        label = f"{name}/{workers}w"
        entries = len(list(Path(cache).rglob("*.world")))  # grows when a pass seeded (a source edit changes the code version)
        print(f"{label:<8} {wall:>8.1f} {wall / n * 1000:>12.0f} {rss.peak_mb:>12.0f} {wall / n * 1200:>21.0f} {failed:>7} {entries:>8}")

    if args.mutants_suite:
        from clawarena.runner.mutants import mutate_suite, mutation_score

        suite = load_suite(args.mutants_suite)
        started = time.perf_counter()
        tasks = mutate_suite(suite, 12, seed=0)
        took = time.perf_counter() - started
        results = [r for t in tasks for r in t.results]
        score = mutation_score(results)
        print(f"mutation gate ({args.mutants_suite}, {len(suite)} scenarios, {len(results)} mutants, one process): {took:.1f} s, "
              f"{took / len(suite) * 1000:.0f} ms/scenario, score {'-' if score is None else f'{score:.0%}'}")  # fmt: skip


if __name__ == "__main__":
    main()
