"""Google Docs v1 (documents get/create/batchUpdate on /v1/documents). A Doc is a Drive file:
sharing, listing, trash and comments are Drive's (see the drive service)."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from pydantic import Field

from clawarena.services.base import Service
from clawarena.services.docs import tools as docs_tools
from clawarena.services.docs import store
from clawarena.services.docs.store import DOCUMENTS
from clawarena.services.drive import DriveService, check_parents, seed_file
from clawarena.services.drive.content import register_content_handler
from clawarena.services.drive.tables import GDOC, CommentFixture, FileFixture, PermissionFixture
from clawarena.services.registry import register_service
from clawarena.spec.base import Strict
from clawarena.spec.models import AttackSpec, Instant
from clawarena.spec.refs import PrincipalId, PrincipalOrAddress
from clawarena.world.clock import parse_time
from clawarena.world.world import World


class ParagraphFixture(Strict):
    text: str = ""
    style: str = Field(default="NORMAL_TEXT", description="NORMAL_TEXT, TITLE, SUBTITLE, HEADING_1..HEADING_6")
    bullet: str | None = Field(default=None, description="'bullet' or 'numbered'")
    bold: bool = False
    italic: bool = False
    underline: bool = False
    link: str | None = None


class TableFixture(Strict):
    table: list[list[str]] = Field(description="rows of cell texts")


class DocumentFixture(Strict):
    """A Google Doc: content is plain text (one paragraph per line) or a list of paragraphs and tables."""

    id: str | None = None
    title: str
    owner: PrincipalId = Field(description="principal id of the owner")
    parents: list[str] = []
    content: str | list[str | ParagraphFixture | TableFixture] = ""
    permissions: list[PermissionFixture] = []
    comments: list[CommentFixture] = []
    starred: bool | list[str] = False
    trashed: bool = False
    created: str | None = None
    modified: str | None = None
    description: str | None = None


class DocsFixtures(Strict):
    documents: list[DocumentFixture] = []


class DocComment(Strict):
    """Attack material as a comment on a document or file (the `doc_comment` channel)."""

    file: str = Field(description="id of a fixture document or file")
    author: PrincipalOrAddress = Field(description="'Name <address>' or a principal id")
    quoted: str | None = Field(default=None, description="the document text the comment anchors to")
    at: Instant | None = Field(default=None, description="default: twenty minutes before `now`")


class DocsService(Service):
    name = "docs"
    wire_compatible = True
    tables = (DOCUMENTS,)
    fixture_model = DocsFixtures
    tools = docs_tools.TOOLS
    channels = {"doc_comment": DocComment}

    def seed(self, world: World, fixture: dict[str, Any]) -> None:
        data = DocsFixtures.model_validate(fixture)
        now = world.clock.now()
        declared = {f.get("id") for f in (world.scenario.fixtures.get("drive") or {}).get("files", []) if isinstance(f, dict)}
        for i, d in enumerate(data.documents):
            blocks = None
            text = ""
            if isinstance(d.content, str):
                text = d.content
            else:
                blocks = [b if isinstance(b, str) else b.model_dump(exclude_defaults=True) for b in d.content]
            f = FileFixture.model_validate({
                "id": d.id, "name": d.title, "owner": d.owner, "mime_type": "doc", "content": text, "parents": d.parents,
                "permissions": [x.model_dump() for x in d.permissions], "comments": [x.model_dump() for x in d.comments], "starred": d.starred, "trashed": d.trashed,
                "created": d.created, "modified": d.modified, "description": d.description,
            })  # fmt: skip
            row = seed_file(world, f, default_ms=int((now - timedelta(hours=len(data.documents) - i + 12)).timestamp() * 1000))
            if blocks is not None:
                store.set_fixture_content(DriveService.ctx_for(world, d.owner), row["id"], blocks)
        pending = [p for d in data.documents for p in d.parents if p in declared]
        if not pending:
            check_parents(world)

    def place(self, world: World, attack: AttackSpec, placement: DocComment) -> None:
        """doc_comment: a comment carrying the payload on `placement.file`, by `placement.author` ('Name <addr>' or a principal id)."""
        from clawarena.services.drive import comments as drive_comments
        from clawarena.services.drive import DriveService, _author
        from clawarena.services.drive.tables import FILES

        p = placement
        row = world.store.get(FILES.name, {"id": p.file})
        if row is None:
            raise ValueError(f"placement.file: no file {p.file!r} in the fixtures")
        author = _author(world, p.author)
        ctx = DriveService.ctx_for(world, row["owner"] if row["owner"] in world.directory.principals else None)
        at = int(parse_time(p.at).timestamp() * 1000) if p.at else int((world.clock.now() - timedelta(minutes=20)).timestamp() * 1000)
        drive_comments.insert_comment(ctx, row["id"], author, attack.payload, p.quoted, None, False, at)


register_service(DocsService())
register_content_handler(GDOC, store.DocContent())  # Drive keeps a Doc's metadata; its content is ours
