"""Writing a report: report.html, report.md and results.csv into one folder."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from clawarena.view.links import DEFAULT_URL
from clawarena.report.build import ReportData
from clawarena.report.html import render_html
from clawarena.report.markdown import render_markdown
from clawarena.report.results_csv import render_csv
from clawarena.report.sections import build_sections

HTML_FILE = "report.html"
MARKDOWN_FILE = "report.md"
CSV_FILE = "results.csv"


@dataclass(frozen=True)
class ReportFiles:
    html: Path
    markdown: Path
    csv: Path


def report_title(data: ReportData) -> str:
    return "clawarena report: " + ", ".join(run.label for run in data.runs)


def _write(path: Path, text: str) -> Path:
    tmp = path.with_name(path.name + ".tmp")  # a reader never sees half a file
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)
    return path


def write_report(data: ReportData, out: Path, viewer: str = DEFAULT_URL) -> ReportFiles:
    """Render every section once and write the three files (OSError when `out` cannot take them);
    each trial links to its page in the viewer at `viewer`."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    ctx, sections = build_sections(data, out, viewer)
    title = report_title(data)
    return ReportFiles(
        html=_write(out / HTML_FILE, render_html(ctx, sections, title)),
        markdown=_write(out / MARKDOWN_FILE, render_markdown(sections, title)),
        csv=_write(out / CSV_FILE, render_csv(data.metrics.groups)),
    )
