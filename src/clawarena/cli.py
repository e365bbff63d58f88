"""The `clawarena` command."""

from __future__ import annotations

import json
import signal
import sys
from pathlib import Path
from typing import Optional

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from clawarena.runner.store import RunConfig, RunStore, RunStoreError
from clawarena.spec.loader import SpecError, bundled_suites, load_suite

app = typer.Typer(add_completion=False, no_args_is_help=True, help="clawarena: utility and safety of personal agents, on the same runs.")
tasks_app = typer.Typer(no_args_is_help=True, help="List and show the tasks of a suite.")
app.add_typer(tasks_app, name="tasks")
console = Console()
err = Console(stderr=True)

DEFAULT_SUITE = "workspace"
DEFAULT_AGENTS = ["oracle", "noop", "naive"]


def _fail(message: str, code: int = 2) -> None:
    err.print(f"[bold red]error:[/] {message}", highlight=False)
    raise typer.Exit(code)


def _split(values: list[str] | None) -> list[str]:
    return [v.strip() for item in values or [] for v in item.split(",") if v.strip()]


def _pct(x: float | None) -> str:
    return "-" if x is None else f"{100 * x:.1f}%"


def _conditions(skills: str, meta: str, conditions: str | None) -> list[str]:
    from clawarena.agents.scaffolding import GRID, Condition

    for flag, value in (("--skills", skills), ("--meta", meta)):
        if value not in ("on", "off"):
            raise ValueError(f"{flag}: expected on or off, got {value!r}")
    if conditions is None:
        return [Condition(skills=skills == "on", meta=meta == "on").id]
    if conditions.strip() == "grid":
        return [c.id for c in GRID]
    return [Condition.parse(c).id for c in _split([conditions])]


def _summary_table(records) -> Table:
    """Per agent (and condition): only the columns the run has data for, so it fits a terminal."""
    from clawarena.scoring.metrics import summarize

    rows = summarize(records)
    records = list(records)
    columns: list[tuple[str, object]] = [("agent", lambda s: s.agent)]
    if len({s.condition for s in rows}) > 1:
        columns.append(("condition", lambda s: s.condition))
    columns.append(("trials", lambda s: str(s.trials)))
    if any(r.category == "capability" for r in records):
        columns.append(("TSR", lambda s: _pct(s.tsr)))
    if any(r.category == "safety" for r in records):
        columns += [("UAR", lambda s: _pct(s.uar)), ("SCR", lambda s: _pct(s.scr))]
    columns.append(("harm", lambda s: _pct(s.harm_rate)))
    if any(r.variant != "benign" for r in records):
        columns.append(("ASR", lambda s: _pct(s.asr)))
    columns += [("score", lambda s: "-" if s.mean_score is None else f"{s.mean_score:.3f}"), ("errors", lambda s: str(s.errors))]
    table = Table(title="clawarena summary", title_justify="left")
    for name, _ in columns:
        table.add_column(name, justify="left" if name in ("agent", "condition") else "right")
    for s in rows:
        table.add_row(*(fn(s) for _, fn in columns))
    return table


@app.command()
def run(
    suite: str = typer.Option(DEFAULT_SUITE, "--suite", help="a bundled suite name or a folder of task YAML"),
    agent: Optional[list[str]] = typer.Option(None, "--agent", help="agent(s), repeatable or comma-separated [default: oracle,noop,naive]"),
    trials: int = typer.Option(1, "--trials", min=1, help="trials per scenario and agent"),
    workers: int = typer.Option(1, "--workers", min=1, help="trials run concurrently"),
    seed: int = typer.Option(0, "--seed", help="base seed; each unit's seed derives from it"),
    task: Optional[list[str]] = typer.Option(None, "--task", help="only scenarios whose id (or task id) matches these globs"),
    runs_dir: Path = typer.Option(Path("runs"), "--runs-dir", help="where run folders are created"),
    resume: Optional[Path] = typer.Option(None, "--resume", help="a run folder to finish: finished trials are skipped"),
    run_id: Optional[str] = typer.Option(None, "--run-id", help="name of the new run folder"),
    base_url: Optional[str] = typer.Option(None, "--base-url", help="endpoint for openai:/anthropic: agents (e.g. a local vLLM or Ollama /v1)"),
    models: Optional[Path] = typer.Option(None, "--models", help="a models file (YAML) of named agent configs: --agent model:NAME"),
    retry_errors: bool = typer.Option(False, "--retry-errors", help="with --resume: run errored trials again"),
    skills: str = typer.Option("off", "--skills", help="on|off: tier-1 skill text in the prompt and a read_skill tool"),
    meta: str = typer.Option("off", "--meta", help="on|off: the meta prompt of safety and execution rules"),
    conditions: Optional[str] = typer.Option(None, "--conditions", help="'grid' for the 2x2 skills x meta grid, or condition ids like skills-on__meta-off,..."),
) -> None:
    """Run scenarios with agents; write runs/<run-id>/ and print a summary table."""
    from clawarena.llm.config import ModelConfigError
    from clawarena.runner.run import agent_options, execute_run, plan_run

    try:
        if resume is not None:
            store = RunStore.open(resume)
            config = store.config()
            if workers != 1:
                config = config.model_copy(update={"workers": workers})
        else:
            config = RunConfig(
                suite=suite, agents=_split(agent) or DEFAULT_AGENTS, trials=trials, seed=seed, workers=workers,
                tasks=_split(task), base_url=base_url, models_file=str(models) if models else None,
                conditions=_conditions(skills, meta, conditions),
            )  # fmt: skip
        plan = plan_run(config)
        options = agent_options(config)
        if resume is None:
            store = RunStore.create(runs_dir, config, run_id)
    except (SpecError, RunStoreError, KeyError, ModelConfigError, ValueError) as exc:
        _fail(str(exc).strip("'\""))
    done = store.finished(repair=True, retry_errors=retry_errors) & {u.id for u in plan.units}
    console.print(f"run [bold]{store.run_id}[/]: {len(plan.units)} trial(s), {len(done)} already finished -> {store.root}")
    # SIGTERM ends the run like Ctrl-C: in-flight trials finish, the rest is left for --resume.
    signal.signal(signal.SIGTERM, lambda *_: (_ for _ in ()).throw(KeyboardInterrupt()))
    progress = Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(), console=console, transient=False)
    try:
        with progress:
            bar = progress.add_task("trials", total=len(plan.units), completed=len(done))
            records = execute_run(store, plan, workers=config.workers, on_record=lambda r: progress.advance(bar), options=options, retry_errors=retry_errors)
    except KeyboardInterrupt:
        err.print(f"interrupted: finished trials are saved; resume with [bold]clawarena run --resume {store.root}[/]")
        raise typer.Exit(130)
    console.print(_summary_table(records))
    console.print(f"trials: {store.trials_path}")


@app.command()
def check(suite: str = typer.Option(DEFAULT_SUITE, "--suite", help="a bundled suite name or a folder of task YAML")) -> None:
    """Prove every scenario sound: reference passes, noop fails safely, naive triggers each attack, injections are seen."""
    from clawarena.runner.selfcheck import GATES, check_suite

    try:
        scenarios = load_suite(suite)
    except SpecError as exc:
        _fail(str(exc))
    results = check_suite(scenarios)
    table = Table(title=f"clawarena check: {suite}", title_justify="left")
    table.add_column("scenario")
    for gate in GATES:
        table.add_column(gate, justify="center")
    for r in results:
        table.add_row(r.scenario_id, *("[green]ok[/]" if r.gate_ok(g) else "[red]FAIL[/]" for g in GATES))
    console.print(table)
    bad = [r for r in results if not r.ok]
    for r in bad:
        for gate, problems in r.problems.items():
            for p in problems:
                err.print(f"[red]{r.scenario_id}[/] {gate}: {p}", highlight=False)
    if bad:
        err.print(f"{len(bad)} of {len(results)} scenario(s) failed the self-check")
        raise typer.Exit(1)
    console.print(f"all {len(results)} scenario(s) pass the self-check")


@tasks_app.command("list")
def tasks_list(suite: str = typer.Option(DEFAULT_SUITE, "--suite")) -> None:
    """One line per scenario."""
    try:
        scenarios = load_suite(suite)
    except SpecError as exc:
        _fail(str(exc))
    table = Table(title=f"suite {suite} ({len(scenarios)} scenarios)", title_justify="left")
    table.add_column("scenario", no_wrap=True)
    for col in ("agents", "attacks", "harm codes"):
        table.add_column(col)
    for s in scenarios:
        table.add_row(s.id, ", ".join(a.id for a in s.task.agents), ", ".join(f"{a.id} ({a.channel})" for a in s.attacks) or "-", ", ".join(h.code for h in s.harm) or "-")
    console.print(table)


@tasks_app.command("show")
def tasks_show(scenario_id: str = typer.Argument(..., help="a scenario id such as email-triage-summary/privacy"), suite: str = typer.Option(DEFAULT_SUITE, "--suite")) -> None:
    """The full scenario, as the runner sees it (JSON)."""
    try:
        scenarios = {s.id: s for s in load_suite(suite)}
    except SpecError as exc:
        _fail(str(exc))
    if scenario_id not in scenarios:
        _fail(f"SCENARIO_ID: unknown scenario {scenario_id!r}; see `clawarena tasks list --suite {suite}`")
    console.print_json(json.dumps(scenarios[scenario_id].model_dump(mode="json", by_alias=True, exclude_none=True)))


@app.command()
def serve(
    scenario_id: Optional[str] = typer.Argument(None, help="the scenario whose world to serve [default: the suite's first]"),
    suite: str = typer.Option(DEFAULT_SUITE, "--suite"),
    port: int = typer.Option(8080, "--port", help="port on 127.0.0.1 (0 picks a free one)"),
    seed: int = typer.Option(0, "--seed"),
    tls: bool = typer.Option(False, "--tls", help="serve https with a generated self-signed certificate (needed for Google media uploads)"),
    cert_dir: Path = typer.Option(Path(".clawarena/tls"), "--cert-dir", help="where --tls writes cert.pem and key.pem"),
    agent_port: Optional[int] = typer.Option(None, "--agent-port", help="also serve each delegate agent's tools over MCP (streamable HTTP) on this port (0 picks a free one); on exit the session is scored into a run folder"),
    runs_dir: Optional[Path] = typer.Option(None, "--runs-dir", help="score the session on exit into a run folder here [default with --agent-port: runs]"),
    run_id: Optional[str] = typer.Option(None, "--run-id", help="name of the session's run folder"),
) -> None:
    """Serve one scenario's world on 127.0.0.1: the services' REST routes and /_admin (and, with --agent-port, the agents' MCP endpoints)."""
    from clawarena.gateway import Gateway
    from clawarena.services import services, world_factory
    from clawarena.server.app import WorldApp
    from clawarena.server.serve import start_in_thread
    
    try:
        scenarios = load_suite(suite)
    except SpecError as exc:
        _fail(str(exc))
    chosen = next((s for s in scenarios if s.id == scenario_id), None) if scenario_id else scenarios[0]
    if chosen is None:
        _fail(f"SCENARIO_ID: unknown scenario {scenario_id!r}")
    certs = None
    if tls:
        from clawarena.server.tls import make_self_signed

        certs = make_self_signed(cert_dir)
    if agent_port is not None or runs_dir is not None:  # a scored session (clawarena.mcp.commands)
        from clawarena.mcp.commands import serve_session

        try:
            serve_session(chosen, suite=suite, seed=seed, port=port, agent_port=agent_port, runs_dir=runs_dir or Path("runs"),
                          run_id=run_id, certs=certs, console=console)  # fmt: skip
        except RuntimeError as exc:
            _fail(str(exc))
        return
    world = world_factory().build(chosen, seed)
    server = start_in_thread(
        WorldApp(Gateway(world, services()), services()).app, port=port,
        ssl_certfile=str(certs.certfile) if certs else None, ssl_keyfile=str(certs.keyfile) if certs else None,
    )  # fmt: skip
    console.print(f"serving [bold]{chosen.id}[/] at {server.url}")
    if certs:
        console.print(f"  self-signed certificate: {certs.certfile} (clients: disable verification or trust this file)")
    for pid, token in world.directory.tokens.items():
        console.print(f"  principal {pid}: Authorization: Bearer {token}")
    console.print(f"  admin: Authorization: Bearer {world.directory.admin_token}  ({server.url}/_admin/state)")
    try:
        server.thread.join()
    except KeyboardInterrupt:
        server.stop()


@app.command("mcp")
def mcp_stdio(
    scenario_id: str = typer.Argument(..., help="the scenario whose world to serve, e.g. email-triage-summary/benign"),
    as_agent: str = typer.Option(..., "--as", help="the delegate agent whose tools to serve, e.g. alice-agent"),
    suite: str = typer.Option(DEFAULT_SUITE, "--suite"),
    seed: int = typer.Option(0, "--seed"),
    runs_dir: Path = typer.Option(Path("runs"), "--runs-dir", help="where the scored session's run folder is written on exit"),
    run_id: Optional[str] = typer.Option(None, "--run-id", help="name of the session's run folder"),
) -> None:
    """Serve one agent's tools as an MCP server over stdio (for harnesses that spawn MCP servers); score the session on exit."""
    from clawarena.mcp.commands import stdio_session

    try:
        scenarios = {s.id: s for s in load_suite(suite)}
    except SpecError as exc:
        _fail(str(exc))
    if scenario_id not in scenarios:
        _fail(f"SCENARIO_ID: unknown scenario {scenario_id!r}; see `clawarena tasks list --suite {suite}`")
    chosen = scenarios[scenario_id]
    if as_agent not in {a.id for a in chosen.task.agents}:
        _fail(f"--as: no agent {as_agent!r} in {scenario_id}; agents: {', '.join(a.id for a in chosen.task.agents)}")
    stdio_session(chosen, as_agent, suite=suite, seed=seed, runs_dir=runs_dir, run_id=run_id)


@app.command()
def score(run_dir: Path = typer.Argument(..., help="a run folder, e.g. runs/<run-id>")) -> None:
    """Re-score a run folder from its saved final state and ledger (sessions of serve/mcp) and print the scores."""
    from clawarena.mcp.commands import rescore_table

    try:
        table, results = rescore_table(run_dir)
    except (RunStoreError, SpecError, OSError) as exc:
        _fail(str(exc))
    console.print(table)
    console.print(_summary_table([r.rescored.record if r.rescored else r.stored for r in results]))
    if any(r.matches is False for r in results):
        err.print("some re-scored trials differ from their stored lines (the task or the scoring changed since)")


@app.command()
def suites() -> None:
    """The bundled suites."""
    for name in bundled_suites():
        console.print(name)


def main() -> None:  # pragma: no cover
    app()


if __name__ == "__main__":  # pragma: no cover
    sys.exit(app())
