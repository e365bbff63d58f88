"""`clawarena view`: the trace viewer, a local web app over run folders."""

from __future__ import annotations

import socket
from pathlib import Path

import typer

from clawarena.commands.base import console, err, fail


def _cannot_listen(port: int) -> str | None:
    """Why 127.0.0.1:port cannot be listened on, if it cannot (asked before uvicorn, which would log
    its own traceback-like lines)."""
    with socket.socket() as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as uvicorn binds: a port in TIME_WAIT is free
        try:
            probe.bind(("127.0.0.1", port))
        except OSError as exc:
            return exc.strerror or str(exc)
    return None


def view(
    run_dirs: list[Path] = typer.Argument(..., metavar="RUN-DIR", help="run folders (runs/<run-id>) to browse together"),
    port: int = typer.Option(8765, "--port", min=0, max=65535, metavar="PORT", help="port on 127.0.0.1 (0 picks a free one); the report's links assume 8765"),
) -> None:
    """Browse trials in a local web app on 127.0.0.1: the trial list with filters, each trial's model,
    tool and artifact views, its evidence chain, and benign against attacked. Reads the run folders
    only; Ctrl-C stops it."""
    from clawarena.server.serve import start_in_thread
    from clawarena.view.app import build_app
    from clawarena.view.index import TrialIndex, ViewError, open_runs

    try:
        index = TrialIndex(open_runs(run_dirs))
    except ViewError as exc:
        fail(str(exc))
    for run in index.runs.values():
        for warning in run.warnings:
            err.out(f"warning: {warning}", highlight=False)
    problem = _cannot_listen(port)
    if problem:
        fail(f"--port {port}: cannot listen on 127.0.0.1 ({problem}); is another viewer running? --port 0 picks a free port")
    try:
        server = start_in_thread(build_app(index), port=port)
    except (RuntimeError, OSError) as exc:  # taken between the test and the start
        fail(f"--port {port}: cannot listen on 127.0.0.1 ({exc}); --port 0 picks a free port")
    console.out(f"{len(index.rows)} trials from {len(index.runs)} run(s): {server.url}/  (Ctrl-C stops)", highlight=False)
    try:
        while server.thread.is_alive():
            server.thread.join(0.5)
    except KeyboardInterrupt:
        pass
    finally:
        server.stop()
