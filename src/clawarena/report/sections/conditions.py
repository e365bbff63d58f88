"""The skills x meta conditions: each agent's groups per condition, and the paired comparisons
between groups with their Wilcoxon and Holm-adjusted p-values."""

from __future__ import annotations

from collections.abc import Callable

from clawarena.report.headline import interval_text
from clawarena.report.model import Cell, Row, Section, Table
from clawarena.report.sections.base import NONE, Context, group_table, number, p_value, scored, text
from clawarena.scoring.metrics import COMPARED, Comparison

Side = tuple[str, str]  # (agent, condition)


def split_label(label: str) -> Side:
    agent, _, condition = label.rpartition(" | ")  # the metrics name a group "agent | condition"
    return agent, condition


def comparison_trials(ctx: Context, c: Comparison) -> tuple[str, ...]:
    """The trials a comparison pairs: both sides' scored trials of the metric on the base tasks both ran."""
    among = next(m.among for m in COMPARED if m.name == c.metric)
    sides = [split_label(c.a), split_label(c.b)]
    chosen = [r for r in ctx.records if (r.agent, r.condition) in sides and scored(r) and among(r)]
    tasks = [{r.task_id for r in chosen if (r.agent, r.condition) == side} for side in sides]
    paired = tasks[0] & tasks[1]
    return tuple(r.unit_id for r in chosen if r.task_id in paired)


def _comparison_table(ctx: Context, key: str, title: str, comparisons: list[Comparison]) -> Table:
    rows = []
    for c in comparisons:
        trials = comparison_trials(ctx, c)
        a, b = ctx.label(*split_label(c.a)), ctx.label(*split_label(c.b))
        cells = [text(c.metric), text(a), text(b), Cell(interval_text(c.difference), trials), number(c.pairs, trials)]
        rows.append(Row(cells + [number(p_value(c.p_wilcoxon)), number(p_value(c.p_holm))]))
    return Table(key, title, ["metric", "a", "b", "b - a", "paired tasks", "p (Wilcoxon)", "p (Holm)"], rows)


PairKind = tuple[str, str, Callable[[Side, Side], bool]]

PAIR_KINDS: tuple[PairKind, ...] = (
    ("same-agent", "Between conditions of one agent", lambda a, b: a[0] == b[0]),
    ("same-condition", "Between agents in one condition", lambda a, b: a[1] == b[1] and a[0] != b[0]),
    ("other", "Other pairs (another agent and another condition)", lambda a, b: a[0] != b[0] and a[1] != b[1]),
)


def conditions(ctx: Context) -> Section:
    tables = []
    agents = list(dict.fromkeys(g.agent for g in ctx.overall))
    for n, agent in enumerate(agents):
        groups = [g for g in ctx.overall if g.agent == agent]
        if len(groups) > 1:
            tables.append(group_table(ctx, f"conditions-{n}", f"{agent} by condition", groups))  # its columns name the condition
    comparisons = ctx.data.metrics.comparisons
    for key, title, keep in PAIR_KINDS:
        chosen = [c for c in comparisons if keep(split_label(c.a), split_label(c.b))]
        if chosen:
            tables.append(_comparison_table(ctx, f"comparisons-{key}", title, chosen))
    intro = []
    if not ctx.several_conditions:
        only = ctx.overall[0].condition if ctx.overall else NONE
        intro.append(f"Every trial ran in one condition ({only}); run with --conditions grid for the skills x meta grid.")
    intro.append(
        "Paired comparisons of two groups on the base tasks both ran: per-task means of the metric (pass: the trial passed; "
        "benign_utility; asr), their difference b - a with a paired bootstrap interval, the Wilcoxon signed-rank p-value, and "
        "that p-value Holm-adjusted across every pair compared on the same metric (all three tables together)."
    )
    if not comparisons:
        intro.append("No comparisons: a single agent in a single condition.")
    return Section("conditions", "Skills x meta conditions and paired comparisons", intro, tables)
