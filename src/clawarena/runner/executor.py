"""The executor registry's old import path; the executors live in `clawarena.runner.executors`."""

from clawarena.runner.executors import EXECUTORS, Executor, Job

__all__ = ["EXECUTORS", "Executor", "Job"]
