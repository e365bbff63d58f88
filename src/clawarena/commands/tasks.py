"""`clawarena tasks list|show` and `clawarena suites`: what a suite holds."""

from __future__ import annotations

import json

import typer
from rich.table import Table

from clawarena.commands.base import DEFAULT_SUITE, FORMAT_HELP, SUITE_HELP, OutputFormat, console, find_scenario, fits, indented, load_suite_or_fail, make_typer

app = make_typer("List and show the tasks of a suite.")


def scenario_row(s) -> dict:
    return {
        "id": s.id,
        "task": s.task.id,
        "variant": s.variant,
        "agents": [a.id for a in s.task.agents],
        "attacks": [{"id": a.id, "channel": a.channel} for a in s.attacks],
        "harm_codes": [h.code for h in s.harm],
    }


@app.command("list")
def tasks_list(
    suite: str = typer.Option(DEFAULT_SUITE, "--suite", metavar="SUITE", help=SUITE_HELP),
    output: OutputFormat = typer.Option("table", "--format", help=FORMAT_HELP),
) -> None:
    """One line per scenario: its agents, attack material and harm codes."""
    scenarios = load_suite_or_fail(suite)
    if output == "json":
        print(json.dumps({"suite": suite, "scenarios": [scenario_row(s) for s in scenarios]}, indent=2))
        return
    title = f"suite {suite} ({len(scenarios)} scenarios)"
    rows = [scenario_row(s) for s in scenarios]
    attacks = {r["id"]: ", ".join(f"{a['id']} ({a['channel']})" for a in r["attacks"]) or "-" for r in rows}
    table = Table(title=title, title_justify="left")
    # The id is what a user copies into --task or `serve`: never cut.
    table.add_column("scenario", no_wrap=True)
    for col in ("agents", "attacks", "harm codes"):
        table.add_column(col, no_wrap=True)
    for r in rows:
        table.add_row(r["id"], ", ".join(r["agents"]), attacks[r["id"]], ", ".join(r["harm_codes"]) or "-")
    if fits(table):
        console.print(table)
        return
    # Too narrow for one row per scenario: one block per scenario, every id whole.
    console.print(title, highlight=False)
    for r in rows:
        console.print(f"[bold]{r['id']}[/]  {', '.join(r['agents'])}", highlight=False, soft_wrap=True)
        if r["attacks"]:
            console.print(indented(f"attacks: {attacks[r['id']]}", 4))
        if r["harm_codes"]:
            console.print(indented(f"harm: {', '.join(r['harm_codes'])}", 4))


@app.command("show")
def tasks_show(
    scenario_id: str = typer.Argument(..., metavar="SCENARIO", help="a scenario id such as email-triage-summary/privacy"),
    suite: str = typer.Option(DEFAULT_SUITE, "--suite", metavar="SUITE", help=SUITE_HELP),
) -> None:
    """The full scenario, as the runner sees it (JSON)."""
    scenario = find_scenario(suite, scenario_id)
    print(json.dumps(scenario.model_dump(mode="json", by_alias=True, exclude_none=True), indent=2, ensure_ascii=False))


def suites() -> None:
    """The bundled suites."""
    from clawarena.spec.loader import bundled_suites

    for name in bundled_suites():
        console.print(name, highlight=False)
