"""`clawarena tasks list|show` and `clawarena suites`: what a suite holds."""

from __future__ import annotations

import json
from pathlib import Path

import typer
from rich.cells import cell_len
from rich.console import Console
from rich.text import Text

from clawarena.commands.base import DEFAULT_SUITE, FORMAT_HELP, SUITE_HELP, OutputFormat, console, find_scenario, indented, load_suite_or_fail, make_typer

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


def natural_width(headers: tuple[str, ...], cells: list[tuple[str, ...]]) -> int:
    """The width rich gives this table unclamped (each column its widest cell plus one space each
    side, and one rule between and around columns): the same answer as `fits`, without rich measuring
    every cell, which costs more than the rest of a cached listing on a large suite."""
    widths = [max([cell_len(h), *(cell_len(row[i]) for row in cells)]) for i, h in enumerate(headers)]
    return sum(w + 2 for w in widths) + len(headers) + 1


def listing_rows(suite: str, cache_dir: Path | None, use_cache: bool) -> list[dict]:
    """The rows of `tasks list`: from the suite index cache when every task file and the installed
    code are unchanged, else from a full load (YAML, models, catalog), which then refills the cache."""
    from clawarena.spec import suite_index

    folder = suite_index.find_suite_folder(suite)
    if folder is None or not use_cache:
        return [scenario_row(s) for s in load_suite_or_fail(suite)]  # the loader words a bad --suite
    where = cache_dir if cache_dir is not None else suite_index.default_cache_dir()
    key = suite_index.suite_key(folder)
    rows = suite_index.lookup(folder, where, key)
    if rows is None:
        rows = [scenario_row(s) for s in load_suite_or_fail(suite)]
        if suite_index.suite_key(folder) == key:  # a file changed while loading: do not file it under the old key
            suite_index.store(folder, where, key, rows)
    return rows


@app.command("list")
def tasks_list(
    suite: str = typer.Option(DEFAULT_SUITE, "--suite", metavar="SUITE", help=SUITE_HELP),
    output: OutputFormat = typer.Option("table", "--format", help=FORMAT_HELP),
    cache_dir: Path | None = typer.Option(None, "--cache-dir", metavar="DIR", help="where the suite index cache lives (default: $CLAWARENA_CACHE_DIR, else the user cache dir)", file_okay=False),
    no_cache: bool = typer.Option(False, "--no-cache", help="load and validate every task file, neither reading nor writing the suite index cache"),
) -> None:
    """One line per scenario: its agents, attack material and harm codes."""
    rows = listing_rows(suite, cache_dir, use_cache=not no_cache)
    if output == "json":
        print(json.dumps({"suite": suite, "scenarios": rows}, indent=2))
        return
    title = f"suite {suite} ({len(rows)} scenarios)"
    attacks = {r["id"]: ", ".join(f"{a['id']} ({a['channel']})" for a in r["attacks"]) or "-" for r in rows}
    headers = ("scenario", "agents", "attacks", "harm codes")
    cells = [(r["id"], ", ".join(r["agents"]), attacks[r["id"]], ", ".join(r["harm_codes"]) or "-") for r in rows]
    if natural_width(headers, cells) <= console.width:
        from rich.table import Table  # only here: most terminals get the blocks below

        table = Table(title=title, title_justify="left")
        # The id is what a user copies into --task or `serve`: never cut.
        for col in headers:
            table.add_column(col, no_wrap=True)
        for row in cells:
            table.add_row(*(Text(c) for c in row))  # Text: a `[` in an id is shown, not taken as markup
        console.print(table)
        return
    # Too narrow for one row per scenario: one block per scenario, every id whole.
    print_blocks(console, title, rows, attacks)


def block_lines(r: dict, attacks: str) -> tuple[Text, list[str]]:
    """A scenario's block: its id line (never wrapped), then the lines wrapped under an indent of 4."""
    head = Text.assemble((r["id"], "bold"), f"  {', '.join(r['agents'])}")
    rest = ([f"attacks: {attacks}"] if r["attacks"] else []) + ([f"harm: {', '.join(r['harm_codes'])}"] if r["harm_codes"] else [])
    return head, rest


def print_blocks(out: Console, title: str, rows: list[dict], attacks: dict[str, str]) -> None:
    """One print of the whole listing when no line needs wrapping (rich's per-print cost was most
    of a cached listing); else one print per line, letting rich wrap the long ones."""
    blocks = [block_lines(r, attacks[r["id"]]) for r in rows]
    if cell_len(title) <= out.width and all(cell_len(line) + 4 <= out.width for _, rest in blocks for line in rest):
        text = Text(title)
        for head, rest in blocks:
            text.append("\n")
            text.append_text(head)
            for line in rest:
                text.append(f"\n    {line}")
        out.print(text, soft_wrap=True, highlight=False)
        return
    print_each(out, title, blocks)


def print_blocks_slowly(out: Console, title: str, rows: list[dict], attacks: dict[str, str]) -> None:
    """The same blocks, one print per line (what `print_blocks` must equal, and does when lines wrap)."""
    print_each(out, title, [block_lines(r, attacks[r["id"]]) for r in rows])


def print_each(out: Console, title: str, blocks: list[tuple[Text, list[str]]]) -> None:
    out.print(title, highlight=False)
    for head, rest in blocks:
        out.print(head, highlight=False, soft_wrap=True)
        for line in rest:
            out.print(indented(line, 4))


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
    from clawarena.spec.suite_index import (
        bundled_suite_names,  # light: no models, no plugins
    )

    for name in bundled_suite_names():
        console.print(name, highlight=False)
