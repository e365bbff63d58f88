"""First builds of worlds as a share of a default run, with a cold and then a warm snapshot cache.

Run: python benchmarks/world_builds.py [--suite workspace] [--repeat 1]
Each run is a fresh `clawarena run --workers 1 --executor thread` process (so start-up counts in the
run's wall time) over one cache folder: the first run is cold (seeds every world and writes the
cache), the next ones are warm (a new process that reads the first's builds). A third setup turns
the cache off (`CLAWARENA_NO_WORLD_CACHE=1`): seeding with the fast seeders, nothing reused.
The share is the time inside `WorldFactory` first builds (cache read or seeding) over the run's wall.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile

# Runs in the child: time every first build of a template, then run the command in-process.
CHILD = r"""
import json, sys, time
from clawarena.world import build
spent = [0.0]
original = build.WorldFactory._load_or_seed
def timed(self, scenario):
    t0 = time.perf_counter()
    try:
        return original(self, scenario)
    finally:
        spent[0] += time.perf_counter() - t0
build.WorldFactory._load_or_seed = timed
t0 = time.perf_counter()
from clawarena.cli import app
try:
    app(sys.argv[1:], standalone_mode=False)
finally:
    print("BUILDS " + json.dumps({"builds": spent[0], "wall": time.perf_counter() - t0}), file=sys.stderr)
"""


def one_run(suite: str, cache: str, disabled: bool) -> dict[str, float]:
    env = dict(os.environ, CLAWARENA_CACHE_DIR=cache)
    env.pop("CLAWARENA_NO_WORLD_CACHE", None)
    if disabled:
        env["CLAWARENA_NO_WORLD_CACHE"] = "1"
    with tempfile.TemporaryDirectory() as runs:
        args = ["run", "--suite", suite, "--runs-dir", runs, "--format", "json", "--workers", "1", "--executor", "thread"]
        done = subprocess.run([sys.executable, "-c", CHILD, *args], env=env, capture_output=True, text=True, check=True)
    line = next(x for x in done.stderr.splitlines() if x.startswith("BUILDS "))
    return json.loads(line[len("BUILDS "):])


def show(name: str, r: dict[str, float]) -> None:
    print(f"{name:<22} run {r['wall']:6.2f} s   first builds {r['builds']:6.2f} s   share {100 * r['builds'] / r['wall']:5.1f}%")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--suite", default="workspace")
    parser.add_argument("--repeat", type=int, default=1)
    args = parser.parse_args()
    for _ in range(args.repeat):
        with tempfile.TemporaryDirectory() as cache:
            show("cache off (seeding)", one_run(args.suite, cache, disabled=True))
            show("cold cache (1st run)", one_run(args.suite, cache, disabled=False))
            show("warm cache (2nd run)", one_run(args.suite, cache, disabled=False))


if __name__ == "__main__":
    main()
