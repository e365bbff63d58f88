"""The task format: strict models, the YAML loader and variant expansion."""

# Lazy (PEP 562): importing a light submodule such as `spec.suite_index` must not pull in pydantic
# and the models, which a cached `tasks list` never needs.
__all__ = ["Scenario", "SpecError", "TaskSpec", "load_suite", "load_task_file"]


def __getattr__(name: str):
    if name in ("Scenario", "TaskSpec"):
        from clawarena.spec import models

        return getattr(models, name)
    if name in ("SpecError", "load_suite", "load_task_file"):
        from clawarena.spec import loader

        return getattr(loader, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
