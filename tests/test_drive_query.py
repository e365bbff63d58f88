"""Unit tests of Drive's search language and orderBy."""

import pytest

from clawarena.services.drive.query import (
    QueryError, compile_drive_query, compile_file_query, fulltext_contains, name_contains, parse_order, parse_time, sort_views,
)  # fmt: skip

FOLDER = "application/vnd.google-apps.folder"


def view(**kw):
    base = {"name": "", "mimeType": "text/plain", "trashed": False, "starred": False, "parents": [], "owners": [], "writers": [],
            "readers": [], "fullText": "", "properties": {}, "modifiedTime": 0, "createdTime": 0, "sharedWithMe": False}  # fmt: skip
    base.update(kw)
    return base


def q(text, **kw):
    return compile_file_query(text, {"root": "ROOT", "me": "me@x.example"})(view(**kw))


def test_name_contains_is_a_word_prefix_match():
    assert name_contains("HelloWorld", "Hello") and not name_contains("HelloWorld", "World")
    assert name_contains("Budget 2026 final", "fin") and name_contains("my-report.txt", "report")
    assert not name_contains("abc", "bc")


def test_fulltext_words_and_phrases():
    text = "The quick brown fox"
    assert fulltext_contains(text, "quick fox") and not fulltext_contains(text, "quick cat")
    assert fulltext_contains(text, '"brown fox"') and not fulltext_contains(text, '"fox brown"')
    assert not fulltext_contains(text, "qui")


def test_boolean_structure_and_precedence():
    assert q("name = 'a' or name = 'b' and starred", name="a")
    assert not q("(name = 'a' or name = 'b') and starred", name="a")
    assert q("not starred and not trashed", name="a")
    assert q("NOT starred AND name contains 'x'", name="xy")


def test_collections_and_aliases():
    assert q("'ROOT' in parents", parents=["ROOT"]) and q("'root' in parents", parents=["ROOT"])
    assert q("'me' in owners", owners=["Me@X.example"])
    assert q("'w@x' in writers and not 'w@x' in readers", writers=["w@x"])


def test_times_compare_as_instants():
    t = parse_time("2026-03-01T12:00:00Z")
    assert t == parse_time("2026-03-01T13:00:00+01:00") == parse_time("2026-03-01T12:00:00")
    assert q("modifiedTime > '2026-03-01'", modifiedTime=t)
    assert not q("modifiedTime < '2026-03-01T12:00:00'", modifiedTime=t)
    assert q("viewedByMeTime != '2026-01-01'")  # never viewed


def test_properties_has():
    assert q("properties has { key='a' and value='1' }", properties={"a": "1"})
    assert not q("appProperties has { key='a' and value='1' }", appProperties={"a": "2"})


def test_escapes_in_strings():
    assert q("name = 'it\\'s'", name="it's") and q("name contains 'back\\\\'", name="back\\slash")


@pytest.mark.parametrize("bad", [
    "name", "name == 'x'", "name > 'x'", "fullText = 'x'", "trashed = 1", "'x' in name", "starred = 'true'",
    "name = 'x' and", "(name = 'x'", "name = 'x')", "bogus = 'x'", "modifiedTime > 'yesterday'", "properties has {key='a'}",
])
def test_invalid_queries(bad):
    with pytest.raises(QueryError):
        compile_file_query(bad)


def test_drive_queries():
    pred = compile_drive_query("name contains 'Fin' and hidden = false and memberCount >= 2")
    assert pred({"name": "Finance", "hidden": False, "memberCount": 3})
    assert not pred({"name": "Finance", "hidden": True, "memberCount": 3})
    with pytest.raises(QueryError):
        compile_drive_query("'x' in parents")


def test_order_by():
    views = [view(name="b", mimeType="text/plain", modifiedTime=2), view(name="A", mimeType=FOLDER, modifiedTime=1),
             view(name="c10", modifiedTime=3), view(name="c9", modifiedTime=3)]  # fmt: skip
    assert [v["name"] for v in sort_views(views, parse_order("folder,modifiedTime desc,name"))] == ["A", "c10", "c9", "b"]
    assert [v["name"] for v in sort_views(views, parse_order("name_natural"))] == ["A", "b", "c9", "c10"]
    with pytest.raises(QueryError):
        parse_order("size desc")
