"""Executors run work units concurrently; results come back to one writer in the caller.

`local` uses a thread pool: model agents spend their time waiting on the
network, and scripted trials take milliseconds. Executors register by name so
a Ray backend can be added without touching the runner.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from typing import Protocol, TypeVar

from clawarena.registry import Registry

T = TypeVar("T")
R = TypeVar("R")


class Executor(Protocol):
    def map_unordered(self, fn: Callable[[T], R], items: Iterable[T]) -> Iterator[R]: ...


class LocalExecutor:
    """A bounded thread pool; at most `workers` units in flight, so an interrupt loses few."""

    def __init__(self, workers: int = 1):
        self.workers = max(1, workers)

    def map_unordered(self, fn: Callable[[T], R], items: Iterable[T]) -> Iterator[R]:
        pending: set[Future[R]] = set()
        source = iter(items)
        pool = ThreadPoolExecutor(max_workers=self.workers, thread_name_prefix="clawarena")
        try:
            for item in source:
                pending.add(pool.submit(fn, item))
                if len(pending) >= self.workers:
                    done, pending = wait(pending, return_when=FIRST_COMPLETED)
                    for f in done:
                        yield f.result()
            while pending:
                done, pending = wait(pending, return_when=FIRST_COMPLETED)
                for f in done:
                    yield f.result()
        finally:
            for f in pending:
                f.cancel()
            pool.shutdown(wait=True, cancel_futures=True)


EXECUTORS: Registry[Callable[[int], Executor]] = Registry("executor")
EXECUTORS.register("local", LocalExecutor)
