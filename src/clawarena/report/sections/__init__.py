"""The report's sections in page order, each built from the pooled run data (`build.ReportData`).

Every number is a Cell carrying the unit ids behind it (its denominator, from the metrics'
`basis`), so the HTML links it to those trials. The headline columns come from
`report.headline`, the code path of `clawarena run`'s terminal summary.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from clawarena.report.build import ReportData
from clawarena.report.model import Section
from clawarena.report.sections.base import Context
from clawarena.report.sections.conditions import conditions
from clawarena.report.sections.costs import cost, errors
from clawarena.report.sections.judges import judges
from clawarena.report.sections.rates import breakdown, headline, heatmap
from clawarena.report.sections.scenarios import scenarios
from clawarena.report.sections.trials import runs, trials

from clawarena.view.links import DEFAULT_URL

SectionBuilder = Callable[[Context], Section | None]  # None: nothing to show (the section is left out)

SECTIONS: tuple[SectionBuilder, ...] = (headline, breakdown, heatmap, conditions, scenarios, judges, cost, errors, runs, trials)


def build_sections(data: ReportData, out: Path, viewer: str = DEFAULT_URL) -> tuple[Context, list[Section]]:
    """Every section in page order; `out` is the folder the report goes to (trace links are relative
    to it); `viewer` the base URL of `clawarena view` the trials link to."""
    ctx = Context(data, Path(out).resolve(), viewer)
    return ctx, [s for s in (builder(ctx) for builder in SECTIONS) if s is not None]
