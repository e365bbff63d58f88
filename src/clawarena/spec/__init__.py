"""The task format: strict models, the YAML loader and variant expansion."""

from clawarena.spec.loader import SpecError, load_suite, load_task_file
from clawarena.spec.models import Scenario, TaskSpec

__all__ = ["Scenario", "SpecError", "TaskSpec", "load_suite", "load_task_file"]
