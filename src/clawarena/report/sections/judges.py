"""The judges: agreement (kappa per pair, and with the deterministic detector), the disagreements
by trial, the judged ASR beside the deterministic one, and each judge's verdicts."""

from __future__ import annotations

from collections.abc import Iterable

from clawarena.report.headline import interval_text, pct
from clawarena.report.model import Cell, Row, Section, Table
from clawarena.report.sections.base import NONE, Context, is_attacked, number, scored, text
from clawarena.scoring.judges.agreement import DETERMINISTIC, panel_vote
from clawarena.scoring.judges.verdict import Judgment


def by_judge(judgments: Iterable[Judgment]) -> dict[str, list[Judgment]]:
    out: dict[str, list[Judgment]] = {}
    for j in judgments:
        out.setdefault(j.judge, []).append(j)
    return out


def units(judgments: Iterable[Judgment]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(j.unit_id for j in judgments))


def _harm_text(harm: bool | None) -> str:
    return NONE if harm is None else ("harm" if harm else "no harm")


def _verdict_text(j: Judgment | None) -> str:
    if j is None:
        return NONE
    return "unscorable" if j.status != "scored" or j.verdict is None else _harm_text(j.verdict.harm)


def _agreement(ctx: Context) -> Table:
    rows = []
    for p in ctx.data.agreement:
        trials = tuple(dict.fromkeys(item.rpartition("/")[0] for item in p.disagreements))
        first = ", ".join(p.disagreements[:3]) + (" ..." if len(p.disagreements) > 3 else "")
        kappa = NONE if p.kappa is None else f"{p.kappa:.3f}"
        rows.append(Row([text(p.a), text(p.b), number(kappa), number(p.items), number(len(p.disagreements), trials), text(first or NONE)]))
    note = f"items are (trial, surface) pairs both sides scored; {DETERMINISTIC} is the deterministic harm detector"
    columns = ["a", "b", "kappa", "items", "disagreements", "first disagreements"]
    return Table("agreement", "Agreement (Cohen's kappa on the harm label)", columns, rows, note)


def _disagreements(ctx: Context) -> Table | None:
    labels = list(by_judge(ctx.data.judgments))
    latest: dict[tuple[str, str], dict[str, Judgment]] = {}
    for j in ctx.data.judgments:  # the newest line of each (judge, item) wins, as in agreement()
        latest.setdefault((j.unit_id, j.surface), {})[j.judge] = j
    items = sorted({item.rpartition("/")[::2] for p in ctx.data.agreement for item in p.disagreements})
    rows = []
    for unit, surface in items:
        by = latest.get((unit, surface), {})
        detector = next(iter(by.values())).deterministic_harm if by else None
        verdicts = [text(_verdict_text(by.get(label))) for label in labels]
        rows.append(Row([Cell(unit, (unit,), numeric=False), text(surface), *verdicts, text(_harm_text(detector))]))
    return Table("disagreements", "Disagreements by trial", ["trial", "surface", *labels, DETERMINISTIC], rows) if rows else None


def _judged_checks(ctx: Context) -> Table | None:
    """Where a harm check is marked `judged` (a paraphrase can slip past an exact match), the
    deterministic result is a lower bound: the panel's verdict on that surface stands beside it."""
    groups: dict[tuple[str, str], list[Judgment]] = {}
    for j in ctx.data.judgments:
        if j.judged_checks:
            groups.setdefault((j.unit_id, j.surface), []).append(j)
    rows = []
    for (unit, surface), js in sorted(groups.items()):
        panel = panel_vote(js, lambda j: bool(j.verdict and j.verdict.harm))
        checks = ", ".join(sorted({c for j in js for c in j.judged_checks}))
        rows.append(Row([Cell(unit, (unit,), numeric=False), text(surface), text(checks), text(_harm_text(js[0].deterministic_harm)), text(_harm_text(panel))]))
    if not rows:
        return None
    note = "the deterministic detector can miss a paraphrased leak, so its 'no harm' here is a lower bound; the judges read the packet"
    columns = ["trial", "surface", "judged checks", "deterministic (lower bound)", "judges (majority)"]
    return Table("judged-checks", "Checks a paraphrase can defeat: the judges beside the deterministic bound", columns, rows, note)


def _judged_asr(ctx: Context) -> Table:
    rows = []
    for g in ctx.overall:
        attacked = ctx.units_of(g.agent, g.condition, lambda r: is_attacked(r) and scored(r))
        undecided = tuple(u for u in attacked if ctx.data.judged_attack.get(u) is None)
        deterministic = Cell(interval_text(g.asr), tuple(g.basis.get("asr", ())))
        judged = Cell(interval_text(g.asr_judged), tuple(g.basis.get("asr_judged", ())))
        rows.append(Row([text(ctx.group_label(g)), deterministic, judged, number(len(undecided), undecided)]))
    note = ("judged: the judges' weighted majority on harm attributed to the attack, over attacked trials with a verdict; "
            "unscorable or unjudged trials are left out")  # fmt: skip
    columns = ["agent", "ASR (deterministic)", "ASR (judged)", "attacked trials without a verdict"]
    return Table("judged-asr", "Judged ASR beside the deterministic ASR", columns, rows, note)


def _verdicts(ctx: Context) -> Table:
    rows = []
    for label, js in by_judge(ctx.data.judgments).items():
        ok = [j for j in js if j.status == "scored" and j.verdict is not None]
        bad = [j for j in js if j not in ok]
        harm = sum(1 for j in ok if j.verdict is not None and j.verdict.harm)
        model = text(f"{js[0].provider}:{js[0].model}")
        prompts = text(", ".join(sorted({j.prompt_version for j in js})))
        rate = number(pct(harm / len(ok)) if ok else NONE, units(ok))
        rows.append(Row([text(label), model, prompts, number(len(js), units(js)), number(len(bad), units(bad)), rate]))
    note = "one judgment per (trial, surface); unscorable: no valid verdict after the retries, never counted as safe"
    return Table("judge-verdicts", "Verdicts per judge", ["judge", "model", "prompt", "judgments", "unscorable", "judged harm"], rows, note)


def judges(ctx: Context) -> Section:
    title = "Judges"
    if not ctx.data.judgments:
        return Section("judges", title, ["No judgments: these runs were not judged (`clawarena judge RUN-DIR --judge SPEC` adds them)."])
    tables = [t for t in (_agreement(ctx), _disagreements(ctx), _judged_asr(ctx), _judged_checks(ctx), _verdicts(ctx)) if t is not None]
    intro = [
        "Judges read each attacked or safety trial's evidence packet, one prompt per harm surface (docs/judges.md). Agreement is "
        "Cohen's kappa between every pair of judges and between each judge and the deterministic detector; disagreements are "
        "listed by trial."
    ]  # fmt: skip
    return Section("judges", title, intro, tables)
