"""Executors: the default workspace run (`clawarena run`, default agents) with `--workers 1` on
threads vs `--workers 2` on processes, as a ratio within one run (the machine is shared).

Run: python benchmarks/executors.py [--suite workspace] [--repeat 1]
Each run is a fresh `clawarena run` subprocess, so start-up (imports, suite load, worker spawn) counts.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time

SETUPS = {"thread x1": ["--workers", "1", "--executor", "thread"], "process x2": ["--workers", "2", "--executor", "process"]}


def one_run(suite: str, flags: list[str]) -> float:
    """Wall seconds of one `clawarena run`."""
    with tempfile.TemporaryDirectory() as runs:
        t0 = time.perf_counter()
        subprocess.run([sys.executable, "-m", "clawarena.cli", "run", "--suite", suite, "--runs-dir", runs, "--format", "json", *flags],
                       check=True, capture_output=True)  # fmt: skip
        return time.perf_counter() - t0


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--suite", default="workspace")
    parser.add_argument("--repeat", type=int, default=1)
    args = parser.parse_args()
    times: dict[str, list[float]] = {name: [] for name in SETUPS}
    for _ in range(args.repeat):  # alternate, so load on the shared machine hits both alike
        for name, flags in SETUPS.items():
            times[name].append(one_run(args.suite, flags))
    for name, values in times.items():
        print(f"{name:<12} wall median {statistics.median(values):6.2f} s  min {min(values):6.2f}  max {max(values):6.2f}  (n={len(values)})")
    ratio = statistics.median(times["thread x1"]) / statistics.median(times["process x2"])
    print(f"speed-up process x2 over thread x1: {ratio:.2f}x")


if __name__ == "__main__":
    main()
