"""`thread`: trials on one event loop in this process (a `Lane`), `workers x max_concurrency` in
flight. Right for model agents, which spend their time awaiting the network: one loop holds many
model calls. CPU-bound scripted trials run one at a time here (under the GIL threads would gain
nothing either); `process` runs those in parallel."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import TypeVar

from clawarena.runner.executors.base import Job, bounded_unordered, no_address
from clawarena.runner.loops import Lane

T = TypeVar("T")
R = TypeVar("R")


class ThreadExecutor:
    def __init__(self, workers: int = 1, address: str | None = None, concurrency: int = 1):
        no_address("thread", address)
        self.workers = max(1, workers)
        self.concurrency = max(1, concurrency)

    @property
    def in_flight(self) -> int:
        return self.workers * self.concurrency

    def map_unordered(self, job: Job[T, R], items: Iterable[T]) -> Iterator[R]:
        job.setup()  # one set of services and worlds, shared by the trials on the loop
        lane = Lane(blocking=self.in_flight)  # a thread per blocking harness turn, none held by the rest
        try:
            yield from bounded_unordered(lambda item: lane.submit(job.acall(item)), items, self.in_flight)
        finally:
            lane.close()
