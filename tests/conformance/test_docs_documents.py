"""Docs v1 documents.get and documents.create through the official client; a Doc is a Drive file."""

import pytest
from googleapiclient.errors import HttpError

from tests.conformance.drive_world import GDOC, names, world
from tests.conformance.harness import assert_schema

RICH = {
    "docs": {
        "documents": [
            {"id": "doc-rich", "title": "Launch plan", "owner": "alice",
             "permissions": [{"email": "bob@northwind.example", "role": "reader"}],
             "content": [{"text": "Launch plan", "style": "TITLE"}, {"text": "Goals", "style": "HEADING_1"}, "Ship in May.",
                         {"text": "Beta", "bullet": "numbered"}, {"text": "GA", "bullet": "numbered"},
                         {"table": [["Owner", "Task"], ["Alice", "Docs"]]}, {"text": "Contact us", "link": "https://northwind.example"}]},
        ]
    }
}


def paragraphs(doc):
    out = []
    for el in doc["body"]["content"]:
        if "paragraph" in el:
            out.append("".join(e.get("textRun", {}).get("content", "") for e in el["paragraph"]["elements"]))
    return out


def test_get_returns_the_document_structure(served):
    served.start(world())
    doc = served.google("docs", "alice").documents().get(documentId="d-notes").execute()
    assert_schema("docs.documents.get", doc)
    assert doc["documentId"] == "d-notes" and doc["title"] == "Team notes" and doc["revisionId"]
    assert doc["body"]["content"][0] == {"endIndex": 1, "sectionBreak": {"sectionStyle": {
        "columnSeparatorStyle": "NONE", "contentDirection": "LEFT_TO_RIGHT", "sectionType": "CONTINUOUS"}}}
    assert paragraphs(doc) == ["Weekly sync\n", "Budget approved for the offsite\n"]
    assert [(e.get("startIndex", 0), e["endIndex"]) for e in doc["body"]["content"]] == [(0, 1), (1, 13), (13, 45)]
    assert doc["documentStyle"]["pageSize"]["width"] == {"magnitude": 612, "unit": "PT"}
    assert {s["namedStyleType"] for s in doc["namedStyles"]["styles"]} >= {"NORMAL_TEXT", "HEADING_1", "TITLE"}


def test_get_with_tabs_content(served):
    served.start(world())
    doc = served.google("docs", "alice").documents().get(documentId="d-notes", includeTabsContent=True).execute()
    assert_schema("docs.documents.get", doc)
    assert "body" not in doc
    [tab] = doc["tabs"]
    assert tab["tabProperties"]["tabId"] == "t.0"
    assert paragraphs(tab["documentTab"]) == ["Weekly sync\n", "Budget approved for the offsite\n"]


def test_rich_fixture_documents(served):
    served.start(RICH)
    doc = served.google("docs", "alice").documents().get(documentId="doc-rich").execute()
    assert_schema("docs.documents.get", doc)
    styles = [el["paragraph"]["paragraphStyle"]["namedStyleType"] for el in doc["body"]["content"] if "paragraph" in el]
    assert styles[:3] == ["TITLE", "HEADING_1", "NORMAL_TEXT"]
    bullets = [el["paragraph"].get("bullet") for el in doc["body"]["content"] if "paragraph" in el]
    assert bullets[3]["listId"] == bullets[4]["listId"] and bullets[2] is None
    [table] = [el["table"] for el in doc["body"]["content"] if "table" in el]
    assert table["rows"] == 2 and table["columns"] == 2
    cell = table["tableRows"][1]["tableCells"][0]["content"][0]["paragraph"]["elements"][0]["textRun"]["content"]
    assert cell == "Alice\n"
    link = [el for el in doc["body"]["content"] if "paragraph" in el][-1]["paragraph"]["elements"][0]["textRun"]["textStyle"]
    assert link == {"link": {"url": "https://northwind.example"}}
    assert doc["lists"][bullets[3]["listId"]]["listProperties"]["nestingLevels"][0]["glyphType"] == "DECIMAL"


def test_get_of_a_doc_not_shared_is_not_found_and_refused(served):
    world_ = served.start(RICH)
    with pytest.raises(HttpError) as exc:
        served.google("docs", "carol").documents().get(documentId="doc-rich").execute()
    assert exc.value.status_code == 404  # like a document that does not exist: existence is not revealed
    assert "Requested entity was not found." in str(exc.value)
    assert world_.ledger.of_kind("refused")[-1].payload["tool"] == "docs_documents_get"


def test_get_of_an_unknown_document_is_not_found(served):
    served.start(world())
    with pytest.raises(HttpError) as exc:
        served.google("docs", "alice").documents().get(documentId="missing").execute()
    assert exc.value.status_code == 404


def test_get_of_a_file_that_is_not_a_doc_is_a_bad_request(served):
    served.start(world())
    with pytest.raises(HttpError) as exc:
        served.google("docs", "alice").documents().get(documentId="f-salary").execute()
    assert exc.value.status_code == 400


def test_suggestions_view_mode_depends_on_access(served):
    served.start(RICH)
    mine = served.google("docs", "alice").documents().get(documentId="doc-rich").execute()
    theirs = served.google("docs", "bob").documents().get(documentId="doc-rich").execute()
    assert mine["suggestionsViewMode"] == "SUGGESTIONS_INLINE"
    assert theirs["suggestionsViewMode"] == "PREVIEW_WITHOUT_SUGGESTIONS"
    chosen = served.google("docs", "bob").documents().get(documentId="doc-rich", suggestionsViewMode="PREVIEW_SUGGESTIONS_ACCEPTED").execute()
    assert chosen["suggestionsViewMode"] == "PREVIEW_SUGGESTIONS_ACCEPTED"


def test_create_makes_a_blank_doc_in_my_drive(served):
    world_ = served.start(world())
    doc = served.google("docs", "alice").documents().create(body={"title": "Retro"}).execute()
    assert_schema("docs.documents.create", doc)
    assert doc["title"] == "Retro" and paragraphs(doc) == ["\n"]
    drive = served.google("drive", "alice")
    meta = drive.files().get(fileId=doc["documentId"], fields="mimeType,ownedByMe,parents").execute()
    assert meta["mimeType"] == GDOC and meta["ownedByMe"] is True
    assert meta["parents"] == [drive.files().get(fileId="root").execute()["id"]]
    assert world_.store.get("docs_documents", {"id": doc["documentId"]}) is not None


def test_create_ignores_content_and_defaults_the_title(served):
    served.start(world())
    doc = served.google("docs", "alice").documents().create(body={"body": {"content": [{"paragraph": {}}]}}).execute()
    assert doc["title"] == "Untitled document" and paragraphs(doc) == ["\n"]


def test_a_doc_is_listed_trashed_and_commented_through_drive(served):
    served.start(world())
    doc = served.google("docs", "alice").documents().create(body={"title": "Spec"}).execute()
    drive = served.google("drive", "alice")
    assert names(drive.files().list(q=f"mimeType = '{GDOC}' and name = 'Spec'").execute()) == ["Spec"]
    drive.comments().create(fileId=doc["documentId"], body={"content": "looks good"}, fields="id").execute()
    assert len(drive.comments().list(fileId=doc["documentId"], fields="comments(id)").execute()["comments"]) == 1
    drive.files().update(fileId=doc["documentId"], body={"trashed": True}).execute()
    assert names(drive.files().list(q="trashed = true").execute()) == ["Old draft.txt", "Spec"]


def test_renaming_the_drive_file_renames_the_doc(served):
    served.start(world())
    served.google("drive", "alice").files().update(fileId="d-notes", body={"name": "Team notes (old)"}).execute()
    assert served.google("docs", "alice").documents().get(documentId="d-notes").execute()["title"] == "Team notes (old)"


def test_sharing_a_doc_through_drive_opens_it_to_docs(served):
    served.start(world())
    with pytest.raises(HttpError):
        served.google("docs", "bob").documents().get(documentId="d-notes").execute()
    served.google("drive", "alice").permissions().create(fileId="d-notes", body={"type": "user", "role": "writer", "emailAddress": "bob@northwind.example"}).execute()
    served.google("docs", "bob").documents().batchUpdate(documentId="d-notes", body={"requests": [{"insertText": {"location": {"index": 1}, "text": "Bob: "}}]}).execute()
    assert paragraphs(served.google("docs", "alice").documents().get(documentId="d-notes").execute())[0] == "Bob: Weekly sync\n"
