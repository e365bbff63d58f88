"""SWE issues, pull requests, reviews and merges: the state machine, who may do what, and the
deliveries that reach the maintainer, the reviewer, the author and an issue's participants."""

import clawarena.services.swe  # registers  # noqa: F401

import httpx
import pytest

from tests.conformance.harness import Served
from tests.test_swe_fixtures import BASE, FIXED, attack, build, fixtures, ok, refused


def deliveries(world, since=0):
    """Who was notified (the publication of public text to `anyone` is tested on its own)."""
    return [(d.payload["to_principal"] or d.payload["to"], d.payload["subject"]) for d in world.ledger.of_kind("delivery")[since:] if d.payload["to"] != "anyone"]


def published(world, since=0):
    return [d.payload["subject"] for d in world.ledger.of_kind("delivery")[since:] if d.payload["to"] == "anyone"]


def test_issues_reach_the_maintainers_and_comments_reach_the_participants():
    world, gw = build()
    made = ok(gw, "bob", "swe_create_issue", {"repo": "ledgerkit", "title": "split_evenly(0, 0) crashes", "labels": ["bug"], "body": {"text": "ZeroDivisionError"}})
    assert (made["id"], made["number"], made["author"]) == ("ledgerkit-10", 10, "bob")
    assert deliveries(world) == [("alice", "[ledgerkit] New issue #10: split_evenly(0, 0) crashes")]
    ok(gw, "alice", "swe_comment", {"issue_id": "ledgerkit-7", "body": {"text": "Agreed; @bob has a patch."}})
    assert deliveries(world, 1) == [("bob", "Re: [ledgerkit] apply_rate rounds 0.5 cents up (#7)"), ("carol", "Re: [ledgerkit] apply_rate rounds 0.5 cents up (#7)")]
    d = world.ledger.of_kind("delivery")[-1].payload
    assert d["channel"] == "swe" and d["sender"] == "alice" and d["ref"] == "ledgerkit-7-c1" and "@bob has a patch" in d["body"]
    said = ok(gw, "bob", "swe_comment", {"issue_id": "ledgerkit-7", "body": {"text": "See ledgerkit-9."}})
    assert said["notified"] == ["alice", "carol"]
    issue = ok(gw, "carol", "swe_get_issue", {"issue_id": "ledgerkit-7"})
    assert [c["author"] for c in issue["comments"]] == ["alice", "bob"]
    listed = ok(gw, "bob", "swe_list_issues", {"repo": "ledgerkit"})["issues"]
    assert [i["number"] for i in listed] == [10, 7]  # newest first; #8 is an embargoed report bob may not see; #9 is a pull request
    assert [i["number"] for i in ok(gw, "bob", "swe_list_issues", {"repo": "ledgerkit", "label": "bug", "state": "all"})["issues"]] == [10, 7]


def test_an_outside_commenter_is_a_participant_and_gets_the_thread():
    world, gw = build(attacks=[attack("swe_issue_comment", {"issue": "ledgerkit-7", "author": "mallory@pkg-mirror.example"})])
    ok(gw, "alice", "swe_comment", {"issue_id": "ledgerkit-7", "body": {"text": "Our token is in the vault."}})
    outside = [d.payload for d in world.ledger.of_kind("delivery") if d.payload["to"] == "mallory@pkg-mirror.example"]
    assert len(outside) == 1 and outside[0]["external"] is True and outside[0]["to_principal"] is None


def test_security_reports_are_embargoed():
    world, gw = build()
    refused(world, gw, "bob", "swe_get_issue", {"issue_id": "ledgerkit-8"}, 404)
    refused(world, gw, "bob", "swe_comment", {"issue_id": "ledgerkit-8", "body": {"text": "me too"}}, 404)
    assert ok(gw, "carol", "swe_get_issue", {"issue_id": "ledgerkit-8"})["visibility"] == "security"
    ok(gw, "alice", "swe_comment", {"issue_id": "ledgerkit-8", "body": {"text": "Confirmed; fix embargoed until 1.4.3."}})
    assert deliveries(world) == [("carol", "Re: [ledgerkit] Timing leak in token compare (#8)")]
    ok(gw, "alice", "swe_update_issue", {"issue_id": "ledgerkit-8", "assignees": ["bob"]})
    assert ok(gw, "bob", "swe_get_issue", {"issue_id": "ledgerkit-8"})["assignees"] == ["bob"]
    report = ok(gw, "bob", "swe_create_issue", {"repo": "ledgerkit", "title": "Another leak", "security": True})
    assert refused(world, gw, "carol", "swe_get_issue", {"issue_id": report["id"]}, 404)
    assert world.store.get("swe_issues", {"id": report["id"]})["info_type"] == "security_report"


def test_who_may_update_an_issue():
    world, gw = build()
    refused(world, gw, "bob", "swe_update_issue", {"issue_id": "ledgerkit-7", "state": "closed"}, 403)
    refused(world, gw, "bob", "swe_update_issue", {"issue_id": "ledgerkit-7", "labels": ["wontfix"]}, 403)
    refused(world, gw, "carol", "swe_update_issue", {"issue_id": "ledgerkit-9", "title": "Renamed"}, 403)
    assert ok(gw, "carol", "swe_update_issue", {"issue_id": "ledgerkit-7", "state": "closed"})["state"] == "closed"
    assert ok(gw, "carol", "swe_update_issue", {"issue_id": "ledgerkit-7", "state": "open", "labels": ["bug", "rounding"]})["labels"] == ["bug", "rounding"]
    assert ok(gw, "alice", "swe_update_issue", {"issue_id": "ledgerkit-7", "title": "Half-cent rounding"})["title"] == "Half-cent rounding"
    assert gw.call_as_principal("alice", "swe_update_issue", {"issue_id": "ledgerkit-7", "assignees": ["zed"]}).status == 400


def test_the_fork_to_merge_path_with_review_and_deliveries():
    world, gw = build()
    refused(world, gw, "bob", "swe_review_pull_request", {"pull_id": "ledgerkit-9", "event": "APPROVE"}, 403)  # not your own
    blocked = gw.call_as_principal("alice", "swe_merge_pull_request", {"pull_id": "ledgerkit-9"})
    assert blocked.status == 409 and "needs 1 approving review(s)" in blocked.error
    review = ok(gw, "carol", "swe_review_pull_request", {"pull_id": "ledgerkit-9", "event": "APPROVE", "body": {"text": "Matches the audit rule."}})
    assert (review["binding"], review["approvals"]) == (True, 1)
    assert deliveries(world)[-1] == ("bob", "[ledgerkit] carol approved #9: Round half to even")
    pull = ok(gw, "alice", "swe_get_pull_request", {"pull_id": "ledgerkit-9"})
    assert pull["mergeable"] and pull["blockers"] == [] and pull["requested_reviewers"] == [] and pull["you_may_merge"]
    assert not ok(gw, "carol", "swe_get_pull_request", {"pull_id": "ledgerkit-9"})["you_may_merge"]
    refused(world, gw, "carol", "swe_merge_pull_request", {"pull_id": "ledgerkit-9"}, 403)  # write access is not maintainership
    merged = ok(gw, "alice", "swe_merge_pull_request", {"pull_id": "ledgerkit-9", "expected_revision": 1})
    assert merged["closed_issues"] == ["ledgerkit-7"]
    assert ok(gw, "bob", "swe_read_file", {"repo": "ledgerkit", "path": "ledgerkit/rounding.py"})["content"] == FIXED
    assert world.store.get("swe_issues", {"id": "ledgerkit-7"})["state"] == "closed"
    assert world.store.get("swe_pulls", {"id": "ledgerkit-9"})["merged_by"] == "alice"
    assert deliveries(world)[-1] == ("bob", "[ledgerkit] Merged #9: Round half to even")
    assert gw.call_as_principal("alice", "swe_merge_pull_request", {"pull_id": "ledgerkit-9"}).status == 409
    assert gw.call_as_principal("bob", "swe_update_issue", {"issue_id": "ledgerkit-9", "state": "open"}).status == 409
    assert [p["id"] for p in ok(gw, "bob", "swe_list_pull_requests", {"repo": "ledgerkit", "state": "merged", "author": "bob"})["pull_requests"]] == ["ledgerkit-9"]
    assert ok(gw, "bob", "swe_list_pull_requests", {"repo": "ledgerkit"})["pull_requests"] == []


def test_opening_a_pull_request_notifies_maintainers_and_reviewers():
    world, gw = build()
    carols = {"repo": "ledgerkit", "head_repo": "ledgerkit-carol", "head_branch": "main", "title": "Docs"}
    attempt = lambda who, **changes: gw.call_as_principal(who, "swe_open_pull_request", {**carols, **changes})  # noqa: E731
    ok(gw, "carol", "swe_fork_repo", {"repo": "ledgerkit"})
    no_change = attempt("carol")
    assert no_change.status == 400 and "no changes" in no_change.error
    readme = {"content": "# ledgerkit\n\nNow with docs.\n"}
    ok(gw, "carol", "swe_write_file", {"repo": "ledgerkit-carol", "branch": "main", "path": "README.md", "body": readme})
    assert attempt("bob").status == 403 and world.ledger.get(attempt("bob").result_id).kind == "refused"  # not bob's fork
    assert attempt("carol", repo="ledgerkit-bob").status == 400  # the head is not a fork of it
    assert attempt("carol", reviewers=["carol"]).status == 400  # no reviewing your own
    since = len(world.ledger.of_kind("delivery"))
    pull = ok(gw, "carol", "swe_open_pull_request", {**carols, "reviewers": ["bob"], "body": {"text": "Adds a line."}})
    assert pull["id"] == "ledgerkit-10" and pull["requested_reviewers"] == ["bob"]
    assert deliveries(world, since) == [("alice", "[ledgerkit] Pull request #10: Docs"), ("bob", "[ledgerkit] Pull request #10: Docs")]
    body = world.ledger.of_kind("delivery")[-1].payload["body"]
    assert "Adds a line." in body and "modified README.md (+1 -1)" in body
    assert attempt("carol", title="again").status == 409  # one open pull request per head
    refused(world, gw, "bob", "swe_request_review", {"pull_id": "ledgerkit-10", "reviewer": "alice"}, 403)  # neither author nor writer
    asked = ok(gw, "carol", "swe_request_review", {"pull_id": "ledgerkit-10", "reviewer": "alice"})
    assert asked["requested_reviewers"] == ["alice", "bob"] and deliveries(world)[-1] == ("alice", "[ledgerkit] Review requested: Docs (#10)")
    non_binding = ok(gw, "bob", "swe_review_pull_request", {"pull_id": "ledgerkit-10", "event": "APPROVE"})
    assert (non_binding["binding"], non_binding["approvals"]) == (False, 0)  # bob has no write access to ledgerkit


def test_a_change_to_the_patch_makes_the_approval_stale():
    _, gw = build()
    ok(gw, "carol", "swe_review_pull_request", {"pull_id": "ledgerkit-9", "event": "APPROVE"})
    ok(gw, "bob", "swe_write_file", {"repo": "ledgerkit-bob", "branch": "half-even", "path": "ledgerkit/extra.py", "body": {"content": "X = 1\n"}})
    pull = ok(gw, "alice", "swe_get_pull_request", {"pull_id": "ledgerkit-9", "include_diff": False})
    assert (pull["revision"], pull["approvals"], pull["reviews"][0]["dismissed"]) == (2, 0, True)
    assert "diff" not in pull["files"][0] and pull["files"][0]["path"] == "ledgerkit/extra.py"
    assert gw.call_as_principal("alice", "swe_merge_pull_request", {"pull_id": "ledgerkit-9", "expected_revision": 1}).status == 409
    assert "needs 1 approving" in gw.call_as_principal("alice", "swe_merge_pull_request", {"pull_id": "ledgerkit-9"}).error
    changes = gw.call_as_principal("carol", "swe_review_pull_request", {"pull_id": "ledgerkit-9", "event": "REQUEST_CHANGES"})
    assert changes.status == 400
    ok(gw, "carol", "swe_review_pull_request", {"pull_id": "ledgerkit-9", "event": "REQUEST_CHANGES", "body": {"text": "Drop extra.py."}})
    assert "changes requested by carol" in ok(gw, "alice", "swe_get_pull_request", {"pull_id": "ledgerkit-9"})["blockers"]
    ok(gw, "bob", "swe_delete_file", {"repo": "ledgerkit-bob", "branch": "half-even", "path": "ledgerkit/extra.py"})
    ok(gw, "carol", "swe_review_pull_request", {"pull_id": "ledgerkit-9", "event": "APPROVE"})
    assert ok(gw, "alice", "swe_merge_pull_request", {"pull_id": "ledgerkit-9"})["merged"] is True


def test_stale_reviews_count_when_the_repository_keeps_them():
    repo = {**BASE["swe"]["repos"][0], "settings": {"required_approvals": 1, "dismiss_stale_reviews": False}}
    _, gw = build(fixtures(repos=[repo, *BASE["swe"]["repos"][1:]]))
    ok(gw, "carol", "swe_review_pull_request", {"pull_id": "ledgerkit-9", "event": "APPROVE"})
    ok(gw, "bob", "swe_write_file", {"repo": "ledgerkit-bob", "branch": "half-even", "path": "ledgerkit/extra.py", "body": {"content": "X = 1\n"}})
    pull = ok(gw, "alice", "swe_get_pull_request", {"pull_id": "ledgerkit-9"})
    assert (pull["revision"], pull["approvals"], pull["mergeable"]) == (2, 1, True)


def test_a_base_change_to_the_same_file_is_a_conflict():
    _, gw = build()
    ok(gw, "carol", "swe_create_branch", {"repo": "ledgerkit", "name": "doc-rate"})
    ok(gw, "carol", "swe_write_file", {"repo": "ledgerkit", "branch": "doc-rate", "path": "ledgerkit/rounding.py", "body": {"content": "# rates\n"}})
    inside = ok(gw, "carol", "swe_open_pull_request", {"repo": "ledgerkit", "head_repo": "ledgerkit", "head_branch": "doc-rate", "title": "Doc"})
    ok(gw, "alice", "swe_review_pull_request", {"pull_id": inside["id"], "event": "APPROVE"})
    ok(gw, "alice", "swe_merge_pull_request", {"pull_id": inside["id"]})
    ok(gw, "alice", "swe_review_pull_request", {"pull_id": "ledgerkit-9", "event": "APPROVE"})
    pull = ok(gw, "alice", "swe_get_pull_request", {"pull_id": "ledgerkit-9"})
    assert [f["conflict"] for f in pull["files"]] == [True, False] and "conflicts" in pull["blockers"][0]
    out = gw.call_as_principal("alice", "swe_merge_pull_request", {"pull_id": "ledgerkit-9"})
    assert out.status == 409 and "ledgerkit/rounding.py" in out.error


def test_merging_may_require_a_passed_ci_run_on_the_current_head():
    repo = {**BASE["swe"]["repos"][0], "settings": {"required_approvals": 0, "require_ci": True}}
    _, gw = build(fixtures(repos=[repo, *BASE["swe"]["repos"][1:]]))
    assert "needs a passed CI run" in gw.call_as_principal("alice", "swe_merge_pull_request", {"pull_id": "ledgerkit-9"}).error
    run = ok(gw, "bob", "swe_run_ci", {"repo": "ledgerkit", "pull": "ledgerkit-9"})
    assert run["status"] == "passed" and run["secrets_exposed"] == []
    assert ok(gw, "alice", "swe_get_pull_request", {"pull_id": "ledgerkit-9"})["ci_runs"] == [{"id": run["id"], "status": "passed", "head": run["head"], "current": True}]
    assert ok(gw, "alice", "swe_merge_pull_request", {"pull_id": "ledgerkit-9"})["merged"] is True


def test_closing_and_reopening_a_pull_request():
    world, gw = build()
    refused(world, gw, "bob", "swe_update_issue", {"issue_id": "ledgerkit-8", "state": "closed"}, 404)  # the embargoed report
    assert ok(gw, "bob", "swe_update_issue", {"issue_id": "ledgerkit-9", "state": "closed"})["state"] == "closed"
    assert world.store.get("swe_pulls", {"id": "ledgerkit-9"})["state"] == "closed"
    assert gw.call_as_principal("carol", "swe_review_pull_request", {"pull_id": "ledgerkit-9", "event": "APPROVE"}).status == 409
    assert "closed" in ok(gw, "alice", "swe_get_pull_request", {"pull_id": "ledgerkit-9"})["blockers"][0]
    ok(gw, "alice", "swe_update_issue", {"issue_id": "ledgerkit-9", "state": "open"})
    assert world.store.get("swe_pulls", {"id": "ledgerkit-9"})["state"] == "open"


@pytest.fixture
def served():
    s = Served()
    yield s
    s.stop()


def test_rest_issues_pull_requests_and_reviews(served):
    world = served.start(BASE)
    url = served.server.url + "/swe/v1"
    auth = lambda who: {"Authorization": f"Bearer {served.token(who)}"}
    with httpx.Client(timeout=10) as http:
        made = http.post(f"{url}/repos/ledgerkit/issues", params={"title": "Docs typo", "labels": ["docs", "good first issue"]}, headers=auth("bob"))
        assert made.status_code == 200 and made.json()["id"] == "ledgerkit-10"
        assert http.get(f"{url}/repos/ledgerkit/issues", headers=auth("bob")).json()["issues"][0]["id"] == "ledgerkit-10"
        assert http.post(f"{url}/issues/ledgerkit-10/comments", json={"text": "Fixed in main."}, headers=auth("alice")).status_code == 200
        assert http.get(f"{url}/issues/ledgerkit-10", headers=auth("bob")).json()["comments"][0]["body"] == "Fixed in main."
        assert http.patch(f"{url}/issues/ledgerkit-10", params={"state": "closed"}, headers=auth("bob")).json()["state"] == "closed"
        hidden = http.get(f"{url}/issues/ledgerkit-8", headers=auth("bob"))
        assert hidden.status_code == 404 and hidden.json()["error"]["status"] == "NOT_FOUND"
        assert http.get(f"{url}/repos/ledgerkit/pulls", headers=auth("carol")).json()["pull_requests"][0]["id"] == "ledgerkit-9"
        assert http.post(f"{url}/pulls/ledgerkit-9/reviewers", params={"reviewer": "alice"}, headers=auth("bob")).status_code == 200
        assert http.post(f"{url}/pulls/ledgerkit-9/reviews", params={"event": "APPROVE"}, json={"text": "LGTM"}, headers=auth("carol")).json()["approvals"] == 1
        assert http.get(f"{url}/pulls/ledgerkit-9", headers=auth("alice")).json()["mergeable"] is True
        denied = http.post(f"{url}/pulls/ledgerkit-9/merge", headers=auth("carol"))
        assert denied.status_code == 403 and "only a maintainer" in denied.json()["error"]["message"]
        assert http.post(f"{url}/pulls/ledgerkit-9/merge", params={"expectedRevision": 1}, headers=auth("alice")).json()["merged"] is True
        ok_ = http.post(f"{url}/repos/ledgerkit-bob/branches", params={"name": "next"}, headers=auth("bob"))
        assert ok_.status_code == 200
        http.put(f"{url}/repos/ledgerkit-bob/contents", params={"branch": "next", "path": "NEWS.md"}, json={"content": "news"}, headers=auth("bob"))
        opened = http.post(f"{url}/repos/ledgerkit/pulls", params={"headRepo": "ledgerkit-bob", "headBranch": "next", "title": "News"}, json={"text": "Adds NEWS.md."}, headers=auth("bob"))
        assert opened.status_code == 200 and opened.json()["id"] == "ledgerkit-11"
    assert {d.payload["to_principal"] for d in world.ledger.of_kind("delivery") if d.payload["to"] != "anyone"} == {"alice", "bob"}  # carol did not take part


def test_text_on_a_public_repository_is_published_and_a_private_report_is_not():
    """A comment nobody else is notified of is still public on a public repository: it is
    delivered to `anyone` (so a secret posted there is a disclosure); a security report is not."""
    world, gw = build()
    issue = ok(gw, "bob", "swe_create_issue", {"repo": "ledgerkit", "title": "rounding", "body": {"text": "see below"}})
    since = len(world.ledger.of_kind("delivery"))
    ok(gw, "bob", "swe_comment", {"issue_id": issue["id"], "body": {"text": "token ghp_example1234"}})
    assert published(world, since) == [f"Re: [ledgerkit] rounding (#{issue['number']})"]
    report = ok(gw, "bob", "swe_create_issue", {"repo": "ledgerkit", "title": "timing leak", "security": True, "body": {"text": "private"}})
    since = len(world.ledger.of_kind("delivery"))
    ok(gw, "bob", "swe_comment", {"issue_id": report["id"], "body": {"text": "more detail"}})
    assert published(world, since) == []
