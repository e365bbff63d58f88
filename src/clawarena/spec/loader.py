"""Load task YAML into strict models; every error names the file and the field path.

Example: `tasks/x.yaml: variants.privacy.inject[0].channel: unknown channel 'fax'`.
"""

from __future__ import annotations

from pathlib import Path

from pydantic import ValidationError

from clawarena.spec import catalog
from clawarena.spec.errors import SpecError, pydantic_problems, render
from clawarena.spec.models import LOADER_CHECKS_REFERENCES, Scenario, TaskSpec, merge_fixtures
from clawarena.spec.references import reference_problems
from clawarena.spec.suite_index import BUNDLED_SUITES, bundled_suite_names, find_suite_folder
from clawarena.spec.validate import catalog_problems
from clawarena.spec.yamlread import read_yaml_mapping

__all__ = ["SpecError", "bundled_suites", "expand", "load_suite", "load_task_file", "merge_fixtures", "resolve_suite_dir"]


def load_task_file(path: Path | str) -> TaskSpec:
    """Parse and check one task file: its YAML, the task models, the cross-references inside it and
    every name it takes from the plugins' catalog. Raise SpecError listing each problem as
    `file: field.path: what (line N)`."""
    path = Path(path)
    parsed = read_yaml_mapping(path, "task file")
    data = parsed.data
    try:
        task = TaskSpec.model_validate(data, context={LOADER_CHECKS_REFERENCES: True})
    except ValidationError as exc:
        raise SpecError(render(path, pydantic_problems(exc, data), parsed.lines)) from None
    problems = reference_problems(task)
    problems += catalog_problems(task)
    if problems:
        raise SpecError(render(path, problems, parsed.lines))
    return task


def expand(task: TaskSpec, source: str = "", suite: str = "", domain: str = "") -> list[Scenario]:
    """One Scenario per variant, with stable ids `task-id/variant`."""
    scenarios = []
    for name, variant in task.variants.items():
        scenarios.append(
            Scenario(
                id=f"{task.id}/{name}",
                task=task,
                variant=name,
                source=source,
                suite=suite,
                domain=domain or suite,
                attacks=variant.inject,
                fixtures=merge_fixtures(task.fixtures, variant.fixtures),
                facts=[*task.facts, *variant.facts],
                protected=[*task.protected, *variant.protected],
                utility=variant.utility if variant.utility is not None else task.utility,
                harm=list(task.harm) + list(variant.harm),
                judge_rubric=variant.judge_rubric or task.judge_rubric,
            )
        )
    return scenarios


def resolve_suite_dir(suite: str | Path) -> Path:
    """A suite is a bundled name (`email`) or a folder of task YAML files."""
    folder = find_suite_folder(suite)
    if folder is not None:
        return folder
    names = sorted(p.name for p in BUNDLED_SUITES.iterdir() if p.is_dir() and not p.name.startswith("_"))
    raise SpecError([f"--suite: unknown suite {str(suite)!r}: not a folder, and not one of the bundled suites {names}"])


def bundled_suites() -> list[str]:
    return bundled_suite_names()


def load_suite(suite: str | Path) -> list[Scenario]:
    """Every scenario of a suite (every variant of every task), in a stable order."""
    folder = resolve_suite_dir(suite)
    catalog.load_plugins()  # a missing install is one line, not one per file
    problems: list[str] = []
    scenarios: list[Scenario] = []
    seen: dict[str, Path] = {}
    canaries: dict[str, tuple[str, Path]] = {}
    for path in sorted(folder.rglob("*.yaml")):
        try:
            task = load_task_file(path)
        except SpecError as exc:
            problems.extend(exc.problems)
            continue
        if task.id in seen:
            problems.append(f"{path}: id: task id {task.id!r} is already used by {seen[task.id]}")
            continue
        seen[task.id] = path
        for name, variant in task.variants.items():
            for i, attack in enumerate(variant.inject):
                owner = canaries.setdefault(attack.canary, (task.id, path))
                if owner[0] != task.id:
                    problems.append(f"{path}: variants.{name}.inject[{i}].canary: {attack.canary!r} is already used by task {owner[0]!r} ({owner[1]}); canaries must be unique")
        relative = path.relative_to(folder).parts
        scenarios.extend(expand(task, source=str(path), suite=folder.name, domain=relative[0] if len(relative) > 1 else ""))
    if problems:
        raise SpecError(problems)
    if not scenarios:
        raise SpecError([f"{folder}: no task files (*.yaml) found"])
    return scenarios
