"""What every section builder shares: the Context over the pooled run data, cell helpers, number
formats, and the table of headline columns over any groups of the metrics."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

from clawarena.view.links import DEFAULT_URL
from clawarena.records import TrialRecord
from clawarena.report.build import ReportData
from clawarena.report.headline import HeadlineColumn, headline_columns
from clawarena.report.model import Cell, Row, Table
from clawarena.scoring.metrics import Estimate, GroupMetrics

NONE = "-"
Label = tuple[str, Callable[[GroupMetrics], str]]  # a label column: its name and its value per group


def money(value: float | None) -> str:
    return NONE if value is None else f"${value:.4f}"


def money_text(e: Estimate) -> str:
    """`$0.0012 [$0.0008, $0.0016]`: interval_text's rules (no interval from one base task) in dollars."""
    if e.value is None:
        return NONE
    if e.low is None or e.high is None or e.clusters < 2:
        return money(e.value)
    return f"{money(e.value)} [{money(e.low)}, {money(e.high)}]"


def p_value(value: float | None) -> str:
    return NONE if value is None else f"{value:.3g}"


def text(value: object) -> Cell:
    return Cell(str(value), numeric=False)


def number(value: object, trials: Iterable[str] = ()) -> Cell:
    return Cell(str(value), tuple(trials))


def is_attacked(r: TrialRecord) -> bool:
    return r.variant != "benign"


def scored(r: TrialRecord) -> bool:
    return r.outcome != "error"


@dataclass
class Context:
    """What several sections share, computed once."""

    data: ReportData
    out: Path  # the folder the report is written to
    viewer: str = DEFAULT_URL  # where `clawarena view` serves these runs (each trial links to its page there)

    @property
    def records(self) -> list[TrialRecord]:
        return self.data.records

    @cached_property
    def overall(self) -> list[GroupMetrics]:
        return self.data.metrics.overall()

    @cached_property
    def several_conditions(self) -> bool:
        return len({g.condition for g in self.overall}) > 1

    def label(self, agent: str, condition: str) -> str:
        return f"{agent} | {condition}" if self.several_conditions else agent

    def group_label(self, g: GroupMetrics) -> str:
        return self.label(g.agent, g.condition)

    @cached_property
    def headline_anchor(self) -> dict[tuple[str, str], str]:
        return {(g.agent, g.condition): f"h-{n}" for n, g in enumerate(self.overall)}

    @cached_property
    def trial_anchor(self) -> dict[str, str]:
        """unit id -> the HTML id of its row in the trials table (short: the page links to it thousands of times)."""
        return {r.unit_id: f"t-{n}" for n, r in enumerate(self.records)}

    def units_of(self, agent: str, condition: str, keep: Callable[[TrialRecord], bool] = lambda r: True) -> tuple[str, ...]:
        return tuple(r.unit_id for r in self.records if r.agent == agent and r.condition == condition and keep(r))

    @cached_property
    def has_capability(self) -> bool:
        return any(r.category == "capability" for r in self.records)


def basis(g: GroupMetrics, metric: str) -> tuple[str, ...]:
    return tuple(g.basis.get(metric, ()))


def _metric_cell(column: HeadlineColumn, g: GroupMetrics) -> Cell:
    if column.text:
        return text(column.cell(g))
    return Cell(column.cell(g), basis(g, column.metric))


def group_table(
    ctx: Context, key: str, title: str, groups: Sequence[GroupMetrics], labels: Sequence[Label] = (), anchors: bool = False
) -> Table:
    """The headline columns (`report.headline`, as `clawarena run` prints them) over any groups,
    after their label columns (suite, domain, vector); each number carries its basis."""
    columns = headline_columns(ctx.records, groups)
    rows = []
    for g in groups:
        cells = [text(get(g)) for _, get in labels] + [_metric_cell(c, g) for c in columns]
        rows.append(Row(cells, anchor=ctx.headline_anchor[(g.agent, g.condition)] if anchors else ""))
    return Table(key, title, [name for name, _ in labels] + [c.name for c in columns], rows)
