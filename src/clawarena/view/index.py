"""The trial list: every run folder's trials.jsonl read once into light rows, filtered, sorted and
paged on the server, so a 10,000-trial run opens in well under two seconds (`docs/benchmarks.md`).

A row is read with orjson, not the record model: the list needs a dozen fields, and keeps only
where each record's line starts; the trial page reads the record and its trace when it is opened. The store's rules hold: the newest
line of a unit wins, a corrupt line is skipped with a warning.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from dataclasses import asdict, dataclass, field
from operator import attrgetter
from pathlib import Path
from typing import Any

import orjson
from pydantic import ValidationError

from clawarena.records import TrialRecord
from clawarena.runner.store import RunStore, RunStoreError
from clawarena.view.links import unique_label

JUDGMENTS_FILE = "judgments.jsonl"  # runner.judging.JUDGMENTS_FILE (not imported: see _disagreements)


class ViewError(Exception):
    """Bad input to the viewer: the message names the argument or the parameter."""


@dataclass(frozen=True)
class TrialRow:
    run: str
    unit: str
    scenario: str
    task: str
    variant: str
    agent: str
    condition: str
    trial: int
    suite: str
    domain: str
    vector: str
    outcome: str
    utility: float
    harmed: bool
    harm: tuple[str, ...]  # the surfaces harmed
    attacked: bool
    attributed: bool  # attack-caused harm
    disagree: bool  # a judge's harm verdict differs from the detector's on some surface
    exposures: int
    tool_calls: int
    turns: int
    line: int  # the record's line in trials.jsonl: the run's own order

    def public(self) -> dict[str, Any]:
        out = asdict(self)
        out["harm"] = list(self.harm)
        return out


@dataclass
class RunFolder:
    label: str
    store: RunStore
    meta: dict[str, Any]
    rows: list[TrialRow] = field(default_factory=list)
    offsets: dict[str, int] = field(default_factory=dict)  # unit -> where its record's line starts in trials.jsonl
    warnings: list[str] = field(default_factory=list)

    def record(self, unit: str) -> dict[str, Any]:
        """The unit's record as stored, read when its page is opened (the list keeps only its row)."""
        with open(self.store.trials_path, "rb") as fh:
            fh.seek(self.offsets[unit])
            return _loads(fh.readline())

    def trace(self, unit: str) -> dict[str, Any]:
        """The unit's trace, whole; a trace that cannot be read is shown as its error."""
        try:
            return self.store.read_trace(TrialRecord.model_validate(self.record(unit)))
        except (RunStoreError, ValidationError, ValueError) as exc:
            return {"error": str(exc)}

    def summary(self) -> dict[str, Any]:
        config = self.meta.get("config") or {}
        return {"id": self.label, "root": str(self.store.root), "suite": config.get("suite", ""), "agents": config.get("agents", []),
                "conditions": config.get("conditions", []), "created": self.meta.get("created", ""), "trials": len(self.rows),
                "warnings": list(self.warnings)}  # fmt: skip


def _loads(line: bytes) -> Any:
    """orjson (a third of json's time on a record); json for what orjson refuses, such as the escape of
    a lone surrogate an agent once sent, which the store writes and json reads back."""
    try:
        return orjson.loads(line)
    except orjson.JSONDecodeError:
        return json.loads(line)


def _lines(path: Path) -> Iterator[tuple[int, int, bytes]]:
    """(line number, byte offset, line) of each non-empty line; a last line without its newline too."""
    data = path.read_bytes() if path.exists() else b""
    offset = 0
    for number, line in enumerate(data.split(b"\n"), start=1):
        if line.strip():
            yield number, offset, line
        offset += len(line) + 1


def _disagreements(root: Path, warnings: list[str]) -> set[str]:
    """Trials where some judge's harm verdict differs from the detector's. judgments.jsonl read as
    `runner.judging.load_judgments` reads it (the newest line of each question wins), without its
    models: the judging package costs the viewer's start more than the whole list."""
    path = Path(root) / JUDGMENTS_FILE
    latest: dict[tuple[str, str, str, str], dict[str, Any]] = {}
    for number, _, line in _lines(path):
        try:
            j = _loads(line)
            key = (j["unit_id"], j["surface"], j["judge"], j["prompt_version"])
        except (ValueError, KeyError, TypeError):
            warnings.append(f"{path}: line {number} is not a judgment: skipped")
            continue
        latest.pop(key, None)
        latest[key] = j
    return {
        j["unit_id"] for j in latest.values()
        if j.get("status") == "scored" and isinstance(j.get("verdict"), dict) and j["verdict"].get("harm") != j.get("deterministic_harm")
    }  # fmt: skip


def _row(label: str, number: int, r: dict[str, Any], disagree: set[str]) -> TrialRow:
    harm = tuple(sorted(s for s, hit in (r.get("harm") or {}).items() if hit))
    vector = str(r.get("vector") or "")
    return TrialRow(
        run=label, unit=r["unit_id"], scenario=str(r.get("scenario_id", "")), task=str(r.get("task_id", "")), variant=str(r.get("variant", "")),
        agent=str(r.get("agent", "")), condition=str(r.get("condition", "")), trial=int(r.get("trial", 0)), suite=str(r.get("suite", "")),
        domain=str(r.get("domain", "")), vector=vector, outcome=str(r.get("outcome", "")),
        utility=float(r.get("utility", 0.0)), harmed=bool(r.get("harmed")), harm=harm, attacked=bool(vector),
        attributed=bool(r.get("attack_caused")), disagree=r["unit_id"] in disagree, exposures=int(r.get("exposures", 0)),
        tool_calls=int(r.get("tool_calls", 0)), turns=int(r.get("turns", 0)), line=number,
    )  # fmt: skip


def open_run(path: Path, label: str) -> RunFolder:
    if not path.exists():
        raise ViewError(f"RUN-DIR {path}: no such folder")
    if not path.is_dir():
        raise ViewError(f"RUN-DIR {path}: not a folder")
    warnings: list[str] = []
    try:
        store = RunStore.open(path, on_warning=warnings.append)
        meta = store.meta()
    except RunStoreError as exc:
        raise ViewError(f"RUN-DIR: {exc}") from None
    folder = RunFolder(label, store, meta, warnings=warnings)
    disagree = _disagreements(store.root, warnings)
    latest: dict[str, tuple[int, int, dict[str, Any]]] = {}
    for number, offset, line in _lines(store.trials_path):
        try:
            item = _loads(line)
            unit = item["unit_id"]
            if not isinstance(unit, str):
                raise TypeError("unit_id is not a string")
        except (ValueError, KeyError, TypeError) as exc:
            warnings.append(f"{store.trials_path}: line {number} is not a trial record ({exc}): skipped")
            continue
        latest.pop(unit, None)  # a retried unit appends a newer line; the newest wins
        latest[unit] = (number, offset, item)
    for unit, (number, offset, item) in latest.items():
        try:
            folder.rows.append(_row(label, number, item, disagree))
            folder.offsets[unit] = offset
        except (TypeError, ValueError, AttributeError) as exc:
            warnings.append(f"{store.trials_path}: line {number}: {exc}: skipped")
    return folder


def open_runs(paths: Iterable[Path]) -> dict[str, RunFolder]:
    """The run folders by label: the folder's name, numbered when two share one (as the report does)."""
    out: dict[str, RunFolder] = {}
    taken: set[str] = set()
    seen: set[Path] = set()
    for path in paths:
        path = Path(path)
        resolved = path.resolve()
        if resolved in seen:
            raise ViewError(f"RUN-DIR {path}: given twice")
        seen.add(resolved)
        label = unique_label(resolved.name or "run", taken)
        out[label] = open_run(path, label)
    if not out:
        raise ViewError("RUN-DIR: give at least one run folder")
    return out


# ---- filters ------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Filter:
    """A list filter: the value a row has (or, with `many`, the values), matched against the one chosen."""

    value: Callable[[TrialRow], Any]
    many: bool = False  # `value` gives several (a trial harms several surfaces)

    def matches(self, row: TrialRow, wanted: str) -> bool:
        return wanted in self.value(row) if self.many else self.value(row) == wanted

    def count(self, rows: list[TrialRow]) -> Counter[str]:
        if self.many:
            return Counter(v for r in rows for v in self.value(r))
        return Counter(map(self.value, rows))


def _yes_no(flag: Callable[[TrialRow], bool]) -> Filter:
    return Filter(lambda r: "yes" if flag(r) else "no")


FILTERS: dict[str, Filter] = {
    "run": Filter(attrgetter("run")),
    "agent": Filter(attrgetter("agent")),
    "condition": Filter(attrgetter("condition")),
    "suite": Filter(attrgetter("suite")),
    "domain": Filter(attrgetter("domain")),
    "vector": Filter(lambda r: r.vector or "benign"),
    "outcome": Filter(attrgetter("outcome")),
    "harm": Filter(lambda r: (*r.harm, "any") if r.harmed else ("none",), many=True),
    "attributed": _yes_no(attrgetter("attributed")),
    "disagree": _yes_no(attrgetter("disagree")),
}
SORT_KEYS = ("run", "unit", "scenario", "agent", "condition", "suite", "domain", "vector", "outcome", "utility", "harmed",
             "attributed", "exposures", "tool_calls", "turns", "line")  # fmt: skip


@dataclass(frozen=True)
class Query:
    filters: dict[str, str]
    text: str = ""  # a substring of the unit id
    sort: str = "line"
    descending: bool = False
    offset: int = 0
    limit: int = 100

    def __post_init__(self) -> None:
        unknown = sorted(set(self.filters) - set(FILTERS))
        if unknown:
            raise ViewError(f"unknown filter {unknown[0]!r}; filters: {', '.join(FILTERS)}")
        if self.sort not in SORT_KEYS:
            raise ViewError(f"sort: unknown column {self.sort!r}; columns: {', '.join(SORT_KEYS)}")
        if self.offset < 0 or not 1 <= self.limit <= 1000:
            raise ViewError("offset must be >= 0 and limit between 1 and 1000")


@dataclass
class TrialIndex:
    """Every run's rows, in run order then line order, with the menu of each filter."""

    runs: dict[str, RunFolder]
    rows: list[TrialRow] = field(default_factory=list)
    facets: dict[str, dict[str, int]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.rows = [r for run in self.runs.values() for r in run.rows]
        self.by_unit = {(r.run, r.unit): r for r in self.rows}
        self.facets = {name: dict(sorted(f.count(self.rows).items())) for name, f in FILTERS.items()}

    def select(self, query: Query) -> dict[str, Any]:
        text = query.text.lower()
        chosen = [
            r for r in self.rows
            if all(FILTERS[k].matches(r, v) for k, v in query.filters.items()) and (not text or text in r.unit.lower())
        ]  # fmt: skip
        chosen.sort(key=lambda r: (getattr(r, query.sort), r.run, r.line), reverse=query.descending)
        page = chosen[query.offset : query.offset + query.limit]
        return {"total": len(chosen), "offset": query.offset, "rows": [r.public() for r in page]}

    def row(self, run: str, unit: str) -> TrialRow:
        found = self.by_unit.get((run, unit))
        if found is None:
            raise KeyError(f"no trial {unit!r} in run {run!r}")
        return found

    def counterparts(self, row: TrialRow) -> list[TrialRow]:
        """The same base task's other variants for the same agent, condition and trial (benign
        against attacked: the same principal's request, with and without the material)."""
        return [
            r for r in self.runs[row.run].rows
            if r.task == row.task and r.agent == row.agent and r.condition == row.condition and r.trial == row.trial and r.unit != row.unit
        ]  # fmt: skip
