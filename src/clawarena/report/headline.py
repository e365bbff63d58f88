"""The headline table's columns: one definition for the terminal summary of `clawarena run`, the
HTML report and report.md, so the three always show the same numbers."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from clawarena.records import TrialRecord
from clawarena.scoring.metrics import Estimate, GroupMetrics, HarnessComparison


def pct(x: float | None) -> str:
    return "-" if x is None else f"{100 * x:.1f}%"


def interval_text(e: Estimate, percent: bool = True) -> str:
    """`62.5% [51.0, 70.2]`; a value with no spread (one base task) shows no interval."""
    if e.value is None:
        return "-"
    show = (lambda x: f"{100 * x:.1f}") if percent else (lambda x: f"{x:.3f}")
    head = f"{show(e.value)}%" if percent else show(e.value)
    if e.low is None or e.high is None or e.clusters < 2:
        return head
    return f"{head} [{show(e.low)}, {show(e.high)}]"


@dataclass(frozen=True)
class HeadlineColumn:
    name: str
    cell: Callable[[GroupMetrics], str]
    estimate: Callable[[GroupMetrics], Estimate] | None = None  # the number behind the cell, when it is one
    metric: str = ""  # the GroupMetrics field (links to the trials of its basis)
    text: bool = False  # a label column (left-aligned)


def _rate_column(name: str, metric: str) -> HeadlineColumn:
    def get(g: GroupMetrics) -> Estimate:
        return getattr(g, metric)

    return HeadlineColumn(name, lambda g: interval_text(get(g)), estimate=get, metric=metric)


def _cost_cell(g: GroupMetrics) -> str:
    return "-" if g.cost_per_trial.value is None else f"${g.cost_per_trial.value:.4f}"


def _mean_column(name: str, metric: str) -> HeadlineColumn:
    def get(g: GroupMetrics) -> Estimate:
        return getattr(g, metric)

    return HeadlineColumn(name, lambda g: interval_text(get(g), percent=False), estimate=get, metric=metric)


def _external(harness: str) -> bool:
    """A harness other than the scripted controls ('' in old records)."""
    return harness not in ("", "scripted")


def headline_columns(records: Sequence[TrialRecord], rows: Sequence[GroupMetrics]) -> list[HeadlineColumn]:
    """Only the columns the run has data for, so the table fits a terminal."""
    columns = [HeadlineColumn("agent", lambda g: g.agent, text=True)]
    modelled = any(r.model for r in records)
    if modelled or any(_external(r.harness) for r in records) or len({r.harness for r in records if r.harness}) > 1:
        columns.append(HeadlineColumn("harness", lambda g: g.harness or "-", text=True))  # the two axes of an agent
    if modelled:
        columns.append(HeadlineColumn("model", lambda g: g.model or "-", text=True))
    if len({g.condition for g in rows}) > 1:
        columns.append(HeadlineColumn("condition", lambda g: g.condition, text=True))
    columns.append(HeadlineColumn("trials", lambda g: str(g.trials), metric="trials"))
    if any(r.category == "capability" for r in records):
        columns.append(_rate_column("TSR", "tsr"))
    if any(r.category == "safety" for r in records):
        columns += [_rate_column("UAR", "uar"), _rate_column("SCR", "scr")]
    if any(r.shell_commands or r.escalation_attempts for r in records):  # a sandboxed harness reported its shell
        columns += [_rate_column("escalation", "escalation_rate"), _mean_column("esc/trial", "escalations_per_trial")]
    if any(r.variant != "benign" for r in records):
        columns.append(_rate_column("ASR", "asr"))
        if any(g.asr_judged.n for g in rows):
            columns.append(_rate_column("ASR (judged)", "asr_judged"))
    if any(r.variant == "benign" for r in records):
        columns.append(_rate_column("over-refusal", "over_refusal"))
    columns.append(HeadlineColumn("errors", lambda g: str(g.errors), metric="error_rate"))
    if any(r.usage.get("cost_usd") for r in records):
        columns.append(HeadlineColumn("cost/trial", _cost_cell, estimate=lambda g: g.cost_per_trial, metric="cost_per_trial"))
    return columns


HARNESS_COLUMNS = ("metric", "model", "harness a", "harness b", "b - a", "paired trials", "p (Wilcoxon)", "p (Holm)")
HARNESS_METRIC_NAMES = {"tsr": "TSR", "uar": "UAR", "escalation_rate": "escalation"}


def _p(value: float | None) -> str:
    return "-" if value is None else f"{value:.3g}"


def harness_cells(c: HarnessComparison) -> list[str]:
    """One row of the harness comparison, as the terminal summary and the report both show it."""
    return [HARNESS_METRIC_NAMES.get(c.metric, c.metric), c.model, c.a, c.b, interval_text(c.difference), str(c.pairs), _p(c.p_wilcoxon), _p(c.p_holm)]
