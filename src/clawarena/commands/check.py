"""`clawarena check`: prove every scenario of a suite sound without a model."""

from __future__ import annotations

import typer
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from clawarena.commands.base import DEFAULT_SUITE, SUITE_HELP, console, err, load_suite_or_fail, show_table


def check(suite: str = typer.Option(DEFAULT_SUITE, "--suite", metavar="SUITE", help=SUITE_HELP)) -> None:
    """Prove every scenario sound: the reference satisfies every utility check, noop fails safely,
    naive triggers each attack, injections are seen, every harm check can fire. Exits 1 on a failure."""
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
