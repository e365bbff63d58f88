"""Executors run a job's items concurrently; results come back, as they finish, to one writer in the caller.

Executors register by name (`--executor`), so a backend is added without touching the runner.
"""

from __future__ import annotations

from collections.abc import Callable

from clawarena.registry import Registry
from clawarena.runner.executors.base import Executor, ExecutorError, Job, bounded_unordered
from clawarena.runner.executors.process import ProcessExecutor
from clawarena.runner.executors.ray import RayExecutor
from clawarena.runner.executors.thread import ThreadExecutor

ExecutorFactory = Callable[..., Executor]  # (workers, address=None, concurrency=1) -> Executor

EXECUTORS: Registry[ExecutorFactory] = Registry("executor")
EXECUTORS.register("thread", ThreadExecutor)
EXECUTORS.register("process", ProcessExecutor)
EXECUTORS.register("ray", RayExecutor)  # ray itself is imported only when it runs

__all__ = ["EXECUTORS", "Executor", "ExecutorError", "Job", "ProcessExecutor", "RayExecutor", "ThreadExecutor", "bounded_unordered"]
