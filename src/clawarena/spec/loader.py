"""Load task YAML into strict models; every error names the file and the field path.

Example: `tasks/x.yaml: variants.privacy.inject[0].channel: unknown channel 'fax'`.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

import yaml
from pydantic import ValidationError

from clawarena.spec.fixtures import fixture_models
from clawarena.spec.models import Scenario, TaskSpec

BUNDLED_SUITES = Path(__file__).resolve().parent.parent / "suites"


class SpecError(Exception):
    """A task file is invalid; the message lists each problem as `file: field.path: what`."""

    def __init__(self, problems: list[str]):
        self.problems = problems
        super().__init__("\n".join(problems))


def _format_loc(loc: Iterable[Any], data: Any) -> str:
    """Dotted path with [i] for list indices; drops union tags that are not keys in the data."""
    parts: list[str] = []
    items = list(loc)
    node = data
    for i, seg in enumerate(items):
        last = i == len(items) - 1
        if isinstance(seg, int):
            parts.append(f"[{seg}]")
            node = node[seg] if isinstance(node, list) and seg < len(node) else None
            continue
        if isinstance(node, dict) and seg not in node and not last and not _is_alias_only(seg):
            continue  # a discriminated-union tag, not a field
        parts.append(("." if parts else "") + str(seg))
        node = node.get(seg) if isinstance(node, dict) else None
    return "".join(parts) or "<top>"


def _is_alias_only(seg: str) -> bool:
    return seg in {"in"}


def _format_error(err: dict[str, Any], data: Any) -> str:
    loc = _format_loc(err["loc"], data)
    kind = err["type"]
    value = err.get("input")
    name = next((s for s in reversed(err["loc"]) if isinstance(s, str)), "value")
    if kind in {"literal_error", "enum"}:
        expected = err.get("ctx", {}).get("expected", "")
        return f"{loc}: unknown {name} {value!r} (expected {expected})"
    if kind == "union_tag_invalid":
        tag = err.get("ctx", {}).get("tag")
        expected = err.get("ctx", {}).get("expected_tags", "")
        return f"{loc}: unknown {err.get('ctx', {}).get('discriminator', 'kind').strip(chr(39))} {tag!r} (expected {expected})"
    if kind == "missing":
        return f"{loc}: required field is missing"
    if kind == "extra_forbidden":
        return f"{loc}: unknown field"
    msg = err["msg"]
    if msg.startswith("Value error, "):
        msg = msg[len("Value error, ") :]
    return f"{loc}: {msg}"


def _validation_problems(path: Path, exc: ValidationError, data: Any, prefix: str = "") -> list[str]:
    problems = []
    for err in exc.errors():
        text = _format_error(err, data)
        if prefix:
            text = prefix + ("" if text.startswith("[") else ".") + text if not text.startswith("<top>") else prefix + text[5:]
        problems.append(f"{path}: {text}")
    return problems


def _read_yaml(path: Path) -> Any:
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise SpecError([f"{path}: cannot read: {exc.strerror}"]) from exc
    try:
        return yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" (line {mark.line + 1}, column {mark.column + 1})" if mark else ""
        raise SpecError([f"{path}: invalid YAML{where}: {getattr(exc, 'problem', exc)}"]) from exc


def _check_fixtures(path: Path, task: TaskSpec) -> list[str]:
    models = fixture_models()
    problems: list[str] = []
    blocks = [("fixtures", task.fixtures)] + [
        (f"variants.{name}.fixtures", v.fixtures) for name, v in task.variants.items()
    ]
    for where, fixtures in blocks:
        for service, block in fixtures.items():
            model = models.get(service)
            if model is None:
                problems.append(f"{path}: {where}.{service}: unknown service {service!r} (expected one of {sorted(models)})")
                continue
            try:
                model.model_validate(block)
            except ValidationError as exc:
                problems.extend(_validation_problems(path, exc, block, prefix=f"{where}.{service}"))
    return problems


def load_task_file(path: Path | str) -> TaskSpec:
    """Parse and validate one task file; raise SpecError naming file and fields."""
    path = Path(path)
    data = _read_yaml(path)
    if not isinstance(data, dict):
        raise SpecError([f"{path}: <top>: a task file must be a mapping, found {type(data).__name__}"])
    try:
        task = TaskSpec.model_validate(data)
    except ValidationError as exc:
        raise SpecError(_validation_problems(path, exc, data)) from None
    problems = _check_fixtures(path, task)
    if problems:
        raise SpecError(problems)
    return task


def merge_fixtures(base: dict[str, dict[str, Any]], extra: dict[str, dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Variant fixtures extend the base: lists are appended, other keys replaced."""
    out = {svc: dict(block) for svc, block in base.items()}
    for svc, block in extra.items():
        target = out.setdefault(svc, {})
        for key, value in block.items():
            if isinstance(value, list) and isinstance(target.get(key), list):
                target[key] = list(target[key]) + list(value)
            else:
                target[key] = value
    return out


def expand(task: TaskSpec, source: str = "") -> list[Scenario]:
    """One Scenario per variant, with stable ids `task-id/variant`."""
    scenarios = []
    for name, variant in task.variants.items():
        scenarios.append(
            Scenario(
                id=f"{task.id}/{name}",
                task=task,
                variant=name,
                source=source,
                attacks=variant.inject,
                fixtures=merge_fixtures(task.fixtures, variant.fixtures),
                utility=variant.utility if variant.utility is not None else task.utility,
                harm=list(task.harm) + list(variant.harm),
                judge_rubric=variant.judge_rubric or task.judge_rubric,
            )
        )
    return scenarios


def resolve_suite_dir(suite: str | Path) -> Path:
    """A suite is a bundled name (`email`) or a folder of task YAML files."""
    candidate = Path(suite)
    if candidate.is_dir():
        return candidate
    bundled = BUNDLED_SUITES / str(suite)
    if bundled.is_dir():
        return bundled
    names = sorted(p.name for p in BUNDLED_SUITES.iterdir() if p.is_dir() and not p.name.startswith("_"))
    raise SpecError([f"--suite: unknown suite {str(suite)!r}: not a folder, and not one of the bundled suites {names}"])


def bundled_suites() -> list[str]:
    return sorted(p.name for p in BUNDLED_SUITES.iterdir() if p.is_dir() and not p.name.startswith("_") and any(p.rglob("*.yaml")))


def load_suite(suite: str | Path) -> list[Scenario]:
    """Every scenario of a suite (every variant of every task), in a stable order."""
    folder = resolve_suite_dir(suite)
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
        scenarios.extend(expand(task, source=str(path)))
    if problems:
        raise SpecError(problems)
    if not scenarios:
        raise SpecError([f"{folder}: no task files (*.yaml) found"])
    return scenarios
