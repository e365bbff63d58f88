"""Event loops for trials: one per thread for synchronous callers, and a `Lane` per worker that
holds many trials at once (model agents await the network; the rest of a trial is quick CPU work)."""

from __future__ import annotations

import asyncio
import atexit
import threading
from collections.abc import Callable, Coroutine
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any, ParamSpec, TypeVar

T = TypeVar("T")
P = ParamSpec("P")

_local = threading.local()


def run_sync(coro: Coroutine[Any, Any, T]) -> T:
    """Run a coroutine to completion from synchronous code, on this thread's own loop (kept, so
    clients bound to it stay usable). From inside a running loop it runs on a helper thread."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        runner = getattr(_local, "runner", None)
        if runner is None:
            runner = _local.runner = asyncio.Runner()
            _RUNNERS.append(runner)
        box: list[T] = []
        runner.run(_into(box, coro))  # the task's result stays None: see _into
        return box[0]
    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="clawarena-sync") as pool:
        return pool.submit(run_sync, coro).result()


_RUNNERS: list[asyncio.Runner] = []  # every thread's loop, closed at exit


@atexit.register
def _close_runners() -> None:
    """Close the model clients on each thread's loop, then the loop (unclosed aiohttp sessions warn)."""
    from clawarena.llm.providers import close_clients

    while _RUNNERS:
        runner = _RUNNERS.pop()
        try:
            runner.run(close_clients())
            runner.close()
        except Exception:  # noqa: BLE001 - at exit, a loop still in use elsewhere is left as it is
            pass


async def _into(box: list[Any], coro: Coroutine[Any, Any, Any]) -> None:
    """Await `coro` into `box`. On the main thread asyncio.Runner's SIGINT bookkeeping builds the
    repr of its finished task, result included (CPython 3.11 enum error message): a trial's result
    holds its world, ~0.1 s of repr per trial."""
    box.append(await coro)


def synchronous(fn: Callable[P, Coroutine[Any, Any, T]], name: str) -> Callable[P, T]:
    """The blocking twin of a coroutine function, same parameters, run by `run_sync`."""

    def twin(*args: P.args, **kwargs: P.kwargs) -> T:
        return run_sync(fn(*args, **kwargs))

    twin.__name__ = twin.__qualname__ = name
    twin.__doc__ = f"`{fn.__name__}` from synchronous code, on this thread's own event loop."
    return twin


class Lane:
    """An event loop on its own thread. `submit` schedules a coroutine from any thread and returns
    a concurrent Future; `blocking` threads serve agents whose turns block (harness subprocesses)."""

    def __init__(self, blocking: int = 8, name: str = "clawarena-lane"):
        self.loop = asyncio.new_event_loop()
        self.loop.set_default_executor(ThreadPoolExecutor(max_workers=max(1, blocking), thread_name_prefix=f"{name}-blocking"))
        self._thread = threading.Thread(target=self.loop.run_forever, name=name, daemon=True)
        self._thread.start()

    def submit(self, coro: Coroutine[Any, Any, T]) -> Future[T]:
        return asyncio.run_coroutine_threadsafe(coro, self.loop)

    def close(self) -> None:
        """Cancel what still runs (an interrupted run), stop the loop and join its thread."""
        if self.loop.is_closed():
            return

        async def drain() -> None:
            tasks = [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]
            for t in tasks:
                t.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
            from clawarena.llm.providers import close_clients

            await close_clients()  # the model clients bound to this loop
            await self.loop.shutdown_default_executor()

        asyncio.run_coroutine_threadsafe(drain(), self.loop).result()
        self.loop.call_soon_threadsafe(self.loop.stop)
        self._thread.join()
        self.loop.close()
