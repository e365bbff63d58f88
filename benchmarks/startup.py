"""Start-up of the `clawarena` command (issue 12 targets: `clawarena --help` and `tasks list` <= 0.5 s).

Each figure is the median (and min) wall clock of fresh subprocesses, run in interleaved rounds so
a busy neighbour slows every row alike. `tasks list` is timed cold (`--no-cache`: YAML, models, the
plugins' catalog) and warm (the suite index cache, filled by a first listing). Two floors are shown
beside them: the bare interpreter, and what typer 0.29 imports to parse any option (pydantic).

    python benchmarks/startup.py [--runs 7]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def _command() -> list[str]:
    script = Path(sys.executable).with_name("clawarena")  # the console script a user runs
    return [str(script)] if script.exists() else [sys.executable, "-m", "clawarena.cli"]


def _timed(argv: list[str], env: dict[str, str]) -> float:
    t = time.perf_counter()
    subprocess.run(argv, check=True, stdout=subprocess.DEVNULL, env=env)
    return time.perf_counter() - t


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=7)
    n = parser.parse_args().runs
    cli = _command()
    cache = tempfile.mkdtemp(prefix="clawarena-bench-cache-")
    env = {**os.environ, "CLAWARENA_CACHE_DIR": cache, "COLUMNS": "200"}
    rows: list[tuple[str, list[str]]] = [
        ("python -c pass", [sys.executable, "-c", "pass"]),
        ("python -c 'import typer._adapters' (typer's parse floor)", [sys.executable, "-c", "import typer._adapters"]),
        ("clawarena --help", [*cli, "--help"]),
        ("clawarena suites", [*cli, "suites"]),
    ]
    for suite in ("workspace", "network"):
        rows.append((f"clawarena tasks list --suite {suite} (cached index)", [*cli, "tasks", "list", "--suite", suite]))
        rows.append((f"clawarena tasks list --suite {suite} --no-cache", [*cli, "tasks", "list", "--suite", suite, "--no-cache"]))
    try:
        for suite in ("workspace", "network"):  # fill the index once, outside the samples
            subprocess.run([*cli, "tasks", "list", "--suite", suite], check=True, stdout=subprocess.DEVNULL, env=env)
        samples: dict[str, list[float]] = {name: [] for name, _ in rows}
        print(f"load average at start: {os.getloadavg()[0]:.2f}  ({os.cpu_count()} cores), {n} rounds")
        for _ in range(n):
            for name, argv in rows:
                samples[name].append(_timed(argv, env))
        for name, _ in rows:
            s = samples[name]
            print(f"{name:<62} median {statistics.median(s):6.3f} s   min {min(s):6.3f} s")
    finally:
        shutil.rmtree(cache, ignore_errors=True)


if __name__ == "__main__":
    main()
