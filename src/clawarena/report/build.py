"""What a report reads: one or more run folders pooled into one set of trial records, their
judgments, the metrics over them and the judges' agreement.

Pooling: the records of every run are taken together. A unit id names (scenario, agent,
condition, trial), so two runs of the same agent on the same scenarios hold the same ids; then
every unit id (in records and judgments alike) is prefixed with its run's label (`run-id/unit`)
so each trial stays distinct, and a later run's repeats are numbered after the earlier run's
(trial 0 of the second run becomes trial 2 after a two-trial run), so they count as further
repeats in pass^k, reliability and the noise floor. The original run and trial are kept in the
record's `extra` (`run`, `run_trial`, `run_unit`: the id within its run, which the viewer's links use).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from clawarena.records import TrialRecord
from clawarena.runner.judging import load_judgments
from clawarena.runner.store import RunStore, RunStoreError
from clawarena.scoring.judges.agreement import PairAgreement, agreement, judged_attack_success
from clawarena.scoring.judges.verdict import Judgment
from clawarena.scoring.metrics import MetricOptions, RunMetrics, compute_metrics
from clawarena.view.links import unique_label


class ReportError(Exception):
    """Bad input to a report: the message names the argument (RUN-DIR) and what is wrong."""


@dataclass(frozen=True)
class RunSource:
    """One run folder of the report, as found on disk."""

    label: str  # the run folder's name, made unique among the report's runs
    root: Path
    meta: dict[str, Any]  # run.json as stored (config, versions, created)
    trials: int  # records read from it
    judgments: int


@dataclass(frozen=True)
class ReportData:
    runs: list[RunSource]
    records: list[TrialRecord]  # pooled; unit ids prefixed with the run label when `prefixed`
    judgments: list[Judgment]  # the same unit ids as the records
    metrics: RunMetrics
    agreement: list[PairAgreement]
    judged_attack: dict[str, bool | None]
    traces: dict[str, Path]  # unit id -> its trace file (absolute), when the record names one
    prefixed: bool
    options: MetricOptions
    warnings: list[str] = field(default_factory=list)  # corrupt or torn lines the stores skipped


@dataclass
class _Loaded:
    source: RunSource
    records: list[TrialRecord]
    judgments: list[Judgment]


def _open(path: Path, warnings: list[str]) -> tuple[RunStore, dict[str, Any]]:
    if not path.exists():
        raise ReportError(f"RUN-DIR {path}: no such folder")
    if not path.is_dir():
        raise ReportError(f"RUN-DIR {path}: not a folder")
    try:
        store = RunStore.open(path, on_warning=warnings.append)
        return store, store.meta()
    except RunStoreError as exc:
        raise ReportError(f"RUN-DIR: {exc}") from None
    except OSError as exc:
        raise ReportError(f"RUN-DIR {path}: cannot read it: {exc.strerror or exc}") from None


def _load(paths: Sequence[Path], warnings: list[str]) -> list[_Loaded]:
    if not paths:
        raise ReportError("RUN-DIR: give at least one run folder")
    seen: dict[Path, Path] = {}
    labels: set[str] = set()
    out = []
    for path in paths:
        path = Path(path)
        resolved = path.resolve()
        if resolved in seen:
            raise ReportError(f"RUN-DIR {path}: given twice (also as {seen[resolved]})")
        seen[resolved] = path
        store, meta = _open(path, warnings)
        try:
            records = store.records()
            judgments = load_judgments(store.root, on_warning=warnings.append)
        except OSError as exc:
            raise ReportError(f"RUN-DIR {path}: cannot read it: {exc.strerror or exc}") from None
        if not records:
            raise ReportError(f"RUN-DIR {path}: the run has no trial records ({store.trials_path.name} is missing or empty)")
        label = unique_label(store.run_id, labels)  # the folder's name: what the user passed and sees
        out.append(_Loaded(RunSource(label, store.root, meta, len(records), len(judgments)), records, judgments))
    return out


def _pool(loaded: list[_Loaded]) -> tuple[list[TrialRecord], list[Judgment], dict[str, Path], bool]:
    owners: dict[str, int] = {}
    for n, run in enumerate(loaded):
        for r in run.records:
            owners.setdefault(r.unit_id, n)
    prefixed = any(owners[r.unit_id] != n for n, run in enumerate(loaded) for r in run.records)
    records: list[TrialRecord] = []
    judgments: list[Judgment] = []
    traces: dict[str, Path] = {}
    next_trial: dict[tuple[str, str, str], int] = {}  # (scenario, agent, condition) -> first free repeat number
    for run in loaded:
        renamed: dict[str, str] = {}
        offsets: dict[tuple[str, str, str], int] = {}
        for r in run.records:
            key = (r.scenario_id, r.agent, r.condition)
            offsets.setdefault(key, next_trial.get(key, 0) if prefixed else 0)
        for r in run.records:
            key = (r.scenario_id, r.agent, r.condition)
            unit = f"{run.source.label}/{r.unit_id}" if prefixed else r.unit_id
            renamed[r.unit_id] = unit
            trial = r.trial + offsets[key]
            next_trial[key] = max(next_trial.get(key, 0), trial + 1)
            extra = {**r.extra, "run": run.source.label, "run_trial": r.trial, "run_unit": r.unit_id}
            records.append(r.model_copy(update={"unit_id": unit, "trial": trial, "extra": extra}))
            if r.trace:
                traces[unit] = run.source.root / r.trace
        for j in run.judgments:
            if j.unit_id in renamed:  # a judgment of a trial the run no longer holds is left out
                judgments.append(j.model_copy(update={"unit_id": renamed[j.unit_id]}))
    return records, judgments, traces, prefixed


def load_report(paths: Sequence[Path], options: MetricOptions = MetricOptions()) -> ReportData:
    """Read and pool the run folders and compute everything the report shows. Raises ReportError."""
    warnings: list[str] = []
    loaded = _load(paths, warnings)
    records, judgments, traces, prefixed = _pool(loaded)
    judged = judged_attack_success(judgments)
    return ReportData(
        runs=[run.source for run in loaded], records=records, judgments=judgments,
        metrics=compute_metrics(records, judged, options), agreement=agreement(judgments), judged_attack=judged,
        traces=traces, prefixed=prefixed, options=options, warnings=warnings,
    )  # fmt: skip
