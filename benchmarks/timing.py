"""Shared timing helpers of the benchmark scripts."""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable


def timed(fn: Callable[[], object], n: int) -> list[float]:
    """Milliseconds of `n` calls of `fn`."""
    out = []
    for _ in range(n):
        t = time.perf_counter()
        fn()
        out.append((time.perf_counter() - t) * 1000)
    return out


def report(name: str, samples: list[float], width: int = 52) -> None:
    q = statistics.quantiles(samples, n=20)
    print(f"{name:<{width}} p50 {statistics.median(samples):8.3f} ms   p95 {q[18]:8.3f} ms   (n={len(samples)})")
