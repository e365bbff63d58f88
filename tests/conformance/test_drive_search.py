"""Drive's `q` language through the official client: each case checked against the files it must find."""

import pytest
from googleapiclient.errors import HttpError

from tests.conformance.drive_world import FOLDER, GDOC, names, world
from tests.conformance.harness import assert_schema

EXTRA = [
    {"id": "f-hello", "name": "HelloWorld notes.txt", "owner": "alice", "content": "nothing", "created": "2026-02-25T10:00:00Z",
     "properties": {"dept": "finance"}, "description": "quarterly numbers"},
]


def _q(served, q, who="alice", **kw):
    resp = served.google("drive", who).files().list(q=q, **kw).execute()
    assert_schema("drive.files.list", resp)
    return names(resp)


@pytest.fixture
def searched(served):
    served.start(world(EXTRA))
    return served


def test_name_contains_matches_word_prefixes(searched):
    assert _q(searched, "name contains 'Hello'") == ["HelloWorld notes.txt"]
    assert _q(searched, "name contains 'World'") == []
    assert _q(searched, "name contains 'road'") == ["Roadmap plan.txt"]
    assert _q(searched, "name contains 'SALAR'") == ["Salaries 2026.csv"]


def test_name_equals_and_not_equals(searched):
    assert _q(searched, "name = 'Team notes'") == ["Team notes"]
    assert "Team notes" not in _q(searched, "name != 'Team notes'")


def test_mime_type_filters(searched):
    assert _q(searched, f"mimeType = '{FOLDER}'") == ["Projects"]
    assert _q(searched, f"mimeType = '{GDOC}'") == ["Team notes"]
    assert "Projects" not in _q(searched, f"mimeType != '{FOLDER}'")
    assert _q(searched, "mimeType contains 'csv'") == ["Salaries 2026.csv"]


def test_in_parents_and_root(searched):
    assert _q(searched, "'fold-proj' in parents") == ["Roadmap plan.txt"]
    root = _q(searched, "'root' in parents and trashed = false")
    assert root == ["HelloWorld notes.txt", "Projects", "Salaries 2026.csv", "Team notes"]


def test_trashed_and_starred(searched):
    assert _q(searched, "trashed = true") == ["Old draft.txt"]
    assert _q(searched, "starred = true") == ["Roadmap plan.txt"]
    assert _q(searched, "starred") == ["Roadmap plan.txt"]


def test_time_comparisons(searched):
    assert _q(searched, "createdTime > '2026-02-19T00:00:00'") == ["HelloWorld notes.txt", "Team notes"]
    assert _q(searched, "modifiedTime < '2026-02-01'") == ["Old draft.txt"]
    assert _q(searched, "createdTime >= '2026-02-20T10:00:00Z' and createdTime <= '2026-02-20T10:00:00Z'") == ["Team notes"]


def test_full_text_searches_content_name_and_description(searched):
    assert _q(searched, "fullText contains 'invoice'") == ["Roadmap plan.txt"]
    assert _q(searched, "fullText contains 'offsite'") == ["Team notes"]
    assert _q(searched, "fullText contains 'quarterly'") == ["HelloWorld notes.txt"]
    assert _q(searched, "fullText contains '\"budget approved\"'") == ["Team notes"]
    assert _q(searched, "fullText contains '\"approved budget\"'") == []


def test_owners_writers_readers(searched):
    assert _q(searched, "'bob@northwind.example' in writers") == ["Projects", "Roadmap plan.txt"]
    assert _q(searched, "'carol@northwind.example' in readers") == ["Team notes"]
    assert "Team notes" in _q(searched, "'me' in owners")
    assert _q(searched, "'bob@northwind.example' in owners", who="carol") == ["Eng runbook.txt"]


def test_shared_with_me(searched):
    assert _q(searched, "sharedWithMe", who="bob") == ["Projects"]
    assert _q(searched, "sharedWithMe = true", who="carol") == ["Eng runbook.txt", "Team notes"]  # a group share counts
    assert _q(searched, "sharedWithMe") == []


def test_and_or_not_and_parentheses(searched):
    q = "(name contains 'Roadmap' or name contains 'Salaries') and not starred"
    assert _q(searched, q) == ["Salaries 2026.csv"]
    assert _q(searched, "not name contains 'Roadmap' and trashed = false") == ["HelloWorld notes.txt", "Projects", "Salaries 2026.csv", "Team notes"]
    assert _q(searched, "name contains 'Team' or (mimeType = 'text/csv' and trashed = false)") == ["Salaries 2026.csv", "Team notes"]


def test_properties_and_visibility(searched):
    assert _q(searched, "properties has { key='dept' and value='finance' }") == ["HelloWorld notes.txt"]
    assert _q(searched, "visibility = 'domainCanFind'", who="bob") == ["Handbook.txt"]
    assert _q(searched, "visibility = 'anyoneWithLink'", who="bob") == ["Press kit.txt"]


def test_escaped_quotes_in_values(served):
    served.start(world([{"id": "f-q", "name": "Bob's report.txt", "owner": "alice"}]))
    assert _q(served, "name = 'Bob\\'s report.txt'") == ["Bob's report.txt"]


def test_invalid_queries_are_400_invalid(searched):
    drive = searched.google("drive", "alice")
    for bad in ["name contanis 'x'", "trashed = 'yes'", "'x' in nowhere", "name contains", "(name = 'a'", "modifiedTime > 'soon'"]:
        with pytest.raises(HttpError) as exc:
            drive.files().list(q=bad).execute()
        assert exc.value.status_code == 400, bad
        assert exc.value.error_details[0]["reason"] == "invalid"


def test_search_never_reveals_files_not_shared(searched):
    assert _q(searched, "fullText contains 'secret'") == []
    assert _q(searched, "fullText contains 'secret'", who="bob") == ["Bob private.txt"]
    assert _q(searched, "name contains 'Salaries'", who="carol") == []


def test_order_by_name_desc_and_invalid_order(searched):
    resp = searched.google("drive", "alice").files().list(q="trashed = false", orderBy="name desc").execute()
    assert [f["name"] for f in resp["files"]][0] == "Team notes"
    with pytest.raises(HttpError) as exc:
        searched.google("drive", "alice").files().list(orderBy="size").execute()
    assert exc.value.status_code == 400
