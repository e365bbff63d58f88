"""Google Docs v1: documents.get, documents.create, documents.batchUpdate (plus agent conveniences).

A Doc is a Drive file (application/vnd.google-apps.document): Drive's
permissions decide who reads (get) and who edits (batchUpdate), Drive lists,
trashes and comments on it, and each edit is a Drive revision.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

from clawarena.services.base import ServiceContext, ServiceError
from clawarena.services.docs import render, store
from clawarena.services.docs.requests import apply
from clawarena.services.docs.structure import StructureError, walk_paragraphs
from clawarena.services.drive import core as drive_core
from clawarena.services.drive import files as drive_files
from clawarena.services.drive.tables import GDOC
from clawarena.tools.core import RestBinding, ToolKind, tool

DENIED = "The caller does not have permission"
NOT_FOUND = "Requested entity was not found."


def _doc_row(ctx: ServiceContext, document_id: str, need: int) -> dict[str, Any]:
    """The Doc's Drive row if the caller holds `need`. A Doc the caller may not see answers exactly
    like one that does not exist (404), as Drive does; one they see but may not edit is a 403."""
    acc = drive_core.Access(ctx)
    row = acc.file(document_id)
    if row is None or acc.role(row) == 0:
        raise ServiceError(404, NOT_FOUND, reason="notFound", denied=row is not None)
    role = acc.role(row)
    if row["mime_type"] != GDOC:
        raise ServiceError(400, "This operation is not supported for this document", reason="failedPrecondition")
    if role < need:
        raise ServiceError(403, DENIED, reason="forbidden", denied=True)
    return row


def _view_mode(requested: str | None, role: int) -> str:
    if requested and requested != "DEFAULT_FOR_CURRENT_ACCESS":
        return requested
    return "SUGGESTIONS_INLINE" if role >= drive_core.COMMENTER else "PREVIEW_WITHOUT_SUGGESTIONS"


def document_resource(ctx: ServiceContext, row: dict[str, Any], include_tabs: bool = False, mode: str | None = None) -> dict[str, Any]:
    doc_row = store.row(ctx, row["id"])
    doc = store.load(ctx, row["id"])
    role = drive_core.Access(ctx).role(row)
    return render.render_document(
        doc, document_id=row["id"], title=row["name"], revision_id=doc_row["revision"] if doc_row else "",
        include_tabs=include_tabs, suggestions_view_mode=_view_mode(mode, role),
    )  # fmt: skip


@tool(ToolKind.READ, name="docs_documents_get", rest=RestBinding("GET", "/v1/documents/{documentId}"))
def documents_get(
    ctx: ServiceContext,
    document_id: str,
    suggestions_view_mode: Literal["DEFAULT_FOR_CURRENT_ACCESS", "SUGGESTIONS_INLINE", "PREVIEW_SUGGESTIONS_ACCEPTED", "PREVIEW_WITHOUT_SUGGESTIONS"] | None = None,
    include_tabs_content: bool = False,
) -> dict[str, Any]:
    """Get a Google Doc's full structure: body.content paragraphs, tables and section breaks with their indices.

    Args:
        document_id: the document id (its Drive file id).
        suggestions_view_mode: how suggestions are shown.
        include_tabs_content: return the content under `tabs` instead of the top-level body.
    """
    row = _doc_row(ctx, document_id, drive_core.READER)
    return document_resource(ctx, row, include_tabs_content, suggestions_view_mode)


class CreateBody(BaseModel):
    """A Document resource; only the title is used (Docs ignores content on create)."""

    model_config = ConfigDict(extra="allow")
    title: str | None = None


@tool(ToolKind.WRITE, name="docs_documents_create", rest=RestBinding("POST", "/v1/documents", body="body"))
def documents_create(ctx: ServiceContext, body: CreateBody | None = None) -> dict[str, Any]:
    """Create a blank Google Doc in the principal's My Drive.

    Args:
        body: {"title": "Meeting notes"}.
    """
    title = (body.title if body else None) or "Untitled document"
    acc = drive_core.Access(ctx)
    new = drive_files._create(ctx, acc, drive_files.FileBody(name=title, mimeType=GDOC), None, True, False)
    tracker = drive_core.ChangeTracker(ctx, [])
    tracker.before[new["id"]] = (set(), None)
    tracker.commit()
    return document_resource(ctx, new)


class WriteControl(BaseModel):
    model_config = ConfigDict(extra="forbid")
    requiredRevisionId: str | None = None
    targetRevisionId: str | None = None


class BatchUpdateBody(BaseModel):
    model_config = ConfigDict(extra="forbid")
    requests: list[dict[str, Any]] = []
    writeControl: WriteControl | None = None


@tool(ToolKind.WRITE, name="docs_documents_batchUpdate", rest=RestBinding("POST", "/v1/documents/{documentId}:batchUpdate", body="body"))
def documents_batch_update(ctx: ServiceContext, document_id: str, body: BatchUpdateBody) -> dict[str, Any]:
    """Apply edits to a Google Doc, in order, all or nothing (indices are UTF-16 positions from documents.get).

    Args:
        document_id: the document id.
        body: {"requests": [...], "writeControl": {"requiredRevisionId": "..."}}. Request kinds include
            insertText {location: {index}, text} or {endOfSegmentLocation: {}, text}; deleteContentRange {range: {startIndex, endIndex}};
            replaceAllText {containsText: {text, matchCase}, replaceText}; updateTextStyle {range, textStyle, fields};
            updateParagraphStyle {range, paragraphStyle: {namedStyleType: 'HEADING_1'}, fields}; createParagraphBullets {range, bulletPreset};
            deleteParagraphBullets; insertTable {location, rows, columns}; insertTableRow/insertTableColumn/deleteTableRow/deleteTableColumn
            {tableCellLocation: {tableStartLocation: {index}, rowIndex, columnIndex}}; insertPageBreak; insertSectionBreak;
            insertInlineImage {location, uri}; createNamedRange {name, range}; deleteNamedRange; replaceNamedRangeContent;
            createHeader/createFooter/deleteHeader/deleteFooter; createFootnote; updateDocumentStyle {documentStyle, fields}.
    """
    _doc_row(ctx, document_id, drive_core.WRITER)
    doc_row = store.row(ctx, document_id)
    current = doc_row["revision"] if doc_row else ""
    wc = body.writeControl
    if wc is not None:
        if wc.requiredRevisionId and wc.targetRevisionId:
            raise ServiceError(400, "Only one of requiredRevisionId and targetRevisionId may be set.", reason="badRequest")
        if wc.requiredRevisionId and wc.requiredRevisionId != current:
            raise ServiceError(400, f"The required revision ID {wc.requiredRevisionId} does not match the latest revision of the document.", reason="failedPrecondition")
        if wc.targetRevisionId and wc.targetRevisionId != current and wc.targetRevisionId not in (doc_row or {}).get("history", []):
            raise ServiceError(400, f"The target revision ID {wc.targetRevisionId} is not a revision of this document.", reason="badRequest")
    doc = store.load(ctx, document_id)
    before = doc.fingerprint()
    try:
        replies = apply(doc, body.requests, store.ids_for(ctx))
    except StructureError as exc:
        raise ServiceError(400, str(exc), reason="badRequest") from None
    revision = current
    if doc.fingerprint() != before:
        revision = store.save(ctx, document_id, doc)
        tracker = drive_core.ChangeTracker(ctx, [document_id])
        drive_files.content_changed(ctx, document_id)
        tracker.commit()
    return {"documentId": document_id, "replies": replies, "writeControl": {"requiredRevisionId": revision}}


# ---- agent conveniences ------------------------------------------------------------------------
@tool(ToolKind.READ, name="docs_read_document")
def read_document(ctx: ServiceContext, document_id: str) -> dict[str, Any]:
    """Read a Google Doc as text, with each body paragraph's start and end index (for batchUpdate edits).

    Args:
        document_id: the document id.
    """
    row = _doc_row(ctx, document_id, drive_core.READER)
    doc = store.load(ctx, document_id)
    doc_row = store.row(ctx, document_id)
    paragraphs = []
    for p in walk_paragraphs(doc.blocks("")):
        ps = doc.seg("")[p.end - 1].data.get("ps", {})
        paragraphs.append({"startIndex": p.start, "endIndex": p.end, "style": ps.get("namedStyleType", "NORMAL_TEXT"),
                           "text": doc.paragraph_text("", p).rstrip("\n")})  # fmt: skip
    return {"documentId": document_id, "title": row["name"], "revisionId": doc_row["revision"] if doc_row else "",
            "text": render.to_text(doc), "paragraphs": paragraphs}  # fmt: skip


@tool(ToolKind.WRITE, name="docs_append_text")
def append_text(ctx: ServiceContext, document_id: str, text: str) -> dict[str, Any]:
    """Append text at the end of a Google Doc's body (newlines start new paragraphs).

    Args:
        document_id: the document id.
        text: the text to append.
    """
    return documents_batch_update(ctx, document_id=document_id, body={"requests": [{"insertText": {"endOfSegmentLocation": {}, "text": text}}]})


@tool(ToolKind.WRITE, name="docs_replace_text")
def replace_text(ctx: ServiceContext, document_id: str, find: str, replace: str, match_case: bool = True) -> dict[str, Any]:
    """Replace every occurrence of a text in a Google Doc; returns how many were replaced.

    Args:
        document_id: the document id.
        find: the text to find.
        replace: its replacement.
        match_case: whether case must match.
    """
    out = documents_batch_update(ctx, document_id=document_id, body={"requests": [
        {"replaceAllText": {"containsText": {"text": find, "matchCase": match_case}, "replaceText": replace}}]})  # fmt: skip
    return {"documentId": document_id, "occurrencesChanged": out["replies"][0]["replaceAllText"].get("occurrencesChanged", 0)}


TOOLS = (documents_create, documents_get, documents_batch_update, read_document, append_text, replace_text)
