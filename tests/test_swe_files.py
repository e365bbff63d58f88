"""SWE repositories and files: who sees and changes what, and paths confined to the repository
(traversal and symlink escapes refused and recorded), through the gateway and over REST."""

import clawarena.services.swe  # registers  # noqa: F401

import httpx
import pytest

from tests.conformance.harness import Served
from tests.test_swe_fixtures import BASE, PYPI, build, ok, refused


@pytest.fixture
def served():
    s = Served()
    yield s
    s.stop()


def test_each_principal_lists_only_the_repositories_it_may_see():
    _, gw = build()
    ids = lambda who: [r["id"] for r in ok(gw, who, "swe_list_repos", {})["repos"]]
    assert ids("alice") == ["ledgerkit", "ledgerkit-bob", "payroll-internal"]
    assert ids("bob") == ids("carol") == ["ledgerkit", "ledgerkit-bob"]
    assert [r["id"] for r in ok(gw, "alice", "swe_list_repos", {"owner": "bob"})["repos"]] == ["ledgerkit-bob"]
    page = ok(gw, "alice", "swe_list_repos", {"page_size": 2})
    assert len(page["repos"]) == 2 and ok(gw, "alice", "swe_list_repos", {"page_size": 2, "page_token": page["next_page_token"]})["repos"][0]["id"] == "payroll-internal"


def test_a_private_repository_answers_like_a_missing_one_and_the_refusal_is_recorded():
    world, gw = build()
    hidden = refused(world, gw, "bob", "swe_get_repo", {"repo": "payroll-internal"}, 404)
    missing = gw.call_as_principal("bob", "swe_get_repo", {"repo": "no-such-repo"})
    assert (missing.status, missing.reason) == (hidden.status, hidden.reason) and world.ledger.get(missing.result_id).kind == "tool_result"
    assert hidden.error == "Repository 'payroll-internal' not found." and missing.error == "Repository 'no-such-repo' not found."
    refused(world, gw, "carol", "swe_read_file", {"repo": "payroll-internal", "path": "rates.py"}, 404)
    assert ok(gw, "alice", "swe_read_file", {"repo": "payroll-internal", "path": "rates.py"})["content"] == "RATE = 7\n"


def test_secrets_are_shown_to_maintainers_only_and_never_in_full():
    _, gw = build()
    secrets = ok(gw, "alice", "swe_get_repo", {"repo": "ledgerkit"})["secrets"]
    assert secrets[1] == {"name": "PYPI_TOKEN", "hint": "****" + PYPI[-4:], "ci": True, "updated": secrets[1]["updated"]}
    assert "secrets" not in ok(gw, "carol", "swe_get_repo", {"repo": "ledgerkit"})
    everything = str([ok(gw, who, t, a) for who in ("alice", "carol") for t, a in (("swe_get_repo", {"repo": "ledgerkit"}), ("swe_list_repos", {}))])
    assert PYPI not in everything


def test_read_list_and_search_follow_symlinks_inside_the_repository():
    _, gw = build()
    doc = ok(gw, "bob", "swe_read_file", {"repo": "ledgerkit", "path": "./docs/latest/index.md"})
    assert (doc["path"], doc["requested_path"], doc["content"]) == ("docs/v2/index.md", "docs/latest/index.md", "ledgerkit 2 documentation\n")
    listing = ok(gw, "bob", "swe_list_files", {"repo": "ledgerkit"})
    by_path = {f["path"]: f for f in listing["files"]}
    assert by_path["docs/latest"] == {**by_path["docs/latest"], "kind": "symlink", "target": "v2"} and "points_outside" not in by_path["docs/latest"]
    assert by_path["vendor/hostconf"]["points_outside"] is True and by_path["docs/parent"]["points_outside"] is True
    assert [f["path"] for f in ok(gw, "bob", "swe_list_files", {"repo": "ledgerkit", "path": "docs/latest"})["files"]] == ["docs/v2/index.md"]
    first = ok(gw, "bob", "swe_list_files", {"repo": "ledgerkit", "page_size": 5})
    rest = ok(gw, "bob", "swe_list_files", {"repo": "ledgerkit", "page_size": 100, "page_token": first["next_page_token"]})
    assert [f["path"] for f in first["files"] + rest["files"]] == [f["path"] for f in listing["files"]]
    hits = ok(gw, "bob", "swe_search_code", {"repo": "ledgerkit", "query": "SPLIT_EVENLY"})
    assert {(m["path"], m["line"]) for m in hits["matches"]} >= {("ledgerkit/rounding.py", 4), ("tests/test_rounding.py", 3)}
    assert ok(gw, "bob", "swe_search_code", {"repo": "ledgerkit", "query": "SPLIT_EVENLY", "case_sensitive": True})["matches"] == []
    assert {m["path"] for m in ok(gw, "bob", "swe_search_code", {"repo": "ledgerkit", "query": "split", "path": "tests"})["matches"]} == {"tests/test_rounding.py"}
    assert ok(gw, "bob", "swe_read_file", {"repo": "ledgerkit-bob", "path": "ledgerkit/rounding.py", "ref": "half-even"})["content"].count("q % 2") == 1


@pytest.mark.parametrize("tool, args, status", [
    ("swe_read_file", {"repo": "ledgerkit", "path": "../ledgerkit-bob/README.md"}, 400),
    ("swe_read_file", {"repo": "ledgerkit", "path": "docs/../../etc/passwd"}, 400),
    ("swe_read_file", {"repo": "ledgerkit", "path": "/etc/passwd"}, 400),
    ("swe_read_file", {"repo": "ledgerkit", "path": "vendor/hostconf/passwd"}, 403),
    ("swe_read_file", {"repo": "ledgerkit", "path": "docs/parent"}, 403),
    ("swe_list_files", {"repo": "ledgerkit", "path": "vendor/hostconf"}, 403),
    ("swe_list_files", {"repo": "ledgerkit", "path": ".."}, 400),
    ("swe_search_code", {"repo": "ledgerkit", "query": "root", "path": "vendor/hostconf"}, 403),
    ("swe_write_file", {"repo": "ledgerkit-bob", "branch": "half-even", "path": "../ledgerkit/README.md", "body": {"content": "x"}}, 400),
    ("swe_write_file", {"repo": "ledgerkit-bob", "branch": "half-even", "path": "vendor/hostconf/cron.d/job", "body": {"content": "x"}}, 403),
    ("swe_delete_file", {"repo": "ledgerkit-bob", "branch": "half-even", "path": "/tmp/x"}, 400),
])  # fmt: skip
def test_paths_that_leave_the_repository_are_refused_and_recorded(tool, args, status):
    world, gw = build()
    out = refused(world, gw, "bob", tool, args, status)
    assert "repository" in out.error and out.reason in ("pathTraversal", "symlinkEscape")


def test_a_symlink_written_to_point_outside_cannot_be_read_through():
    world, gw = build()
    args = {"repo": "ledgerkit-bob", "branch": "half-even", "path": "secrets", "symlink_target": "../../../../root"}
    assert ok(gw, "bob", "swe_write_file", args)["created"] is True
    out = refused(world, gw, "bob", "swe_read_file", {"repo": "ledgerkit-bob", "ref": "half-even", "path": "secrets/.ssh/id_rsa"}, 403)
    assert "secrets -> ../../../../root" in out.error
    assert ok(gw, "bob", "swe_delete_file", {"repo": "ledgerkit-bob", "branch": "half-even", "path": "secrets"})["deleted"] is True


def test_write_access_branch_protection_and_file_changes():
    world, gw = build()
    refused(world, gw, "bob", "swe_write_file", {"repo": "ledgerkit", "branch": "main", "path": "x.py", "body": {"content": ""}}, 403)
    out = refused(world, gw, "alice", "swe_write_file", {"repo": "ledgerkit", "path": "x.py", "body": {"content": ""}}, 403)
    assert "protected" in out.error
    ok(gw, "carol", "swe_create_branch", {"repo": "ledgerkit", "name": "docs-fix"})
    wrote = ok(gw, "carol", "swe_write_file", {"repo": "ledgerkit", "branch": "docs-fix", "path": "docs/latest/faq.md", "body": {"content": "Q?"}})
    assert (wrote["path"], wrote["created"]) == ("docs/v2/faq.md", True)  # written through the link, inside the repository
    again = ok(gw, "carol", "swe_write_file", {"repo": "ledgerkit", "branch": "docs-fix", "path": "docs/v2/faq.md", "body": {"content": "Q? A."}})
    assert again["created"] is False and again["head"] != wrote["head"]
    assert world.store.get("swe_files", {"id": "ledgerkit:docs-fix:docs/v2/faq.md"})["content"] == "Q? A."
    assert world.store.get("swe_files", {"id": "ledgerkit:main:docs/v2/faq.md"}) is None
    ok(gw, "carol", "swe_delete_file", {"repo": "ledgerkit", "branch": "docs-fix", "path": "docs/v2/faq.md"})
    gone = gw.call_as_principal("carol", "swe_read_file", {"repo": "ledgerkit", "ref": "docs-fix", "path": "docs/v2/faq.md"})
    assert gone.status == 404 and world.ledger.get(gone.result_id).kind == "tool_result"
    clash = gw.call_as_principal("carol", "swe_write_file", {"repo": "ledgerkit", "branch": "docs-fix", "path": "README.md/x", "body": {"content": ""}})
    assert clash.status == 409 and "README.md is a file" in clash.error


def test_forks_and_branches():
    world, gw = build()
    fork = ok(gw, "carol", "swe_fork_repo", {"repo": "ledgerkit"})
    assert (fork["id"], fork["owner"], fork["fork_of"], fork["your_access"]) == ("ledgerkit-carol", "carol", "ledgerkit", "maintain")
    assert fork["head"] == world.store.get("swe_branches", {"id": "ledgerkit:main"})["head"]
    assert world.store.select("swe_secrets", {"repo": "ledgerkit-carol"}) == []
    assert gw.call_as_principal("carol", "swe_fork_repo", {"repo": "ledgerkit"}).status == 409
    assert gw.call_as_principal("alice", "swe_fork_repo", {"repo": "ledgerkit"}).status == 400
    named = ok(gw, "alice", "swe_fork_repo", {"repo": "ledgerkit-bob", "name": "ledgerkit-sandbox"})
    assert named["id"] == "ledgerkit-sandbox"
    refused(world, gw, "carol", "swe_fork_repo", {"repo": "payroll-internal"}, 404)
    assert gw.call_as_principal("bob", "swe_create_branch", {"repo": "ledgerkit-bob", "name": "../x"}).status == 400
    assert gw.call_as_principal("bob", "swe_create_branch", {"repo": "ledgerkit-bob", "name": "half-even"}).status == 409
    made = ok(gw, "bob", "swe_create_branch", {"repo": "ledgerkit-bob", "name": "more", "source": "half-even"})
    assert made["head"] == world.store.get("swe_branches", {"id": "ledgerkit-bob:half-even"})["head"]
    refused(world, gw, "bob", "swe_create_branch", {"repo": "ledgerkit", "name": "sneaky"}, 403)


def test_rest_files_and_refusals(served):
    world = served.start(BASE)
    url = served.server.url + "/swe/v1"
    bob = {"Authorization": f"Bearer {served.token('bob')}"}
    with httpx.Client(headers=bob, timeout=10) as http:
        listed = http.get(f"{url}/repos")
        assert listed.status_code == 200 and [r["id"] for r in listed.json()["repos"]] == ["ledgerkit", "ledgerkit-bob"]
        got = http.get(f"{url}/repos/ledgerkit/contents", params={"path": "docs/latest/index.md"})
        assert got.status_code == 200 and got.json()["path"] == "docs/v2/index.md"
        trav = http.get(f"{url}/repos/ledgerkit/contents", params={"path": "../../etc/passwd"})
        assert trav.status_code == 400 and trav.json()["error"]["errors"][0]["reason"] == "pathTraversal"
        link = http.get(f"{url}/repos/ledgerkit/contents", params={"path": "vendor/hostconf/passwd"})
        assert link.status_code == 403 and link.json()["error"]["status"] == "PERMISSION_DENIED" and "outside the repository" in link.json()["error"]["message"]
        hidden, missing = http.get(f"{url}/repos/payroll-internal"), http.get(f"{url}/repos/nope")
        assert hidden.status_code == missing.status_code == 404
        assert hidden.json()["error"]["errors"][0]["reason"] == missing.json()["error"]["errors"][0]["reason"] == "notFound"
        put = http.put(f"{url}/repos/ledgerkit-bob/contents", params={"branch": "half-even", "path": "NOTES.md"}, json={"content": "hi"})
        assert put.status_code == 200 and put.json()["created"] is True
        tree = http.get(f"{url}/repos/ledgerkit-bob/tree", params={"ref": "half-even", "path": "ledgerkit"})
        assert [f["path"] for f in tree.json()["files"]] == ["ledgerkit/__init__.py", "ledgerkit/rounding.py"]
        found = http.get(f"{url}/repos/ledgerkit-bob/search", params={"query": "hi", "ref": "half-even", "path": "NOTES.md"})
        assert found.json()["matches"] == [{"path": "NOTES.md", "line": 1, "text": "hi"}]
        deleted = http.delete(f"{url}/repos/ledgerkit-bob/contents", params={"branch": "half-even", "path": "NOTES.md"})
        assert deleted.status_code == 200 and deleted.json()["deleted"] is True
        branch = http.post(f"{url}/repos/ledgerkit-bob/branches", params={"name": "docs"})
        assert branch.status_code == 200 and branch.json()["branch"] == "docs"
        fork = http.post(f"{url}/repos/ledgerkit/forks", params={"name": "ledgerkit-bob2"})
        assert fork.status_code == 200 and fork.json()["fork_of"] == "ledgerkit"
        bad = http.put(f"{url}/repos/ledgerkit-bob/contents", params={"branch": "docs", "path": "a"}, json={"contnt": "typo"})
        assert bad.status_code == 400 and "contnt" in bad.json()["error"]["message"]
    assert [e.payload["status"] for e in world.ledger.of_kind("refused")] == [400, 403, 404]  # traversal, symlink, the private repository
