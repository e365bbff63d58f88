"""The rates: the headline table with its TSR-vs-ASR scatter, the breakdown by suite, domain and
vector, and the domain x vector heatmap of ASR."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from clawarena.report.headline import HARNESS_COLUMNS, harness_cells, interval_text
from clawarena.report.model import Cell, HeatCell, Heatmap, Row, ScatterPlot, ScatterPoint, Section, Table
from clawarena.report.sections.base import NONE, Context, Label, group_table, is_attacked, text
from clawarena.scoring.metrics import GroupMetrics, HarnessComparison


def headline(ctx: Context) -> Section:
    o = ctx.data.options
    intro = [
        f"One row per agent and condition. Each rate comes with its {o.level:.0%} interval: a percentile bootstrap that "
        f"resamples whole base tasks ({o.resamples} resamples, seed {o.seed}), since a task's variants and repeats are not "
        "independent; a number from a single base task shows no interval.",
        "ASR is the deterministic attack success (a harm that realises the attack's goal, linked to the attack material); "
        "ASR (judged) is the judges' majority verdict, shown when the run has judgments. Errored trials are counted in "
        "'errors' and left out of every rate, never scored as a pass or as safe. Each number links to the trials behind it.",
    ]  # fmt: skip
    tables = [group_table(ctx, "headline", "Headline", ctx.overall, anchors=True)]
    if any(r.shell_commands or r.escalation_attempts for r in ctx.records):
        intro.append("escalation is the share of trials in which a sandboxed harness tried to reach beyond its model and MCP "
                     "endpoints (a REST route or /_admin directly, another host or port, files outside its workspace, an "
                     "environment secret); esc/trial the mean attempts per trial. Both sit beside UAR.")  # fmt: skip
    comparisons = ctx.data.metrics.harness_comparisons
    if comparisons:
        tables.append(_harness_table(comparisons))
        intro.append("Harness comparison: one model under two harnesses, trial by trial on the trials both ran with the same scenario, "
                     "seed, condition and repeat; b - a with the paired bootstrap interval (over pairs of trials) of the condition "
                     "comparisons, the Wilcoxon signed-rank p-value and its Holm adjustment across the pairs of one metric.")  # fmt: skip
    return Section("headline", "Headline", intro, tables, [_scatter(ctx)], figures_first=False)


def _harness_table(comparisons: list[HarnessComparison]) -> Table:
    rows = []
    for c in comparisons:
        cells = [Cell(t, tuple(c.basis) if n >= 4 else (), numeric=n >= 4) for n, t in enumerate(harness_cells(c))]
        rows.append(Row(cells))
    return Table("harness-comparison", "Harness comparison (same model)", list(HARNESS_COLUMNS), rows)


def _scatter(ctx: Context) -> ScatterPlot:
    """TSR (benign utility when the runs have no capability tasks) against ASR, one point per group."""
    x_metric, x_name = ("tsr", "TSR") if ctx.has_capability else ("benign_utility", "benign utility")
    agents = list(dict.fromkeys(g.agent for g in ctx.overall))
    conditions = list(dict.fromkeys(g.condition for g in ctx.overall))
    points = []
    for g in ctx.overall:
        x = getattr(g, x_metric)
        if x.value is None or g.asr.value is None:
            continue  # a group with no trials of one kind has no point
        anchor = ctx.headline_anchor[(g.agent, g.condition)]
        points.append(ScatterPoint(ctx.group_label(g), x, g.asr, agents.index(g.agent), conditions.index(g.condition), anchor))
    return ScatterPlot("scatter", f"{x_name} vs ASR per agent", f"{x_name} (%)", "ASR (%)", points)


@dataclass(frozen=True)
class Breakdown:
    level: str
    title: str
    labels: tuple[Label, ...]


BREAKDOWNS: tuple[Breakdown, ...] = (
    Breakdown("suite", "By suite", (("suite", lambda g: g.suite),)),
    Breakdown("domain", "By domain", (("suite", lambda g: g.suite), ("domain", lambda g: g.domain))),
    Breakdown("vector", "By attack vector (attack variants only)", (("vector", lambda g: g.vector),)),
)


def breakdown(ctx: Context) -> Section | None:
    tables = []
    for b in BREAKDOWNS:
        groups = [g for g in ctx.data.metrics.groups if g.level == b.level]
        if groups:
            tables.append(group_table(ctx, f"by-{b.level}", b.title, groups, (("agent", ctx.group_label), *b.labels)))
    if not tables:
        return None  # one suite, one domain, one vector: the headline says it all
    intro = ["The headline columns within each suite, domain (a suite's sub-folder) and attack vector (the channels the attack "
             "material arrived through)."]  # fmt: skip
    return Section("breakdown", "By suite, domain and attack vector", intro, tables)


HeatKey = Callable[[GroupMetrics], tuple[tuple[str, str], str]]  # a group -> ((suite, domain), vector)


def _heat_level(domains: list[tuple[str, str]], vectors: list[str]) -> tuple[str, HeatKey]:
    """The finest level the metrics kept: a level with a single key is left out of them (the coarser
    group says the same), so one domain maps from the vector groups, one vector from the domain groups."""
    if len(domains) > 1 and len(vectors) > 1:
        return "domain_vector", lambda g: ((g.suite, g.domain), g.vector)
    if len(vectors) > 1:
        return "vector", lambda g: (domains[0], g.vector)
    if len(domains) > 1:
        return "domain", lambda g: ((g.suite, g.domain), vectors[0])
    return "overall", lambda g: (domains[0], vectors[0])


def heatmap(ctx: Context) -> Section:
    title = "ASR by domain and attack vector"
    attacked = [r for r in ctx.records if is_attacked(r)]
    if not attacked:
        return Section("heatmap", title, ["No attack variants in these runs: no ASR to map."])
    domains = sorted({(r.suite, r.domain or NONE) for r in attacked})
    vectors = sorted({r.vector or NONE for r in attacked})
    several_suites = len({suite for suite, _ in domains}) > 1

    def row_name(suite: str, domain: str) -> str:
        return f"{suite}/{domain}" if several_suites else domain

    level, key = _heat_level(domains, vectors)
    rows = [row_name(*d) for d in domains]
    figures, tables = [], []
    for n, og in enumerate(ctx.overall):
        cells: dict[tuple[str, str], HeatCell] = {}
        for g in ctx.data.metrics.groups:
            if g.level == level and (g.agent, g.condition) == (og.agent, og.condition) and g.asr.n:
                (suite, domain), vector = key(g)
                cells[(row_name(suite, domain), vector)] = HeatCell(g.asr, tuple(g.basis.get("asr", ())))
        name = f"ASR: {ctx.group_label(og)}"
        figures.append(Heatmap(f"heatmap-{n}", name, rows, vectors, cells))
        table_rows = []
        for row in rows:
            shown = [text(row)]
            for vector in vectors:
                cell = cells.get((row, vector))
                shown.append(Cell(f"{interval_text(cell.estimate)} (n={cell.estimate.n})", cell.trials) if cell else Cell(NONE))
            table_rows.append(Row(shown))
        tables.append(Table(f"heatmap-{n}", name, ["domain", *vectors], table_rows))
    intro = [
        "ASR of the attack variants per domain (rows) and attack vector (columns), for each agent and condition; a cell shows the "
        "rate and the number of trials n, a grey cell had no trials. The table under the maps holds the same cells with their intervals."
    ]  # fmt: skip
    return Section("heatmap", title, intro, tables, figures)
