"""What an executor runs (a Job) and how it hands results back (unordered, as they finish)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Hashable, Iterable, Iterator
from concurrent.futures import FIRST_COMPLETED, Future, wait
from typing import Any, Protocol, TypeVar

T = TypeVar("T")
R = TypeVar("R")


class ExecutorError(Exception):
    """The executor itself failed (a worker process died), not a trial: the run can be resumed."""


class Job(Protocol[T, R]):
    """Picklable work: `setup()` once per worker (build services and worlds), then one call per item,
    awaited on the worker's event loop (`acall`), so a worker holds up to `--max-concurrency` items
    that wait on the network. Items of the same `affinity` share what a worker caches (a scenario's
    world template): executors without shared memory send them to one worker."""

    def setup(self) -> None: ...

    async def acall(self, item: T) -> R: ...

    def affinity(self, item: T) -> Hashable: ...


async def run_limited(job: Job[T, R], items: list[T], gate: asyncio.Semaphore) -> list[R]:
    """A batch's items, concurrently on the running loop, at most `gate`'s size at a time."""

    async def one(item: T) -> R:
        async with gate:
            return await job.acall(item)

    return list(await asyncio.gather(*(one(item) for item in items)))


def batch_size(concurrency: int, floor: int = 8) -> int:
    """Batches of a worker pool: at least `floor` items (fewer round trips), and enough to keep
    `concurrency` trials in flight in the worker."""
    return max(floor, concurrency)


def batches(job: Job[T, R], items: Iterable[T], size: int) -> list[list[T]]:
    """Items grouped by affinity (in order of first appearance), in batches of at most `size`."""
    groups: dict[Hashable, list[T]] = {}
    for item in items:
        groups.setdefault(job.affinity(item), []).append(item)
    return [group[i : i + size] for group in groups.values() for i in range(0, len(group), size)]


class Executor(Protocol):
    def map_unordered(self, job: Job[T, R], items: Iterable[T]) -> Iterator[R]: ...


def bounded_unordered(submit: Callable[[T], Future[R]], items: Iterable[T], limit: int) -> Iterator[R]:
    """Submit items keeping at most `limit` in flight (an interrupt loses only those) and yield
    results as they finish. On exit, whatever was not started is cancelled."""
    pending: set[Future[R]] = set()
    try:
        for item in items:
            pending.add(submit(item))
            if len(pending) >= limit:
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


def no_address(name: str, address: Any) -> None:
    if address is not None:
        raise ValueError(f"--address: the {name} executor runs on this machine and takes no address (only --executor ray does)")
