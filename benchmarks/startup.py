"""Start-up of the `clawarena` command (issue 12 targets: `clawarena --help` and `tasks list` <= 0.5 s).

Each figure is the median (and min) wall clock of fresh subprocesses, run in interleaved rounds so
a busy neighbour slows every row alike. `tasks list` is timed warm (the suite index cache, filled by
a first listing), with the index cold (an empty cache folder each time: a full load that then files
the rows) and with `--no-cache`. Every command's `--help` is timed too, beside two floors: the bare
interpreter and `import clawarena.cli`. Then the modules a warm listing imports, slowest first
(`python -X importtime`), so the next cut is visible.

Bytecode is written (PYTHONDONTWRITEBYTECODE is dropped for the subprocesses, and a warm-up round
runs first), as for a user: a shell that sets it would time the compiler on every start.

    python benchmarks/startup.py [--runs 7] [--network-cold]
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

TARGET = 0.5  # seconds, from the issue
COMMANDS = ("run", "check", "serve", "mcp", "score", "suites", "report", "judge", "tasks", "tasks list", "tasks show", "tools", "runs")


def _command() -> list[str]:
    script = Path(sys.executable).with_name("clawarena")  # the console script a user runs
    return [str(script)] if script.exists() else [sys.executable, "-m", "clawarena.cli"]


def _index_state(cache: str) -> dict[str, int]:
    folder = Path(cache) / "suite-index"
    return {p.name: p.stat().st_mtime_ns for p in folder.glob("*.json")} if folder.is_dir() else {}


def _timed(argv: list[str], env: dict[str, str], fresh_cache: bool) -> tuple[float, bool]:
    """Seconds, and whether the suite index was (re)written: in a tree others edit, a code change
    between two listings is a (correct) miss, which must not count as a warm sample."""
    if fresh_cache:  # the index cold: a cache folder with nothing in it
        env = {**env, "CLAWARENA_CACHE_DIR": tempfile.mkdtemp(prefix="clawarena-bench-cold-")}
    before = _index_state(env["CLAWARENA_CACHE_DIR"])
    t = time.perf_counter()
    subprocess.run(argv, check=True, stdout=subprocess.DEVNULL, env=env)
    elapsed = time.perf_counter() - t
    written = _index_state(env["CLAWARENA_CACHE_DIR"]) != before
    if fresh_cache:
        shutil.rmtree(env["CLAWARENA_CACHE_DIR"], ignore_errors=True)
    return elapsed, written


def _rows(cli: list[str], network_cold: bool) -> list[tuple[str, list[str], bool, bool]]:
    """(label, argv, an empty cache each time?, held to the 0.5 s target?)"""
    rows = [
        ("python -c pass", [sys.executable, "-c", "pass"], False, False),
        ("python -c 'import clawarena.cli'", [sys.executable, "-c", "import clawarena.cli"], False, False),
        ("clawarena --help", [*cli, "--help"], False, True),
        ("clawarena suites", [*cli, "suites"], False, False),
    ]
    for suite in ("workspace", "network"):
        rows.append((f"clawarena tasks list --suite {suite} (index warm)", [*cli, "tasks", "list", "--suite", suite], False, True))
    for suite in ("workspace", "network") if network_cold else ("workspace",):
        rows.append((f"clawarena tasks list --suite {suite} (index cold)", [*cli, "tasks", "list", "--suite", suite], True, False))
        rows.append((f"clawarena tasks list --suite {suite} --no-cache", [*cli, "tasks", "list", "--suite", suite, "--no-cache"], False, False))
    for name in COMMANDS:
        rows.append((f"clawarena {name} --help", [*cli, *name.split(), "--help"], False, True))
    return rows


def _import_top(env: dict[str, str], n: int = 12) -> None:
    """The warm listing's imports: top-level modules by cumulative time, and the slowest by self time."""
    code = "from clawarena.cli import app\ntry:\n    app(['tasks', 'list'], prog_name='clawarena')\nexcept SystemExit:\n    pass\n"
    best: list[tuple[int, int, int, str]] | None = None
    for _ in range(3):  # the quietest of three runs
        out = subprocess.run([sys.executable, "-X", "importtime", "-c", code], capture_output=True, text=True, env=env, check=True)
        entries = []
        for line in out.stderr.splitlines():
            if not line.startswith("import time:") or "self [us]" in line:
                continue
            self_us, cumulative, name = line[len("import time:"):].split("|")
            depth = (len(name) - len(name.lstrip()) - 1) // 2  # two spaces a level below the top
            entries.append((int(self_us), int(cumulative), depth, name.strip()))
        if best is None or sum(e[0] for e in entries) < sum(e[0] for e in best):
            best = entries
    assert best is not None
    print(f"\nimports of a warm `tasks list`: {len(best)} modules, {sum(e[0] for e in best) / 1000:.0f} ms in all (quietest of 3)")
    print("  top-level, by cumulative time:")
    for self_us, cumulative, depth, name in sorted((e for e in best if e[2] == 0), key=lambda e: -e[1])[:n]:
        print(f"    {cumulative / 1000:7.1f} ms  {name}")
    print("  any module, by its own time:")
    for self_us, cumulative, depth, name in sorted(best, key=lambda e: -e[0])[:n]:
        print(f"    {self_us / 1000:7.1f} ms  {name}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=7, help="rounds (default 7)")
    parser.add_argument("--network-cold", action="store_true", help="also time the 625-scenario suite without its index (about 20 s a run)")
    args = parser.parse_args()
    if args.runs < 1:
        parser.error("--runs: must be at least 1")
    cli = _command()
    cache = tempfile.mkdtemp(prefix="clawarena-bench-cache-")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env.update({"CLAWARENA_CACHE_DIR": cache, "COLUMNS": "200"})
    rows = _rows(cli, args.network_cold)
    try:
        for _, argv, fresh, _ in rows:  # warm-up: bytecode written, the index filled, outside the samples
            _timed(argv, env, fresh)
        samples: dict[str, list[float]] = {name: [] for name, *_ in rows}
        misses: dict[str, int] = dict.fromkeys(samples, 0)
        print(f"load average at start: {os.getloadavg()[0]:.2f}  ({os.cpu_count()} cores), {args.runs} rounds")
        for _ in range(args.runs):
            for name, argv, fresh, _ in rows:
                elapsed, written = _timed(argv, env, fresh)
                if written and not fresh and "--no-cache" not in argv:
                    misses[name] += 1  # the code changed under us: a cold listing, not a warm one
                else:
                    samples[name].append(elapsed)
        print(f"{'what':<62} {'median':>8} {'min':>8}   target")
        for name, _, _, held in rows:
            s = samples[name]
            if not s:
                print(f"{name:<62} {'-':>8} {'-':>8}   every sample missed the index (the tree was being edited)")
                continue
            median = statistics.median(s)
            verdict = (f"<= {TARGET} s: " + ("met" if median <= TARGET else "not met")) if held else ""
            dropped = f"  ({misses[name]} samples dropped: index rewritten)" if misses[name] else ""
            print(f"{name:<62} {median:6.3f} s {min(s):6.3f} s   {verdict}{dropped}")
        print(f"load average at end: {os.getloadavg()[0]:.2f}")
        _import_top(env)
    finally:
        shutil.rmtree(cache, ignore_errors=True)


if __name__ == "__main__":
    main()
