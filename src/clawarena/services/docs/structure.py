"""The structure of a Google Doc, kept the way Google keeps it: a linear run of units per segment.

A segment (the body, a header, a footer, a footnote) is a list of units, one per
UTF-16 code unit of the document's index space:

- a text character (characters outside the BMP take two units: the surrogates),
- a paragraph end (the "\\n" that carries the paragraph's style and bullet),
- an inline element (image, page break, footnote reference, person, rich link),
- structure markers: section break, table start, row start, cell start, table end.

So a unit's position *is* its document index, and the structural elements with
their startIndex/endIndex are derived by parsing the units (`render_content`).
Editing (insert, delete) works on the unit list and is then validated by
parsing again: a deletion that would leave a table without its end, a cell
without its last newline or text outside any paragraph is refused, as Docs
refuses it.

The body starts with a section break at 0..1; headers, footers and footnotes
start at 0. A table is [table start][row start][cell start]cell content...
[table end]: an empty 2x2 table inserted at index 1 of an empty document
puts its start at 2 and its cells' paragraphs at 5, 7, 10 and 12.
"""

from __future__ import annotations

import copy
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from clawarena.world.hashing import canonical_json

CHAR, NL, SECTION, TABLE, ROW, CELL, ENDTABLE = "char", "nl", "sec", "tbl", "row", "cell", "etbl"
IMG, PAGEBREAK, FOOTREF, PERSON, RICHLINK, HR = "img", "pb", "fn", "person", "rich", "hr"
INLINE = {CHAR, IMG, PAGEBREAK, FOOTREF, PERSON, RICHLINK, HR}
MARKERS = {SECTION, TABLE, ROW, CELL, ENDTABLE}

NAMED_STYLE_TYPES = ("NORMAL_TEXT", "TITLE", "SUBTITLE", "HEADING_1", "HEADING_2", "HEADING_3", "HEADING_4", "HEADING_5", "HEADING_6")


class StructureError(ValueError):
    """An edit the document's structure does not allow (the message is Docs' own wording where known)."""


@dataclass
class Unit:
    kind: str
    ch: str = ""  # the UTF-16 code unit of a character
    ts: dict[str, Any] = field(default_factory=dict)  # text style (characters, paragraph ends, inline elements)
    data: dict[str, Any] = field(default_factory=dict)  # ps/bullet of a paragraph end, styles of markers, ids of inline elements

    def clone(self) -> "Unit":
        return Unit(self.kind, self.ch, copy.deepcopy(self.ts), copy.deepcopy(self.data))


def utf16_units(text: str) -> list[str]:
    """The UTF-16 code units of a string, as one-character strings (surrogates kept apart)."""
    raw = text.encode("utf-16-le", "surrogatepass")
    return [raw[i : i + 2].decode("utf-16-le", "surrogatepass") for i in range(0, len(raw), 2)]


def from_utf16(units: Iterable[str]) -> str:
    return "".join(units).encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")


def utf16_len(text: str) -> int:
    return len(text.encode("utf-16-le", "surrogatepass")) // 2


def default_paragraph_style(named: str = "NORMAL_TEXT") -> dict[str, Any]:
    return {"namedStyleType": named, "direction": "LEFT_TO_RIGHT"}


def new_nl(ps: dict[str, Any] | None = None, ts: dict[str, Any] | None = None, bullet: dict[str, Any] | None = None) -> Unit:
    data: dict[str, Any] = {"ps": ps if ps is not None else default_paragraph_style()}
    if bullet is not None:
        data["bullet"] = bullet
    return Unit(NL, "\n", ts or {}, data)


def text_units(text: str, ts: dict[str, Any] | None = None) -> list[Unit]:
    """Characters only (no newlines): callers split paragraphs themselves."""
    return [Unit(CHAR, c, dict(ts or {})) for c in utf16_units(text)]


def section_style(section_type: str = "CONTINUOUS") -> dict[str, Any]:
    return {"columnSeparatorStyle": "NONE", "contentDirection": "LEFT_TO_RIGHT", "sectionType": section_type}


# ---- storage: compressed items <-> units ---------------------------------------------------
def compress(units: list[Unit]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for u in units:
        if u.kind == CHAR:
            if out and out[-1]["t"] == CHAR and out[-1]["ts"] == u.ts:
                out[-1]["s"] += u.ch
            else:
                out.append({"t": CHAR, "s": u.ch, "ts": u.ts})
        else:
            item: dict[str, Any] = {"t": u.kind}
            if u.ts:
                item["ts"] = u.ts
            if u.data:
                item["d"] = u.data
            out.append(item)
    for item in out:  # lone surrogates do not survive JSON: store text as code points where possible
        if item["t"] == CHAR:
            item["s"] = item["s"].encode("utf-16-le", "surrogatepass").decode("utf-16-le", "surrogatepass")
    return out


def expand(items: list[dict[str, Any]]) -> list[Unit]:
    units: list[Unit] = []
    for item in items:
        if item["t"] == CHAR:
            ts = item.get("ts", {})
            units.extend(Unit(CHAR, c, ts) for c in utf16_units(item["s"]))
        elif item["t"] == NL:
            units.append(Unit(NL, "\n", item.get("ts", {}), item.get("d", {})))
        else:
            units.append(Unit(item["t"], "", item.get("ts", {}), item.get("d", {})))
    return units


# ---- parsing units into structural elements --------------------------------------------------
@dataclass
class Para:
    start: int
    end: int  # exclusive: the paragraph end unit is at end - 1


@dataclass
class Cell:
    start: int  # the cell-start marker
    end: int
    content: list[Any]


@dataclass
class Row:
    start: int
    end: int
    cells: list[Cell]


@dataclass
class Table:
    start: int
    end: int  # exclusive: the table-end marker is at end - 1
    rows: list[Row]


@dataclass
class Section:
    start: int
    end: int


Block = Para | Table | Section


class _Parser:
    def __init__(self, units: list[Unit]):
        self.u = units
        self.i = 0

    def blocks(self, in_cell: bool, is_body: bool) -> list[Block]:
        out: list[Block] = []
        u = self.u
        while self.i < len(u):
            kind = u[self.i].kind
            if kind in (CELL, ROW, ENDTABLE):
                if not in_cell:
                    raise StructureError("a table marker outside a table")
                break
            if kind == SECTION:
                if not is_body:
                    raise StructureError("a section break outside the body")
                out.append(Section(self.i, self.i + 1))
                self.i += 1
            elif kind == TABLE:
                out.append(self.table(is_body))
            else:
                out.append(self.paragraph())
        if not out or not isinstance(out[-1], Para):
            raise StructureError("content must end with a paragraph")
        return out

    def paragraph(self) -> Para:
        start = self.i
        u = self.u
        while self.i < len(u) and u[self.i].kind in INLINE:
            self.i += 1
        if self.i >= len(u) or u[self.i].kind != NL:
            raise StructureError("text outside a paragraph")
        self.i += 1
        return Para(start, self.i)

    def table(self, is_body: bool) -> Table:
        start = self.i
        self.i += 1
        rows: list[Row] = []
        u = self.u
        while self.i < len(u) and u[self.i].kind == ROW:
            rstart = self.i
            self.i += 1
            cells: list[Cell] = []
            while self.i < len(u) and u[self.i].kind == CELL:
                cstart = self.i
                self.i += 1
                content = self.blocks(in_cell=True, is_body=False)
                if any(isinstance(b, Section) for b in content):
                    raise StructureError("a section break inside a table")
                cells.append(Cell(cstart, self.i, content))
            if not cells:
                raise StructureError("a table row without cells")
            rows.append(Row(rstart, self.i, cells))
        if not rows or self.i >= len(u) or u[self.i].kind != ENDTABLE:
            raise StructureError("a table without rows or without its end")
        self.i += 1
        return Table(start, self.i, rows)


def parse(units: list[Unit], is_body: bool) -> list[Block]:
    """The segment's blocks; StructureError when the units do not form a valid segment."""
    p = _Parser(units)
    if is_body and (not units or units[0].kind != SECTION):
        raise StructureError("the body must start with a section break")
    blocks = p.blocks(in_cell=False, is_body=is_body)
    if p.i != len(units):
        raise StructureError("stray table markers")
    return blocks


def walk_paragraphs(blocks: list[Block]) -> Iterable[Para]:
    for b in blocks:
        if isinstance(b, Para):
            yield b
        elif isinstance(b, Table):
            for row in b.rows:
                for cell in row.cells:
                    yield from walk_paragraphs(cell.content)


def walk_tables(blocks: list[Block]) -> Iterable[Table]:
    for b in blocks:
        if isinstance(b, Table):
            yield b
            for row in b.rows:
                for cell in row.cells:
                    yield from walk_tables(cell.content)


# ---- the document ------------------------------------------------------------------------------
class Document:
    """A Google Doc in memory: segments of units plus the document-level maps."""

    def __init__(self, data: dict[str, Any]):
        self.segments: dict[str, list[Unit]] = {sid: expand(items) for sid, items in data["segments"].items()}
        self.kinds: dict[str, str] = dict(data.get("kinds", {}))  # segment id -> header | footer | footnote
        self.document_style: dict[str, Any] = copy.deepcopy(data.get("documentStyle", {}))
        self.named_styles: dict[str, Any] = copy.deepcopy(data.get("namedStyles", {}))
        self.lists: dict[str, Any] = copy.deepcopy(data.get("lists", {}))
        self.named_ranges: dict[str, Any] = copy.deepcopy(data.get("namedRanges", {}))
        self.inline_objects: dict[str, Any] = copy.deepcopy(data.get("inlineObjects", {}))

    @classmethod
    def blank(cls) -> "Document":
        return cls({"segments": {"": [{"t": SECTION, "d": {"style": section_style()}}, {"t": NL, "d": {"ps": default_paragraph_style()}}]}})

    @classmethod
    def from_text(cls, text: str) -> "Document":
        doc = cls.blank()
        if text:
            doc.insert_text("", 1, text, ids=None)
        return doc

    def dump(self) -> dict[str, Any]:
        return copy.deepcopy(self._view())

    def fingerprint(self) -> str:
        """`canonical_json(dump())` without the copy: what tells an edit that changed nothing."""
        return canonical_json(self._view())

    def _view(self) -> dict[str, Any]:
        """The stored form, sharing this document's maps (callers copy or only read it)."""
        self.collect_garbage()
        return {
            "segments": {sid: compress(units) for sid, units in sorted(self.segments.items())},
            "kinds": dict(sorted(self.kinds.items())), "documentStyle": self.document_style, "namedStyles": self.named_styles,
            "lists": self.lists, "namedRanges": self.named_ranges, "inlineObjects": self.inline_objects,
        }  # fmt: skip

    # ---- segments
    def seg(self, segment_id: str | None) -> list[Unit]:
        sid = segment_id or ""
        if sid not in self.segments:
            raise StructureError(f"Invalid segment ID: {sid}")
        return self.segments[sid]

    def is_body(self, segment_id: str | None) -> bool:
        return not segment_id

    def blocks(self, segment_id: str | None = "") -> list[Block]:
        return parse(self.seg(segment_id), self.is_body(segment_id))

    def end_index(self, segment_id: str | None = "") -> int:
        return len(self.seg(segment_id))

    def check_index(self, segment_id: str | None, index: int) -> None:
        end = self.end_index(segment_id)
        if index < 0:
            raise StructureError(f"Index {index} must be greater than or equal to zero.")
        if index >= end:
            raise StructureError(f"Index {index} must be less than the end index of the referenced segment, {end}.")

    def paragraph_at(self, segment_id: str | None, index: int) -> Para:
        for p in walk_paragraphs(self.blocks(segment_id)):
            if p.start <= index < p.end:
                return p
        raise StructureError("The insertion index must be inside the bounds of an existing paragraph. You can still create new paragraphs by inserting newlines.")

    def paragraphs_in(self, segment_id: str | None, start: int, end: int) -> list[Para]:
        return [p for p in walk_paragraphs(self.blocks(segment_id)) if p.start < max(end, start + 1) and p.end > start]

    def in_table(self, segment_id: str | None, index: int) -> bool:
        for t in walk_tables(self.blocks(segment_id)):
            if t.start <= index < t.end:
                return True
        return False

    def table_at(self, segment_id: str | None, index: int) -> Table:
        for t in walk_tables(self.blocks(segment_id)):
            if t.start == index:
                return t
        raise StructureError(f"Invalid table start location. There is no table starting at index {index}.")

    # ---- the two primitive edits (named ranges follow them)
    def _insert_units(self, segment_id: str, index: int, new: list[Unit]) -> None:
        units = self.seg(segment_id)
        units[index:index] = new
        n = len(new)
        for nr in self.named_ranges.values():
            for r in nr["ranges"]:
                if (r.get("segmentId") or "") != (segment_id or ""):
                    continue
                if index <= r["startIndex"]:
                    r["startIndex"] += n
                    r["endIndex"] += n
                elif index < r["endIndex"]:
                    r["endIndex"] += n

    def _delete_units(self, segment_id: str, start: int, end: int) -> None:
        units = self.seg(segment_id)
        del units[start:end]
        n = end - start
        for nr in self.named_ranges.values():
            for r in nr["ranges"]:
                if (r.get("segmentId") or "") != (segment_id or ""):
                    continue
                r["startIndex"] = _shrink(r["startIndex"], start, end, n)
                r["endIndex"] = _shrink(r["endIndex"], start, end, n)
            nr["ranges"] = [r for r in nr["ranges"] if r["endIndex"] > r["startIndex"]]
        for rid in [k for k, v in self.named_ranges.items() if not v["ranges"]]:
            del self.named_ranges[rid]

    def _validated(self, segment_id: str, edit, message: str) -> None:
        """Run an edit; undo it (and raise) if the segment no longer parses."""
        saved_units = [u for u in self.seg(segment_id)]
        saved_ranges = copy.deepcopy(self.named_ranges)
        edit()
        try:
            self.blocks(segment_id)
        except StructureError:
            self.segments[segment_id or ""] = saved_units
            self.named_ranges = saved_ranges
            raise StructureError(message) from None

    # ---- text
    def insert_text(self, segment_id: str | None, index: int, text: str, ids: Any) -> int:
        """Insert text (newlines split paragraphs); returns the UTF-16 length inserted."""
        sid = segment_id or ""
        self.check_index(sid, index)
        para = self.paragraph_at(sid, index)
        units = self.seg(sid)
        style = self._inherit_style(units, para, index)
        end_unit = units[para.end - 1]
        new: list[Unit] = []
        for c in utf16_units(_clean_text(text)):
            if c == "\n":
                ps = copy.deepcopy(end_unit.data.get("ps", default_paragraph_style()))
                if ps.get("headingId") and ids is not None:
                    ps["headingId"] = ids.heading()
                nl = Unit(NL, "\n", dict(style), {"ps": ps})
                if end_unit.data.get("bullet") is not None:
                    nl.data["bullet"] = copy.deepcopy(end_unit.data["bullet"])
                new.append(nl)
            else:
                new.append(Unit(CHAR, c, dict(style)))
        self._insert_units(sid, index, new)
        return len(new)

    @staticmethod
    def _inherit_style(units: list[Unit], para: Para, index: int) -> dict[str, Any]:
        if index > para.start and units[index - 1].kind in INLINE:
            src = units[index - 1].ts
        else:
            src = units[index].ts
        return {k: v for k, v in src.items() if k != "link"} if index == para.start else dict(src)

    def insert_inline(self, segment_id: str | None, index: int, unit: Unit) -> None:
        sid = segment_id or ""
        self.check_index(sid, index)
        para = self.paragraph_at(sid, index)
        units = self.seg(sid)
        unit.ts = unit.ts or self._inherit_style(units, para, index)
        self._insert_units(sid, index, [unit])

    def delete_range(self, segment_id: str | None, start: int, end: int) -> None:
        sid = segment_id or ""
        if end <= start:
            raise StructureError("The range should not be empty." if end == start else "The start index of the range must be less than the end index.")
        if start < 0:
            raise StructureError(f"Index {start} must be greater than or equal to zero.")
        seg_end = self.end_index(sid)
        if end > seg_end:
            raise StructureError(f"Index {end - 1} must be less than the end index of the referenced segment, {seg_end}.")
        if end == seg_end:
            raise StructureError("The range cannot include the newline character at the end of the segment.")
        if self.is_body(sid) and start == 0:
            raise StructureError("The range cannot include the section break at the start of the body.")
        units = self.seg(sid)
        if 0 < start < len(units) and _is_low(units[start].ch) or end < len(units) and _is_low(units[end].ch):
            raise StructureError("The range cannot split a surrogate pair.")
        self._validated(sid, lambda: self._delete_units(sid, start, end), "Invalid deletion range. Cannot delete the requested range.")

    # ---- styles
    def update_text_style(self, segment_id: str | None, start: int, end: int, style: dict[str, Any], fields: list[str]) -> None:
        sid = segment_id or ""
        self._check_range(sid, start, end)
        for u in self.seg(sid)[start:end]:
            if u.kind in INLINE or u.kind == NL:
                u.ts = apply_fields(u.ts, style, fields)

    def update_paragraph_style(self, segment_id: str | None, start: int, end: int, style: dict[str, Any], fields: list[str], ids: Any) -> None:
        sid = segment_id or ""
        self._check_range(sid, start, end, allow_empty=True)
        units = self.seg(sid)
        for p in self.paragraphs_in(sid, start, end):
            nl = units[p.end - 1]
            ps = apply_fields(nl.data.get("ps", {}), style, fields)
            named = ps.get("namedStyleType", "NORMAL_TEXT")
            if named.startswith("HEADING") or named in ("TITLE", "SUBTITLE"):
                if not ps.get("headingId") and ids is not None and named.startswith("HEADING"):
                    ps["headingId"] = ids.heading()
            else:
                ps.pop("headingId", None)
            ps.setdefault("namedStyleType", "NORMAL_TEXT")
            ps.setdefault("direction", "LEFT_TO_RIGHT")
            nl.data["ps"] = ps

    def _check_range(self, sid: str, start: int, end: int, allow_empty: bool = False) -> None:
        if end < start or (end == start and not allow_empty):
            raise StructureError("The range should not be empty." if end == start else "The start index of the range must be less than the end index.")
        if start < 0:
            raise StructureError(f"Index {start} must be greater than or equal to zero.")
        seg_end = self.end_index(sid)
        if end > seg_end:
            raise StructureError(f"Index {end - 1} must be less than the end index of the referenced segment, {seg_end}.")

    # ---- bullets
    def create_bullets(self, segment_id: str | None, start: int, end: int, preset: str, ids: Any) -> None:
        sid = segment_id or ""
        self._check_range(sid, start, end, allow_empty=True)
        levels = list_levels(preset)
        paras = self.paragraphs_in(sid, start, end)
        if not paras:
            return
        units = self.seg(sid)
        list_id = None
        first = paras[0]
        if first.start > 0 and units[first.start - 1].kind == NL:
            prev_bullet = units[first.start - 1].data.get("bullet")
            if prev_bullet and self.lists.get(prev_bullet["listId"], {}).get("listProperties", {}).get("nestingLevels") == levels:
                list_id = prev_bullet["listId"]
        if list_id is None:
            list_id = ids.list_id() if ids is not None else f"kix.list{len(self.lists) + 1}"
            self.lists[list_id] = {"listProperties": {"nestingLevels": levels}}
        for p in reversed(paras):
            units = self.seg(sid)
            tabs = 0
            while p.start + tabs < p.end - 1 and units[p.start + tabs].kind == CHAR and units[p.start + tabs].ch == "\t":
                tabs += 1
            level = min(tabs, 8)
            nl = units[p.end - 1]
            bullet: dict[str, Any] = {"listId": list_id, "textStyle": {}}
            if level:
                bullet["nestingLevel"] = level
            nl.data["bullet"] = bullet
            ps = nl.data.setdefault("ps", default_paragraph_style())
            ps["indentFirstLine"] = copy.deepcopy(levels[level]["indentFirstLine"])
            ps["indentStart"] = copy.deepcopy(levels[level]["indentStart"])
            if tabs:
                self._delete_units(sid, p.start, p.start + tabs)

    def delete_bullets(self, segment_id: str | None, start: int, end: int) -> None:
        sid = segment_id or ""
        self._check_range(sid, start, end, allow_empty=True)
        units = self.seg(sid)
        for p in self.paragraphs_in(sid, start, end):
            nl = units[p.end - 1]
            if nl.data.pop("bullet", None) is not None:
                ps = nl.data.setdefault("ps", default_paragraph_style())
                ps.pop("indentFirstLine", None)

    # ---- tables
    def insert_table(self, segment_id: str | None, index: int, rows: int, columns: int) -> int:
        """Insert an empty table (after a new newline) at index; returns the table's start index."""
        sid = segment_id or ""
        if rows < 1 or columns < 1:
            raise StructureError("A table must have at least one row and one column.")
        if rows * columns > 20000 or columns > 20:
            raise StructureError("The table is too large.")
        self.check_index(sid, index)
        para = self.paragraph_at(sid, index)
        if self.kinds.get(sid) == "footnote":
            raise StructureError("Tables cannot be inserted into footnotes.")
        units = self.seg(sid)
        end_unit = units[para.end - 1]
        new = [Unit(NL, "\n", dict(units[index].ts), {"ps": copy.deepcopy(end_unit.data.get("ps", default_paragraph_style()))})]
        new.append(Unit(TABLE, "", {}, {"style": {"tableColumnProperties": [{"widthType": "EVENLY_DISTRIBUTED"} for _ in range(columns)]}}))
        for _ in range(rows):
            new.append(Unit(ROW, "", {}, {"style": {"minRowHeight": {"unit": "PT"}}}))
            for _ in range(columns):
                new.append(Unit(CELL, "", {}, {"style": default_cell_style()}))
                new.append(new_nl())
        new.append(Unit(ENDTABLE))
        self._insert_units(sid, index, new)
        return index + 1

    def _cell_location(self, sid: str, loc: dict[str, Any]) -> tuple[Table, int, int]:
        start = (loc.get("tableStartLocation") or {}).get("index")
        if start is None:
            raise StructureError("tableCellLocation.tableStartLocation.index is required.")
        table = self.table_at(sid, start)
        r, c = int(loc.get("rowIndex", 0)), int(loc.get("columnIndex", 0))
        if not 0 <= r < len(table.rows):
            raise StructureError(f"Row index {r} is out of bounds for a table with {len(table.rows)} rows.")
        if not 0 <= c < len(table.rows[r].cells):
            raise StructureError(f"Column index {c} is out of bounds for a row with {len(table.rows[r].cells)} cells.")
        return table, r, c

    def insert_table_row(self, segment_id: str | None, loc: dict[str, Any], below: bool) -> None:
        sid = segment_id or ""
        table, r, _ = self._cell_location(sid, loc)
        units = self.seg(sid)
        ref = table.rows[r]
        new = [Unit(ROW, "", {}, copy.deepcopy(units[ref.start].data))]
        for cell in ref.cells:
            style = copy.deepcopy(units[cell.start].data.get("style", default_cell_style()))
            style["rowSpan"], style["columnSpan"] = 1, 1
            new.append(Unit(CELL, "", {}, {"style": style}))
            new.append(new_nl())
        self._insert_units(sid, ref.end if below else ref.start, new)

    def insert_table_column(self, segment_id: str | None, loc: dict[str, Any], right: bool) -> None:
        sid = segment_id or ""
        table, r, c = self._cell_location(sid, loc)
        if len(table.rows[0].cells) >= 20:
            raise StructureError("A table can have at most 20 columns.")
        units = self.seg(sid)
        for row in reversed(table.rows):
            cell = row.cells[min(c, len(row.cells) - 1)]
            style = copy.deepcopy(units[cell.start].data.get("style", default_cell_style()))
            style["rowSpan"], style["columnSpan"] = 1, 1
            self._insert_units(sid, cell.end if right else cell.start, [Unit(CELL, "", {}, {"style": style}), new_nl()])
        props = self.seg(sid)[table.start].data.setdefault("style", {}).setdefault("tableColumnProperties", [])
        props.insert(c + 1 if right else c, {"widthType": "EVENLY_DISTRIBUTED"})

    def delete_table_row(self, segment_id: str | None, loc: dict[str, Any]) -> None:
        sid = segment_id or ""
        table, r, _ = self._cell_location(sid, loc)
        if len(table.rows) == 1:
            self._delete_units(sid, table.start, table.end)
            return
        row = table.rows[r]
        self._delete_units(sid, row.start, row.end)

    def delete_table_column(self, segment_id: str | None, loc: dict[str, Any]) -> None:
        sid = segment_id or ""
        table, r, c = self._cell_location(sid, loc)
        if all(len(row.cells) == 1 for row in table.rows):
            self._delete_units(sid, table.start, table.end)
            return
        for row in reversed(table.rows):
            if c < len(row.cells):
                cell = row.cells[c]
                self._delete_units(sid, cell.start, cell.end)
        props = self.seg(sid)[table.start].data.get("style", {}).get("tableColumnProperties", [])
        if c < len(props):
            del props[c]

    def table_cells(self, segment_id: str | None, table_start: int, row_span: tuple[int, int] | None = None, col_span: tuple[int, int] | None = None) -> list[Cell]:
        sid = segment_id or ""
        table = self.table_at(sid, table_start)
        out = []
        for ri, row in enumerate(table.rows):
            if row_span and not row_span[0] <= ri < row_span[1]:
                continue
            for ci, cell in enumerate(row.cells):
                if col_span and not col_span[0] <= ci < col_span[1]:
                    continue
                out.append(cell)
        return out

    # ---- gc
    def collect_garbage(self) -> None:
        used_objects: set[str] = set()
        used_footnotes: set[str] = set()
        used_lists: set[str] = set()
        for units in self.segments.values():
            for u in units:
                if u.kind == IMG:
                    used_objects.add(u.data.get("id", ""))
                elif u.kind == FOOTREF:
                    used_footnotes.add(u.data.get("id", ""))
                elif u.kind == NL and u.data.get("bullet"):
                    used_lists.add(u.data["bullet"]["listId"])
        self.inline_objects = {k: v for k, v in self.inline_objects.items() if k in used_objects}
        self.lists = {k: v for k, v in self.lists.items() if k in used_lists}
        for sid, kind in list(self.kinds.items()):
            if kind == "footnote" and sid not in used_footnotes:
                del self.kinds[sid]
                self.segments.pop(sid, None)

    # ---- reading
    def footnote_numbers(self) -> dict[str, str]:
        out: dict[str, str] = {}
        for u in self.segments.get("", []):
            if u.kind == FOOTREF and u.data.get("id") not in out:
                out[u.data["id"]] = str(len(out) + 1)
        return out

    def paragraph_text(self, sid: str, p: Para) -> str:
        return from_utf16(u.ch for u in self.seg(sid)[p.start : p.end] if u.kind in (CHAR, NL))


def _shrink(pos: int, start: int, end: int, n: int) -> int:
    if pos <= start:
        return pos
    if pos >= end:
        return pos - n
    return start


def _is_low(ch: str) -> bool:
    return len(ch) == 1 and "\udc00" <= ch <= "\udfff"


def _clean_text(text: str) -> str:
    """Docs strips most control characters and the private use area from inserted text."""
    out = []
    for c in text.replace("\r\n", "\n").replace("\r", "\n"):
        o = ord(c)
        if (o <= 0x08) or (0x0C <= o <= 0x1F and c != "\n") or (0xE000 <= o <= 0xF8FF):
            continue
        out.append(c)
    return "".join(out)


def apply_fields(current: dict[str, Any], update: dict[str, Any], fields: list[str]) -> dict[str, Any]:
    """A field mask applied: '*' takes every field of `update` (and clears the rest); named fields set or clear."""
    out = copy.deepcopy(current)
    if "*" in fields:
        return {k: copy.deepcopy(v) for k, v in update.items()}
    for f in fields:
        top = f.split(".")[0]
        if top in update and update[top] is not None:
            out[top] = copy.deepcopy(update[top])
        else:
            out.pop(top, None)
    return out


def parse_fields(fields: str | None) -> list[str]:
    if fields is None or not fields.strip():
        raise StructureError("fields must be specified (a comma-separated field mask, or '*').")
    return [f.strip() for f in fields.split(",") if f.strip()]


def default_cell_style() -> dict[str, Any]:
    pad = {"magnitude": 5, "unit": "PT"}
    border = {"color": {"color": {"rgbColor": {}}}, "width": {"magnitude": 1, "unit": "PT"}, "dashStyle": "SOLID"}
    return {
        "rowSpan": 1, "columnSpan": 1, "backgroundColor": {}, "paddingLeft": dict(pad), "paddingRight": dict(pad),
        "paddingTop": dict(pad), "paddingBottom": dict(pad), "contentAlignment": "TOP",
        "borderLeft": copy.deepcopy(border), "borderRight": copy.deepcopy(border), "borderTop": copy.deepcopy(border),
        "borderBottom": copy.deepcopy(border),
    }  # fmt: skip


PRESETS: dict[str, list[tuple[str, str]]] = {
    # preset: [(glyph kind, glyph) per level 0..2, repeated]; kind "symbol" or "type"
    "BULLET_DISC_CIRCLE_SQUARE": [("symbol", "●"), ("symbol", "○"), ("symbol", "■")],
    "BULLET_DIAMONDX_ARROW3D_SQUARE": [("symbol", "❖"), ("symbol", "➢"), ("symbol", "■")],
    "BULLET_CHECKBOX": [("symbol", "❑"), ("symbol", "❑"), ("symbol", "❑")],
    "BULLET_ARROW_DIAMOND_DISC": [("symbol", "➔"), ("symbol", "◆"), ("symbol", "●")],
    "BULLET_STAR_CIRCLE_SQUARE": [("symbol", "★"), ("symbol", "○"), ("symbol", "■")],
    "BULLET_ARROW3D_CIRCLE_SQUARE": [("symbol", "➢"), ("symbol", "○"), ("symbol", "■")],
    "BULLET_LEFTTRIANGLE_DIAMOND_DISC": [("symbol", "►"), ("symbol", "◆"), ("symbol", "●")],
    "BULLET_DIAMONDX_HOLLOWDIAMOND_SQUARE": [("symbol", "❖"), ("symbol", "◇"), ("symbol", "■")],
    "BULLET_DIAMOND_CIRCLE_SQUARE": [("symbol", "◆"), ("symbol", "○"), ("symbol", "■")],
    "NUMBERED_DECIMAL_ALPHA_ROMAN": [("type", "DECIMAL"), ("type", "ALPHA"), ("type", "ROMAN")],
    "NUMBERED_DECIMAL_ALPHA_ROMAN_PARENS": [("type", "DECIMAL"), ("type", "ALPHA"), ("type", "ROMAN")],
    "NUMBERED_DECIMAL_NESTED": [("type", "DECIMAL"), ("type", "DECIMAL"), ("type", "DECIMAL")],
    "NUMBERED_UPPERALPHA_ALPHA_ROMAN": [("type", "UPPER_ALPHA"), ("type", "ALPHA"), ("type", "ROMAN")],
    "NUMBERED_UPPERROMAN_UPPERALPHA_DECIMAL": [("type", "UPPER_ROMAN"), ("type", "UPPER_ALPHA"), ("type", "DECIMAL")],
    "NUMBERED_ZERODECIMAL_ALPHA_ROMAN": [("type", "ZERO_DECIMAL"), ("type", "ALPHA"), ("type", "ROMAN")],
}


def list_levels(preset: str) -> list[dict[str, Any]]:
    if preset not in PRESETS:
        raise StructureError(f"Unknown bullet preset {preset!r}.")
    glyphs = PRESETS[preset]
    levels = []
    for level in range(9):
        kind, glyph = glyphs[level % 3]
        entry: dict[str, Any] = {
            "bulletAlignment": "START", "indentFirstLine": {"magnitude": 18 + 36 * level, "unit": "PT"},
            "indentStart": {"magnitude": 36 + 36 * level, "unit": "PT"}, "textStyle": {"underline": False}, "startNumber": 1,
        }  # fmt: skip
        if kind == "symbol":
            entry["glyphSymbol"] = glyph
            entry["glyphType"] = "GLYPH_TYPE_UNSPECIFIED"
        else:
            entry["glyphType"] = glyph
            if preset == "NUMBERED_DECIMAL_NESTED":
                entry["glyphFormat"] = "".join(f"%{i}." for i in range(level + 1))
            elif preset.endswith("_PARENS"):
                entry["glyphFormat"] = f"%{level})"
            else:
                entry["glyphFormat"] = f"%{level}."
        levels.append(entry)
    return levels


def is_numbered(doc: Document, list_id: str, level: int) -> bool:
    levels = doc.lists.get(list_id, {}).get("listProperties", {}).get("nestingLevels", [])
    return bool(levels) and levels[min(level, len(levels) - 1)].get("glyphType", "GLYPH_TYPE_UNSPECIFIED") not in ("GLYPH_TYPE_UNSPECIFIED", "NONE")
