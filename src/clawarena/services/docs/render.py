"""A Document as the Docs API returns it, and as text, HTML, Markdown or PDF exports."""

from __future__ import annotations

import copy
import html
from typing import Any

from clawarena.services.docs.structure import (
    CHAR, FOOTREF, HR, IMG, NL, PAGEBREAK, PERSON, RICHLINK, Block, Document, Para, Section, Table, from_utf16, is_numbered,
)  # fmt: skip

PT = "PT"


def _dim(value: float) -> dict[str, Any]:
    return {"magnitude": value, "unit": PT}


def default_document_style() -> dict[str, Any]:
    return {
        "background": {"color": {}}, "pageNumberStart": 1, "marginTop": _dim(72), "marginBottom": _dim(72),
        "marginRight": _dim(72), "marginLeft": _dim(72), "pageSize": {"height": _dim(792), "width": _dim(612)},
        "marginHeader": _dim(36), "marginFooter": _dim(36), "useCustomHeaderFooterMargins": True,
        "documentFormat": {"documentMode": "PAGES"},
    }  # fmt: skip


_NAMED_TEXT = {
    "NORMAL_TEXT": {"fontSize": _dim(11)}, "TITLE": {"fontSize": _dim(26)},
    "SUBTITLE": {"fontSize": _dim(15), "foregroundColor": {"color": {"rgbColor": {"red": 0.4, "green": 0.4, "blue": 0.4}}}},
    "HEADING_1": {"fontSize": _dim(20)}, "HEADING_2": {"fontSize": _dim(16)}, "HEADING_3": {"fontSize": _dim(14)},
    "HEADING_4": {"fontSize": _dim(12)}, "HEADING_5": {"fontSize": _dim(11)}, "HEADING_6": {"fontSize": _dim(11), "italic": True},
}  # fmt: skip


def named_styles(overrides: dict[str, Any]) -> dict[str, Any]:
    styles = []
    for name, ts in _NAMED_TEXT.items():
        text_style = {"bold": False, "italic": False, "underline": False, "strikethrough": False, "smallCaps": False,
                      "backgroundColor": {}, "foregroundColor": {"color": {"rgbColor": {}}},
                      "weightedFontFamily": {"fontFamily": "Arial", "weight": 400}, "baselineOffset": "NONE", **ts}  # fmt: skip
        para = {"namedStyleType": name, "alignment": "START", "lineSpacing": 115, "direction": "LEFT_TO_RIGHT",
                "spacingMode": "COLLAPSE_LISTS", "spaceAbove": {"unit": PT}, "spaceBelow": {"unit": PT},
                "keepLinesTogether": name != "NORMAL_TEXT", "keepWithNext": name != "NORMAL_TEXT"}  # fmt: skip
        over = overrides.get(name, {})
        text_style.update(copy.deepcopy(over.get("textStyle", {})))
        para.update(copy.deepcopy(over.get("paragraphStyle", {})))
        styles.append({"namedStyleType": name, "textStyle": text_style, "paragraphStyle": para})
    return {"styles": styles}


def _idx(out: dict[str, Any], start: int, end: int) -> dict[str, Any]:
    if start:
        out["startIndex"] = start
    out["endIndex"] = end
    return out


def render_content(doc: Document, sid: str, blocks: list[Block], numbers: dict[str, str]) -> list[dict[str, Any]]:
    units = doc.seg(sid)
    out: list[dict[str, Any]] = []
    for b in blocks:
        if isinstance(b, Section):
            out.append(_idx({}, b.start, b.end) | {"sectionBreak": {"sectionStyle": copy.deepcopy(units[b.start].data.get("style", {}))}})
        elif isinstance(b, Para):
            out.append(_idx({}, b.start, b.end) | {"paragraph": _paragraph(doc, sid, b, numbers)})
        else:
            rows = []
            for row in b.rows:
                cells = []
                for cell in row.cells:
                    cells.append(_idx({}, cell.start, cell.end) | {
                        "content": render_content(doc, sid, cell.content, numbers),
                        "tableCellStyle": copy.deepcopy(units[cell.start].data.get("style", {})),
                    })  # fmt: skip
                rows.append(_idx({}, row.start, row.end) | {"tableCells": cells, "tableRowStyle": copy.deepcopy(units[row.start].data.get("style", {}))})
            table = {"rows": len(b.rows), "columns": max(len(r.cells) for r in b.rows), "tableRows": rows,
                     "tableStyle": copy.deepcopy(units[b.start].data.get("style", {}))}  # fmt: skip
            out.append(_idx({}, b.start, b.end) | {"table": table})
    return out


def _paragraph(doc: Document, sid: str, p: Para, numbers: dict[str, str]) -> dict[str, Any]:
    units = doc.seg(sid)
    elements: list[dict[str, Any]] = []
    run_start = None
    run_chars: list[str] = []
    run_style: dict[str, Any] | None = None

    def flush(end: int) -> None:
        nonlocal run_start, run_chars, run_style
        if run_start is not None:
            elements.append(_idx({}, run_start, end) | {"textRun": {"content": from_utf16(run_chars), "textStyle": copy.deepcopy(run_style or {})}})
        run_start, run_chars, run_style = None, [], None

    for i in range(p.start, p.end):
        u = units[i]
        if u.kind in (CHAR, NL):
            if run_start is not None and u.ts != run_style:
                flush(i)
            if run_start is None:
                run_start, run_style = i, u.ts
            run_chars.append(u.ch)
            continue
        flush(i)
        ts = copy.deepcopy(u.ts)
        if u.kind == IMG:
            el = {"inlineObjectElement": {"inlineObjectId": u.data.get("id"), "textStyle": ts}}
        elif u.kind == PAGEBREAK:
            el = {"pageBreak": {"textStyle": ts}}
        elif u.kind == FOOTREF:
            el = {"footnoteReference": {"footnoteId": u.data.get("id"), "footnoteNumber": numbers.get(u.data.get("id", ""), "1"), "textStyle": ts}}
        elif u.kind == PERSON:
            el = {"person": {"personId": u.data.get("id"), "personProperties": copy.deepcopy(u.data.get("properties", {})), "textStyle": ts}}
        elif u.kind == RICHLINK:
            el = {"richLink": {"richLinkId": u.data.get("id"), "richLinkProperties": copy.deepcopy(u.data.get("properties", {})), "textStyle": ts}}
        else:
            el = {"horizontalRule": {"textStyle": ts}}
        elements.append(_idx({}, i, i + 1) | el)
    flush(p.end)
    nl = units[p.end - 1]
    out: dict[str, Any] = {"elements": elements, "paragraphStyle": copy.deepcopy(nl.data.get("ps", {}))}
    if nl.data.get("bullet"):
        out["bullet"] = copy.deepcopy(nl.data["bullet"])
    return out


def render_document(doc: Document, *, document_id: str, title: str, revision_id: str, include_tabs: bool = False,
                    suggestions_view_mode: str = "SUGGESTIONS_INLINE") -> dict[str, Any]:  # fmt: skip
    """The Docs v1 Document resource."""
    doc.collect_garbage()
    numbers = doc.footnote_numbers()
    tab: dict[str, Any] = {"body": {"content": render_content(doc, "", doc.blocks(""), numbers)}}
    for kind, key, id_key in (("header", "headers", "headerId"), ("footer", "footers", "footerId"), ("footnote", "footnotes", "footnoteId")):
        segs = {sid: {id_key: sid, "content": render_content(doc, sid, doc.blocks(sid), numbers)} for sid, k in sorted(doc.kinds.items()) if k == kind}
        if segs:
            tab[key] = segs
    style = default_document_style()
    style.update(copy.deepcopy(doc.document_style))
    tab["documentStyle"] = style
    tab["namedStyles"] = named_styles(doc.named_styles)
    if doc.lists:
        tab["lists"] = copy.deepcopy(doc.lists)
    if doc.named_ranges:
        grouped: dict[str, dict[str, Any]] = {}
        for rid, nr in sorted(doc.named_ranges.items(), key=lambda kv: (kv[1]["name"], kv[0])):
            ranges = []
            for r in nr["ranges"]:
                entry: dict[str, Any] = {}
                if r.get("segmentId"):
                    entry["segmentId"] = r["segmentId"]
                entry.update(_idx({}, r["startIndex"], r["endIndex"]))
                ranges.append(entry)
            grouped.setdefault(nr["name"], {"name": nr["name"], "namedRanges": []})["namedRanges"].append(
                {"namedRangeId": rid, "name": nr["name"], "ranges": ranges}
            )
        tab["namedRanges"] = grouped
    if doc.inline_objects:
        tab["inlineObjects"] = copy.deepcopy(doc.inline_objects)
    out: dict[str, Any] = {"documentId": document_id, "title": title}
    if include_tabs:
        out["tabs"] = [{"tabProperties": {"tabId": "t.0", "title": "Tab 1"}, "documentTab": tab}]
    else:
        out.update(tab)
    out["revisionId"] = revision_id
    out["suggestionsViewMode"] = suggestions_view_mode
    return out


# ---- exports ----------------------------------------------------------------------------------------
def _inline_text(doc: Document, sid: str, p: Para, numbers: dict[str, str], markup: str = "text") -> str:
    units = doc.seg(sid)
    parts: list[str] = []
    chars: list[str] = []
    style: dict[str, Any] | None = None

    def flush() -> None:
        nonlocal chars, style
        if chars:
            text = from_utf16(chars)
            if markup == "html":
                text = html.escape(text)
                if style and style.get("bold"):
                    text = f"<b>{text}</b>"
                if style and style.get("italic"):
                    text = f"<i>{text}</i>"
                if style and style.get("link", {}).get("url"):
                    text = f'<a href="{html.escape(style["link"]["url"])}">{text}</a>'
            elif markup == "md" and text.strip():
                if style and style.get("bold"):
                    text = f"**{text}**"
                if style and style.get("italic"):
                    text = f"*{text}*"
                if style and style.get("link", {}).get("url"):
                    text = f"[{text}]({style['link']['url']})"
            parts.append(text)
        chars, style = [], None

    for i in range(p.start, p.end - 1):
        u = units[i]
        if u.kind == CHAR:
            if chars and u.ts != style:
                flush()
            style = u.ts
            chars.append(u.ch)
            continue
        flush()
        if u.kind == FOOTREF:
            parts.append(f"[{numbers.get(u.data.get('id', ''), '?')}]")
        elif u.kind == IMG:
            obj = doc.inline_objects.get(u.data.get("id", ""), {})
            uri = obj.get("inlineObjectProperties", {}).get("embeddedObject", {}).get("imageProperties", {}).get("sourceUri", "")
            parts.append(f'<img src="{html.escape(uri)}">' if markup == "html" else f"![image]({uri})" if markup == "md" else "")
        elif u.kind == PERSON:
            props = u.data.get("properties", {})
            parts.append(props.get("name") or props.get("email", ""))
        elif u.kind == RICHLINK:
            props = u.data.get("properties", {})
            parts.append(props.get("title") or props.get("uri", ""))
        elif u.kind == PAGEBREAK:
            parts.append("\f" if markup == "text" else "")
        elif u.kind == HR:
            parts.append("<hr>" if markup == "html" else "---" if markup == "md" else "")
    flush()
    return "".join(parts)


def _bullet_prefix(doc: Document, sid: str, p: Para, counters: dict[tuple[str, int], int]) -> tuple[str, int, bool]:
    bullet = doc.seg(sid)[p.end - 1].data.get("bullet")
    if not bullet:
        return "", 0, False
    level = bullet.get("nestingLevel", 0)
    numbered = is_numbered(doc, bullet["listId"], level)
    if numbered:
        key = (bullet["listId"], level)
        counters[key] = counters.get(key, 0) + 1
        return f"{counters[key]}. ", level, True
    return "* ", level, False


def to_text(doc: Document, *, bullets: bool = True) -> str:
    """Plain text of the body (tables as tab-separated rows, footnotes at the end)."""
    numbers = doc.footnote_numbers()
    counters: dict[tuple[str, int], int] = {}
    lines: list[str] = []

    def emit(sid: str, blocks: list[Block], indent: str = "") -> None:
        for b in blocks:
            if isinstance(b, Para):
                prefix, level, _ = _bullet_prefix(doc, sid, b, counters) if bullets else ("", 0, False)
                lines.append(indent + "    " * level + prefix + _inline_text(doc, sid, b, numbers))
            elif isinstance(b, Table):
                for row in b.rows:
                    cells = []
                    for cell in row.cells:
                        inner: list[str] = []
                        for cp in _paras(cell.content):
                            inner.append(_inline_text(doc, sid, cp, numbers))
                        cells.append(" ".join(t for t in inner if t))
                    lines.append(indent + "\t".join(cells))

    emit("", doc.blocks(""))
    notes = [(n, fid) for fid, n in numbers.items()]
    if notes:
        lines.append("")
        for n, fid in sorted(notes, key=lambda x: int(x[0])):
            text = " ".join(_inline_text(doc, fid, p, numbers).strip() for p in _paras(doc.blocks(fid)))
            lines.append(f"[{n}] {text}".rstrip())
    while lines and lines[-1] == "" and len(lines) > 1:
        lines.pop()
    return "\n".join(lines)


def _paras(blocks: list[Block]) -> list[Para]:
    from clawarena.services.docs.structure import walk_paragraphs

    return list(walk_paragraphs(blocks))


_HTML_TAGS = {"TITLE": "h1", "SUBTITLE": "h2", "HEADING_1": "h1", "HEADING_2": "h2", "HEADING_3": "h3",
              "HEADING_4": "h4", "HEADING_5": "h5", "HEADING_6": "h6"}  # fmt: skip


def to_html(doc: Document, title: str) -> str:
    numbers = doc.footnote_numbers()
    counters: dict[tuple[str, int], int] = {}
    out = [f'<html><head><meta content="text/html; charset=UTF-8" http-equiv="content-type"><title>{html.escape(title)}</title></head><body>']
    open_list: str | None = None

    def close_list() -> None:
        nonlocal open_list
        if open_list:
            out.append(f"</{open_list}>")
            open_list = None

    def emit(sid: str, blocks: list[Block]) -> None:
        nonlocal open_list
        for b in blocks:
            if isinstance(b, Para):
                text = _inline_text(doc, sid, b, numbers, "html")
                prefix, _, numbered = _bullet_prefix(doc, sid, b, counters)
                if prefix:
                    tag = "ol" if numbered else "ul"
                    if open_list != tag:
                        close_list()
                        out.append(f"<{tag}>")
                        open_list = tag
                    out.append(f"<li>{text}</li>")
                    continue
                close_list()
                named = doc.seg(sid)[b.end - 1].data.get("ps", {}).get("namedStyleType", "NORMAL_TEXT")
                tag = _HTML_TAGS.get(named, "p")
                out.append(f"<{tag}>{text}</{tag}>")
            elif isinstance(b, Table):
                close_list()
                out.append("<table>")
                for row in b.rows:
                    out.append("<tr>")
                    for cell in row.cells:
                        out.append("<td>")
                        emit(sid, cell.content)
                        close_list()
                        out.append("</td>")
                    out.append("</tr>")
                out.append("</table>")
            elif isinstance(b, Section) and b.start > 0:
                close_list()
                out.append("<hr>")

    emit("", doc.blocks(""))
    close_list()
    for fid, n in sorted(numbers.items(), key=lambda kv: int(kv[1])):
        text = " ".join(_inline_text(doc, fid, p, numbers, "html") for p in _paras(doc.blocks(fid)))
        out.append(f'<div><p><sup>[{n}]</sup>{text}</p></div>')
    out.append("</body></html>")
    return "".join(out)


def to_markdown(doc: Document) -> str:
    numbers = doc.footnote_numbers()
    counters: dict[tuple[str, int], int] = {}
    lines: list[str] = []
    levels = {"TITLE": "# ", "SUBTITLE": "## ", "HEADING_1": "# ", "HEADING_2": "## ", "HEADING_3": "### ",
              "HEADING_4": "#### ", "HEADING_5": "##### ", "HEADING_6": "###### "}  # fmt: skip
    for b in doc.blocks(""):
        if isinstance(b, Para):
            text = _inline_text(doc, "", b, numbers, "md")
            prefix, level, _ = _bullet_prefix(doc, "", b, counters)
            if prefix:
                lines.append("    " * level + prefix + text)
                continue
            named = doc.seg("")[b.end - 1].data.get("ps", {}).get("namedStyleType", "NORMAL_TEXT")
            lines.append(levels.get(named, "") + text if text else "")
        elif isinstance(b, Table):
            for ri, row in enumerate(b.rows):
                cells = [" ".join(_inline_text(doc, "", p, numbers, "md") for p in _paras(c.content)).replace("|", "\\|") for c in row.cells]
                lines.append("| " + " | ".join(cells) + " |")
                if ri == 0:
                    lines.append("|" + "|".join(" --- " for _ in cells) + "|")
    for fid, n in sorted(numbers.items(), key=lambda kv: int(kv[1])):
        text = " ".join(_inline_text(doc, fid, p, numbers, "md").strip() for p in _paras(doc.blocks(fid)))
        lines.append(f"[^{n}]: {text}")
    return "\n".join(lines).strip("\n") + "\n"


def to_pdf(text: str, title: str) -> bytes:
    """A small, valid PDF of the text (Helvetica, wrapped lines, 50 lines a page)."""

    def esc(line: str) -> str:
        safe = line.encode("latin-1", "replace").decode("latin-1")
        return safe.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")

    wrapped: list[str] = []
    for line in text.replace("\f", "\n").split("\n"):
        while len(line) > 95:
            cut = line.rfind(" ", 0, 95)
            cut = cut if cut > 20 else 95
            wrapped.append(line[:cut])
            line = line[cut:].lstrip()
        wrapped.append(line)
    pages = [wrapped[i : i + 50] for i in range(0, max(len(wrapped), 1), 50)] or [[]]
    objects: list[bytes] = []
    n_pages = len(pages)
    kids = " ".join(f"{4 + 2 * i} 0 R" for i in range(n_pages))
    objects.append(b"<< /Type /Catalog /Pages 2 0 R >>")
    objects.append(f"<< /Type /Pages /Kids [{kids}] /Count {n_pages} >>".encode())
    objects.append(b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>")
    for i, lines in enumerate(pages):
        content = "BT /F1 11 Tf 14 TL 72 720 Td " + " ".join(f"({esc(l)}) Tj T*" for l in lines) + " ET"
        data = content.encode("latin-1")
        objects.append(f"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> >> /Contents {5 + 2 * i} 0 R >>".encode())
        objects.append(b"<< /Length " + str(len(data)).encode() + b" >>\nstream\n" + data + b"\nendstream")
    info_id = len(objects) + 1
    objects.append(f"<< /Title ({esc(title)}) /Producer (clawarena) >>".encode("latin-1"))
    out = bytearray(b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
    offsets = []
    for n, obj in enumerate(objects, start=1):
        offsets.append(len(out))
        out += f"{n} 0 obj\n".encode() + obj + b"\nendobj\n"
    xref = len(out)
    out += f"xref\n0 {len(objects) + 1}\n0000000000 65535 f \n".encode()
    for off in offsets:
        out += f"{off:010d} 00000 n \n".encode()
    out += f"trailer\n<< /Size {len(objects) + 1} /Root 1 0 R /Info {info_id} 0 R >>\nstartxref\n{xref}\n%%EOF\n".encode()
    return bytes(out)
