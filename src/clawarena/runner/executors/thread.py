"""`thread`: a thread pool in this process. Right for model agents, which spend their time waiting
on the network; under the GIL a second thread gains nothing for CPU-bound scripted trials."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

from clawarena.runner.executors.base import Job, bounded_unordered, no_address

T = TypeVar("T")
R = TypeVar("R")


class ThreadExecutor:
    def __init__(self, workers: int = 1, address: str | None = None):
        no_address("thread", address)
        self.workers = max(1, workers)

    def map_unordered(self, job: Job[T, R], items: Iterable[T]) -> Iterator[R]:
        job.setup()  # one set of services and worlds, shared by the threads
        pool = ThreadPoolExecutor(max_workers=self.workers, thread_name_prefix="clawarena")
        try:
            yield from bounded_unordered(lambda item: pool.submit(job, item), items, self.workers)
        finally:
            pool.shutdown(wait=True, cancel_futures=True)
