"""`clawarena report`: report.html, report.md and results.csv from one or more run folders."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from clawarena.commands.base import console, err, fail, writable_dir


def report(
    run_dirs: list[Path] = typer.Argument(..., metavar="RUN-DIR", help="run folders (runs/<run-id>); several are pooled into one report"),
    out: Optional[Path] = typer.Option(None, "--out", metavar="DIR", help="where the report files go [default: the first RUN-DIR]"),
    viewer: str = typer.Option("http://127.0.0.1:8765", "--viewer", metavar="URL", help="where `clawarena view` serves these runs: each trial links to its page there"),
) -> None:
    """Write report.html (self-contained, readable offline), report.md and results.csv, and print their paths."""
    from clawarena.report.build import ReportError, load_report
    from clawarena.report.write import write_report

    if not viewer.startswith(("http://", "https://")):
        fail(f"--viewer {viewer!r}: not an http:// or https:// URL")

    try:
        data = load_report(run_dirs)
    except ReportError as exc:
        fail(str(exc))
    for warning in data.warnings:
        err.out(f"warning: {warning}", highlight=False)
    target = writable_dir(out if out is not None else run_dirs[0], "--out")
    try:
        files = write_report(data, target, viewer)
    except OSError as exc:  # the folder went away or filled up after the write test
        fail(f"--out: cannot write to {target}: {exc.strerror or exc}")
    for path in (files.html, files.markdown, files.csv):
        console.out(str(path), highlight=False)
