"""Unit tests of the Google Doc structure: indices, edits, tables, lists, named ranges, exports."""

import itertools

import pytest

from clawarena.services.docs.render import render_document, to_html, to_markdown, to_text
from clawarena.services.docs.requests import Ids, apply
from clawarena.services.docs.store import build_from_blocks
from clawarena.services.docs.structure import Document, StructureError


_COUNTER = itertools.count(1)


def ids() -> Ids:
    return Ids(lambda ns, n: f"{ns.split('.')[-1]}{next(_COUNTER)}")


def doc_of(text: str = "") -> Document:
    return Document.from_text(text)


def body(doc: Document) -> list[dict]:
    return render_document(doc, document_id="d", title="t", revision_id="r")["body"]["content"]


def spans(doc: Document) -> list[tuple[int, int, str]]:
    out = []
    for el in body(doc):
        kind = next(k for k in el if k not in ("startIndex", "endIndex"))
        out.append((el.get("startIndex", 0), el["endIndex"], kind))
    return out


def texts(doc: Document) -> list[str]:
    return ["".join(e["textRun"]["content"] for e in el["paragraph"]["elements"] if "textRun" in e) for el in body(doc) if "paragraph" in el]


def run(doc: Document, *requests: dict) -> list[dict]:
    return apply(doc, list(requests), ids())


def test_a_blank_document_is_a_section_break_and_one_newline():
    content = body(Document.blank())
    assert content[0] == {"endIndex": 1, "sectionBreak": {"sectionStyle": {"columnSeparatorStyle": "NONE", "contentDirection": "LEFT_TO_RIGHT", "sectionType": "CONTINUOUS"}}}
    assert content[1]["startIndex"] == 1 and content[1]["endIndex"] == 2
    assert content[1]["paragraph"]["elements"][0]["textRun"]["content"] == "\n"


def test_paragraph_indices_follow_each_other():
    doc = doc_of("Hello\nWorld")
    assert spans(doc) == [(0, 1, "sectionBreak"), (1, 7, "paragraph"), (7, 13, "paragraph")]


def test_indices_count_utf16_code_units():
    doc = doc_of("a😀b")
    assert spans(doc)[1] == (1, 6, "paragraph")
    with pytest.raises(StructureError, match="surrogate"):
        run(doc, {"deleteContentRange": {"range": {"startIndex": 2, "endIndex": 3}}})
    run(doc, {"deleteContentRange": {"range": {"startIndex": 2, "endIndex": 4}}})
    assert texts(doc) == ["ab\n"]


def test_insert_text_with_newlines_splits_the_paragraph_and_keeps_its_style():
    doc = doc_of("Heading")
    run(doc, {"updateParagraphStyle": {"range": {"startIndex": 1, "endIndex": 2}, "paragraphStyle": {"namedStyleType": "HEADING_1"}, "fields": "namedStyleType"}})
    run(doc, {"insertText": {"location": {"index": 4}, "text": "X\nY"}})
    assert texts(doc) == ["HeaX\n", "Yding\n"]
    styles = [el["paragraph"]["paragraphStyle"]["namedStyleType"] for el in body(doc) if "paragraph" in el]
    assert styles == ["HEADING_1", "HEADING_1"]
    ids_ = [el["paragraph"]["paragraphStyle"].get("headingId") for el in body(doc) if "paragraph" in el]
    assert ids_[0] and ids_[1] and ids_[0] != ids_[1]


def test_insert_outside_a_paragraph_or_past_the_end_is_refused():
    doc = doc_of("abc")
    with pytest.raises(StructureError, match="inside the bounds of an existing paragraph"):
        run(doc, {"insertText": {"location": {"index": 0}, "text": "x"}})
    with pytest.raises(StructureError, match="must be less than the end index of the referenced segment, 5"):
        run(doc, {"insertText": {"location": {"index": 5}, "text": "x"}})


def test_end_of_segment_location_inserts_before_the_last_newline():
    doc = doc_of("abc")
    run(doc, {"insertText": {"endOfSegmentLocation": {}, "text": "!"}})
    assert texts(doc) == ["abc!\n"]


def test_deleting_across_paragraphs_merges_them():
    doc = doc_of("first\nsecond\nthird")
    run(doc, {"deleteContentRange": {"range": {"startIndex": 4, "endIndex": 10}}})
    assert texts(doc) == ["firond\n", "third\n"]


def test_deleting_a_whole_paragraph_keeps_the_next_ones_style():
    doc = doc_of("gone\nkept")
    run(doc, {"updateParagraphStyle": {"range": {"startIndex": 6, "endIndex": 7}, "paragraphStyle": {"namedStyleType": "TITLE"}, "fields": "namedStyleType"}})
    run(doc, {"deleteContentRange": {"range": {"startIndex": 1, "endIndex": 6}}})
    assert texts(doc) == ["kept\n"]
    assert body(doc)[1]["paragraph"]["paragraphStyle"]["namedStyleType"] == "TITLE"


def test_the_last_newline_and_empty_ranges_cannot_be_deleted():
    doc = doc_of("abc")
    with pytest.raises(StructureError, match="newline character at the end of the segment"):
        run(doc, {"deleteContentRange": {"range": {"startIndex": 1, "endIndex": 5}}})
    with pytest.raises(StructureError, match="should not be empty"):
        run(doc, {"deleteContentRange": {"range": {"startIndex": 2, "endIndex": 2}}})


def test_an_empty_table_has_the_indices_docs_gives_it():
    doc = Document.blank()
    run(doc, {"insertTable": {"location": {"index": 1}, "rows": 2, "columns": 2}})
    content = body(doc)
    assert spans(doc) == [(0, 1, "sectionBreak"), (1, 2, "paragraph"), (2, 14, "table"), (14, 15, "paragraph")]
    table = content[2]["table"]
    assert (table["rows"], table["columns"]) == (2, 2)
    cells = [[c["content"][0]["startIndex"] for c in row["tableCells"]] for row in table["tableRows"]]
    assert cells == [[5, 7], [10, 12]]
    assert [(r["startIndex"], r["endIndex"]) for r in table["tableRows"]] == [(3, 8), (8, 13)]


def test_writing_into_cells_and_reading_them_back():
    doc = Document.blank()
    run(doc, {"insertTable": {"location": {"index": 1}, "rows": 2, "columns": 2}},
        {"insertText": {"location": {"index": 12}, "text": "d"}}, {"insertText": {"location": {"index": 10}, "text": "c"}},
        {"insertText": {"location": {"index": 7}, "text": "b"}}, {"insertText": {"location": {"index": 5}, "text": "a"}})
    assert to_text(doc) == "\na\tb\nc\td\n" or to_text(doc).splitlines()[1:3] == ["a\tb", "c\td"]


def test_tables_cannot_be_partly_deleted_but_can_be_deleted_whole():
    doc = Document.blank()
    run(doc, {"insertTable": {"location": {"index": 1}, "rows": 1, "columns": 1}})
    with pytest.raises(StructureError, match="Cannot delete the requested range"):
        run(doc, {"deleteContentRange": {"range": {"startIndex": 2, "endIndex": 4}}})
    with pytest.raises(StructureError):
        run(doc, {"deleteContentRange": {"range": {"startIndex": 4, "endIndex": 5}}})  # the cell's last newline
    run(doc, {"deleteContentRange": {"range": {"startIndex": 2, "endIndex": 7}}})
    assert spans(doc) == [(0, 1, "sectionBreak"), (1, 2, "paragraph"), (2, 3, "paragraph")]


def test_insert_and_delete_rows_and_columns():
    doc = Document.blank()
    run(doc, {"insertTable": {"location": {"index": 1}, "rows": 1, "columns": 2}})
    loc = {"tableStartLocation": {"index": 2}, "rowIndex": 0, "columnIndex": 1}
    run(doc, {"insertTableRow": {"tableCellLocation": loc, "insertBelow": True}},
        {"insertTableColumn": {"tableCellLocation": loc, "insertRight": True}})
    table = body(doc)[2]["table"]
    assert (table["rows"], table["columns"]) == (2, 3)
    assert len(table["tableStyle"]["tableColumnProperties"]) == 3
    run(doc, {"deleteTableColumn": {"tableCellLocation": loc}}, {"deleteTableRow": {"tableCellLocation": {**loc, "rowIndex": 1}}})
    table = body(doc)[2]["table"]
    assert (table["rows"], table["columns"]) == (1, 2)
    assert body(doc)[2]["endIndex"] == 2 + 1 + 1 + 2 * 2 + 1


def test_deleting_the_last_row_deletes_the_table():
    doc = Document.blank()
    run(doc, {"insertTable": {"location": {"index": 1}, "rows": 1, "columns": 1}},
        {"deleteTableRow": {"tableCellLocation": {"tableStartLocation": {"index": 2}, "rowIndex": 0}}})
    assert [k for _, _, k in spans(doc)] == ["sectionBreak", "paragraph", "paragraph"]


def test_a_wrong_table_start_is_refused():
    doc = doc_of("abc")
    with pytest.raises(StructureError, match="no table starting at index 1"):
        run(doc, {"insertTableRow": {"tableCellLocation": {"tableStartLocation": {"index": 1}}}})


def test_bullets_take_nesting_from_leading_tabs_and_remove_them():
    doc = doc_of("one\n\ttwo\n\t\tthree")
    run(doc, {"createParagraphBullets": {"range": {"startIndex": 1, "endIndex": 16}, "bulletPreset": "NUMBERED_DECIMAL_ALPHA_ROMAN"}})
    paras = [el["paragraph"] for el in body(doc) if "paragraph" in el]
    assert [p["elements"][0]["textRun"]["content"] for p in paras] == ["one\n", "two\n", "three\n"]
    assert [p["bullet"].get("nestingLevel", 0) for p in paras] == [0, 1, 2]
    assert len({p["bullet"]["listId"] for p in paras}) == 1
    rendered = render_document(doc, document_id="d", title="t", revision_id="r")
    list_id = paras[0]["bullet"]["listId"]
    assert rendered["lists"][list_id]["listProperties"]["nestingLevels"][0]["glyphType"] == "DECIMAL"
    assert to_text(doc) == "1. one\n    1. two\n        1. three"


def test_adjacent_bullets_of_the_same_preset_join_the_list_and_can_be_removed():
    doc = doc_of("a\nb")
    run(doc, {"createParagraphBullets": {"range": {"startIndex": 1, "endIndex": 2}, "bulletPreset": "BULLET_DISC_CIRCLE_SQUARE"}},
        {"createParagraphBullets": {"range": {"startIndex": 3, "endIndex": 4}, "bulletPreset": "BULLET_DISC_CIRCLE_SQUARE"}})
    paras = [el["paragraph"] for el in body(doc) if "paragraph" in el]
    assert paras[0]["bullet"]["listId"] == paras[1]["bullet"]["listId"]
    run(doc, {"deleteParagraphBullets": {"range": {"startIndex": 1, "endIndex": 4}}})
    assert all("bullet" not in el["paragraph"] for el in body(doc) if "paragraph" in el)
    assert "lists" not in render_document(doc, document_id="d", title="t", revision_id="r")


def test_named_ranges_follow_edits():
    doc = doc_of("alpha beta gamma")
    [reply] = run(doc, {"createNamedRange": {"name": "b", "range": {"startIndex": 7, "endIndex": 11}}})
    rid = reply["createNamedRange"]["namedRangeId"]
    run(doc, {"insertText": {"location": {"index": 1}, "text": ">>"}})
    nr = render_document(doc, document_id="d", title="t", revision_id="r")["namedRanges"]["b"]["namedRanges"][0]
    assert nr["namedRangeId"] == rid and nr["ranges"] == [{"startIndex": 9, "endIndex": 13}]
    run(doc, {"replaceNamedRangeContent": {"namedRangeName": "b", "text": "BETA!"}})
    assert texts(doc) == [">>alpha BETA! gamma\n"]
    nr = render_document(doc, document_id="d", title="t", revision_id="r")["namedRanges"]["b"]["namedRanges"][0]
    assert nr["ranges"] == [{"startIndex": 9, "endIndex": 14}]
    run(doc, {"deleteContentRange": {"range": {"startIndex": 8, "endIndex": 15}}})
    assert "namedRanges" not in render_document(doc, document_id="d", title="t", revision_id="r")


def test_replace_all_text_counts_and_respects_case():
    doc = doc_of("Cat cat CAT\ncatalog")
    [reply] = run(doc, {"replaceAllText": {"containsText": {"text": "cat", "matchCase": True}, "replaceText": "dog"}})
    assert reply == {"replaceAllText": {"occurrencesChanged": 2}}
    assert texts(doc) == ["Cat dog CAT\n", "dogalog\n"]
    [reply] = run(doc, {"replaceAllText": {"containsText": {"text": "cat", "matchCase": False}, "replaceText": "x"}})
    assert reply["replaceAllText"]["occurrencesChanged"] == 2
    [reply] = run(doc, {"replaceAllText": {"containsText": {"text": "zebra"}, "replaceText": "x"}})
    assert reply == {"replaceAllText": {}}


def test_text_style_splits_runs_and_merges_them_back():
    doc = doc_of("plain bold plain")
    run(doc, {"updateTextStyle": {"range": {"startIndex": 7, "endIndex": 11}, "textStyle": {"bold": True}, "fields": "bold"}})
    runs = body(doc)[1]["paragraph"]["elements"]
    assert [(r["startIndex"], r["endIndex"], r["textRun"]["textStyle"]) for r in runs] == [(1, 7, {}), (7, 11, {"bold": True}), (11, 18, {})]
    run(doc, {"updateTextStyle": {"range": {"startIndex": 7, "endIndex": 11}, "textStyle": {}, "fields": "bold"}})
    assert len(body(doc)[1]["paragraph"]["elements"]) == 1
    with pytest.raises(StructureError, match="fields"):
        run(doc, {"updateTextStyle": {"range": {"startIndex": 1, "endIndex": 3}, "textStyle": {"bold": True}}})


def test_page_and_section_breaks():
    doc = doc_of("ab")
    run(doc, {"insertPageBreak": {"location": {"index": 2}}})
    assert texts(doc) == ["a\n", "b\n"]
    assert "pageBreak" in body(doc)[1]["paragraph"]["elements"][1]
    run(doc, {"insertSectionBreak": {"location": {"index": 4}, "sectionType": "NEXT_PAGE"}})
    kinds = [k for _, _, k in spans(doc)]
    assert kinds == ["sectionBreak", "paragraph", "paragraph", "sectionBreak", "paragraph"]
    assert body(doc)[3]["sectionBreak"]["sectionStyle"]["sectionType"] == "NEXT_PAGE"


def test_headers_footers_and_footnotes_are_segments_from_zero():
    doc = doc_of("body text")
    replies = run(doc, {"createHeader": {"type": "DEFAULT"}}, {"createFooter": {"type": "DEFAULT"}}, {"createFootnote": {"location": {"index": 5}}})
    header_id = replies[0]["createHeader"]["headerId"]
    footnote_id = replies[2]["createFootnote"]["footnoteId"]
    rendered = render_document(doc, document_id="d", title="t", revision_id="r")
    assert rendered["documentStyle"]["defaultHeaderId"] == header_id
    assert rendered["headers"][header_id]["content"][0]["endIndex"] == 1 and "startIndex" not in rendered["headers"][header_id]["content"][0]
    assert rendered["footnotes"][footnote_id]["content"][0]["paragraph"]["elements"][0]["textRun"]["content"] == " \n"
    ref = rendered["body"]["content"][1]["paragraph"]["elements"][1]
    assert ref["footnoteReference"] == {"footnoteId": footnote_id, "footnoteNumber": "1", "textStyle": {}}
    run(doc, {"insertText": {"location": {"segmentId": header_id, "index": 0}, "text": "Confidential"}})
    assert render_document(doc, document_id="d", title="t", revision_id="r")["headers"][header_id]["content"][0]["endIndex"] == 13
    with pytest.raises(StructureError, match="already exists"):
        run(doc, {"createHeader": {"type": "DEFAULT"}})
    run(doc, {"deleteHeader": {"headerId": header_id}})
    assert "headers" not in render_document(doc, document_id="d", title="t", revision_id="r")


def test_inline_images_keep_their_uri():
    doc = doc_of("x")
    [reply] = run(doc, {"insertInlineImage": {"location": {"index": 1}, "uri": "https://img.example/a.png"}})
    oid = reply["insertInlineImage"]["objectId"]
    rendered = render_document(doc, document_id="d", title="t", revision_id="r")
    assert rendered["inlineObjects"][oid]["inlineObjectProperties"]["embeddedObject"]["imageProperties"]["sourceUri"] == "https://img.example/a.png"
    assert rendered["body"]["content"][1]["paragraph"]["elements"][0]["inlineObjectElement"]["inlineObjectId"] == oid
    with pytest.raises(StructureError):
        run(doc, {"insertInlineImage": {"location": {"index": 1}, "uri": "file:///etc/passwd"}})


def test_a_failing_request_names_its_position():
    doc = doc_of("abc")
    with pytest.raises(StructureError, match=r"^Invalid requests\[1\]\.deleteContentRange: "):
        run(doc, {"insertText": {"location": {"index": 1}, "text": "x"}}, {"deleteContentRange": {"range": {"startIndex": 3, "endIndex": 1}}})


def test_exports_as_html_and_markdown():
    doc = build_from_blocks([{"text": "Plan", "style": "HEADING_1"}, "Intro with text", {"text": "first", "bullet": "bullet"},
                             {"text": "second", "bullet": "bullet"}, {"table": [["k", "v"], ["a", "1"]]}], ids())  # fmt: skip
    html = to_html(doc, "Plan")
    assert "<h1>Plan</h1>" in html and "<ul><li>first</li><li>second</li></ul>" in html and "<td><p>k</p></td>" in html
    md = to_markdown(doc)
    assert md.startswith("# Plan\nIntro with text\n* first\n* second\n| k | v |")
    assert to_text(doc).splitlines() == ["Plan", "Intro with text", "* first", "* second", "k\tv", "a\t1"]


def test_fixture_blocks_build_a_valid_document():
    doc = build_from_blocks(["one", {"text": "two", "bold": True}, {"table": [["a", "b"]]}], ids())
    assert [k for _, _, k in spans(doc)] == ["sectionBreak", "paragraph", "paragraph", "table", "paragraph"]
    assert body(doc)[2]["paragraph"]["elements"][0]["textRun"]["textStyle"] == {"bold": True}
