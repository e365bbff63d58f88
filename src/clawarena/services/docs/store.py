"""Where Docs keep their structure (`docs_documents`), and what Drive asks of a Doc:
its text, its exports, a new Doc from text, a copy, a deletion."""

from __future__ import annotations

from typing import Any

from clawarena.services.base import ServiceContext
from clawarena.services.docs import render
from clawarena.services.docs.requests import Ids
from clawarena.services.docs.structure import (
    CHAR, NL, Document, StructureError, Unit, default_paragraph_style, new_nl, text_units,
)  # fmt: skip
from clawarena.world.store import Column, TableSpec

DOCUMENTS = TableSpec(
    name="docs_documents",
    columns=(
        Column("id", nullable=False),  # the Drive file id
        Column("doc", "json", nullable=False),
        Column("revision", nullable=False),
        Column("history", "json", nullable=False),  # earlier revision ids, oldest first
    ),
)


def ids_for(ctx: ServiceContext) -> Ids:
    return Ids(lambda ns, n: ctx.world.ids.next(ns, n))


def _new_revision(ctx: ServiceContext) -> str:
    return "AO" + ctx.world.ids.next("docs.revision", 40)


def row(ctx: ServiceContext, file_id: str) -> dict[str, Any] | None:
    return ctx.store.get(DOCUMENTS.name, {"id": file_id})


def load(ctx: ServiceContext, file_id: str) -> Document:
    r = row(ctx, file_id)
    return Document(r["doc"]) if r else Document.blank()


def save(ctx: ServiceContext, file_id: str, doc: Document) -> str:
    """Store the document under a new revision id; returns it."""
    r = row(ctx, file_id)
    rev = _new_revision(ctx)
    if r is None:
        ctx.store.insert(DOCUMENTS.name, {"id": file_id, "doc": doc.dump(), "revision": rev, "history": []})
    else:
        ctx.store.update(DOCUMENTS.name, {"id": file_id}, {"doc": doc.dump(), "revision": rev, "history": [*r["history"], r["revision"]][-50:]})
    return rev


def create_document(ctx: ServiceContext, file_id: str, text: str) -> None:
    save(ctx, file_id, Document.from_text(text))


def replace_with_text(ctx: ServiceContext, file_id: str, text: str) -> None:
    save(ctx, file_id, Document.from_text(text))


def append_text(ctx: ServiceContext, file_id: str, text: str) -> None:
    doc = load(ctx, file_id)
    units = doc.seg("")
    empty_last = len(units) >= 2 and units[-1].kind == NL and units[-2].kind != CHAR
    at = len(units) - 1
    doc.insert_text("", at, text if empty_last else "\n" + text, ids_for(ctx))
    save(ctx, file_id, doc)


def copy_document(ctx: ServiceContext, source_id: str, target_id: str) -> None:
    save(ctx, target_id, Document(load(ctx, source_id).dump()))


def delete_document(ctx: ServiceContext, file_id: str) -> None:
    ctx.store.delete(DOCUMENTS.name, {"id": file_id})


def plain_text(ctx: ServiceContext, file_id: str) -> str:
    return render.to_text(load(ctx, file_id))


def export(ctx: ServiceContext, file_id: str, mime_type: str, title: str) -> bytes:
    doc = load(ctx, file_id)
    if mime_type == "text/plain":
        return ("\ufeff" + render.to_text(doc)).encode("utf-8")  # Docs' text export starts with a byte order mark
    if mime_type == "text/html":
        return render.to_html(doc, title).encode("utf-8")
    if mime_type == "text/markdown":
        return render.to_markdown(doc).encode("utf-8")
    return render.to_pdf(render.to_text(doc), title)


# ---- rich fixture content ---------------------------------------------------------------------
def build_from_blocks(blocks: list[Any], ids: Ids) -> Document:
    """A Doc from fixture blocks: strings (paragraphs), {text, style, bullet, bold, italic, link}, {table: [[...]]}."""
    doc = Document.blank()
    units: list[Unit] = [doc.seg("")[0]]
    bullets: list[tuple[int, int, str]] = []
    for block in blocks:
        if isinstance(block, str):
            block = {"text": block}
        if "table" in block:
            rows = block["table"]
            if not rows or not all(isinstance(r, list) and r for r in rows):
                raise ValueError("a table block needs a non-empty list of non-empty rows")
            cols = max(len(r) for r in rows)
            units.append(Unit("tbl", "", {}, {"style": {"tableColumnProperties": [{"widthType": "EVENLY_DISTRIBUTED"} for _ in range(cols)]}}))
            for r in rows:
                units.append(Unit("row", "", {}, {"style": {"minRowHeight": {"unit": "PT"}}}))
                for c in range(cols):
                    from clawarena.services.docs.structure import default_cell_style

                    units.append(Unit("cell", "", {}, {"style": default_cell_style()}))
                    text = str(r[c]) if c < len(r) else ""
                    for line in text.split("\n"):
                        units.extend(text_units(line))
                        units.append(new_nl())
            units.append(Unit("etbl"))
            continue
        unknown = set(block) - {"text", "style", "bullet", "bold", "italic", "underline", "link"}
        if unknown:
            raise ValueError(f"unknown paragraph field(s) {sorted(unknown)} (allowed: text, style, bullet, bold, italic, underline, link)")
        ts: dict[str, Any] = {}
        for key in ("bold", "italic", "underline"):
            if block.get(key):
                ts[key] = True
        if block.get("link"):
            ts["link"] = {"url": block["link"]}
        named = block.get("style", "NORMAL_TEXT")
        ps = default_paragraph_style(named)
        if named.startswith("HEADING"):
            ps["headingId"] = ids.heading()
        for line in str(block.get("text", "")).split("\n"):
            start = len(units)
            units.extend(text_units(line, ts))
            units.append(new_nl(dict(ps), {}))
            if block.get("bullet"):
                preset = "NUMBERED_DECIMAL_ALPHA_ROMAN" if block["bullet"] in ("numbered", "number") else "BULLET_DISC_CIRCLE_SQUARE"
                bullets.append((start, len(units), preset))
    if len(units) == 1 or units[-1].kind != NL:
        units.append(new_nl())
    doc.segments[""] = units
    try:
        doc.blocks("")
    except StructureError as exc:
        raise ValueError(f"document content: {exc}") from None
    for start, end, preset in bullets:
        doc.create_bullets("", start, end, preset, ids)
    return doc


def set_fixture_content(ctx: ServiceContext, file_id: str, blocks: list[Any]) -> None:
    save(ctx, file_id, build_from_blocks(blocks, ids_for(ctx)))



class DocContent:
    """Drive's content handler for Google Docs: Drive calls it, so Drive never imports Docs."""

    exports = frozenset({"text/plain", "text/html", "text/markdown", "application/pdf"})

    def create(self, ctx: ServiceContext, file_id: str, text: str) -> None:
        create_document(ctx, file_id, text)

    def text(self, ctx: ServiceContext, file_id: str) -> str:
        return plain_text(ctx, file_id)

    def export(self, ctx: ServiceContext, file_id: str, mime_type: str, title: str) -> bytes:
        return export(ctx, file_id, mime_type, title)

    def copy(self, ctx: ServiceContext, source_id: str, target_id: str) -> None:
        copy_document(ctx, source_id, target_id)

    def replace_text(self, ctx: ServiceContext, file_id: str, text: str) -> None:
        replace_with_text(ctx, file_id, text)

    def append_text(self, ctx: ServiceContext, file_id: str, text: str) -> None:
        append_text(ctx, file_id, text)

    def delete(self, ctx: ServiceContext, file_id: str) -> None:
        delete_document(ctx, file_id)
