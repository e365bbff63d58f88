"""The report as data: sections of tables (and figures) that the HTML and the Markdown writers
both render, so the two files always hold the same tables with the same numbers."""

from __future__ import annotations

from dataclasses import dataclass, field

from clawarena.scoring.metrics import Estimate


@dataclass(frozen=True)
class Cell:
    text: str
    trials: tuple[str, ...] = ()  # the unit ids behind this number (its denominator): the HTML links to them
    numeric: bool = True
    href: str = ""  # a file next to the report (a trace), relative to the report's folder


@dataclass(frozen=True)
class Row:
    cells: list[Cell]
    anchor: str = ""  # an id the HTML gives the row (trial rows, headline rows)


@dataclass(frozen=True)
class Table:
    key: str  # unique in the report: the HTML id
    title: str
    columns: list[str]
    rows: list[Row]
    note: str = ""


@dataclass(frozen=True)
class ScatterPoint:
    label: str
    x: Estimate
    y: Estimate
    group: int  # colour: one per agent
    shape: int  # marker: one per condition
    link: str = ""  # the anchor of the row this point is (the headline row)


@dataclass(frozen=True)
class ScatterPlot:
    key: str
    title: str
    x_label: str
    y_label: str
    points: list[ScatterPoint]


@dataclass(frozen=True)
class HeatCell:
    estimate: Estimate
    trials: tuple[str, ...]


@dataclass(frozen=True)
class Heatmap:
    key: str
    title: str
    rows: list[str]  # domains
    columns: list[str]  # attack vectors
    cells: dict[tuple[str, str], HeatCell]  # (row, column) -> the cell; a missing pair had no trials


Figure = ScatterPlot | Heatmap


@dataclass(frozen=True)
class Section:
    key: str
    title: str
    intro: list[str] = field(default_factory=list)  # paragraphs of plain text
    tables: list[Table] = field(default_factory=list)
    figures: list[Figure] = field(default_factory=list)  # HTML only; the Markdown has their tables
    figures_first: bool = True  # figures above the tables (the headline table comes before its scatter)
