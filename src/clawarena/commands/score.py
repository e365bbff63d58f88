"""`clawarena score`: re-score a run folder (a served session) from its saved final state and ledger."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import typer
from rich.table import Table

from clawarena.commands.base import err, fail, show_table
from clawarena.commands.run import summary_table


def rescore_table(root: Path) -> tuple[Table, list[Any]]:
    """Re-score a run folder; the table compares each re-scored trial with its stored line."""
    from clawarena.runner.rescore import rescore_run
    from clawarena.runner.store import RunStore

    results = rescore_run(RunStore.open(root))
    table = Table(title=f"clawarena score: {root}", title_justify="left")
    for col in ("scenario", "agent", "outcome", "utility", "harm", "tool calls", "re-scored"):
        table.add_column(col, justify="right" if col in ("utility", "tool calls") else "left", no_wrap=True)
    for res in results:
        r = res.rescored.record if res.rescored else res.stored
        verdict = "no saved state (stored)" if res.matches is None else ("matches stored" if res.matches else "[red]differs from stored[/]")
        table.add_row(r.scenario_id, r.agent, r.outcome, f"{r.utility:.2f}", ", ".join(r.violations) or "-", str(r.tool_calls), verdict)
    return table, results


def score(run_dir: Path = typer.Argument(..., metavar="RUN-DIR", help="a run folder, e.g. runs/<run-id>")) -> None:
    """Re-score a run folder from its saved final state and ledger (sessions of serve/mcp) and print the scores."""
    from clawarena.runner.store import RunStoreError
    from clawarena.spec.loader import SpecError

    try:
        table, results = rescore_table(run_dir)
    except (RunStoreError, SpecError, OSError) as exc:
        fail(f"RUN-DIR: {exc}")
    show_table(table)
    show_table(summary_table([r.rescored.record if r.rescored else r.stored for r in results]))
    if any(r.matches is False for r in results):
        err.print("some re-scored trials differ from their stored lines (the task or the scoring changed since)")
