"""report.html: one self-contained page (inline stylesheet, inline SVG figures, no script, nothing
fetched), readable offline.

Every number links to the trials behind it: a cell with one trial links to that trial's row in
the trials table; a cell with several links to a list of them. Identical lists are written once
(most rates of a group share a denominator), and a list shows only when it is the link's target
(CSS `:target`), so a 2000-trial run stays a few megabytes and needs no JavaScript to filter.
"""

from __future__ import annotations

from html import escape

from clawarena.report.model import Cell, Section, Table
from clawarena.report.plots import render
from clawarena.report.sections import Context

STYLE = """
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;margin:0 auto;max-width:1200px;padding:0 1.2em 4em;color:#222}
h1{font-size:1.6em;margin:.8em 0 .2em}h2{margin-top:2em;border-bottom:1px solid #ddd;padding-bottom:.2em}
h3{font-size:1.05em;margin:1.4em 0 .4em}
nav a{margin-right:1em}p.note{color:#555;font-size:.92em;margin:.3em 0}
table{border-collapse:collapse;margin:.4em 0 1em;font-size:.92em}th,td{border:1px solid #ddd;padding:.25em .55em;vertical-align:top}
th{background:#f4f4f4;text-align:left}td.n{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
tr:target,.trials:target{background:#fff6cc}a{color:#0645ad;text-decoration:none}a:hover{text-decoration:underline}
figure{margin:.6em 0;display:inline-block;vertical-align:top}figure svg{max-width:100%;height:auto}
.figures{display:flex;flex-wrap:wrap;gap:1em}.wide{overflow-x:auto}
.trials{display:none;border:1px solid #ccc;padding:.5em 1em;margin:.5em 0}.trials:target{display:block}
.trials a.u{display:block;font-family:ui-monospace,monospace;font-size:.88em}
"""


class TrialLists:
    """The lists of trials behind the numbers, written once each, and the href of each."""

    def __init__(self, anchors: dict[str, str]):
        self.anchors = anchors  # unit id -> its trial row's id
        self.lists: dict[tuple[str, ...], str] = {}

    def href(self, trials: tuple[str, ...]) -> str | None:
        known = tuple(u for u in trials if u in self.anchors)
        if not known:
            return None
        if len(known) == 1:
            return f"#{self.anchors[known[0]]}"
        return f"#{self.lists.setdefault(known, f'b-{len(self.lists)}')}"

    def html(self) -> str:
        out = []
        for trials, key in self.lists.items():
            links = "".join(f'<a class="u" href="#{self.anchors[u]}">{escape(u)}</a>' for u in trials)
            out.append(f'<div class="trials" id="{key}"><b>{len(trials)} trials</b> <a href="#top">(top)</a>{links}</div>')
        return "\n".join(out)


def _cell(cell: Cell, lists: TrialLists) -> str:
    body = escape(cell.text)
    href = escape(cell.href) if cell.href else lists.href(cell.trials)
    if href:
        body = f'<a href="{href}">{body}</a>'
    return f'<td class="n">{body}</td>' if cell.numeric else f"<td>{body}</td>"


def _table(table: Table, lists: TrialLists) -> str:
    head = "".join(f"<th>{escape(c)}</th>" for c in table.columns)
    rows = []
    for row in table.rows:
        anchor = f' id="{row.anchor}"' if row.anchor else ""
        rows.append(f"<tr{anchor}>" + "".join(_cell(c, lists) for c in row.cells) + "</tr>")
    note = f'<p class="note">{escape(table.note)}</p>' if table.note else ""
    body = "\n".join(rows)
    grid = f'<table id="tbl-{table.key}"><thead><tr>{head}</tr></thead>\n<tbody>\n{body}\n</tbody></table>'
    return f'<h3>{escape(table.title)}</h3>{note}<div class="wide">{grid}</div>'


def _section(section: Section, lists: TrialLists) -> str:
    parts = [f'<section id="{section.key}"><h2>{escape(section.title)}</h2>']
    parts += [f"<p>{escape(p)}</p>" for p in section.intro]
    tables = [_table(t, lists) for t in section.tables]
    figures = [f'<figure id="fig-{f.key}">{render(f, lists.href)}</figure>' for f in section.figures]
    shown = [f'<div class="figures">{"".join(figures)}</div>'] if figures else []
    parts += shown + tables if section.figures_first else tables + shown
    parts.append("</section>")
    return "\n".join(parts)


def render_html(ctx: Context, sections: list[Section], title: str) -> str:
    lists = TrialLists(ctx.trial_anchor)
    body = "\n".join(_section(s, lists) for s in sections)  # first: rendering registers the lists
    nav = "".join(f'<a href="#{s.key}">{escape(s.title)}</a>' for s in sections)
    return f"""<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{escape(title)}</title>
<style>{STYLE}</style>
</head>
<body>
<h1 id="top">{escape(title)}</h1>
<nav>{nav}</nav>
{body}
<section id="trial-lists"><h2>Trials behind a number</h2><p>A number's link shows here the trials it counts over (its denominator).</p>
{lists.html()}
</section>
</body>
</html>
"""
