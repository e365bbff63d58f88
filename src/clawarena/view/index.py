"""The trial list: every run folder's trials.jsonl read once into light rows, filtered, sorted and
paged on the server, so a 10,000-trial run opens in well under two seconds (`docs/benchmarks.md`).

A row is read with `json.loads`, not the record model: the list needs a dozen fields, and the
trial page reads the full record and trace when it is opened. The store's rules hold: the newest
line of a unit wins, a corrupt line is skipped with a warning.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from clawarena.records import TrialRecord
from clawarena.runner.judging import load_judgments
from clawarena.runner.jsonl import scan_jsonl
from clawarena.runner.store import RunStore, RunStoreError
from clawarena.view.links import unique_label


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
    records: dict[str, dict[str, Any]] = field(default_factory=dict)  # unit -> its record as stored
    warnings: list[str] = field(default_factory=list)

    def trace(self, unit: str) -> dict[str, Any]:
        """The unit's trace, whole; a trace that cannot be read is shown as its error."""
        try:
            return self.store.read_trace(TrialRecord.model_validate(self.records[unit]))
        except (RunStoreError, ValidationError) as exc:
            return {"error": str(exc)}

    def summary(self) -> dict[str, Any]:
        config = self.meta.get("config") or {}
        return {"id": self.label, "root": str(self.store.root), "suite": config.get("suite", ""), "agents": config.get("agents", []),
                "conditions": config.get("conditions", []), "created": self.meta.get("created", ""), "trials": len(self.rows),
                "warnings": list(self.warnings)}  # fmt: skip


def _record_line(line: bytes) -> dict[str, Any]:
    data = json.loads(line)
    if not isinstance(data, dict) or not isinstance(data.get("unit_id"), str):
        raise ValueError("not a trial record (no unit_id)")
    return data


def _disagreements(root: Path, warnings: list[str]) -> set[str]:
    out = set()
    for j in load_judgments(root, on_warning=warnings.append):
        if j.status == "scored" and j.verdict is not None and j.verdict.harm != j.deterministic_harm:
            out.add(j.unit_id)
    return out


def _row(label: str, number: int, r: dict[str, Any], disagree: set[str]) -> TrialRow:
    harm = tuple(sorted(s for s, hit in (r.get("harm") or {}).items() if hit))
    variant = str(r.get("variant", ""))
    return TrialRow(
        run=label, unit=r["unit_id"], scenario=str(r.get("scenario_id", "")), task=str(r.get("task_id", "")), variant=variant,
        agent=str(r.get("agent", "")), condition=str(r.get("condition", "")), trial=int(r.get("trial", 0)), suite=str(r.get("suite", "")),
        domain=str(r.get("domain", "")), vector=str(r.get("vector", "")), outcome=str(r.get("outcome", "")),
        utility=float(r.get("utility", 0.0)), harmed=bool(r.get("harmed")), harm=harm, attacked=bool(r.get("vector")),
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
    scan = scan_jsonl(store.trials_path, _record_line)
    for bad in scan.corrupt:
        warnings.append(f"{store.trials_path}: line {bad.number} is not a trial record ({bad.problem}): skipped")
    disagree = _disagreements(store.root, warnings)
    latest: dict[str, tuple[int, dict[str, Any]]] = {}
    for number, item in enumerate(scan.items, start=1):
        latest.pop(item["unit_id"], None)  # a retried unit appends a newer line; the newest wins
        latest[item["unit_id"]] = (number, item)
    for number, item in latest.values():
        try:
            folder.rows.append(_row(label, number, item, disagree))
            folder.records[item["unit_id"]] = item
        except (TypeError, ValueError) as exc:
            warnings.append(f"{store.trials_path}: record {item['unit_id']}: {exc}: skipped")
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

YES_NO = {"yes": True, "no": False}


@dataclass(frozen=True)
class Filter:
    """A list filter: the values a row offers, and whether a row matches a chosen value."""

    values: Callable[[TrialRow], Iterable[str]]

    def matches(self, row: TrialRow, wanted: str) -> bool:
        return wanted in set(self.values(row))


def _yes_no(flag: Callable[[TrialRow], bool]) -> Filter:
    return Filter(lambda r: ["yes" if flag(r) else "no"])


FILTERS: dict[str, Filter] = {
    "run": Filter(lambda r: [r.run]),
    "agent": Filter(lambda r: [r.agent]),
    "condition": Filter(lambda r: [r.condition]),
    "suite": Filter(lambda r: [r.suite]),
    "domain": Filter(lambda r: [r.domain]),
    "vector": Filter(lambda r: [r.vector or "benign"]),
    "outcome": Filter(lambda r: [r.outcome]),
    "harm": Filter(lambda r: [*r.harm, "any"] if r.harmed else ["none"]),
    "attributed": _yes_no(lambda r: r.attributed),
    "disagree": _yes_no(lambda r: r.disagree),
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
        self.facets = {name: dict(sorted(Counter(v for r in self.rows for v in f.values(r)).items())) for name, f in FILTERS.items()}

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
