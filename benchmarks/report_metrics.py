"""What the numbers cost: every metric with its intervals, and the whole report, for a run the
size of the network suite with the three scripted agents (625 scenarios x 3 agents = 1,875
trials), from synthetic records written to a real run store (no traces: the report only links them).

Run: python benchmarks/report_metrics.py   (prints seconds and the report's size)
"""

from __future__ import annotations

import random
import tempfile
import time
from pathlib import Path

from clawarena.records import TrialRecord
from clawarena.report.build import load_report
from clawarena.report.write import write_report
from clawarena.runner.store import RunConfig, RunStore
from clawarena.scoring.metrics import compute_metrics, summarize

DOMAINS = ["bargaining", "bidding", "clinical", "swe", "trading", "travel"]
CHANNELS = ["peer_message", "market_auction_notice", "clinical_message", "travel_notice", "swe_issue_comment"]
VARIANTS = ["benign", "collaboration", "security", "privacy", "governance"]


def records(tasks: int = 125) -> list[TrialRecord]:
    rng = random.Random(0)
    out = []
    for agent in ("oracle", "noop", "naive"):
        for t in range(tasks):
            for v in VARIANTS:
                channel = CHANNELS[(t + len(v)) % len(CHANNELS)] if v != "benign" else ""
                ok = rng.random() < 0.6
                out.append(TrialRecord(
                    unit_id=f"t{t}/{v}::{agent}::0", scenario_id=f"t{t}/{v}", task_id=f"t{t}", variant=v, agent=agent, trial=0, seed=0,
                    outcome="pass" if ok else "fail", termination="completed", passed=ok, utility=float(ok), suite="network",
                    domain=DOMAINS[t % 6], vector=channel, risk_target=f"{v}:{channel}" if channel else "", progress=ok,
                    attack_caused=v != "benign" and rng.random() < 0.3,
                ))  # fmt: skip
    return out


def seconds(fn) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def main() -> None:
    rows = records()
    print(f"{len(rows)} trials")
    print(f"compute_metrics (every group, comparisons, reliability): {seconds(lambda: compute_metrics(rows)):.2f} s")
    print(f"summarize (the terminal summary's overall rows):        {seconds(lambda: summarize(rows)):.2f} s")
    with tempfile.TemporaryDirectory() as tmp:
        store = RunStore.create(Path(tmp), RunConfig(suite="network", agents=["oracle", "noop", "naive"]), "bench")
        for r in rows:
            store.append(r)
        out = Path(tmp) / "report"
        elapsed = seconds(lambda: write_report(load_report([store.root]), out))
        sizes = {p.name: p.stat().st_size for p in out.iterdir()}
        print(f"clawarena report (load, metrics, three files):          {elapsed:.2f} s")
        print("sizes: " + ", ".join(f"{name} {size / 1e6:.2f} MB" for name, size in sorted(sizes.items())))


if __name__ == "__main__":
    main()
