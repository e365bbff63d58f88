"""Retries with exponential backoff and jitter, and per-endpoint concurrency limits."""

from __future__ import annotations

import asyncio
import random
import threading
import time
import weakref
from collections.abc import Awaitable, Callable
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
    async_sleep: Callable[[float], Awaitable[None]] = asyncio.sleep

    def delay(self, attempt: int, rng: random.Random) -> float:
        return rng.uniform(0, min(self.max_delay, self.base_delay * 2**attempt))  # "full jitter"


def _wait_or_give_up(exc: Exception, attempt: int, retryable: Callable[[Exception], bool], policy: RetryPolicy, what: str, rng: random.Random) -> float:
    """How long to wait before the next attempt; re-raise what is not retryable, give up past the budget."""
    if not retryable(exc):
        raise exc
    if attempt >= policy.max_retries:
        raise InfrastructureError(f"{what}: giving up after {attempt + 1} attempts: {type(exc).__name__}: {exc}") from exc
    return policy.delay(attempt, rng)


def call_with_retries(fn: Callable[[], T], retryable: Callable[[Exception], bool], policy: RetryPolicy, what: str) -> tuple[T, int]:
    """Call `fn`; on a retryable error wait and try again; give up as InfrastructureError."""
    rng = random.Random()
    attempt = 0
    while True:
        try:
            return fn(), attempt
        except Exception as exc:
            policy.sleep(_wait_or_give_up(exc, attempt, retryable, policy, what, rng))
            attempt += 1


async def acall_with_retries(fn: Callable[[], Awaitable[T]], retryable: Callable[[Exception], bool], policy: RetryPolicy, what: str) -> tuple[T, int]:
    """`call_with_retries` for a coroutine: the waits yield to the other trials on the loop."""
    rng = random.Random()
    attempt = 0
    while True:
        try:
            return await fn(), attempt
        except Exception as exc:
            await policy.async_sleep(_wait_or_give_up(exc, attempt, retryable, policy, what, rng))
            attempt += 1


def worker_share(size: int, workers: int) -> int:
    """Each of `workers` processes gets an equal part of an endpoint's limit, so the sum over the
    workers never exceeds it (no lock shared between processes or nodes). The runner refuses
    more workers than the limit (`check_endpoint_shares`), so every share is at least one."""
    return max(1, size // max(1, workers))


_LIMITS: dict[str, threading.BoundedSemaphore] = {}
_LIMITS_LOCK = threading.Lock()
# one asyncio semaphore per (event loop, endpoint): a semaphore belongs to the loop that uses it
_ASYNC_LIMITS: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, dict[str, asyncio.Semaphore]] = weakref.WeakKeyDictionary()


def endpoint_limit(key: str, size: int) -> threading.BoundedSemaphore:
    """One semaphore per provider endpoint, shared by every thread in the process."""
    with _LIMITS_LOCK:
        sem = _LIMITS.get(key)
        if sem is None:
            sem = _LIMITS[key] = threading.BoundedSemaphore(size)
        return sem


def async_endpoint_limit(key: str, size: int) -> asyncio.Semaphore:
    """One semaphore per provider endpoint for the trials on the running loop (a worker runs one loop)."""
    loop = asyncio.get_running_loop()
    with _LIMITS_LOCK:
        per_loop = _ASYNC_LIMITS.setdefault(loop, {})
        sem = per_loop.get(key)
        if sem is None:
            sem = per_loop[key] = asyncio.Semaphore(size)
        return sem
