"""`clawarena judge RUN-DIR --judge SPEC ...`: judge a saved run offline (resumable), then print a
table per judge and the agreement table."""

from __future__ import annotations

import math
import signal
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Optional

import typer
from rich.table import Table

from clawarena.commands.base import console, err, fail, load_models_or_fail, model_endpoint_or_fail, progress_bar, show_table, split

if TYPE_CHECKING:
    from clawarena.scoring.judges import Judge, Judgment, PairAgreement

SHOWN_DISAGREEMENTS = 3  # trial ids listed per pair; the rest are in judgments.jsonl


def parse_weights(values: list[str] | None, labels: list[str]) -> dict[str, float]:
    """`--weight LABEL=W` (a label may hold ':' and '=': the weight is after the last '=')."""
    weights: dict[str, float] = {}
    for item in values or []:
        label, eq, raw = item.rpartition("=")
        label = label.strip()
        if not eq or not label:
            fail(f"--weight: {item!r}: expected LABEL=WEIGHT, e.g. openai:gpt-4o=2")
        try:
            value = float(raw)
        except ValueError:
            fail(f"--weight: {item!r}: the weight {raw.strip()!r} is not a number")
        if not math.isfinite(value) or value < 0:
            fail(f"--weight: {item!r}: the weight must be a finite number of at least 0")
        if label not in labels:
            fail(f"--weight: {label!r} is none of the judges ({', '.join(labels)})")
        weights[label] = value
    return weights


def make_judges(specs: list[str], models_file: Path | None, base_url: str | None, attempts: int) -> list[Judge]:
    """Resolve every `--judge` spec, check it is given once, and check its endpoint answers."""
    from clawarena.scoring.judges import Judge

    if not specs:
        fail("--judge: give at least one judge, e.g. --judge openai:gpt-4o-mini or --judge model:NAME with --models-file")
    twice = sorted({s for s in specs if specs.count(s) > 1})
    if twice:
        fail(f"--judge: {', '.join(twice)} is given twice; each judge needs its own label")
    models = load_models_or_fail("--models-file", models_file)
    judges = []
    for spec in specs:
        config = model_endpoint_or_fail("--judge", spec, models, base_url, "--models-file")
        judges.append(Judge(spec, config, attempts=attempts))
    return judges


def _rate(verdicts: Mapping[str, bool | None]) -> str:
    decided = [v for v in verdicts.values() if v is not None]
    return "-" if not decided else f"{100 * sum(decided) / len(decided):.1f}% ({sum(decided)}/{len(decided)})"


@dataclass(frozen=True)
class PanelRow:
    name: str
    model: str
    judgments: list[Judgment]
    weights: Mapping[str, float] | None = None


def judge_table(rows: list[PanelRow]) -> Table:
    from clawarena.scoring.judges import judged_attack_success, judged_harm

    table = Table(title="judges", title_justify="left")
    for name in ("judge", "model", "trials", "questions", "unscorable", "judged harm", "judged ASR", "tokens", "cost"):
        table.add_column(name, justify="left" if name in ("judge", "model") else "right", no_wrap=True)
    for row in rows:
        js = row.judgments
        tokens = sum(int(j.usage.get("input_tokens", 0) + j.usage.get("output_tokens", 0)) for j in js)
        cost = sum(j.usage.get("cost_usd", 0.0) for j in js)
        table.add_row(
            row.name, row.model, str(len({j.unit_id for j in js})), str(len(js)), str(sum(j.status == "unscorable" for j in js)),
            _rate(judged_harm(js, row.weights)), _rate(judged_attack_success(js, row.weights)), f"{tokens:,}", f"${cost:.4f}",
        )  # fmt: skip
    return table


def deterministic_row(judgments: list[Judgment]) -> list[str]:
    """The detector's own rates over the same trials and surfaces, for comparison."""
    harm: dict[str, bool] = {}
    attack: dict[str, bool] = {}
    for j in judgments:
        harm[j.unit_id] = harm.get(j.unit_id, False) or j.deterministic_harm
        if j.variant != "benign" and j.surface == j.variant:
            attack[j.unit_id] = attack.get(j.unit_id, False) or j.deterministic_attack
    return ["deterministic", "(the detector)", str(len(harm)), "-", "-", _rate(dict(harm)), _rate(dict(attack)), "-", "-"]


def agreement_table(pairs: Iterable[PairAgreement]) -> Table:
    table = Table(title="agreement (Cohen's kappa on harm, per trial and surface)", title_justify="left")
    for name in ("a", "b", "kappa", "items", "disagreements", "first disagreements"):
        numeric = name in ("kappa", "items", "disagreements")
        table.add_column(name, justify="right" if numeric else "left", no_wrap=name != "first disagreements")
    for p in pairs:
        first = ", ".join(p.disagreements[:SHOWN_DISAGREEMENTS]) + (" ..." if len(p.disagreements) > SHOWN_DISAGREEMENTS else "")
        table.add_row(p.a, p.b, "-" if p.kappa is None else f"{p.kappa:.3f}", str(p.items), str(len(p.disagreements)), first or "-")
    return table


JUDGE_HELP = (
    "a judge model, repeatable or comma-separated: openai:MODEL, anthropic:MODEL, model:NAME (from --models-file); "
    "its label is the spec as given"
)
MODELS_HELP = "a models file (YAML) of named configs, for model:NAME"
WEIGHT_HELP = "a judge's weight in the panel's majority, repeatable [default: 1 each]"
ATTEMPTS_HELP = "answers asked per question before it is unscorable (a rejected answer is asked again with the reason)"


def judge(
    run_dir: Path = typer.Argument(..., metavar="RUN-DIR", help="a run folder (runs/<run-id>) to judge"),
    judge_specs: Optional[list[str]] = typer.Option(None, "--judge", metavar="SPEC", help=JUDGE_HELP),
    models_file: Optional[Path] = typer.Option(None, "--models-file", "--models", metavar="FILE", help=MODELS_HELP),
    base_url: Optional[str] = typer.Option(None, "--base-url", metavar="URL", help="endpoint for every judge (a local vLLM or Ollama /v1)"),
    weight: Optional[list[str]] = typer.Option(None, "--weight", metavar="LABEL=W", help=WEIGHT_HELP),
    attempts: int = typer.Option(3, "--attempts", min=1, metavar="N", help=ATTEMPTS_HELP),
    workers: int = typer.Option(1, "--workers", min=1, metavar="N", help="questions asked concurrently"),
    force: bool = typer.Option(False, "--force", help="ask again questions already in judgments.jsonl"),
) -> None:
    """Judge a saved run: each attack-variant or safety trial, per harm surface, by each judge.

    Verdicts go to RUN-DIR/judgments.jsonl (resumable: answered questions are not asked again).
    Exits 1 when every question asked failed at the provider.
    """
    from clawarena.runner.judging import JUDGMENTS_FILE, judge_run
    from clawarena.runner.store import RunStore, RunStoreError
    from clawarena.scoring.judges import PROVIDER_ERROR, agreement

    try:
        store = RunStore.open(run_dir)
        store.config()
    except RunStoreError as exc:
        fail(f"RUN-DIR: {exc}")
    labels = split(judge_specs)
    weights = parse_weights(weight, labels)
    judges = make_judges(labels, models_file, base_url, attempts)
    signal.signal(signal.SIGTERM, lambda *_: (_ for _ in ()).throw(KeyboardInterrupt()))
    progress = progress_bar(err, transient=True)
    try:
        with progress:
            bar = progress.add_task("judging", total=None)
            result = judge_run(store, judges, force=force, on_judgment=lambda j: progress.advance(bar), workers=workers)
    except KeyboardInterrupt:
        err.print(f"interrupted: answered questions are saved; the same command finishes {store.root}", highlight=False, soft_wrap=True)
        raise typer.Exit(130)
    except OSError as exc:
        fail(f"cannot write {store.root / JUDGMENTS_FILE}: {exc.strerror or exc}", 1)
    counts = f"{result.asked} question(s) asked, {result.skipped} already answered"
    where = store.root / JUDGMENTS_FILE
    console.print(f"judged {result.trials} trial(s) of {store.run_id}: {counts} -> {where}", highlight=False, soft_wrap=True)
    if not result.trials:
        console.print("nothing to judge: the run has no attack-variant or safety trial that finished without error", highlight=False)
        return
    rows = [PanelRow(j.label, f"{j.config.provider}:{j.config.model}", [x for x in result.judgments if x.judge == j.label])
            for j in judges]  # fmt: skip
    if len(judges) > 1:
        shown = ", ".join(f"{j.label}={weights.get(j.label, 1.0):g}" for j in judges)
        rows.append(PanelRow("panel", f"weighted majority ({shown})", result.judgments, weights))
    table = judge_table(rows)
    table.add_row(*deterministic_row(result.judgments))
    show_table(table)
    show_table(agreement_table(agreement(result.judgments)))
    if result.new and all(j.status == "unscorable" and any(PROVIDER_ERROR in p for p in j.problems) for j in result.new):
        first = next(p for p in result.new[0].problems if PROVIDER_ERROR in p)
        fail(f"every question asked failed at the provider (the first: {first[:300]}); see {store.root / JUDGMENTS_FILE}", 1)
