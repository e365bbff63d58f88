"""ToolHub's cost (issue 14): import, index build, queries.

Run: python benchmarks/toolhub.py

In one process, over the catalogue `clawarena tools` shows (every service's tools and the
gateway's): the time to import bm25s, the first build (which also computes the tools' JSON
schemas), a rebuild, a cached lookup, and the median and 95th percentile of a query, with and
without seeded distractors.
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

QUERIES = ["send an email to a colleague", "share a file with someone", "post a message in a channel", "create a calendar event",
           "book a flight", "place a stock order", "look up a patient's record", "merge a pull request"]  # fmt: skip


def timed(fn, repeats: int) -> list[float]:
    out = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        out.append(time.perf_counter() - t0)
    return out


def main() -> None:
    t0 = time.perf_counter()
    import bm25s  # noqa: F401

    imported = time.perf_counter() - t0
    from clawarena.commands.tools import catalogue
    from clawarena.services.toolhub import ToolHub, hub

    tools = catalogue()
    first = timed(lambda: ToolHub(tools), 1)[0]
    rebuild = statistics.median(timed(lambda: ToolHub(tools), 5))
    hub(tools)
    cached = statistics.median(timed(lambda: hub(tools), 50))
    index = hub(tools)
    queries = sorted(t for q in QUERIES * 25 for t in timed(lambda q=q: index.retrieve(q, k=5), 1))
    with_distractors = statistics.median(timed(lambda: index.retrieve("share a file with someone", services=["drive"], k=5, distractors=5, seed=1), 50))
    print(f"tools indexed: {len(index)}")
    print(f"import bm25s: {imported * 1000:.0f} ms")
    print(f"first build (schemas computed): {first * 1000:.0f} ms; rebuild: {rebuild * 1000:.0f} ms; cached hub(): {cached * 1000:.2f} ms")
    print(f"query (k=5): median {statistics.median(queries) * 1000:.2f} ms, p95 {queries[int(len(queries) * 0.95)] * 1000:.2f} ms over {len(queries)}")
    print(f"query with 5 distractors: median {with_distractors * 1000:.2f} ms")


if __name__ == "__main__":
    main()
