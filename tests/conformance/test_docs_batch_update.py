"""Docs v1 documents.batchUpdate through the official client: request kinds, indices after edits, write control."""

import pytest
from googleapiclient.errors import HttpError

from tests.conformance.drive_world import world
from tests.conformance.harness import assert_schema

DOC = {"docs": {"documents": [{"id": "doc1", "title": "Draft", "owner": "alice", "content": "Hello world\nSecond line",
                               "permissions": [{"email": "bob@northwind.example", "role": "writer"},
                                               {"email": "carol@northwind.example", "role": "commenter"}]}]}}


@pytest.fixture
def docs(served):
    served.start(DOC)
    return served.google("docs", "alice")


def update(docs, *requests, **kw):
    resp = docs.documents().batchUpdate(documentId="doc1", body={"requests": list(requests), **kw}).execute()
    assert_schema("docs.documents.batchUpdate", resp)
    return resp


def get(docs, **kw):
    doc = docs.documents().get(documentId="doc1", **kw).execute()
    assert_schema("docs.documents.get", doc)
    return doc


def paras(doc):
    return ["".join(e.get("textRun", {}).get("content", "") for e in el["paragraph"]["elements"]) for el in doc["body"]["content"] if "paragraph" in el]


def spans(doc):
    return [(el.get("startIndex", 0), el["endIndex"], next(k for k in el if k not in ("startIndex", "endIndex"))) for el in doc["body"]["content"]]


def test_insert_text_shifts_the_indices(docs):
    resp = update(docs, {"insertText": {"location": {"index": 7}, "text": "big "}})
    assert resp["documentId"] == "doc1" and resp["replies"] == [{}]
    doc = get(docs)
    assert paras(doc) == ["Hello big world\n", "Second line\n"]
    assert spans(doc) == [(0, 1, "sectionBreak"), (1, 17, "paragraph"), (17, 29, "paragraph")]
    assert resp["writeControl"]["requiredRevisionId"] == doc["revisionId"]


def test_insert_at_end_of_segment_and_new_paragraphs(docs):
    update(docs, {"insertText": {"endOfSegmentLocation": {}, "text": "\nThird line"}})
    assert paras(get(docs)) == ["Hello world\n", "Second line\n", "Third line\n"]


def test_delete_content_range_merges_paragraphs(docs):
    update(docs, {"deleteContentRange": {"range": {"startIndex": 6, "endIndex": 19}}})
    assert paras(get(docs)) == ["Hello line\n"]


def test_invalid_indices_get_docs_error_messages(docs, served):
    with pytest.raises(HttpError) as exc:
        update(docs, {"insertText": {"location": {"index": 100}, "text": "x"}})
    assert exc.value.status_code == 400
    assert "Invalid requests[0].insertText: Index 100 must be less than the end index of the referenced segment, 25." in str(exc.value)
    with pytest.raises(HttpError) as exc:
        update(docs, {"deleteContentRange": {"range": {"startIndex": 13, "endIndex": 25}}})
    assert "newline character at the end of the segment" in str(exc.value)


def test_a_batch_is_all_or_nothing(docs, served):
    rev = get(docs)["revisionId"]
    with pytest.raises(HttpError):
        update(docs, {"insertText": {"location": {"index": 1}, "text": "kept? "}}, {"deleteContentRange": {"range": {"startIndex": 0, "endIndex": 3}}})
    doc = get(docs)
    assert paras(doc) == ["Hello world\n", "Second line\n"] and doc["revisionId"] == rev


def test_replace_all_text_reports_occurrences(docs):
    resp = update(docs, {"replaceAllText": {"containsText": {"text": "LINE", "matchCase": False}, "replaceText": "row"}},
                  {"replaceAllText": {"containsText": {"text": "absent", "matchCase": True}, "replaceText": "x"}})
    assert resp["replies"] == [{"replaceAllText": {"occurrencesChanged": 1}}, {"replaceAllText": {}}]
    assert paras(get(docs))[1] == "Second row\n"


def test_update_text_style(docs):
    update(docs, {"updateTextStyle": {"range": {"startIndex": 1, "endIndex": 6}, "textStyle": {"bold": True, "link": {"url": "https://x.example"}},
                                      "fields": "bold,link"}})
    runs = get(docs)["body"]["content"][1]["paragraph"]["elements"]
    assert runs[0]["textRun"] == {"content": "Hello", "textStyle": {"bold": True, "link": {"url": "https://x.example"}}}
    assert (runs[1]["startIndex"], runs[1]["textRun"]["content"]) == (6, " world\n")


def test_update_paragraph_style_makes_a_heading(docs):
    update(docs, {"updateParagraphStyle": {"range": {"startIndex": 1, "endIndex": 5}, "paragraphStyle": {"namedStyleType": "HEADING_2", "alignment": "CENTER"},
                                           "fields": "namedStyleType,alignment"}})
    style = get(docs)["body"]["content"][1]["paragraph"]["paragraphStyle"]
    assert style["namedStyleType"] == "HEADING_2" and style["alignment"] == "CENTER" and style["headingId"].startswith("h.")


def test_bullets_created_and_deleted(docs):
    update(docs, {"createParagraphBullets": {"range": {"startIndex": 1, "endIndex": 25}, "bulletPreset": "BULLET_CHECKBOX"}})
    doc = get(docs)
    bullets = [el["paragraph"]["bullet"] for el in doc["body"]["content"] if "paragraph" in el]
    assert bullets[0]["listId"] == bullets[1]["listId"] and bullets[0]["listId"] in doc["lists"]
    update(docs, {"deleteParagraphBullets": {"range": {"startIndex": 1, "endIndex": 25}}})
    doc = get(docs)
    assert all("bullet" not in el["paragraph"] for el in doc["body"]["content"] if "paragraph" in el) and "lists" not in doc


def test_insert_table_and_fill_cells(docs):
    update(docs, {"insertTable": {"endOfSegmentLocation": {}, "rows": 2, "columns": 2}})
    doc = get(docs)
    table_el = next(el for el in doc["body"]["content"] if "table" in el)
    start = table_el["startIndex"]
    assert start == 25
    cells = [c["content"][0]["startIndex"] for row in table_el["table"]["tableRows"] for c in row["tableCells"]]
    assert cells == [start + 3, start + 5, start + 8, start + 10]
    update(docs, *[{"insertText": {"location": {"index": i}, "text": t}} for i, t in reversed(list(zip(cells, "ABCD")))])
    doc = get(docs)
    table = next(el for el in doc["body"]["content"] if "table" in el)["table"]
    assert [[c["content"][0]["paragraph"]["elements"][0]["textRun"]["content"] for c in r["tableCells"]] for r in table["tableRows"]] == [["A\n", "B\n"], ["C\n", "D\n"]]


def _table_start(docs):
    return next(el for el in get(docs)["body"]["content"] if "table" in el)["startIndex"]


def test_rows_and_columns(docs):
    update(docs, {"insertTable": {"location": {"index": 1}, "rows": 1, "columns": 1}})
    start = _table_start(docs)
    loc = {"tableStartLocation": {"index": start}, "rowIndex": 0, "columnIndex": 0}
    update(docs, {"insertTableRow": {"tableCellLocation": loc, "insertBelow": True}}, {"insertTableColumn": {"tableCellLocation": loc, "insertRight": True}})
    table = next(el for el in get(docs)["body"]["content"] if "table" in el)["table"]
    assert (table["rows"], table["columns"]) == (2, 2)
    update(docs, {"deleteTableRow": {"tableCellLocation": loc}}, {"deleteTableColumn": {"tableCellLocation": loc}})
    table = next(el for el in get(docs)["body"]["content"] if "table" in el)["table"]
    assert (table["rows"], table["columns"]) == (1, 1)


def test_table_styles_and_header_rows(docs):
    update(docs, {"insertTable": {"location": {"index": 1}, "rows": 2, "columns": 2}})
    start = _table_start(docs)
    update(docs,
           {"updateTableCellStyle": {"tableRange": {"tableCellLocation": {"tableStartLocation": {"index": start}, "rowIndex": 0, "columnIndex": 0},
                                                    "rowSpan": 1, "columnSpan": 2},
                                     "tableCellStyle": {"backgroundColor": {"color": {"rgbColor": {"red": 1}}}}, "fields": "backgroundColor"}},
           {"updateTableColumnProperties": {"tableStartLocation": {"index": start}, "columnIndices": [0],
                                            "tableColumnProperties": {"widthType": "FIXED_WIDTH", "width": {"magnitude": 120, "unit": "PT"}},
                                            "fields": "widthType,width"}},
           {"updateTableRowStyle": {"tableStartLocation": {"index": start}, "rowIndices": [1], "tableRowStyle": {"minRowHeight": {"magnitude": 30, "unit": "PT"}},
                                    "fields": "minRowHeight"}},
           {"pinTableHeaderRows": {"tableStartLocation": {"index": start}, "pinnedHeaderRowsCount": 1}})  # fmt: skip
    table = next(el for el in get(docs)["body"]["content"] if "table" in el)["table"]
    row0, row1 = table["tableRows"]
    assert [c["tableCellStyle"]["backgroundColor"] for c in row0["tableCells"]] == [{"color": {"rgbColor": {"red": 1}}}] * 2
    assert row1["tableCells"][0]["tableCellStyle"]["backgroundColor"] == {}
    assert table["tableStyle"]["tableColumnProperties"][0] == {"widthType": "FIXED_WIDTH", "width": {"magnitude": 120, "unit": "PT"}}
    assert row1["tableRowStyle"]["minRowHeight"] == {"magnitude": 30, "unit": "PT"}
    assert row0["tableRowStyle"]["tableHeader"] is True


def test_merge_and_unmerge_cells(docs):
    update(docs, {"insertTable": {"location": {"index": 1}, "rows": 1, "columns": 2}})
    start = _table_start(docs)
    update(docs, {"insertText": {"location": {"index": start + 5}, "text": "right"}}, {"insertText": {"location": {"index": start + 3}, "text": "left"}})
    rng = {"tableCellLocation": {"tableStartLocation": {"index": start}, "rowIndex": 0, "columnIndex": 0}, "rowSpan": 1, "columnSpan": 2}
    update(docs, {"mergeTableCells": {"tableRange": rng}})
    head = next(el for el in get(docs)["body"]["content"] if "table" in el)["table"]["tableRows"][0]["tableCells"][0]
    assert head["tableCellStyle"]["columnSpan"] == 2
    assert [p["paragraph"]["elements"][0]["textRun"]["content"] for p in head["content"]] == ["left\n", "right\n"]
    update(docs, {"unmergeTableCells": {"tableRange": rng}})
    head = next(el for el in get(docs)["body"]["content"] if "table" in el)["table"]["tableRows"][0]["tableCells"][0]
    assert head["tableCellStyle"]["columnSpan"] == 1


def test_page_break_and_section_break(docs):
    update(docs, {"insertPageBreak": {"location": {"index": 6}}})
    doc = get(docs)
    assert paras(doc)[:2] == ["Hello\n", " world\n"]
    assert "pageBreak" in doc["body"]["content"][1]["paragraph"]["elements"][1]
    update(docs, {"insertSectionBreak": {"location": {"index": 8}, "sectionType": "NEXT_PAGE"}})
    doc = get(docs)
    breaks = [el for el in doc["body"]["content"] if "sectionBreak" in el]
    assert len(breaks) == 2 and breaks[1]["sectionBreak"]["sectionStyle"]["sectionType"] == "NEXT_PAGE"
    update(docs, {"updateSectionStyle": {"range": {"startIndex": breaks[1]["startIndex"], "endIndex": breaks[1]["endIndex"]},
                                         "sectionStyle": {"columnSeparatorStyle": "BETWEEN_EACH_COLUMN"}, "fields": "columnSeparatorStyle"}})
    breaks = [el for el in get(docs)["body"]["content"] if "sectionBreak" in el]
    assert breaks[1]["sectionBreak"]["sectionStyle"]["columnSeparatorStyle"] == "BETWEEN_EACH_COLUMN"
    with pytest.raises(HttpError):
        update(docs, {"createHeader": {"type": "DEFAULT"}}, {"insertPageBreak": {"location": {"index": 0, "segmentId": "nope"}}})


def test_named_ranges(docs):
    resp = update(docs, {"createNamedRange": {"name": "greeting", "range": {"startIndex": 1, "endIndex": 6}}})
    rid = resp["replies"][0]["createNamedRange"]["namedRangeId"]
    update(docs, {"insertText": {"location": {"index": 1}, "text": ">> "}})
    nr = get(docs)["namedRanges"]["greeting"]
    assert nr["namedRanges"][0] == {"namedRangeId": rid, "name": "greeting", "ranges": [{"startIndex": 4, "endIndex": 9}]}
    update(docs, {"replaceNamedRangeContent": {"namedRangeId": rid, "text": "Goodbye"}})
    assert paras(get(docs))[0] == ">> Goodbye world\n"
    update(docs, {"deleteNamedRange": {"name": "greeting"}})
    assert "namedRanges" not in get(docs)


def test_inline_image_keeps_the_uri(docs):
    resp = update(docs, {"insertInlineImage": {"location": {"index": 1}, "uri": "https://img.example/logo.png",
                                               "objectSize": {"width": {"magnitude": 50, "unit": "PT"}}}})
    oid = resp["replies"][0]["insertInlineImage"]["objectId"]
    doc = get(docs)
    props = doc["inlineObjects"][oid]["inlineObjectProperties"]["embeddedObject"]
    assert props["imageProperties"]["sourceUri"] == "https://img.example/logo.png" and props["size"] == {"width": {"magnitude": 50, "unit": "PT"}}
    assert doc["body"]["content"][1]["endIndex"] == 14
    update(docs, {"replaceImage": {"imageObjectId": oid, "uri": "https://img.example/new.png"}})
    assert get(docs)["inlineObjects"][oid]["inlineObjectProperties"]["embeddedObject"]["imageProperties"]["sourceUri"] == "https://img.example/new.png"


def test_document_and_named_styles(docs):
    update(docs, {"updateDocumentStyle": {"documentStyle": {"marginTop": {"magnitude": 36, "unit": "PT"}, "useFirstPageHeaderFooter": True},
                                          "fields": "marginTop,useFirstPageHeaderFooter"}},
           {"updateNamedStyle": {"namedStyle": {"namedStyleType": "HEADING_1", "textStyle": {"bold": True}}, "fields": "textStyle.bold"}})
    doc = get(docs)
    assert doc["documentStyle"]["marginTop"] == {"magnitude": 36, "unit": "PT"} and doc["documentStyle"]["useFirstPageHeaderFooter"] is True
    h1 = next(s for s in doc["namedStyles"]["styles"] if s["namedStyleType"] == "HEADING_1")
    assert h1["textStyle"]["bold"] is True


def test_headers_and_footers(docs):
    resp = update(docs, {"createHeader": {"type": "DEFAULT"}}, {"createFooter": {"type": "DEFAULT"}})
    header = resp["replies"][0]["createHeader"]["headerId"]
    footer = resp["replies"][1]["createFooter"]["footerId"]
    update(docs, {"insertText": {"location": {"segmentId": header, "index": 0}, "text": "Confidential"}})
    doc = get(docs)
    assert doc["documentStyle"]["defaultHeaderId"] == header and doc["documentStyle"]["defaultFooterId"] == footer
    assert doc["headers"][header]["content"][0]["paragraph"]["elements"][0]["textRun"]["content"] == "Confidential\n"
    with pytest.raises(HttpError) as exc:
        update(docs, {"createHeader": {"type": "DEFAULT"}})
    assert "A default header already exists." in str(exc.value)
    update(docs, {"deleteHeader": {"headerId": header}}, {"deleteFooter": {"footerId": footer}})
    doc = get(docs)
    assert "headers" not in doc and "defaultHeaderId" not in doc["documentStyle"]


def test_footnotes(docs, served):
    resp = update(docs, {"createFootnote": {"location": {"index": 6}}})
    fid = resp["replies"][0]["createFootnote"]["footnoteId"]
    update(docs, {"insertText": {"location": {"segmentId": fid, "index": 1}, "text": "A classic."}})
    doc = get(docs)
    ref = doc["body"]["content"][1]["paragraph"]["elements"][1]
    assert ref["footnoteReference"]["footnoteId"] == fid and ref["footnoteReference"]["footnoteNumber"] == "1"
    assert doc["footnotes"][fid]["content"][0]["paragraph"]["elements"][0]["textRun"]["content"] == " A classic.\n"
    text = served.google("drive", "alice").files().export(fileId="doc1", mimeType="text/plain").execute().decode("utf-8-sig")
    assert text.splitlines()[0] == "Hello[1] world" and text.splitlines()[-1] == "[1] A classic."


def test_people_and_rich_links(docs):
    update(docs, {"insertPerson": {"location": {"index": 1}, "personProperties": {"email": "bob@northwind.example"}}},
           {"insertRichLink": {"location": {"index": 1}, "richLinkProperties": {"uri": "https://docs.google.com/document/d/x"}}})
    elements = get(docs)["body"]["content"][1]["paragraph"]["elements"]
    assert elements[0]["richLink"]["richLinkProperties"]["uri"] == "https://docs.google.com/document/d/x"
    assert elements[1]["person"]["personProperties"]["email"] == "bob@northwind.example"


def test_required_revision_id(docs):
    rev = get(docs)["revisionId"]
    resp = update(docs, {"insertText": {"location": {"index": 1}, "text": "A"}}, writeControl={"requiredRevisionId": rev})
    new_rev = resp["writeControl"]["requiredRevisionId"]
    assert new_rev != rev
    with pytest.raises(HttpError) as exc:
        update(docs, {"insertText": {"location": {"index": 1}, "text": "B"}}, writeControl={"requiredRevisionId": rev})
    assert exc.value.status_code == 400
    assert paras(get(docs))[0] == "AHello world\n"
    update(docs, {"insertText": {"location": {"index": 1}, "text": "C"}}, writeControl={"targetRevisionId": rev})


def test_an_empty_batch_keeps_the_revision(docs):
    rev = get(docs)["revisionId"]
    assert update(docs)["writeControl"]["requiredRevisionId"] == rev


def test_unknown_request_kinds_are_refused(docs):
    with pytest.raises(HttpError) as exc:
        update(docs, {"acceptSuggestion": {"suggestionId": "s1"}})
    assert exc.value.status_code == 400


def test_commenters_cannot_edit(served):
    world_ = served.start(DOC)
    with pytest.raises(HttpError) as exc:
        served.google("docs", "carol").documents().batchUpdate(documentId="doc1", body={"requests": [{"insertText": {"location": {"index": 1}, "text": "x"}}]}).execute()
    assert exc.value.status_code == 403
    assert world_.ledger.of_kind("refused")[-1].payload["tool"] == "docs_documents_batchUpdate"


def test_an_edit_is_a_drive_change_and_reaches_the_other_readers(served):
    world_ = served.start(DOC)
    drive = served.google("drive", "alice")
    before = drive.files().get(fileId="doc1", fields="version,modifiedTime").execute()
    served.google("docs", "bob").documents().batchUpdate(documentId="doc1", body={"requests": [{"insertText": {"location": {"index": 1}, "text": "secret: 42 "}}]}).execute()
    after = drive.files().get(fileId="doc1", fields="version,modifiedTime,lastModifyingUser").execute()
    assert int(after["version"]) > int(before["version"]) and after["lastModifyingUser"]["emailAddress"] == "bob@northwind.example"
    edits = [e.payload for e in world_.ledger.of_kind("delivery") if e.payload["channel"] == "drive_edit"]
    assert sorted(e["to"] for e in edits) == ["alice@northwind.example", "carol@northwind.example"]
    assert "secret: 42" in edits[0]["body"]
    text = drive.files().export(fileId="doc1", mimeType="text/plain").execute().decode("utf-8-sig")
    assert text.startswith("secret: 42 Hello world")


def test_emoji_take_two_indices(docs):
    update(docs, {"insertText": {"location": {"index": 1}, "text": "🚀"}})
    doc = get(docs)
    assert doc["body"]["content"][1]["endIndex"] == 15
    update(docs, {"deleteContentRange": {"range": {"startIndex": 1, "endIndex": 3}}})
    assert paras(get(docs))[0] == "Hello world\n"


def test_the_plain_world_doc_is_editable_by_its_owner(served):
    served.start(world())
    resp = served.google("docs", "alice").documents().batchUpdate(
        documentId="d-notes", body={"requests": [{"replaceAllText": {"containsText": {"text": "offsite"}, "replaceText": "retreat"}}]}).execute()
    assert resp["replies"][0]["replaceAllText"]["occurrencesChanged"] == 1
