"""What Drive asks of a file whose content another service keeps (a Google Doc's lives in Docs).

Drive stores folders, text and binary files itself. For a Google type it holds
only the metadata and calls the content handler registered for that mime type
(the Docs service registers one for Google Docs on import), so Drive never
imports the service that owns the content.
"""

from __future__ import annotations

from typing import Any, Protocol

from clawarena.services.base import ServiceContext


class ContentHandler(Protocol):
    """How to create, read, export, copy, rewrite and delete the content of one Google file type."""

    exports: frozenset[str]  # the export formats this server renders (Drive advertises more in exportLinks)

    def create(self, ctx: ServiceContext, file_id: str, text: str) -> None: ...

    def text(self, ctx: ServiceContext, file_id: str) -> str: ...

    def export(self, ctx: ServiceContext, file_id: str, mime_type: str, title: str) -> bytes: ...

    def copy(self, ctx: ServiceContext, source_id: str, target_id: str) -> None: ...

    def replace_text(self, ctx: ServiceContext, file_id: str, text: str) -> None: ...

    def append_text(self, ctx: ServiceContext, file_id: str, text: str) -> None: ...

    def delete(self, ctx: ServiceContext, file_id: str) -> None: ...


_HANDLERS: dict[str, ContentHandler] = {}


def register_content_handler(mime_type: str, handler: ContentHandler) -> None:
    if mime_type in _HANDLERS:
        raise ValueError(f"a content handler for {mime_type!r} is registered twice")
    _HANDLERS[mime_type] = handler


def handler_for(mime_type: str) -> ContentHandler:
    try:
        return _HANDLERS[mime_type]
    except KeyError:
        raise KeyError(f"no content handler for {mime_type!r} (registered: {sorted(_HANDLERS)}); is its service imported?") from None


def handled(row: dict[str, Any]) -> ContentHandler | None:
    """The handler of a file row's content, or None when Drive keeps the content itself."""
    return _HANDLERS.get(row["mime_type"])
