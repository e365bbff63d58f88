"""How long `clawarena serve SCENARIO` takes to be up (its "Ctrl-C" line printed), beside the
bare interpreter start and `import clawarena.cli` in the same run, so the figure reads as a
ratio on a shared machine. Target (issue 8): up in <= 2 s.

    python benchmarks/serve_startup.py [--runs 5]
"""

from __future__ import annotations

import argparse
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time

SCENARIO = "email-triage-summary/benign"


def _once_python(code: str) -> float:
    t = time.perf_counter()
    subprocess.run([sys.executable, "-c", code], check=True)
    return time.perf_counter() - t


def _once_serve(args: list[str]) -> float:
    with tempfile.TemporaryDirectory() as tmp:
        t = time.perf_counter()
        proc = subprocess.Popen([sys.executable, "-m", "clawarena.cli", "serve", *args, "--port", "0", "--runs-dir", tmp],
                                stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, cwd=tmp)  # fmt: skip
        assert proc.stdout is not None
        for line in proc.stdout:
            if line.startswith("Ctrl-C"):
                break
        up = time.perf_counter() - t
        proc.send_signal(signal.SIGINT)
        proc.communicate(timeout=60)
        return up


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=5)
    n = parser.parse_args().runs
    rows = [
        ("python -c pass", lambda: _once_python("pass")),
        ("import clawarena.cli", lambda: _once_python("import clawarena.cli")),
        (f"serve {SCENARIO} (REST)", lambda: _once_serve(["--suite", "email", SCENARIO])),
        (f"serve {SCENARIO} --agent-port 0 (REST + MCP)", lambda: _once_serve(["--suite", "email", SCENARIO, "--agent-port", "0"])),
    ]
    print(f"load average at start: {os.getloadavg()[0]:.2f}  (2 cores)")
    for name, fn in rows:
        samples = [fn() for _ in range(n)]
        print(f"{name:<58} median {statistics.median(samples):6.2f} s   min {min(samples):6.2f} s   (n={n})")


if __name__ == "__main__":
    main()
