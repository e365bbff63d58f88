"""Per scenario: each scenario's reliability class over its repeats, pass^k and pass@k per group,
and the noise floor between repeats."""

from __future__ import annotations

from clawarena.report.headline import pct
from clawarena.report.model import Cell, Row, Section, Table
from clawarena.report.sections.base import NONE, Context, number, scored, text


def _per_scenario(ctx: Context) -> Table:
    groups = [(g.agent, g.condition) for g in ctx.overall]
    by_scenario: dict[str, dict[tuple[str, str], Cell]] = {}
    for s in ctx.data.metrics.scenarios:
        cell = Cell(f"{s.reliability} {s.passes}/{s.repeats}", tuple(s.unit_ids), numeric=False)
        by_scenario.setdefault(s.scenario_id, {})[(s.agent, s.condition)] = cell
    rows = [Row([text(sid), *(cells.get(group, Cell(NONE)) for group in groups)]) for sid, cells in sorted(by_scenario.items())]
    note = "class and passes/repeats: reliable (every repeat passed), lottery (some did), never-pass (none did), unrepeated (one trial)"
    return Table("scenarios", "Reliability per scenario", ["scenario", *(ctx.label(*group) for group in groups)], rows, note)


def _pass_k(ctx: Context) -> Table:
    most = max((max(g.pass_hat_k, default=0) for g in ctx.overall), default=0)
    ks = range(1, most + 1)
    rows = []
    for g in ctx.overall:
        trials = ctx.units_of(g.agent, g.condition, scored)
        hat = [Cell(pct(g.pass_hat_k.get(k)), trials) for k in ks]
        at = [Cell(pct(g.pass_at_k.get(k)), trials) for k in ks]
        rows.append(Row([text(ctx.group_label(g)), *hat, *at]))
    note = "pass^k: the chance that k repeats of a scenario all pass; pass@k: that at least one does (means over scenarios with k repeats)"
    return Table("pass-k", "pass^k and pass@k", ["agent", *(f"pass^{k}" for k in ks), *(f"pass@{k}" for k in ks)], rows, note)


def scenarios(ctx: Context) -> Section:
    tables = [_per_scenario(ctx), _pass_k(ctx)]
    noise = []
    for n in ctx.data.metrics.noise:
        trials = ctx.units_of(n.agent, n.condition, scored)
        gaps = [number(pct(n.mean_abs_diff), trials), number(pct(n.max_abs_diff), trials)]
        noise.append(Row([text(ctx.label(n.agent, n.condition)), number(n.repeats), *gaps]))
    intro = ["Each scenario's repeats per agent and condition (errored trials left out), then pass^k and pass@k over the repeats."]
    if noise:
        note = "how far the pass rates of two single repeats of the same agent differ, over the scenarios every repeat has"
        tables.append(Table("noise", "Noise floor", ["agent", "repeats", "mean |difference|", "largest |difference|"], noise, note))
    else:
        intro.append("One trial per scenario: no noise floor (run with --trials 2 or more).")
    return Section("scenarios", "Per scenario: reliability and pass^k", intro, tables)
