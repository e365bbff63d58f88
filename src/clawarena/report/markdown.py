"""report.md: the same sections and tables as report.html, as Markdown (for papers and reviews).
The figures are HTML only; their numbers are in the tables (the heatmap's cells, the headline rows)."""

from __future__ import annotations

from clawarena.report.model import Cell, Section, Table


def _escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace("|", "\\|").replace("\n", " ")


def _cell(cell: Cell) -> str:
    return _escape(cell.text)


def table_markdown(table: Table) -> str:
    lines = [f"### {table.title}", ""]
    if table.note:
        lines += [f"_{_escape(table.note)}_", ""]
    numeric = [bool(table.rows) and all(row.cells[i].numeric for row in table.rows) for i in range(len(table.columns))]
    lines.append("| " + " | ".join(_escape(c) for c in table.columns) + " |")
    lines.append("|" + "|".join("---:" if n else "---" for n in numeric) + "|")
    lines += ["| " + " | ".join(_cell(c) for c in row.cells) + " |" for row in table.rows]
    return "\n".join(lines) + "\n"


def render_markdown(sections: list[Section], title: str) -> str:
    out = [f"# {title}", ""]
    for section in sections:
        out += [f"## {section.title}", ""]
        for paragraph in section.intro:
            out += [paragraph, ""]
        if section.figures:
            out += [f"_Figures: {', '.join(f.title for f in section.figures)} (in report.html)._", ""]
        out += [table_markdown(t) for t in section.tables]
    return "\n".join(out).rstrip() + "\n"
