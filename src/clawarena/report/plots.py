"""The report's figures as static SVG text, inlined into report.html (no JavaScript, nothing fetched).

matplotlib's object API (Figure + the SVG canvas), never pyplot, so no global figure state. Text
stays text (`svg.fonttype: none`: smaller, searchable) and the ids matplotlib generates are salted
per figure, so several figures in one page never share an id and the output is the same every
time (no date in the metadata, no random salt). Each point or cell links (an SVG <a>) to the
row or trial list behind it; ids the report's test looks for: `<key>-marker-<i>` on each scatter
point's marker, `<key>-cell-<row>-<column>` on each heatmap cell's text.
"""

from __future__ import annotations

import io
import re
from collections.abc import Callable

import matplotlib
import numpy as np
from matplotlib.backends.backend_svg import FigureCanvasSVG
from matplotlib.figure import Figure

from clawarena.report.model import Heatmap, ScatterPlot
from clawarena.registry import Registry

_GROUP_ID = re.compile(r'<g id="([A-Za-z][\w.]*_\d+)"')
MARKERS = ("o", "s", "^", "D", "v", "P", "X", "*")
TrialLink = Callable[[tuple[str, ...]], "str | None"]  # unit ids -> the href of the list of those trials


def _svg(fig: Figure, salt: str) -> str:
    FigureCanvasSVG(fig)
    buf = io.StringIO()
    with matplotlib.rc_context({"svg.fonttype": "none", "svg.hashsalt": salt}):
        fig.savefig(buf, format="svg", metadata={"Date": None, "Creator": None, "Format": None, "Type": None})
    text = buf.getvalue()
    text = text[text.index("<svg") :]  # the XML declaration and DOCTYPE do not belong inside HTML
    # matplotlib numbers its groups per figure (figure_1, axes_1, ...): prefixed, they stay unique in the page
    return _GROUP_ID.sub(lambda m: f'<g id="{salt}-{m[1]}"', text)


def _pct(x: float | None) -> float:
    return float("nan") if x is None else 100.0 * x


def scatter_svg(plot: ScatterPlot, link: TrialLink) -> str:
    fig = Figure(figsize=(6.4, 4.8), layout="constrained")
    ax = fig.add_subplot()
    colors = matplotlib.colormaps["tab10"]
    placed: dict[tuple[float, float], int] = {}  # labels already at a position: identical points get stacked labels
    for i, p in enumerate(plot.points):
        x, y = _pct(p.x.value), _pct(p.y.value)
        xerr = None if p.x.low is None or p.x.high is None else [[x - _pct(p.x.low)], [_pct(p.x.high) - x]]
        yerr = None if p.y.low is None or p.y.high is None else [[y - _pct(p.y.low)], [_pct(p.y.high) - y]]
        color = colors(p.group % 10)
        face = color if p.shape == 0 else "none"  # later conditions hollow, so a point on top of another leaves it visible
        bars = ax.errorbar([x], [y], xerr=xerr, yerr=yerr, fmt=MARKERS[p.shape % len(MARKERS)], color=color, markerfacecolor=face,
                           markeredgewidth=1.8, markersize=9, capsize=4, elinewidth=1.2, label=p.label)  # fmt: skip
        marker = bars.lines[0]
        marker.set_gid(f"{plot.key}-marker-{i}")
        href = f"#{p.link}" if p.link else None  # the point's row in the headline table
        marker.set_url(href)
        spot = (round(x, 1), round(y, 1))
        stacked = placed.get(spot, 0)
        placed[spot] = stacked + 1
        right = x > 60  # labels of points on the right go to their left, inside the axes
        offset = (-8 if right else 8, 8 - 12 * stacked)
        label = ax.annotate(p.label, (x, y), xytext=offset, textcoords="offset points", fontsize=9, ha="right" if right else "left")
        label.set_gid(f"{plot.key}-label-{i}")
        label.set_url(href)
    ax.set_xlim(-5, 105)
    ax.set_ylim(-5, 105)
    ax.set_xlabel(plot.x_label)
    ax.set_ylabel(plot.y_label)
    ax.set_title(plot.title)
    ax.grid(True, alpha=0.3)
    if not plot.points:
        ax.text(50, 50, "no agent has both rates", ha="center", va="center", color="0.4")
    return _svg(fig, plot.key)


def heatmap_svg(plot: Heatmap, link: TrialLink) -> str:
    rows, cols = plot.rows, plot.columns
    values = np.full((len(rows), len(cols)), np.nan)
    for (row, col), cell in plot.cells.items():
        values[rows.index(row), cols.index(col)] = _pct(cell.estimate.value)
    width = min(3.0 + 1.0 * len(cols), 16.0)
    height = min(1.6 + 0.45 * len(rows), 12.0)
    fig = Figure(figsize=(width, height), layout="constrained")
    ax = fig.add_subplot()
    cmap = matplotlib.colormaps["Reds"].with_extremes(bad="#eeeeee")
    image = ax.imshow(np.ma.masked_invalid(values), cmap=cmap, vmin=0, vmax=100, aspect="auto")
    for (row, col), cell in plot.cells.items():
        i, j = rows.index(row), cols.index(col)
        v = values[i, j]
        label = "-" if np.isnan(v) else f"{v:.0f}%"
        shown = ax.text(j, i, f"{label}\nn={cell.estimate.n}", ha="center", va="center", fontsize=8, color="white" if v > 60 else "black")
        shown.set_gid(f"{plot.key}-cell-{i}-{j}")
        shown.set_url(link(cell.trials))
    ax.set_xticks(range(len(cols)), cols, rotation=30, ha="right", fontsize=8)
    ax.set_yticks(range(len(rows)), rows, fontsize=8)
    ax.set_title(plot.title, fontsize=10)
    fig.colorbar(image, ax=ax, label="ASR (%)", shrink=0.9)
    return _svg(fig, plot.key)


PLOTTERS: Registry[Callable[..., str]] = Registry("figure kind")
PLOTTERS.register(ScatterPlot.__name__, scatter_svg)
PLOTTERS.register(Heatmap.__name__, heatmap_svg)


def render(figure: ScatterPlot | Heatmap, link: TrialLink) -> str:
    return PLOTTERS.get(type(figure).__name__)(figure, link)
