"""`clawarena check`: prove every scenario of a suite sound without a model."""

from __future__ import annotations

import typer
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from clawarena.commands.base import DEFAULT_SUITE, SUITE_HELP, console, err, load_suite_or_fail, show_table


def check(
    suite: str = typer.Option(DEFAULT_SUITE, "--suite", metavar="SUITE", help=SUITE_HELP),
    mutants: bool = typer.Option(
        False, "--mutants", help="after the gates, run mutants of each reference and report the mutation score (reported, not gated: the exit code is the gates')"
    ),
    mutants_per_scenario: int = typer.Option(12, "--mutants-per-scenario", metavar="N", min=1, help="at most N mutants per scenario (with --mutants)"),
) -> None:
    """Prove every scenario sound: the reference satisfies every utility check, noop fails safely,
    naive triggers each attack, injections are seen, every harm check can fire. Exits 1 on a failure.
    With --mutants, also measures how many broken references the checks catch (reported only)."""
    from clawarena.runner.selfcheck import GATES, check_suite

    scenarios = load_suite_or_fail(suite)
    # The bar goes to stderr: stdout keeps the table and the verdict.
    progress = Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(), console=err, transient=True)
    with progress:
        bar = progress.add_task("checking", total=len(scenarios))
        results = check_suite(scenarios, on_result=lambda r: progress.advance(bar))
    table = Table(title=f"clawarena check: {suite}", title_justify="left")
    table.add_column("scenario", no_wrap=True)
    for gate in GATES:
        table.add_column(gate, justify="center", no_wrap=True)
    for r in results:
        table.add_row(r.scenario_id, *("[green]ok[/]" if r.gate_ok(g) else "[red]FAIL[/]" for g in GATES))
    show_table(table)
    if mutants:
        _report_mutants(scenarios, suite, mutants_per_scenario)
    bad = [r for r in results if not r.ok]
    for r in bad:
        for gate, problems in r.problems.items():
            for p in problems:
                err.print(f"[red]{r.scenario_id}[/] {gate}: ", end="", highlight=False)
                err.out(p, highlight=False)
    if bad:
        err.print(f"{len(bad)} of {len(results)} scenario(s) failed the self-check")
        raise typer.Exit(1)
    console.print(f"all {len(results)} scenario(s) pass the self-check")


def _score_text(score: float | None) -> str:
    return "-" if score is None else f"{score:.0%}"


def _report_mutants(scenarios: list, suite: str, per_scenario: int) -> None:
    """The mutation table, the suite's score and every survivor; never changes the exit code."""
    from clawarena.runner.mutants import mutate_suite, mutation_score

    progress = Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(), console=err, transient=True)
    with progress:
        bar = progress.add_task("mutants", total=len(scenarios))
        tasks = mutate_suite(scenarios, per_scenario, on_scenario=lambda s: progress.advance(bar))
    table = Table(title=f"clawarena check --mutants: {suite}", title_justify="left")
    for column in ("task", "mutants", "should-fail", "killed", "survived", "false alarms", "score"):
        table.add_column(column, no_wrap=True, justify="left" if column == "task" else "right")
    for t in tasks:
        table.add_row(t.task_id, str(len(t.results)), str(t.should_fail), str(t.killed), str(t.survived), str(t.false_alarms), _score_text(mutation_score(t.results)))
    show_table(table)
    results = [r for t in tasks for r in t.results]
    killed, should = sum(r.killed for r in results), sum(r.mutant.expect == "should_fail" for r in results)
    console.print(
        f"mutation score: {_score_text(mutation_score(results))} ({killed} of {should} should-fail mutant(s) killed, "
        f"{sum(r.false_alarm for r in results)} false alarm(s) of {len(results) - should}); reported, not gated"
    )
    for label, picked in (("survivor", [r for r in results if r.survived]), ("false alarm", [r for r in results if r.false_alarm])):
        for r in picked:
            console.print(f"{label}: ", end="", highlight=False)
            console.out(f"{r.mutant.scenario_id} {r.mutant.kind}: {r.mutant.what}" + (f" ({r.error})" if r.error else ""), highlight=False)
