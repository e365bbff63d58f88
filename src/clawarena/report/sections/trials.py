"""The runs pooled, and every trial: the rows each number's links lead to."""

from __future__ import annotations

import os
from pathlib import Path
from urllib.parse import quote

from clawarena.view.links import trial_url
from clawarena.report.model import Cell, Row, Section, Table
from clawarena.report.sections.base import NONE, Context, is_attacked, number, text


def runs(ctx: Context) -> Section:
    rows = []
    for run in ctx.data.runs:
        config = run.meta.get("config") or {}
        trials = tuple(r.unit_id for r in ctx.records if r.extra.get("run") == run.label)
        about = [config.get("suite", NONE), ", ".join(config.get("agents", [])) or NONE, ", ".join(config.get("conditions", [])) or NONE]
        made = [run.meta.get("created", NONE), (run.meta.get("versions") or {}).get("clawarena", NONE)]
        counts = [number(run.trials, trials), number(run.judgments)]
        rows.append(Row([text(run.label), text(run.root), *map(text, about), *counts, *map(text, made)]))
    intro = [f"{len(ctx.data.runs)} run folder(s), {len(ctx.records)} trials pooled."]
    if ctx.data.prefixed:
        intro.append("Two runs hold the same unit ids, so every unit id here is prefixed with its run (run/unit-id), and a later run's "
                     "repeats are numbered after the earlier run's: they count as further repeats of the same scenarios.")  # fmt: skip
    intro += [f"warning: {w}" for w in ctx.data.warnings]
    columns = ["run", "folder", "suite", "agents", "conditions", "trials", "judgments", "created", "clawarena"]
    return Section("runs", "Runs", intro, [Table("runs", "Run folders", columns, rows)])


def _yes_no(value: bool | None) -> str:
    return NONE if value is None else ("yes" if value else "no")


def _judged(ctx: Context, unit: str) -> str:
    if unit not in ctx.data.judged_attack:
        return NONE  # not judged, or not an attack variant
    verdict = ctx.data.judged_attack[unit]
    return "undecided" if verdict is None else _yes_no(verdict)


def trials(ctx: Context) -> Section:
    rows = []
    for r in ctx.records:
        harm = ", ".join(s for s, hit in sorted(r.harm.items()) if hit) or "none"
        trace = ctx.data.traces.get(r.unit_id)
        href = quote(Path(os.path.relpath(trace, ctx.out)).as_posix()) if trace is not None else ""  # a folder name may hold '#' or spaces
        outcome = [text(r.outcome), text(r.category), number(f"{r.utility:.2f}"), number(f"{r.score:.2f}"), text(harm)]
        attack = [text(_yes_no(r.attack_caused) if is_attacked(r) else NONE), text(_judged(ctx, r.unit_id))]
        viewer = trial_url(ctx.viewer, str(r.extra.get("run", "")), str(r.extra.get("run_unit", r.unit_id)))
        rest = [number(r.exposures), text(r.termination), Cell("trace" if href else NONE, numeric=False, href=href), Cell("view", numeric=False, href=viewer)]
        rows.append(Row([text(r.unit_id), *outcome, *attack, *rest], anchor=ctx.trial_anchor[r.unit_id]))
    columns = ["trial", "outcome", "category", "utility", "score", "harm", "attack-caused", "judged attack", "exposures", "termination"]
    intro = ["Every trial of the report, where each number's links lead; 'trace' opens the trial's saved trace (ledger, evidence packet); "
             f"'view' opens it in the trace viewer (`clawarena view RUN-DIR ...`, serving at {ctx.viewer})."]  # fmt: skip
    return Section("trials", "Trials", intro, [Table("trials", "Trials", [*columns, "trace", "view"], rows)])
