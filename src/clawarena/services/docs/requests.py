"""documents.batchUpdate: the Request kinds, applied in order to a Document.

Each handler takes (doc, request body, ids) and returns the request's reply
({} for kinds without one). Errors are StructureError; the caller prefixes
them with `Invalid requests[i].<kind>: ` as Docs does, and nothing of the
batch is applied.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Callable
from typing import Any

from clawarena.services.docs.structure import (
    CHAR, FOOTREF, IMG, NAMED_STYLE_TYPES, PERSON, RICHLINK, SECTION, Document, StructureError, Unit, apply_fields,
    from_utf16, new_nl, parse_fields, section_style, utf16_len, utf16_units, walk_paragraphs,
)  # fmt: skip


class Ids:
    """Deterministic ids for what a batch creates (from the world's generator)."""

    def __init__(self, next_id: Callable[[str, int], str]):
        self.next = next_id

    def heading(self) -> str:
        return "h." + self.next("docs.heading", 12)

    def list_id(self) -> str:
        return "kix." + self.next("docs.list", 12)

    def object_id(self) -> str:
        return "kix." + self.next("docs.object", 12)

    def segment_id(self) -> str:
        return "kix." + self.next("docs.segment", 12)

    def named_range_id(self) -> str:
        return "kix." + self.next("docs.namedrange", 12)

    def element_id(self) -> str:
        return "kix." + self.next("docs.element", 12)


def _tab(obj: dict[str, Any]) -> None:
    tab = obj.get("tabId")
    if tab not in (None, "", "t.0"):
        raise StructureError(f"Invalid tab ID: {tab}")


def _location(doc: Document, req: dict[str, Any], allow_end: bool = True) -> tuple[str, int]:
    """(segment id, index) of `location` or `endOfSegmentLocation` (just before the segment's last newline)."""
    loc, end = req.get("location"), req.get("endOfSegmentLocation")
    if (loc is None) == (end is None or not allow_end):
        if loc is None and end is None:
            raise StructureError("Either location or endOfSegmentLocation must be specified." if allow_end else "location must be specified.")
        raise StructureError("Only one of location and endOfSegmentLocation may be specified.")
    if loc is not None:
        _tab(loc)
        sid = loc.get("segmentId") or ""
        doc.seg(sid)
        if "index" not in loc:
            raise StructureError("location.index must be specified.")
        return sid, int(loc["index"])
    _tab(end)
    sid = end.get("segmentId") or ""
    return sid, doc.end_index(sid) - 1


def _range(doc: Document, req: dict[str, Any], key: str = "range") -> tuple[str, int, int]:
    rng = req.get(key)
    if not rng:
        raise StructureError(f"{key} must be specified.")
    _tab(rng)
    sid = rng.get("segmentId") or ""
    doc.seg(sid)
    return sid, int(rng.get("startIndex", 0)), int(rng.get("endIndex", 0))


def _body_only(doc: Document, sid: str, index: int, what: str, allow_tables: bool = False) -> None:
    if sid:
        raise StructureError(f"{what} can only be inserted into the document body.")
    if not allow_tables and doc.in_table(sid, index):
        raise StructureError(f"{what} cannot be inserted inside a table.")


# ---- text --------------------------------------------------------------------------------------
def insert_text(doc: Document, req: dict[str, Any], ids: Ids) -> dict[str, Any]:
    text = req.get("text")
    if text is None:
        raise StructureError("text must be specified.")
    sid, index = _location(doc, req)
    if text:
        doc.insert_text(sid, index, text, ids)
    return {}


def delete_content_range(doc: Document, req: dict[str, Any], ids: Ids) -> dict[str, Any]:
    sid, start, end = _range(doc, req)
    doc.delete_range(sid, start, end)
    return {}


def _matches(doc: Document, sid: str, criteria: dict[str, Any]) -> list[tuple[int, int]]:
    needle = criteria.get("text")
    if not needle:
        raise StructureError("containsText.text must not be empty.")
    match_case = bool(criteria.get("matchCase"))
    units = doc.seg(sid)
    # one code unit per position; anything that is not text breaks a match (no match spans paragraphs)
    hay = "".join(u.ch if u.kind == CHAR else "\x00" for u in units)
    out: list[tuple[int, int]] = []
    if criteria.get("searchByRegex"):
        try:
            pattern = re.compile(needle, 0 if match_case else re.IGNORECASE)
        except re.error as exc:
            raise StructureError(f"Invalid regular expression: {exc}") from None
        text = from_utf16(units[i].ch if units[i].kind == CHAR else "\x00" for i in range(len(units)))
        if utf16_len(text) != len(units):  # astral characters: fall back to code units
            text = hay
        for m in pattern.finditer(text):
            if m.end() > m.start() and "\x00" not in m.group(0):
                out.append((m.start(), m.end()))
        return out
    target = "".join(utf16_units(needle))
    if not match_case:
        hay = "".join(c.lower() if len(c.lower()) == 1 else c for c in hay)
        target = "".join(c.lower() if len(c.lower()) == 1 else c for c in target)
    pos = hay.find(target)
    while pos != -1:
        out.append((pos, pos + len(target)))
        pos = hay.find(target, pos + len(target))
    return out


def replace_all_text(doc: Document, req: dict[str, Any], ids: Ids) -> dict[str, Any]:
    criteria = req.get("containsText") or {}
    replacement = req.get("replaceText", "")
    if req.get("tabsCriteria"):
        for tab in req["tabsCriteria"].get("tabIds", []):
            _tab({"tabId": tab})
    count = 0
    for sid in sorted(doc.segments):
        for start, end in reversed(_matches(doc, sid, criteria)):
            units = doc.seg(sid)
            style = dict(units[start].ts)
            doc._delete_units(sid, start, end)
            new = []
            for c in utf16_units(replacement):
                if c == "\n":
                    para = doc.paragraph_at(sid, start)
                    new.append(new_nl(copy.deepcopy(doc.seg(sid)[para.end - 1].data.get("ps")), dict(style)))
                else:
                    new.append(Unit(CHAR, c, dict(style)))
            doc._insert_units(sid, start, new)
            count += 1
    return {"replaceAllText": {"occurrencesChanged": count} if count else {}}


# ---- styles ------------------------------------------------------------------------------------
def update_text_style(doc: Document, req: dict[str, Any], ids: Ids) -> dict[str, Any]:
    sid, start, end = _range(doc, req)
    style = req.get("textStyle") or {}
    doc.update_text_style(sid, start, end, style, parse_fields(req.get("fields")))
    return {}


def update_paragraph_style(doc: Document, req: dict[str, Any], ids: Ids) -> dict[str, Any]:
    sid, start, end = _range(doc, req)
    style = req.get("paragraphStyle") or {}
    named = style.get("namedStyleType")
    if named is not None and named not in NAMED_STYLE_TYPES:
        raise StructureError(f"Invalid namedStyleType: {named}")
    if "headingId" in style:
        raise StructureError("headingId is read-only.")
    doc.update_paragraph_style(sid, start, end, style, parse_fields(req.get("fields")), ids)
    return {}


def create_paragraph_bullets(doc: Document, req: dict[str, Any], ids: Ids) -> dict[str, Any]:
    sid, start, end = _range(doc, req)
    doc.create_bullets(sid, start, end, req.get("bulletPreset") or "BULLET_DISC_CIRCLE_SQUARE", ids)
    return {}


def delete_paragraph_bullets(doc: Document, req: dict[str, Any], ids: Ids) -> dict[str, Any]:
    sid, start, end = _range(doc, req)
    doc.delete_bullets(sid, start, end)
    return {}


def update_document_style(doc: Document, req: dict[str, Any], ids: Ids) -> dict[str, Any]:
    style = req.get("documentStyle") or {}
    fields = parse_fields(req.get("fields"))
    read_only = {"defaultHeaderId", "defaultFooterId", "evenPageHeaderId", "evenPageFooterId", "firstPageHeaderId", "firstPageFooterId"}
    if any(f.split(".")[0] in read_only for f in fields):
        raise StructureError("Header and footer ids are set by createHeader and createFooter, not updateDocumentStyle.")
    from clawarena.services.docs.render import default_document_style

    current = {**default_document_style(), **doc.document_style}
    updated = apply_fields(current, style, [f for f in fields if f != "*"] if "*" not in fields else list(style))
    doc.document_style = {k: v for k, v in updated.items()}
    return {}


def update_section_style(doc: Document, req: dict[str, Any], ids: Ids) -> dict[str, Any]:
    sid, start, end = _range(doc, req)
    if sid:
        raise StructureError("Section styles exist only in the body.")
    fields = parse_fields(req.get("fields"))
    touched = 0
    units = doc.seg("")
    section_starts = [i for i, u in enumerate(units) if u.kind == SECTION]
    for n, pos in enumerate(section_starts):
        nxt = section_starts[n + 1] if n + 1 < len(section_starts) else len(units)
        if pos < end and nxt > start:
            units[pos].data["style"] = apply_fields(units[pos].data.get("style", {}), req.get("sectionStyle") or {}, fields)
            touched += 1
    if not touched:
        raise StructureError("The range does not contain a section.")
    return {}


def update_named_style(doc: Document, req: dict[str, Any], ids: Ids) -> dict[str, Any]:
    named = (req.get("namedStyle") or {}).get("namedStyleType")
    if named not in NAMED_STYLE_TYPES:
        raise StructureError(f"Invalid namedStyleType: {named}")
    fields = parse_fields(req.get("fields"))
    over = doc.named_styles.setdefault(named, {})
    for part in ("textStyle", "paragraphStyle"):
        sub = [f.split(".", 1)[1] for f in fields if f.startswith(part + ".")]
        if part in fields or "*" in fields:
            over[part] = copy.deepcopy((req["namedStyle"] or {}).get(part, {}))
        elif sub:
            over[part] = apply_fields(over.get(part, {}), (req["namedStyle"] or {}).get(part, {}), sub)
    return {}


# ---- tables ---------------------------------------------------------------------------------------
def insert_table(doc: Document, req: dict[str, Any], ids: Ids) -> dict[str, Any]:
    sid, index = _location(doc, req)
    doc.insert_table(sid, index, int(req.get("rows", 0)), int(req.get("columns", 0)))
    return {}


def _cell_loc(req: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    loc = req.get("tableCellLocation")
    if not loc:
        raise StructureError("tableCellLocation must be specified.")
    start = loc.get("tableStartLocation") or {}
    _tab(start)
    return start.get("segmentId") or "", loc


def insert_table_row(doc: Document, req: dict[str, Any], ids: Ids) -> dict[str, Any]:
    sid, loc = _cell_loc(req)
    doc.insert_table_row(sid, loc, bool(req.get("insertBelow")))
    return {}


def insert_table_column(doc: Document, req: dict[str, Any], ids: Ids) -> dict[str, Any]:
    sid, loc = _cell_loc(req)
    doc.insert_table_column(sid, loc, bool(req.get("insertRight")))
    return {}


def delete_table_row(doc: Document, req: dict[str, Any], ids: Ids) -> dict[str, Any]:
    sid, loc = _cell_loc(req)
    doc.delete_table_row(sid, loc)
    return {}


def delete_table_column(doc: Document, req: dict[str, Any], ids: Ids) -> dict[str, Any]:
    sid, loc = _cell_loc(req)
    doc.delete_table_column(sid, loc)
    return {}


def _table_start(req: dict[str, Any]) -> tuple[str, int]:
    start = req.get("tableStartLocation")
    if not start or "index" not in start:
        raise StructureError("tableStartLocation must be specified.")
    _tab(start)
    return start.get("segmentId") or "", int(start["index"])


def update_table_cell_style(doc: Document, req: dict[str, Any], ids: Ids) -> dict[str, Any]:
    fields = parse_fields(req.get("fields"))
    style = req.get("tableCellStyle") or {}
    if {"rowSpan", "columnSpan"} & set(style):
        raise StructureError("rowSpan and columnSpan are read-only; use mergeTableCells.")
    if req.get("tableRange"):
        rng = req["tableRange"]
        sid, loc = _cell_loc(rng)
        table_start = loc["tableStartLocation"]["index"]
        r, c = int(loc.get("rowIndex", 0)), int(loc.get("columnIndex", 0))
        cells = doc.table_cells(sid, table_start, (r, r + int(rng.get("rowSpan", 1))), (c, c + int(rng.get("columnSpan", 1))))
    else:
        sid, table_start = _table_start(req)
        cells = doc.table_cells(sid, table_start)
    units = doc.seg(sid)
    for cell in cells:
        units[cell.start].data["style"] = apply_fields(units[cell.start].data.get("style", {}), style, [f for f in fields if f not in ("rowSpan", "columnSpan")])
    return {}


def update_table_column_properties(doc: Document, req: dict[str, Any], ids: Ids) -> dict[str, Any]:
    sid, start = _table_start(req)
    table = doc.table_at(sid, start)
    fields = parse_fields(req.get("fields"))
    props = doc.seg(sid)[table.start].data.setdefault("style", {}).setdefault("tableColumnProperties", [])
    columns = max(len(r.cells) for r in table.rows)
    while len(props) < columns:
        props.append({"widthType": "EVENLY_DISTRIBUTED"})
    wanted = req.get("columnIndices") or list(range(columns))
    new = req.get("tableColumnProperties") or {}
    if new.get("widthType") == "FIXED_WIDTH" and (new.get("width") or {}).get("magnitude", 0) < 5:
        raise StructureError("A fixed column width must be at least 5 points.")
    for c in wanted:
        if not 0 <= c < columns:
            raise StructureError(f"Column index {c} is out of bounds.")
        props[c] = apply_fields(props[c], new, fields)
    return {}


def update_table_row_style(doc: Document, req: dict[str, Any], ids: Ids) -> dict[str, Any]:
    sid, start = _table_start(req)
    table = doc.table_at(sid, start)
    fields = parse_fields(req.get("fields"))
    rows = req.get("rowIndices") or list(range(len(table.rows)))
    units = doc.seg(sid)
    for r in rows:
        if not 0 <= r < len(table.rows):
            raise StructureError(f"Row index {r} is out of bounds.")
        row = table.rows[r]
        units[row.start].data["style"] = apply_fields(units[row.start].data.get("style", {}), req.get("tableRowStyle") or {}, fields)
    return {}


def pin_table_header_rows(doc: Document, req: dict[str, Any], ids: Ids) -> dict[str, Any]:
    sid, start = _table_start(req)
    table = doc.table_at(sid, start)
    n = int(req.get("pinnedHeaderRowsCount", 0))
    if not 0 <= n <= len(table.rows):
        raise StructureError("pinnedHeaderRowsCount is out of bounds.")
    units = doc.seg(sid)
    for i, row in enumerate(table.rows):
        style = units[row.start].data.setdefault("style", {})
        if i < n:
            style["tableHeader"] = True
        else:
            style.pop("tableHeader", None)
    return {}


def merge_table_cells(doc: Document, req: dict[str, Any], ids: Ids) -> dict[str, Any]:
    rng = req.get("tableRange") or {}
    sid, loc = _cell_loc(rng)
    table = doc.table_at(sid, loc["tableStartLocation"]["index"])
    r0, c0 = int(loc.get("rowIndex", 0)), int(loc.get("columnIndex", 0))
    rs, cs = int(rng.get("rowSpan", 1)), int(rng.get("columnSpan", 1))
    if rs < 1 or cs < 1 or r0 + rs > len(table.rows) or any(c0 + cs > len(table.rows[r].cells) for r in range(r0, r0 + rs)):
        raise StructureError("The table range is out of bounds.")
    units = doc.seg(sid)
    texts: list[list[Unit]] = []
    for r in range(r0, r0 + rs):
        for c in range(c0, c0 + cs):
            cell = table.rows[r].cells[c]
            style = units[cell.start].data.setdefault("style", {})
            if (r, c) == (r0, c0):
                style["rowSpan"], style["columnSpan"] = rs, cs
            else:
                style["rowSpan"], style["columnSpan"] = 1, 1
                body = [u for u in units[cell.start + 1 : cell.end] if u.kind in (CHAR,)]
                if body:
                    texts.append(body)
    for (r, c) in reversed([(r, c) for r in range(r0, r0 + rs) for c in range(c0, c0 + cs) if (r, c) != (r0, c0)]):
        cell = table.rows[r].cells[c]
        if cell.end - cell.start > 2:
            doc._delete_units(sid, cell.start + 1, cell.end - 1)
    fresh = doc.table_at(sid, loc["tableStartLocation"]["index"]).rows[r0].cells[c0]
    insert_at = fresh.end - 1
    for chunk in texts:
        new = [new_nl()] + [u.clone() for u in chunk]
        doc._insert_units(sid, insert_at, new)
        insert_at += len(new)
    return {}


def unmerge_table_cells(doc: Document, req: dict[str, Any], ids: Ids) -> dict[str, Any]:
    rng = req.get("tableRange") or {}
    sid, loc = _cell_loc(rng)
    table = doc.table_at(sid, loc["tableStartLocation"]["index"])
    units = doc.seg(sid)
    r0, c0 = int(loc.get("rowIndex", 0)), int(loc.get("columnIndex", 0))
    for r in range(r0, min(len(table.rows), r0 + int(rng.get("rowSpan", 1)))):
        for c in range(c0, min(len(table.rows[r].cells), c0 + int(rng.get("columnSpan", 1)))):
            style = units[table.rows[r].cells[c].start].data.setdefault("style", {})
            style["rowSpan"], style["columnSpan"] = 1, 1
    return {}


# ---- breaks, objects, segments -------------------------------------------------------------------
def insert_page_break(doc: Document, req: dict[str, Any], ids: Ids) -> dict[str, Any]:
    sid, index = _location(doc, req)
    _body_only(doc, sid, index, "A page break")
    doc.check_index(sid, index)
    para = doc.paragraph_at(sid, index)
    units = doc.seg(sid)
    style = dict(units[index].ts)
    ps = copy.deepcopy(units[para.end - 1].data.get("ps"))
    doc._insert_units(sid, index, [Unit("pb", "", style), new_nl(ps, dict(style))])
    return {}


def insert_section_break(doc: Document, req: dict[str, Any], ids: Ids) -> dict[str, Any]:
    sid, index = _location(doc, req)
    _body_only(doc, sid, index, "A section break")
    kind = req.get("sectionType") or "NEXT_PAGE"
    if kind not in ("CONTINUOUS", "NEXT_PAGE"):
        raise StructureError(f"Invalid sectionType: {kind}")
    doc.check_index(sid, index)
    para = doc.paragraph_at(sid, index)
    units = doc.seg(sid)
    ps = copy.deepcopy(units[para.end - 1].data.get("ps"))
    doc._insert_units(sid, index, [new_nl(ps, dict(units[index].ts)), Unit(SECTION, "", {}, {"style": section_style(kind)})])
    return {}


def _check_uri(uri: str | None) -> str:
    if not uri:
        raise StructureError("uri must be specified.")
    if len(uri) > 2048:
        raise StructureError("The URI must be less than 2 kB.")
    if not re.match(r"^https?://", uri):
        raise StructureError("The URI must be publicly accessible (http or https).")
    return uri


def insert_inline_image(doc: Document, req: dict[str, Any], ids: Ids) -> dict[str, Any]:
    uri = _check_uri(req.get("uri"))
    sid, index = _location(doc, req)
    if doc.kinds.get(sid) == "footnote":
        raise StructureError("Images cannot be inserted into footnotes.")
    object_id = ids.object_id()
    size = req.get("objectSize") or {"height": {"magnitude": 100, "unit": "PT"}, "width": {"magnitude": 100, "unit": "PT"}}
    doc.inline_objects[object_id] = {
        "objectId": object_id,
        "inlineObjectProperties": {"embeddedObject": {
            "imageProperties": {"contentUri": uri, "sourceUri": uri, "cropProperties": {}},
            "size": copy.deepcopy(size), "marginTop": {"magnitude": 9, "unit": "PT"}, "marginBottom": {"magnitude": 9, "unit": "PT"},
            "marginLeft": {"magnitude": 9, "unit": "PT"}, "marginRight": {"magnitude": 9, "unit": "PT"},
            "embeddedObjectBorder": {"color": {"color": {"rgbColor": {}}}, "width": {"unit": "PT"}, "dashStyle": "SOLID",
                                     "propertyState": "NOT_RENDERED"},
        }},
    }  # fmt: skip
    doc.insert_inline(sid, index, Unit(IMG, "", {}, {"id": object_id}))
    return {"insertInlineImage": {"objectId": object_id}}


def replace_image(doc: Document, req: dict[str, Any], ids: Ids) -> dict[str, Any]:
    object_id = req.get("imageObjectId")
    uri = _check_uri(req.get("uri"))
    obj = doc.inline_objects.get(object_id or "")
    if obj is None:
        raise StructureError(f"The image object {object_id} does not exist.")
    props = obj["inlineObjectProperties"]["embeddedObject"]["imageProperties"]
    props["contentUri"] = uri
    props["sourceUri"] = uri
    return {}


def insert_person(doc: Document, req: dict[str, Any], ids: Ids) -> dict[str, Any]:
    props = req.get("personProperties") or {}
    if not props.get("email"):
        raise StructureError("personProperties.email must be specified.")
    sid, index = _location(doc, req)
    doc.insert_inline(sid, index, Unit(PERSON, "", {}, {"id": ids.element_id(), "properties": {"email": props["email"], "name": props.get("name", props["email"])}}))
    return {}


def insert_rich_link(doc: Document, req: dict[str, Any], ids: Ids) -> dict[str, Any]:
    props = req.get("richLinkProperties") or {}
    uri = props.get("uri")
    if not uri:
        raise StructureError("richLinkProperties.uri must be specified.")
    sid, index = _location(doc, req)
    doc.insert_inline(sid, index, Unit(RICHLINK, "", {}, {"id": ids.element_id(), "properties": {"uri": uri, "title": props.get("title", uri)}}))
    return {}


def _create_segment(doc: Document, req: dict[str, Any], ids: Ids, kind: str) -> dict[str, Any]:
    if (req.get("type") or "DEFAULT") != "DEFAULT":
        raise StructureError(f"Only {kind}s of type DEFAULT can be created.")
    key = "defaultHeaderId" if kind == "header" else "defaultFooterId"
    target = doc.document_style
    loc = req.get("sectionBreakLocation")
    if loc is not None:
        _tab(loc)
        index = int(loc.get("index", 0))
        units = doc.seg("")
        if not (0 <= index < len(units) and units[index].kind == SECTION) or loc.get("segmentId"):
            raise StructureError("sectionBreakLocation must be the index of a section break in the body.")
        target = units[index].data.setdefault("style", {})
    if target.get(key):
        raise StructureError(f"A default {kind} already exists.")
    sid = ids.segment_id()
    doc.segments[sid] = [new_nl()]
    doc.kinds[sid] = kind
    target[key] = sid
    return {f"create{kind.title()}": {f"{kind}Id": sid}}


def create_header(doc: Document, req: dict[str, Any], ids: Ids) -> dict[str, Any]:
    return _create_segment(doc, req, ids, "header")


def create_footer(doc: Document, req: dict[str, Any], ids: Ids) -> dict[str, Any]:
    return _create_segment(doc, req, ids, "footer")


def _delete_segment(doc: Document, sid: str | None, kind: str) -> dict[str, Any]:
    if not sid or doc.kinds.get(sid) != kind:
        raise StructureError(f"The {kind} {sid} does not exist.")
    del doc.segments[sid]
    del doc.kinds[sid]
    for style in [doc.document_style] + [u.data.get("style", {}) for u in doc.seg("") if u.kind == SECTION]:
        for key in [k for k, v in style.items() if v == sid]:
            del style[key]
    for nr_id in [k for k, v in doc.named_ranges.items() if any(r.get("segmentId") == sid for r in v["ranges"])]:
        doc.named_ranges[nr_id]["ranges"] = [r for r in doc.named_ranges[nr_id]["ranges"] if r.get("segmentId") != sid]
        if not doc.named_ranges[nr_id]["ranges"]:
            del doc.named_ranges[nr_id]
    return {}


def delete_header(doc: Document, req: dict[str, Any], ids: Ids) -> dict[str, Any]:
    return _delete_segment(doc, req.get("headerId"), "header")


def delete_footer(doc: Document, req: dict[str, Any], ids: Ids) -> dict[str, Any]:
    return _delete_segment(doc, req.get("footerId"), "footer")


def create_footnote(doc: Document, req: dict[str, Any], ids: Ids) -> dict[str, Any]:
    sid, index = _location(doc, req)
    if sid:
        raise StructureError("Footnotes can only be inserted into the document body.")
    fid = ids.segment_id()
    doc.insert_inline(sid, index, Unit(FOOTREF, "", {}, {"id": fid}))
    doc.segments[fid] = [Unit(CHAR, " ", {}), new_nl()]
    doc.kinds[fid] = "footnote"
    return {"createFootnote": {"footnoteId": fid}}


# ---- named ranges -------------------------------------------------------------------------------------
def create_named_range(doc: Document, req: dict[str, Any], ids: Ids) -> dict[str, Any]:
    name = req.get("name") or ""
    if not 1 <= utf16_len(name) <= 256:
        raise StructureError("The name must be 1 to 256 UTF-16 code units long.")
    sid, start, end = _range(doc, req)
    if end <= start:
        raise StructureError("The range should not be empty.")
    if end > doc.end_index(sid):
        raise StructureError(f"Index {end - 1} must be less than the end index of the referenced segment, {doc.end_index(sid)}.")
    rid = ids.named_range_id()
    entry: dict[str, Any] = {"startIndex": start, "endIndex": end}
    if sid:
        entry["segmentId"] = sid
    doc.named_ranges[rid] = {"name": name, "ranges": [entry]}
    return {"createNamedRange": {"namedRangeId": rid}}


def _named(doc: Document, req: dict[str, Any], id_key: str, name_key: str) -> list[str]:
    if req.get(id_key):
        if req[id_key] not in doc.named_ranges:
            raise StructureError(f"The named range {req[id_key]} does not exist.")
        return [req[id_key]]
    if req.get(name_key):
        return [k for k, v in sorted(doc.named_ranges.items()) if v["name"] == req[name_key]]
    raise StructureError(f"Either {id_key} or {name_key} must be specified.")


def delete_named_range(doc: Document, req: dict[str, Any], ids: Ids) -> dict[str, Any]:
    for rid in _named(doc, req, "namedRangeId", "name"):
        del doc.named_ranges[rid]
    return {}


def replace_named_range_content(doc: Document, req: dict[str, Any], ids: Ids) -> dict[str, Any]:
    text = req.get("text")
    if text is None:
        raise StructureError("text must be specified.")
    for rid in _named(doc, req, "namedRangeId", "namedRangeName"):
        nr = doc.named_ranges.get(rid)
        if nr is None:
            continue
        ranges = sorted(nr["ranges"], key=lambda r: ((r.get("segmentId") or ""), r["startIndex"]))
        first = dict(ranges[0])
        for r in reversed(ranges[1:]):
            doc.delete_range(r.get("segmentId"), r["startIndex"], r["endIndex"])
        sid = first.get("segmentId") or ""
        start, end = first["startIndex"], first["endIndex"]
        if end > start:
            doc.delete_range(sid, start, end)
        n = doc.insert_text(sid, start, text, ids) if text else 0
        entry: dict[str, Any] = {"startIndex": start, "endIndex": start + n}
        if sid:
            entry["segmentId"] = sid
        if n:
            doc.named_ranges[rid] = {"name": nr["name"], "ranges": [entry]}
        else:
            doc.named_ranges.pop(rid, None)
    return {}


HANDLERS: dict[str, Callable[[Document, dict[str, Any], Ids], dict[str, Any]]] = {
    "insertText": insert_text, "deleteContentRange": delete_content_range, "replaceAllText": replace_all_text,
    "updateTextStyle": update_text_style, "updateParagraphStyle": update_paragraph_style,
    "createParagraphBullets": create_paragraph_bullets, "deleteParagraphBullets": delete_paragraph_bullets,
    "updateDocumentStyle": update_document_style, "updateSectionStyle": update_section_style,
    "updateNamedStyle": update_named_style,
    "insertTable": insert_table, "insertTableRow": insert_table_row, "insertTableColumn": insert_table_column,
    "deleteTableRow": delete_table_row, "deleteTableColumn": delete_table_column,
    "updateTableCellStyle": update_table_cell_style, "updateTableColumnProperties": update_table_column_properties,
    "updateTableRowStyle": update_table_row_style, "pinTableHeaderRows": pin_table_header_rows,
    "mergeTableCells": merge_table_cells, "unmergeTableCells": unmerge_table_cells,
    "insertPageBreak": insert_page_break, "insertSectionBreak": insert_section_break,
    "insertInlineImage": insert_inline_image, "replaceImage": replace_image,
    "insertPerson": insert_person, "insertRichLink": insert_rich_link,
    "createHeader": create_header, "createFooter": create_footer, "deleteHeader": delete_header, "deleteFooter": delete_footer,
    "createFootnote": create_footnote,
    "createNamedRange": create_named_range, "deleteNamedRange": delete_named_range,
    "replaceNamedRangeContent": replace_named_range_content,
}  # fmt: skip


def apply(doc: Document, requests: list[dict[str, Any]], ids: Ids) -> list[dict[str, Any]]:
    """Apply the requests in order; StructureError names the failing request as Docs does."""
    replies = []
    for i, req in enumerate(requests):
        if not isinstance(req, dict) or len(req) != 1:
            raise StructureError(f"Invalid requests[{i}]: exactly one request kind must be set.")
        (kind, body), = req.items()
        handler = HANDLERS.get(kind)
        if handler is None:
            raise StructureError(f"Invalid requests[{i}]: the request kind {kind!r} is not supported by this server.")
        try:
            replies.append(handler(doc, body or {}, ids))
            doc.blocks("")
        except StructureError as exc:
            raise StructureError(f"Invalid requests[{i}].{kind}: {exc}") from None
    return replies


def plain_paragraphs(doc: Document, sid: str = "") -> list[str]:
    return [doc.paragraph_text(sid, p) for p in walk_paragraphs(doc.blocks(sid))]

