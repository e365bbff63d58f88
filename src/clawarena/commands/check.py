"""`clawarena check`: prove every scenario of a suite sound without a model."""

from __future__ import annotations

import os
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Optional

import typer
from rich.table import Table

from clawarena.commands.base import (
    DEFAULT_SUITE,
    SUITE_HELP,
    console,
    err,
    fail,
    load_suite_or_fail,
    progress_bar,
    show_table,
)

if TYPE_CHECKING:
    from clawarena.runner.mutants import MutantResult
    from clawarena.runner.survivors import AcceptedSurvivor
    from clawarena.spec.models import Scenario


def check(
    suite: str = typer.Option(DEFAULT_SUITE, "--suite", metavar="SUITE", help=SUITE_HELP),
    mutants: bool = typer.Option(
        False, "--mutants", help="after the gates, run mutants of each reference and report the mutation score (gated only with --min-mutation-score)"
    ),
    mutants_only: bool = typer.Option(False, "--mutants-only", help="skip the self-check gates and run just the mutants (implies --mutants)"),
    mutants_per_scenario: int = typer.Option(12, "--mutants-per-scenario", metavar="N", min=1, help="at most N mutants per scenario (with --mutants)"),
    mutants_seed: int = typer.Option(0, "--mutants-seed", metavar="N", min=0, help="which siblings the mutants pick (same seed, same mutants)"),
    min_mutation_score: Optional[float] = typer.Option(
        None, "--min-mutation-score", metavar="X", min=0.0, max=1.0,
        help="gate the mutants: exit 1 when the suite's mutation score is below X (0..1) or a survivor or false alarm is not accepted in the survivors file",
    ),  # fmt: skip
    survivors: Optional[Path] = typer.Option(
        None, "--survivors", metavar="FILE",
        help="markdown file whose '## Accepted survivors' table lists the accepted survivors (default: docs/suites/SUITE.md for a bundled suite)",
    ),  # fmt: skip
    workers: Optional[int] = typer.Option(
        None, "--workers", min=1, metavar="N", help="worker processes for the self-check gates, one base task at a time each [default: the number of cores]"
    ),
) -> None:
    """Prove every scenario sound: the reference satisfies every utility check, noop fails safely,
    naive triggers each attack, injections are seen, every harm check can fire. Exits 1 on a failure.
    With --mutants, also measures how many broken references the checks catch; with
    --min-mutation-score, that measure gates too."""
    from clawarena.runner.mutants import MUTANT_KINDS
    from clawarena.runner.survivors import (
        SurvivorsFileError,
        default_survivors_file,
        load_survivors,
    )

    from clawarena.world.build import template_bytes_from_env
    from clawarena.world.snapshot_cache import SnapshotCache

    try:  # the worlds' settings, before any worker reads them
        template_bytes_from_env(), SnapshotCache.from_env()
    except ValueError as exc:
        fail(str(exc))
    run_mutants = mutants or mutants_only
    if not run_mutants and (min_mutation_score is not None or survivors is not None):
        fail("--min-mutation-score and --survivors need --mutants (or --mutants-only)")
    scenarios = load_suite_or_fail(suite)
    survivors_file = survivors if survivors is not None else (default_survivors_file(suite) if run_mutants else None)
    accepted: list[AcceptedSurvivor] = []
    if survivors_file is not None:
        try:
            accepted = load_survivors(survivors_file, MUTANT_KINDS.names())
        except SurvivorsFileError as exc:
            fail(str(exc))
    bad = [] if mutants_only else _run_gates(scenarios, suite, workers or os.cpu_count() or 1)
    gate = _report_mutants(scenarios, suite, mutants_per_scenario, mutants_seed, min_mutation_score, survivors_file, accepted) if run_mutants else None
    for r in bad:
        for name, problems in r.problems.items():
            for p in problems:
                err.print(f"[red]{r.scenario_id}[/] {name}: ", end="", highlight=False)
                err.out(p, highlight=False)
    failed = False
    if bad:
        err.print(f"{len(bad)} of {len(scenarios)} scenario(s) failed the self-check")
        failed = True
    elif not mutants_only:
        console.print(f"all {len(scenarios)} scenario(s) pass the self-check")
    if gate is not None and gate.failures:
        for line in gate.failures:
            err.print("[red]mutation gate:[/] ", end="", highlight=False)
            err.out(line, highlight=False)
        for row in gate.rows:  # as written, ready to paste
            err.out(row, highlight=False)
        failed = True
    elif gate is not None and min_mutation_score is not None:
        console.print("mutation gate passed")
    if failed:
        raise typer.Exit(1)


def _run_gates(scenarios: list[Scenario], suite: str, workers: int) -> list:
    """The self-check's table; the scenarios that failed a gate."""
    from clawarena.runner.selfcheck import GATES, check_suite

    # The bar goes to stderr: stdout keeps the table and the verdict.
    progress = progress_bar(err, transient=True)
    with progress:
        bar = progress.add_task("checking", total=len(scenarios))
        results = check_suite(scenarios, on_result=lambda r: progress.advance(bar), workers=workers)
    table = Table(title=f"clawarena check: {suite}", title_justify="left")
    table.add_column("scenario", no_wrap=True)
    for gate in GATES:
        table.add_column(gate, justify="center", no_wrap=True)
    for r in results:
        table.add_row(r.scenario_id, *("[green]ok[/]" if r.gate_ok(g) else "[red]FAIL[/]" for g in GATES))
    show_table(table)
    return [r for r in results if not r.ok]


def _score_text(score: float | None) -> str:
    return "-" if score is None else f"{score:.0%}"


@dataclass
class MutationGate:
    failures: list[str] = field(default_factory=list)  # why the gate fails; empty when it passes (or is not gated)
    rows: list[str] = field(default_factory=list)  # survivors-table rows that would accept the unexplained mutants


def _mutant_line(r: MutantResult) -> str:
    return f"{r.mutant.scenario_id} {r.mutant.kind}: {r.mutant.what}" + (f" ({r.error})" if r.error else "")


def _report_mutants(
    scenarios: list[Scenario], suite: str, per_scenario: int, seed: int, minimum: float | None, survivors_file: Path | None, accepted: list[AcceptedSurvivor]
) -> MutationGate:
    """The mutation tables, the suite's score, every survivor (accepted ones apart), and, with a
    minimum, why the gate fails."""
    from clawarena.runner.mutants import by_kind, mutate_suite, mutation_score
    from clawarena.runner.survivors import review, survivor_row

    progress = progress_bar(err, transient=True)
    started = time.perf_counter()
    with progress:
        bar = progress.add_task("mutants", total=len(scenarios))
        tasks = mutate_suite(scenarios, per_scenario, on_scenario=lambda s: progress.advance(bar), seed=seed)
    took = time.perf_counter() - started
    table = Table(title=f"clawarena check --mutants: {suite}", title_justify="left")
    for column in ("task", "mutants", "should-fail", "killed", "survived", "false alarms", "score"):
        table.add_column(column, no_wrap=True, justify="left" if column == "task" else "right")
    for t in tasks:
        table.add_row(t.task_id, str(len(t.results)), str(t.should_fail), str(t.killed), str(t.survived), str(t.false_alarms), _score_text(t.score))
    show_table(table)
    results = [r for t in tasks for r in t.results]
    kinds = Table(title="mutants by kind", title_justify="left")
    for column in ("kind", "expect", "mutants", "killed", "survived", "false alarms", "score"):
        kinds.add_column(column, no_wrap=True, justify="left" if column in ("kind", "expect") else "right")
    for k in by_kind(results):
        kinds.add_row(k.kind, k.expect.replace("_", "-"), str(len(k.results)), str(k.killed), str(k.survived), str(k.false_alarms), _score_text(k.score))
    show_table(kinds)

    score = mutation_score(results)
    killed, should = sum(r.killed for r in results), sum(r.mutant.expect == "should_fail" for r in results)
    gated = minimum is not None
    verdict = "reported, not gated" if not gated else f"gated at >= {minimum:.0%}: " + ("ok" if score is not None and score >= minimum else "FAIL")
    console.print(
        f"mutation score: {_score_text(score)} ({killed} of {should} should-fail mutant(s) killed, "
        f"{sum(r.false_alarm for r in results)} false alarm(s) of {len(results) - should}); {verdict}"
    )
    console.print(f"mutants took {took:.1f} s ({len(results)} mutant(s) of {len(scenarios)} scenario(s))")

    checked = review(results, accepted)
    for r, listed in checked.accepted:
        label = "accepted survivor" if r.survived else "accepted false alarm"
        console.print(f"{label}: ", end="", highlight=False)
        console.out(f"{_mutant_line(r)} [{survivors_file}:{listed.line}: {listed.reason}]", highlight=False)
    for r in checked.unexplained:
        console.print("survivor: " if r.survived else "false alarm: ", end="", highlight=False)
        console.out(_mutant_line(r), highlight=False)
    for listed, why in checked.stale:
        err.print("[yellow]warning:[/] ", end="", highlight=False)
        err.out(f"{survivors_file}:{listed.line}: stale accepted survivor {listed.scenario} {listed.kind}: {listed.mutant} {why}", highlight=False)

    gate = MutationGate()
    if not gated:
        return gate
    if score is None:
        gate.failures.append("no mutant that should fail was generated, so there is no score to gate")
    elif score < minimum:
        gate.failures.append(f"mutation score {score:.1%} is below the minimum {minimum:.1%}")
    if checked.unexplained:
        where = survivors_file if survivors_file is not None else "a survivors file (--survivors FILE)"
        gate.failures.append(
            f"{len(checked.unexplained)} survivor(s) or false alarm(s) not accepted in {where}; "
            f"fix the checks, or add these rows to its '## Accepted survivors' table with a reason:"
        )
        gate.rows = [survivor_row(r) for r in checked.unexplained]
    return gate
