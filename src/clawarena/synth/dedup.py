"""The near-duplicate gate: a candidate task must not be a near copy of a task already indexed.

Each task becomes two sets, compared by Jaccard (|A & B| / |A | B|), which is deterministic and
explainable without a model:
- `prompt`: word shingles (runs of `PROMPT_SHINGLE` words) of the principal-facing text, every
  agent's `instruction` and `standing` instructions, lower-cased, punctuation dropped;
- `fixtures`: the world the fixtures make (the base and every variant's). Per `service.table`, word shingles of long text fields
  and `field=value` for short ones; ids are stripped (fields named `id`/`*_id`, and any value equal
  to an id the task declares: a principal, agent, organisation or fixture row), so renaming ids
  does not hide a copy. Filler rows are generated at run time and shared by every task: left out.
A candidate is a near duplicate when either score reaches its threshold; each tripped score is a
diagnostic naming the component at fault (`prompt` or `fixtures`), as the gate loop requires.
"""

from __future__ import annotations

import hashlib
import os
import re
import tempfile
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any, Literal

from pydantic import Field, ValidationError

from clawarena.spec.base import Strict
from clawarena.spec.errors import SpecError
from clawarena.spec.loader import load_suite, resolve_suite_dir
from clawarena.spec.models import TaskSpec
from clawarena.spec.suite_index import default_cache_dir
from clawarena.spec.yamlread import read_yaml_mapping

# A fingerprint depends on this module's rules: a change to them must not reuse old entries.
_CODE_KEY = hashlib.sha256(Path(__file__).read_bytes()).digest()

__all__ = [
    "DedupDiagnostic",
    "DedupThresholds",
    "DedupVerdict",
    "SimilarityIndex",
    "TaskFingerprint",
    "check_candidate",
    "fingerprint",
    "jaccard",
]

Component = Literal["prompt", "fixtures"]

PROMPT_SHINGLE = 3  # word trigrams: a few changed words cost a few shingles, shared phrasing rarely runs 3 words
FIXTURE_SHINGLE = 3
SHORT_WORDS = 3  # a string of at most this many words is one `field=value` element, not shingled

_WORD = re.compile(r"[a-z0-9]+")


class DedupThresholds(Strict):
    """Scores at or above these make a candidate a near duplicate. The defaults sit above every
    nearest-neighbour score among the bundled hand-written tasks (docs/synthesis.md gives the
    distribution) and below what a light rewording or a reused world scores."""

    prompt: float = Field(default=0.4, gt=0, le=1, description="instruction shingle Jaccard that trips the gate")
    fixtures: float = Field(default=0.6, gt=0, le=1, description="fixture fingerprint Jaccard that trips the gate")


class TaskFingerprint(Strict):
    task_id: str
    suite: str = ""
    prompt: frozenset[str]
    fixtures: frozenset[str]


class DedupDiagnostic(Strict):
    component: Component
    message: str


class DedupVerdict(Strict):
    passed: bool
    nearest: str | None = Field(description="the indexed task closest to the candidate (highest score/threshold ratio); None for an empty index")
    prompt_score: float = Field(ge=0, le=1, description="instruction similarity to `nearest`")
    fixtures_score: float = Field(ge=0, le=1, description="fixture similarity to `nearest`")
    tripped: list[Component] = Field(default=[], description="the thresholds the candidate reached against some indexed task")
    diagnostics: list[DedupDiagnostic] = []


def _words(text: str) -> list[str]:
    return _WORD.findall(text.lower())


def _shingles(words: list[str], k: int) -> Iterator[str]:
    if len(words) <= k:
        if words:
            yield " ".join(words)
        return
    for i in range(len(words) - k + 1):
        yield " ".join(words[i : i + k])


def prompt_set(task: TaskSpec) -> frozenset[str]:
    text = "\n".join(part for agent in task.agents for part in (agent.instruction, agent.standing) if part)
    return frozenset(_shingles(_words(text), PROMPT_SHINGLE))


def _worlds(task: TaskSpec) -> list[dict[str, dict[str, Any]]]:
    """The base fixtures and what each variant adds (appended rows, replaced tables)."""
    return [task.fixtures, *(task.variants[name].fixtures for name in sorted(task.variants))]


def _declared_ids(task: TaskSpec) -> set[str]:
    ids = {p.id for p in task.principals} | {a.id for a in task.agents} | {o.id for o in task.organisations}
    for tables in (t for world in _worlds(task) for t in world.values()):
        for rows in tables.values():
            for row in rows if isinstance(rows, list) else []:
                if isinstance(row, dict) and isinstance(row.get("id"), str):
                    ids.add(row["id"])
    return ids


def _is_id_key(key: str) -> bool:
    return key == "id" or key.endswith(("_id", "_ids"))


def _walk(value: Any, table: str, field: str, ids: set[str], out: set[str]) -> None:
    if isinstance(value, dict):
        for key, inner in value.items():
            if not _is_id_key(str(key)):
                _walk(inner, table, f"{field}.{key}" if field else str(key), ids, out)
    elif isinstance(value, list):
        for inner in value:
            _walk(inner, table, field, ids, out)
    elif value is None or (isinstance(value, str) and value in ids):
        return
    else:
        words = _words(str(value))
        if len(words) <= SHORT_WORDS:
            out.add(f"{table}.{field}={' '.join(words)}")
        else:
            out.update(f"{table}|{s}" for s in _shingles(words, FIXTURE_SHINGLE))


def fixture_set(task: TaskSpec) -> frozenset[str]:
    ids = _declared_ids(task)
    out: set[str] = set()
    for world in _worlds(task):
        for service, tables in sorted(world.items()):
            for table, rows in sorted(tables.items()):
                name = f"{service}.{table}"
                out.add(name)
                _walk(rows, name, "", ids, out)
    return frozenset(out)


def fingerprint(task: TaskSpec, suite: str = "") -> TaskFingerprint:
    return TaskFingerprint(task_id=task.id, suite=suite, prompt=prompt_set(task), fixtures=fixture_set(task))


def jaccard(a: frozenset[str], b: frozenset[str]) -> float:
    if not a and not b:
        return 0.0  # two empty sets say nothing about copying
    return len(a & b) / len(a | b)


class SimilarityIndex:
    """Fingerprints of the tasks a candidate must not copy, in a stable (task id) order."""

    def __init__(self, entries: Iterable[TaskFingerprint]):
        by_id: dict[str, TaskFingerprint] = {}
        for entry in entries:
            by_id.setdefault(entry.task_id, entry)  # a suite's scenarios repeat their task once per variant
        self.entries: tuple[TaskFingerprint, ...] = tuple(by_id[k] for k in sorted(by_id))

    @classmethod
    def from_tasks(cls, tasks: Iterable[TaskSpec], suite: str = "") -> SimilarityIndex:
        return cls(fingerprint(t, suite) for t in tasks)

    @classmethod
    def from_suites(cls, suites: Iterable[str | Path]) -> SimilarityIndex:
        """Index the tasks of bundled suites (`workspace`) or folders of task YAML.

        The fingerprint needs the task model only, so each file is read and validated against it
        without the catalog's checks (Cedar schema validation is most of a strict load); a file that
        does not validate falls back to the whole suite's strict load, whose SpecError names it."""
        entries: list[TaskFingerprint] = []
        seen: set[str] = set()
        for suite in suites:
            folder = resolve_suite_dir(suite)
            try:
                found = [_cached_fingerprint(path, folder.name) for path in sorted(folder.rglob("*.yaml"))]
            except (SpecError, ValidationError):
                found = [fingerprint(s.task, folder.name) for s in load_suite(folder)]
            for entry in found:
                if entry.task_id not in seen:
                    seen.add(entry.task_id)
                    entries.append(entry)
        return cls(entries)

    def adding(self, entry: TaskFingerprint) -> SimilarityIndex:
        """This index with one more task (a synthesized task just accepted)."""
        return SimilarityIndex([*self.entries, entry])

    def without(self, task_id: str) -> SimilarityIndex:
        return SimilarityIndex(e for e in self.entries if e.task_id != task_id)

    def __len__(self) -> int:
        return len(self.entries)

    def __contains__(self, task_id: object) -> bool:
        return any(e.task_id == task_id for e in self.entries)


def _cached_fingerprint(path: Path, suite: str) -> TaskFingerprint:
    """The file's fingerprint, from the cache when the same bytes were fingerprinted by this code
    before (`$CLAWARENA_CACHE_DIR/fingerprints`; written atomically, a bad entry is recomputed)."""
    raw = path.read_bytes()
    key = hashlib.sha256(_CODE_KEY + b"\0" + suite.encode() + b"\0" + raw).hexdigest()
    folder = default_cache_dir() / "fingerprints"
    entry = folder / f"{key}.json"
    try:
        return TaskFingerprint.model_validate_json(entry.read_bytes())
    except (OSError, ValidationError, ValueError):
        pass
    found = fingerprint(TaskSpec.model_validate(read_yaml_mapping(path, "task file").data), suite)
    try:
        folder.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile("wb", dir=folder, delete=False, suffix=".tmp") as tmp:
            tmp.write(found.model_dump_json().encode())
        os.replace(tmp.name, entry)
    except OSError:
        pass  # a read-only cache only costs the recomputation
    return found


def _scores(candidate: TaskFingerprint, entry: TaskFingerprint) -> tuple[float, float]:
    return jaccard(candidate.prompt, entry.prompt), jaccard(candidate.fixtures, entry.fixtures)


def check_candidate(task: TaskSpec | TaskFingerprint, index: SimilarityIndex, thresholds: DedupThresholds | None = None) -> DedupVerdict:
    """Compare a candidate with every indexed task. `nearest` is the task with the highest
    score-to-threshold ratio over both components (ties: the first task id), so the reported
    scores are the ones closest to tripping; each component that reaches its threshold against
    any task is a diagnostic naming that task."""
    thresholds = thresholds or DedupThresholds()
    candidate = task if isinstance(task, TaskFingerprint) else fingerprint(task)
    best: tuple[float, TaskFingerprint, float, float] | None = None
    worst: dict[Component, tuple[float, str]] = {}
    for entry in index.entries:
        p, f = _scores(candidate, entry)
        ratio = max(p / thresholds.prompt, f / thresholds.fixtures)
        if best is None or ratio > best[0]:
            best = (ratio, entry, p, f)
        for component, score, limit in (("prompt", p, thresholds.prompt), ("fixtures", f, thresholds.fixtures)):
            if score >= limit and score > worst.get(component, (-1.0, ""))[0]:
                worst[component] = (score, entry.task_id)
    if best is None:
        return DedupVerdict(passed=True, nearest=None, prompt_score=0.0, fixtures_score=0.0)
    what = {"prompt": "instruction", "fixtures": "fixture"}
    limit_of = {"prompt": thresholds.prompt, "fixtures": thresholds.fixtures}
    tripped: list[Component] = [c for c in ("prompt", "fixtures") if c in worst]
    diagnostics = [
        DedupDiagnostic(
            component=c,
            message=f"{what[c]} similarity {worst[c][0]:.2f} to task {worst[c][1]!r} reaches the near-duplicate threshold {limit_of[c]:.2f}",
        )
        for c in tripped
    ]
    return DedupVerdict(
        passed=not tripped,
        nearest=best[1].task_id,
        prompt_score=best[2],
        fixtures_score=best[3],
        tripped=tripped,
        diagnostics=diagnostics,
    )
