"""`clawarena serve` and `clawarena mcp`: one scenario's world driven from outside, as a session
that is scored into a run folder when it ends (Ctrl-C, SIGTERM, or the stdio client closing)."""

from __future__ import annotations

import signal
import sys
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Optional

import typer
from rich.console import Console

from clawarena.commands.base import DEFAULT_SUITE, SUITE_HELP, console, fail, find_scenario, load_suite_or_fail, writable_dir

if TYPE_CHECKING:
    from clawarena.runner.session import Session
    from clawarena.spec.models import Scenario

MAX_BODY_HELP_MIB = 48  # server.inputs.DEFAULT_MAX_BODY_BYTES, for the help text (a test keeps them equal)


@dataclass(frozen=True)
class ClientEndpoint:
    """Where an official client must point to reach one service of a served world."""

    service: str
    client: str
    setting: str  # the client's option that takes the URL
    suffix: str  # appended to the server's URL
    calls: str  # what the client then requests, to recognise it in a log


CLIENT_ENDPOINTS: tuple[ClientEndpoint, ...] = (
    # api_endpoint replaces rootUrl + servicePath: Gmail and Docs keep their version in each method path,
    # Calendar and Drive carry it in servicePath, so their endpoint must include it.
    ClientEndpoint("Gmail", 'googleapiclient build("gmail", "v1")', "api_endpoint", "", "/gmail/v1/..."),
    ClientEndpoint("Calendar", 'googleapiclient build("calendar", "v3")', "api_endpoint", "/calendar/v3/", "/calendar/v3/..."),
    ClientEndpoint("Drive", 'googleapiclient build("drive", "v3")', "api_endpoint", "/drive/v3/", "/drive/v3/..., /upload/drive/v3/..."),
    ClientEndpoint("Docs", 'googleapiclient build("docs", "v1")', "api_endpoint", "", "/v1/documents/..."),
    ClientEndpoint("Slack", "slack_sdk WebClient", "base_url", "/api/", "/api/<method>"),
)


def client_lines(url: str) -> list[str]:
    width = max(len(e.client) for e in CLIENT_ENDPOINTS)
    return [f"    {e.service:<9}{e.client:<{width}}  {e.setting}={url}{e.suffix}  (calls {e.calls})" for e in CLIENT_ENDPOINTS]


class StopSignal:
    """SIGINT and SIGTERM set an event instead of raising: the wait loop notices it, and nothing
    between starting the servers and writing the run folder can be torn by an exception."""

    def __init__(self) -> None:
        self.event = threading.Event()
        self.previous = {sig: signal.signal(sig, self._handle) for sig in (signal.SIGINT, signal.SIGTERM)}

    def _handle(self, signum: int, frame: Any) -> None:
        self.event.set()

    def ignore_more(self) -> None:
        """While the run folder is written, a second Ctrl-C or SIGTERM must not tear it."""
        for sig in self.previous:
            signal.signal(sig, signal.SIG_IGN)


def report(session: Session, runs_dir: Path, run_id: str | None, out: Console) -> Path:
    store, run = session.finish(runs_dir, run_id)
    r = run.record
    out.print(
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
    max_body_bytes: int | None = None,
    out: Console = console,
) -> Path:
    """The REST services and (with `agent_port`) the agents' MCP endpoints on one loop, until Ctrl-C
    or SIGTERM; then the session is scored and written as a run folder, whose path is returned."""
    from clawarena.mcp.http import AppSpec, start_on_one_loop
    from clawarena.runner.session import Session
    from clawarena.server.app import WorldApp
    from clawarena.services import services

    session = Session(scenario, seed, suite=suite, label=label)
    limits = {} if max_body_bytes is None else {"max_body_bytes": max_body_bytes}
    tls = {"ssl_certfile": str(certs.certfile), "ssl_keyfile": str(certs.keyfile)} if certs else {}
    specs = [AppSpec(WorldApp(session.gateway, services(), **limits).app, port, **tls)]
    mcp_app = session.http_app() if agent_port is not None else None
    if mcp_app is not None:
        specs.append(AppSpec(mcp_app, agent_port or 0, lifespan="on"))
    stop = StopSignal()  # before the servers start: from here on a signal always ends in a scored session
    servers = start_on_one_loop(specs)
    try:
        world = session.world
        rest_url = servers.urls[0]
        say = lambda text: out.print(text, highlight=False, soft_wrap=True, markup=False)  # noqa: E731
        out.print(f"serving [bold]{scenario.id}[/] (seed {seed})", highlight=False, soft_wrap=True)
        say(f"  REST services: {rest_url}")
        say("  official clients, each with a principal's token (Authorization: Bearer TOKEN), point at:")
        for line in client_lines(rest_url):
            say(line)
        if certs:
            say(f"  self-signed certificate: {certs.certfile} (clients: disable verification or trust this file)")
        for pid, token in world.directory.tokens.items():
            say(f"  principal {pid}: Authorization: Bearer {token}")
        if mcp_app is not None:
            mcp_url = servers.urls[1]
            say("  MCP (streamable HTTP), one endpoint per delegate agent, with its principal's token:")
            for agent_id, spec in world.directory.agents.items():
                say(f"    {agent_id}: {mcp_app.endpoint(mcp_url, agent_id)}  Authorization: Bearer {world.directory.tokens[spec.principal]}")
        say(f"  admin: Authorization: Bearer {world.directory.admin_token}  ({rest_url}/_admin/state)")
        say(f"Ctrl-C (or SIGTERM) ends the session, scores it and writes the run folder under {runs_dir}/.")
        sys.stdout.flush()
        while servers.thread.is_alive() and not stop.event.wait(0.5):
            pass
    finally:
        stop.ignore_more()
        servers.stop()
        session.finish(runs_dir, run_id)  # whatever ended the wait (a broken stdout too): the session is written
    return report(session, runs_dir, run_id, out)


def stdio_session(scenario: Scenario, agent_id: str, *, suite: str, seed: int, runs_dir: Path, run_id: str | None = None, label: str = "mcp") -> Path:
    """Serve one agent's tools over stdio until the client closes stdin (or SIGTERM/Ctrl-C); then score
    and write the run folder. stdout belongs to the protocol: everything else goes to stderr."""
    import anyio
    from mcp.server.stdio import stdio_server

    from clawarena.runner.session import Session

    err = Console(stderr=True)
    session = Session(scenario, seed, suite=suite, label=label)
    server = session.server(agent_id)

    async def main() -> None:
        async with stdio_server() as (read, write):
            await server.run(read, write, server.create_initialization_options())

    def interrupt(*_: Any) -> None:
        raise KeyboardInterrupt  # anyio.run blocks the main thread: only an exception ends it

    err.print(f"clawarena mcp: serving {agent_id} of {scenario.id} (seed {seed}) on stdio", highlight=False, soft_wrap=True)
    try:
        signal.signal(signal.SIGTERM, interrupt)
        anyio.run(main)
    except KeyboardInterrupt:
        pass
    finally:
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        session.finish(runs_dir, run_id)  # also when the transport failed: the session is written
    root = report(session, runs_dir, run_id, err)
    sys.stderr.flush()
    return root


def serve(
    scenario_id: Optional[str] = typer.Argument(None, metavar="SCENARIO", help="the scenario whose world to serve, e.g. email-triage-summary/benign (see `clawarena tasks list`)"),
    first: bool = typer.Option(False, "--first", help="serve the suite's first scenario (instead of naming one)"),
    suite: str = typer.Option(DEFAULT_SUITE, "--suite", metavar="SUITE", help=SUITE_HELP),
    port: int = typer.Option(8080, "--port", min=0, max=65535, metavar="PORT", help="port on 127.0.0.1 for the REST services (0 picks a free one)"),
    seed: int = typer.Option(0, "--seed", metavar="N", help="the world's seed"),
    tls: bool = typer.Option(False, "--tls", help="serve https with a generated self-signed certificate (needed for Google media uploads)"),
    cert_dir: Path = typer.Option(Path(".clawarena/tls"), "--cert-dir", metavar="DIR", help="where --tls writes cert.pem and key.pem"),
    agent_port: Optional[int] = typer.Option(None, "--agent-port", min=0, max=65535, metavar="PORT", help="also serve each delegate agent's tools over MCP (streamable HTTP) on this port (0 picks a free one)"),
    runs_dir: Path = typer.Option(Path("runs"), "--runs-dir", metavar="DIR", help="where the session is scored into a run folder when it ends"),
    run_id: Optional[str] = typer.Option(None, "--run-id", metavar="NAME", help="name of the session's run folder [default: a time stamp, mcp and the scenario]"),
    max_body: Optional[int] = typer.Option(None, "--max-body", min=1, metavar="BYTES", help=f"refuse request bodies larger than this with 413 [default: {MAX_BODY_HELP_MIB} MiB]"),
) -> None:
    """Serve one scenario's world on 127.0.0.1: the services' REST routes for the official clients and
    /_admin (and, with --agent-port, the agents' MCP endpoints). Ctrl-C or SIGTERM ends the session,
    which is then scored into a run folder."""
    if scenario_id is None and not first:
        example = load_suite_or_fail(suite)[0].id
        fail(f"SCENARIO: name the scenario to serve, e.g. `clawarena serve {example}` (all ids: `clawarena tasks list --suite {suite}`), or pass --first for the suite's first one")
    if scenario_id is not None and first:
        fail(f"--first: serves the suite's first scenario; drop it to serve {scenario_id}")
    chosen = find_scenario(suite, scenario_id) if scenario_id else load_suite_or_fail(suite)[0]
    writable_dir(runs_dir, "--runs-dir")  # now, not after the session: a session that cannot be written is lost
    certs = None
    if tls:
        from clawarena.server.tls import make_self_signed

        try:
            certs = make_self_signed(cert_dir)
        except OSError as exc:
            fail(f"--cert-dir: cannot write the certificate to {cert_dir}: {exc.strerror or exc}")
    from clawarena.world.build import WorldBuildError

    try:
        serve_session(chosen, suite=suite, seed=seed, port=port, agent_port=agent_port, runs_dir=runs_dir,
                      run_id=run_id, certs=certs, max_body_bytes=max_body)  # fmt: skip
    except (RuntimeError, WorldBuildError) as exc:  # a port in use; a world its fixtures cannot build
        fail(str(exc))


def mcp_stdio(
    scenario_id: str = typer.Argument(..., metavar="SCENARIO", help="the scenario whose world to serve, e.g. email-triage-summary/benign"),
    as_agent: str = typer.Option(..., "--as", metavar="AGENT", help="the delegate agent whose tools to serve, e.g. alice-agent"),
    suite: str = typer.Option(DEFAULT_SUITE, "--suite", metavar="SUITE", help=SUITE_HELP),
    seed: int = typer.Option(0, "--seed", metavar="N", help="the world's seed"),
    runs_dir: Path = typer.Option(Path("runs"), "--runs-dir", metavar="DIR", help="where the scored session's run folder is written on exit"),
    run_id: Optional[str] = typer.Option(None, "--run-id", metavar="NAME", help="name of the session's run folder"),
) -> None:
    """Serve one agent's tools as an MCP server over stdio (for harnesses that spawn MCP servers); score the session on exit."""
    chosen = find_scenario(suite, scenario_id)
    if as_agent not in {a.id for a in chosen.task.agents}:
        fail(f"--as: no agent {as_agent!r} in {scenario_id}; agents: {', '.join(a.id for a in chosen.task.agents)}")
    writable_dir(runs_dir, "--runs-dir")
    from clawarena.world.build import WorldBuildError

    try:
        stdio_session(chosen, as_agent, suite=suite, seed=seed, runs_dir=runs_dir, run_id=run_id)
    except WorldBuildError as exc:
        fail(str(exc))
