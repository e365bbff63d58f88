"""Cost (the agents', and the judges' apart) and errors (shown, never folded into a rate)."""

from __future__ import annotations

from collections.abc import Iterable

from clawarena.report.headline import interval_text
from clawarena.report.model import Cell, Row, Section, Table
from clawarena.report.sections.base import NONE, Context, money, money_text, number, scored, text
from clawarena.report.sections.judges import by_judge, units
from clawarena.scoring.judges.verdict import Judgment


def usage(judgments: Iterable[Judgment], key: str) -> float:
    return sum(float(j.usage.get(key, 0.0)) for j in judgments)


def cost(ctx: Context) -> Section:
    rows = []
    for g in ctx.overall:
        every, counted = ctx.units_of(g.agent, g.condition), ctx.units_of(g.agent, g.condition, scored)
        per_trial, per_pass = Cell(money_text(g.cost_per_trial), counted), Cell(money_text(g.cost_per_pass), counted)
        spent = [number(g.trials, every), number(g.tokens, every), number(money(g.cost_usd), every)]
        rows.append(Row([text(ctx.group_label(g)), *spent, per_trial, per_pass]))
    note = "tokens: input + output of the agents' model calls (scripted agents use none); per trial and per passed trial over scored trials"
    columns = ["agent", "trials", "tokens", "cost", "cost per trial", "cost per passed trial"]
    tables = [Table("cost-agents", "Agents", columns, rows, note)]
    judge_rows = []
    for label, js in by_judge(ctx.data.judgments).items():
        counts = [number(int(usage(js, key)), units(js)) for key in ("calls", "input_tokens", "output_tokens")]
        judge_rows.append(Row([text(label), *counts, number(money(usage(js, "cost_usd")), units(js))]))
    if judge_rows:
        columns = ["judge", "calls", "input tokens", "output tokens", "cost"]
        tables.append(Table("cost-judges", "Judges (apart from the agents)", columns, judge_rows))
    judgments = ctx.data.judgments
    judge_tokens = int(usage(judgments, "input_tokens") + usage(judgments, "output_tokens"))
    judged = f"{judge_tokens} tokens, {money(usage(judgments, 'cost_usd'))}." if judgments else "none."
    intro = [f"Agents: {sum(g.tokens for g in ctx.overall)} tokens, {money(sum(g.cost_usd for g in ctx.overall))}. Judges: {judged}"]
    return Section("cost", "Cost", intro, tables)


def first_line(value: str | None, limit: int = 200) -> str:
    lines = (value or "").strip().splitlines()
    line = lines[0] if lines else ""
    return line if len(line) <= limit else line[: limit - 3] + "..."


def errors(ctx: Context) -> Section:
    rows = []
    for g in ctx.overall:
        every = tuple(g.basis.get("error_rate", ()))
        errored = ctx.units_of(g.agent, g.condition, lambda r: not scored(r))
        counts = [number(g.trials, every), number(g.errors, errored)]
        rows.append(Row([text(ctx.group_label(g)), *counts, Cell(interval_text(g.error_rate), every)]))
    tables = [Table("error-rate", "Error rate", ["agent", "trials", "errors", "error rate"], rows)]
    errored = [r for r in ctx.records if not scored(r)]
    if errored:
        listed = [Row([Cell(r.unit_id, (r.unit_id,), numeric=False), text(r.termination), text(first_line(r.error) or NONE)])
                  for r in errored]  # fmt: skip
        tables.append(Table("errored", "Errored trials", ["trial", "termination", "error"], listed))
    intro = ["An errored trial (infrastructure, an agent crash, a check that could not run) is counted here and left out of every rate: "
             "never a pass, never safe."]  # fmt: skip
    if not errored:
        intro.append("No trial ended in error.")
    return Section("errors", "Errors", intro, tables)
