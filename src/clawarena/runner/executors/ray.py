"""`ray`: trials as Ray actor calls, on this machine or a cluster (`--address auto|ray://HOST:PORT`).

The job goes into the object store once (`ray.put`); one actor per worker receives it and runs
`setup` once (services and worlds), then batches of one affinity, like the process pool. Records
and traces come back to the driver, which stays the one writer of the run store. Ray is optional:
it is imported only when this executor runs (`pip install 'clawarena[ray]'`).
"""

from __future__ import annotations

import asyncio
import importlib.util
import os
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any, TypeVar

from clawarena.runner.executors.base import ExecutorError, Job, batch_size, batches, run_limited

T = TypeVar("T")
R = TypeVar("R")

INSTALL_HINT = "pip install 'clawarena[ray]'"
TOKEN_FILE = Path("~/.ray/auth_token")  # written by `ray start` (Ray 2.60 turns token auth on by default)
AUTH_VARIABLES = ("RAY_AUTH_MODE", "RAY_AUTH_TOKEN", "RAY_AUTH_TOKEN_PATH")


def check_address(address: str | None) -> None:
    if address is None or address == "auto" or address.startswith("ray://"):
        return
    host, sep, port = address.rpartition(":")
    if not (sep and host and port.isdigit()):
        raise ValueError(f"--address: {address!r} is not auto, ray://HOST:PORT or HOST:PORT")


def check_installed() -> None:
    # find_spec, not import: Ray reads RAY_AUTH_MODE once imported, and `use_token_auth` may set it first
    if importlib.util.find_spec("ray") is None:
        raise ValueError(f"--executor ray: ray is not installed; {INSTALL_HINT}")


def use_token_auth(address: str | None) -> None:
    """A client of a head started by `ray start` needs RAY_AUTH_MODE=token, else Ray refuses it
    ("Missing authentication token"); whatever the user set is left alone."""
    if address is not None and not any(v in os.environ for v in AUTH_VARIABLES) and TOKEN_FILE.expanduser().is_file():
        os.environ["RAY_AUTH_MODE"] = "token"


def _first_line(exc: BaseException) -> str:
    return (str(exc).strip().splitlines() or [type(exc).__name__])[0]


def connect(ray: Any, address: str | None, workers: int) -> bool:
    """Connect (or start a local instance); True when this call started it, so it shuts it down."""
    if ray.is_initialized():  # the caller connected already (a script, a test session)
        return False
    quiet: dict[str, Any] = {"logging_level": "ERROR", "log_to_driver": False}
    try:
        if address is None:
            # A private instance on loopback ("local": not a head `ray start` left running): no
            # dashboard, a small object store (records and traces are small), a CPU per worker.
            ray.init(address="local", num_cpus=workers, include_dashboard=False, object_store_memory=128 * 1024**2, _node_ip_address="127.0.0.1", **quiet)
        else:
            ray.init(address=address, **quiet)
    except Exception as exc:  # noqa: BLE001 - ConnectionError, AuthenticationError, ...: one line, not a traceback
        raise ExecutorError(f"cannot connect to Ray at {address or 'a new local instance'}: {_first_line(exc)}") from None
    return True


class _Worker:
    """One per worker: the job is set up once, then runs batches. An async actor: Ray runs its
    calls on one event loop, so the batches in flight share --max-concurrency trials."""

    def __init__(self, job: Any, concurrency: int):
        job.setup()
        self.job = job
        self.gate = asyncio.Semaphore(concurrency)

    async def run(self, items: list[Any]) -> list[Any]:
        return await run_limited(self.job, items, self.gate)


class RayExecutor:
    in_flight_per_worker = 2  # a worker never idles waiting for its next batch; a kill loses at most these

    def __init__(self, workers: int = 1, address: str | None = None, concurrency: int = 1):
        check_address(address)
        check_installed()  # fail before a run folder exists, naming the extra to install
        self.workers = max(1, workers)
        self.address = address
        self.concurrency = max(1, concurrency)

    def map_unordered(self, job: Job[T, R], items: Iterable[T]) -> Iterator[R]:
        use_token_auth(self.address)
        import ray

        started = connect(ray, self.address, self.workers)
        actors: list[Any] = []
        try:
            job_ref = ray.put(job)  # shipped once, whatever the number of actors
            actor_class = ray.remote(num_cpus=1, max_restarts=0, max_concurrency=self.in_flight_per_worker)(_Worker)
            actors = [actor_class.remote(job_ref, self.concurrency) for _ in range(self.workers)]
            yield from self._dispatch(ray, actors, batches(job, items, batch_size(self.concurrency)))
        finally:
            for actor in actors:
                ray.kill(actor)  # an interrupt loses only the batches in flight (--resume runs them)
            if started:
                ray.shutdown()

    def _dispatch(self, ray: Any, actors: list[Any], work: list[list[Any]]) -> Iterator[Any]:
        queue = list(reversed(work))
        pending: dict[Any, Any] = {}  # object ref -> the actor running it

        def feed(actor: Any) -> None:
            if queue:
                pending[actor.run.remote(queue.pop())] = actor

        for _ in range(self.in_flight_per_worker):
            for actor in actors:
                feed(actor)
        while pending:
            done, _ = ray.wait(list(pending), num_returns=1)
            actor = pending.pop(done[0])
            yield from self._result(ray, done[0])
            feed(actor)

    @staticmethod
    def _result(ray: Any, ref: Any) -> list[Any]:
        errors = ray.exceptions
        try:
            return ray.get(ref)
        except errors.RayTaskError as exc:  # the job raised: the caller sees its own exception
            cause = getattr(exc, "cause", None)
            if isinstance(cause, BaseException):
                raise cause from None
            raise
        except (errors.RayActorError, errors.WorkerCrashedError, errors.ObjectLostError) as exc:
            raise ExecutorError(f"a Ray worker died ({_first_line(exc)}); out of memory, or a node lost?") from None
