"""Retries with exponential backoff and jitter, and per-endpoint concurrency limits."""

from __future__ import annotations

import random
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar

T = TypeVar("T")


class InfrastructureError(RuntimeError):
    """The provider could not be reached or kept failing: the trial is an error, never a result."""


@dataclass(frozen=True)
class RetryPolicy:
    max_retries: int = 5
    base_delay: float = 1.0
    max_delay: float = 60.0
    # Waits happen outside any world, so wall-clock jitter does not touch determinism.
    sleep: Callable[[float], None] = time.sleep

    def delay(self, attempt: int, rng: random.Random) -> float:
        return rng.uniform(0, min(self.max_delay, self.base_delay * 2**attempt))  # "full jitter"


def call_with_retries(fn: Callable[[], T], retryable: Callable[[Exception], bool], policy: RetryPolicy, what: str) -> tuple[T, int]:
    """Call `fn`; on a retryable error wait and try again; give up as InfrastructureError."""
    rng = random.Random()
    attempt = 0
    while True:
        try:
            return fn(), attempt
        except Exception as exc:
            if not retryable(exc):
                raise
            if attempt >= policy.max_retries:
                raise InfrastructureError(f"{what}: giving up after {attempt + 1} attempts: {type(exc).__name__}: {exc}") from exc
            policy.sleep(policy.delay(attempt, rng))
            attempt += 1


_LIMITS: dict[str, threading.BoundedSemaphore] = {}
_LIMITS_LOCK = threading.Lock()


def endpoint_limit(key: str, size: int) -> threading.BoundedSemaphore:
    """One semaphore per provider endpoint, shared by every trial in the process."""
    with _LIMITS_LOCK:
        sem = _LIMITS.get(key)
        if sem is None:
            sem = _LIMITS[key] = threading.BoundedSemaphore(size)
        return sem
