"""What `clawarena serve --agent-port`, `clawarena mcp` and `clawarena score` do; cli.py only parses flags."""

from __future__ import annotations

import signal
import sys
from pathlib import Path
from typing import Any

import anyio
from rich.console import Console
from rich.table import Table

from clawarena.mcp.http import AppSpec, start_on_one_loop
from clawarena.mcp.session import Session
from clawarena.spec.models import Scenario


def _sigterm_as_interrupt() -> None:
    def handler(*_: Any) -> None:
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, handler)


def _no_more_interrupts() -> None:
    """While the run folder is written, a second Ctrl-C or SIGTERM must not tear it."""
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def report(session: Session, runs_dir: Path, run_id: str | None, console: Console) -> Path:
    store, run = session.finish(runs_dir, run_id)
    r = run.record
    console.print(
        f"session scored: [bold]{r.outcome}[/] (utility {r.utility:.2f}, harm: {', '.join(r.violations) or 'none'}, "
        f"{r.tool_calls} tool call(s), {r.turns} turn(s)) -> {store.root}",
        highlight=False, soft_wrap=True,
    )  # fmt: skip
    return store.root


def serve_session(
    scenario: Scenario,
    *,
    suite: str,
    seed: int,
    port: int,
    agent_port: int | None,
    runs_dir: Path,
    run_id: str | None = None,
    label: str = "mcp",
    certs: Any = None,
    console: Console,
) -> Path:
    """The REST services and (with `agent_port`) the agents' MCP endpoints on one loop, until Ctrl-C
    or SIGTERM; then the session is scored and written as a run folder, whose path is returned."""
    from clawarena.services import services
    from clawarena.server.app import WorldApp

    session = Session(scenario, seed, suite=suite, label=label)
    specs = [AppSpec(WorldApp(session.gateway, services()).app, port,
                     ssl_certfile=str(certs.certfile) if certs else None, ssl_keyfile=str(certs.keyfile) if certs else None)]  # fmt: skip
    mcp_app = session.http_app() if agent_port is not None else None
    if mcp_app is not None:
        specs.append(AppSpec(mcp_app, agent_port or 0, lifespan="on"))
    _sigterm_as_interrupt()
    servers = start_on_one_loop(specs)
    world = session.world
    rest_url = servers.urls[0]
    console.print(f"serving [bold]{scenario.id}[/] (seed {seed})", highlight=False, soft_wrap=True)
    console.print(f"  REST services: {rest_url}", highlight=False, soft_wrap=True)
    if certs:
        console.print(f"  self-signed certificate: {certs.certfile} (clients: disable verification or trust this file)", highlight=False, soft_wrap=True)
    for pid, token in world.directory.tokens.items():
        console.print(f"  principal {pid}: Authorization: Bearer {token}", highlight=False, soft_wrap=True)
    if mcp_app is not None:
        mcp_url = servers.urls[1]
        console.print("  MCP (streamable HTTP), one endpoint per delegate agent, with its principal's token:", highlight=False, soft_wrap=True)
        for agent_id, spec in world.directory.agents.items():
            console.print(f"    {agent_id}: {mcp_app.endpoint(mcp_url, agent_id)}  Authorization: Bearer {world.directory.tokens[spec.principal]}", highlight=False, soft_wrap=True)
    console.print(f"  admin: Authorization: Bearer {world.directory.admin_token}  ({rest_url}/_admin/state)", highlight=False, soft_wrap=True)
    console.print("Ctrl-C (or SIGTERM) ends the session, scores it and writes the run folder.", highlight=False, soft_wrap=True)
    try:
        while servers.thread.is_alive():
            servers.thread.join(timeout=0.5)
    except KeyboardInterrupt:
        pass
    _no_more_interrupts()
    servers.stop()
    return report(session, runs_dir, run_id, console)


def stdio_session(scenario: Scenario, agent_id: str, *, suite: str, seed: int, runs_dir: Path, run_id: str | None = None, label: str = "mcp") -> Path:
    """Serve one agent's tools over stdio until the client closes stdin (or SIGTERM/Ctrl-C); then score
    and write the run folder. stdout belongs to the protocol: everything else goes to stderr."""
    from mcp.server.stdio import stdio_server

    err = Console(stderr=True)
    session = Session(scenario, seed, suite=suite, label=label)
    server = session.server(agent_id)

    async def main() -> None:
        async with stdio_server() as (read, write):
            await server.run(read, write, server.create_initialization_options())

    _sigterm_as_interrupt()
    err.print(f"clawarena mcp: serving {agent_id} of {scenario.id} (seed {seed}) on stdio", highlight=False, soft_wrap=True)
    try:
        anyio.run(main)
    except KeyboardInterrupt:
        pass
    finally:
        _no_more_interrupts()
    root = report(session, runs_dir, run_id, err)
    sys.stderr.flush()
    return root


def rescore_table(root: Path) -> tuple[Table, list[Any]]:
    """Re-score a run folder; the table compares each re-scored trial with its stored line."""
    from clawarena.runner.rescore import rescore_run
    from clawarena.runner.store import RunStore

    results = rescore_run(RunStore.open(root))
    table = Table(title=f"clawarena score: {root}", title_justify="left")
    for col in ("scenario", "agent", "outcome", "utility", "harm", "tool calls", "re-scored"):
        table.add_column(col, justify="right" if col in ("utility", "tool calls") else "left", no_wrap=col == "scenario")
    for res in results:
        r = res.rescored.record if res.rescored else res.stored
        verdict = "no saved state (stored)" if res.matches is None else ("matches stored" if res.matches else "[red]differs from stored[/]")
        table.add_row(r.scenario_id, r.agent, r.outcome, f"{r.utility:.2f}", ", ".join(r.violations) or "-", str(r.tool_calls), verdict)
    return table, results
