"""The trace viewer (issue 15): how soon a large run's trial list is on screen.

Run: python benchmarks/view_first_paint.py [--run RUN-DIR] [--trials N] [--repeats K]

Without --run it first makes the run: the oracle on the workspace suite with --trials N (136 gives
10,064 trials), in a temporary folder. Then, in one process:
- opening the run: reading trials.jsonl into the index (what `clawarena view` does before it
  listens), timed K times;
- the list's first page from the API, and one filtered page (attributed=yes&outcome=pass over
  every row), K times;
- time to first paint in headless Chromium (Debian's; scripts/install-chromium.sh): from the start
  of navigation to the page's `trial-list-painted` mark (its first 100 rows drawn), and the
  browser's first-contentful-paint, over K fresh page loads;
- end to end: from spawning `clawarena view RUN --port 0` (a new process: imports, index, server)
  to the list painted in the browser (already running), K times.
The target is under 2 s for 10,000 trials; the figures are medians, with the ratio to the target.
"""

from __future__ import annotations

import argparse
import statistics
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from clawarena.server.serve import start_in_thread  # noqa: E402
from clawarena.view.app import build_app  # noqa: E402
from clawarena.view.index import TrialIndex, open_runs  # noqa: E402

CHROMIUM = Path("/usr/bin/chromium")
TARGET_S = 2.0


def make_run(folder: Path, trials: int) -> Path:
    cmd = [sys.executable, "-m", "clawarena.cli", "run", "--suite", "workspace", "--agent", "oracle", "--trials", str(trials),
           "--workers", "2", "--runs-dir", str(folder), "--run-id", "oracle"]  # fmt: skip
    t = time.perf_counter()
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    print(f"made the run: {time.perf_counter() - t:.0f} s")
    return folder / "oracle"


def median_ms(samples: list[float]) -> str:
    return f"{statistics.median(samples) * 1000:.0f} ms (min {min(samples) * 1000:.0f}, max {max(samples) * 1000:.0f})"


def measure(run: Path, repeats: int) -> None:
    opens = []
    for _ in range(repeats):
        t = time.perf_counter()
        index = TrialIndex(open_runs([run]))
        opens.append(time.perf_counter() - t)
    print(f"trials: {len(index.rows)}; trials.jsonl {run.joinpath('trials.jsonl').stat().st_size / 1e6:.1f} MB")
    print(f"open the run (index):            {median_ms(opens)}")
    app = build_app(index)
    server = start_in_thread(app)
    try:
        import httpx

        with httpx.Client(base_url=server.url) as client:
            first, filtered = [], []
            for _ in range(repeats):
                t = time.perf_counter()
                client.get("/api/trials", params={"limit": 100}).raise_for_status()
                first.append(time.perf_counter() - t)
                t = time.perf_counter()
                client.get("/api/trials", params={"limit": 100, "attributed": "no", "outcome": "pass", "sort": "tool_calls", "desc": "1"}).raise_for_status()
                filtered.append(time.perf_counter() - t)
        print(f"API first page (100 rows):       {median_ms(first)}")
        print(f"API filtered and sorted page:    {median_ms(filtered)}")
        paint(server.url, repeats, opens)
    finally:
        server.stop()


def paint(url: str, repeats: int, opens: list[float]) -> None:
    if not CHROMIUM.exists():
        print(f"first paint: skipped ({CHROMIUM} is missing: scripts/install-chromium.sh)")
        return
    from playwright.sync_api import sync_playwright

    marks, fcps = [], []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=["--no-sandbox", "--disable-gpu"])
        for _ in range(repeats + 1):  # the first load warms the browser's own caches and is not counted
            page = browser.new_page(viewport={"width": 1400, "height": 1000})
            page.goto(f"{url}/")
            page.wait_for_selector("body[data-ready=list]", state="attached")
            mark = page.evaluate("() => performance.getEntriesByName('trial-list-painted')[0].startTime")
            fcp = page.evaluate("() => (performance.getEntriesByName('first-contentful-paint')[0] || {startTime: NaN}).startTime")
            rows = page.locator("#trial-rows tr").count()
            page.close()
            marks.append(mark / 1000)
            fcps.append(fcp / 1000)
        browser.close()
    marks, fcps = marks[1:], fcps[1:]
    print(f"browser: first contentful paint  {median_ms(fcps)}")
    print(f"browser: trial list painted      {median_ms(marks)} ({rows} rows drawn)")
    total = statistics.median(opens) + statistics.median(marks)
    print(f"opening the run + list painted:  {total * 1000:.0f} ms = {total / TARGET_S:.2f} x the {TARGET_S:.0f} s target")


def end_to_end(run: Path, repeats: int) -> None:
    """Spawn the command as a user would and time until the list is drawn."""
    if not CHROMIUM.exists():
        return
    from playwright.sync_api import sync_playwright

    samples = []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=["--no-sandbox", "--disable-gpu"])
        for _ in range(repeats):
            page = browser.new_page(viewport={"width": 1400, "height": 1000})
            t = time.perf_counter()
            proc = subprocess.Popen([sys.executable, "-m", "clawarena.cli", "view", str(run), "--port", "0"],
                                    stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)  # fmt: skip
            try:
                url = None
                for line in proc.stdout:
                    found = re.search(r"http://127\.0\.0\.1:\d+", line)
                    if found:
                        url = found.group(0)
                        break
                if url is None:
                    raise SystemExit("clawarena view printed no address")
                page.goto(f"{url}/")
                page.wait_for_selector("body[data-ready=list]", state="attached")
                samples.append(time.perf_counter() - t)
            finally:
                page.close()
                proc.terminate()
                proc.wait()
        browser.close()
    total = statistics.median(samples)
    print(f"end to end (spawn -> painted):   {median_ms(samples)} = {total / TARGET_S:.2f} x the {TARGET_S:.0f} s target")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--run", type=Path, help="an existing run folder (default: make one)")
    parser.add_argument("--trials", type=int, default=136, help="trials per scenario when making the run (136: 10,064 trials)")
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    if args.run:
        measure(args.run, args.repeats)
        end_to_end(args.run, args.repeats)
        return
    with tempfile.TemporaryDirectory() as tmp:
        run = make_run(Path(tmp), args.trials)
        measure(run, args.repeats)
        end_to_end(run, args.repeats)


if __name__ == "__main__":
    main()
