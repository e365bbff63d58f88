"""`process`: a pool of worker processes, true parallelism for CPU-bound scripted trials.

Workers fork from a forkserver that imported clawarena once (`preload`): a fresh interpreter per
worker would import it again each time, which costs more than many trials. The forkserver starts
clean, so no lock or thread of the caller is forked. Each worker receives the job once (its
initializer) and builds its own services and worlds; items go out and results come back by
pickle, so the caller stays the one writer of the run store. Workers ignore SIGINT (the caller
decides what an interrupt means) and die with the caller, so a SIGKILLed run leaves no worker
behind: a thread in each worker waits on the caller's pidfd (the forkserver cannot tell: each
worker holds a copy of its liveness pipe), and the kernel kills a worker whose forkserver dies.
"""

from __future__ import annotations

import asyncio
import ctypes
import multiprocessing
import os
import select
import signal
import sys
import threading
import time
from collections.abc import Iterable, Iterator
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any, TypeVar

from clawarena.runner.executors.base import ExecutorError, Job, batch_size, batches, bounded_unordered, no_address, run_limited
from clawarena.runner.loops import Lane

T = TypeVar("T")
R = TypeVar("R")

PR_SET_PDEATHSIG = 1  # linux/prctl.h
_job: Any = None  # the worker's job, set once by its initializer
_lane: Lane | None = None  # the worker's event loop
_gate: asyncio.Semaphore | None = None  # --max-concurrency: trials in flight in this worker


def _watch(caller: int) -> None:
    """Exit the worker as soon as the caller is gone."""
    try:
        fd = os.pidfd_open(caller)
    except (AttributeError, OSError):  # no pidfd (not Linux 5.3+): look once a second
        while _alive(caller):
            time.sleep(1.0)
    else:
        select.select([fd], [], [])  # readable when the process exits
    os._exit(1)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def _die_with(caller: int) -> None:
    if sys.platform.startswith("linux"):
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL)  # the forkserver's death
    if not _alive(caller):  # gone before the watch began
        os._exit(1)
    threading.Thread(target=_watch, args=(caller,), name="clawarena-watch-caller", daemon=True).start()


def _init_worker(job: Any, caller: int, concurrency: int) -> None:
    global _job, _lane, _gate
    _die_with(caller)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    job.setup()
    _job = job
    _lane = Lane(blocking=concurrency)
    _gate = asyncio.Semaphore(concurrency)


def _call_batch(items: list[Any]) -> list[Any]:
    assert _lane is not None and _gate is not None
    return _lane.submit(run_limited(_job, items, _gate)).result()


class ProcessExecutor:
    # Items travel in batches of one affinity, so each worker builds a scenario's world once
    # (items spread over workers would each build it: a first build costs more than a trial),
    # and a batch holds at least --max-concurrency items, run concurrently on the worker's loop.
    # Two batches in flight per worker, so a worker never idles waiting for the next one; a kill
    # loses at most those.
    in_flight_per_worker = 2
    preload = ["clawarena.runner.run"]  # the trial job and every service it builds worlds from

    def __init__(self, workers: int = 1, address: str | None = None, concurrency: int = 1):
        no_address("process", address)
        self.workers = max(1, workers)
        self.concurrency = max(1, concurrency)

    def map_unordered(self, job: Job[T, R], items: Iterable[T]) -> Iterator[R]:
        context = multiprocessing.get_context("forkserver")
        context.set_forkserver_preload(self.preload)  # takes effect when the forkserver starts (once per process)
        pool = ProcessPoolExecutor(
            max_workers=self.workers,
            mp_context=context,
            initializer=_init_worker,
            initargs=(job, os.getpid(), self.concurrency),
        )
        try:
            work = batches(job, items, batch_size(self.concurrency))
            for results in bounded_unordered(lambda batch: pool.submit(_call_batch, batch), work, self.workers * self.in_flight_per_worker):
                yield from results
        except BrokenProcessPool as exc:
            raise ExecutorError(f"a worker process died ({exc}); out of memory, or killed?") from None
        finally:
            pool.shutdown(wait=True, cancel_futures=True)
