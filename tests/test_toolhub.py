"""ToolHub (services/toolhub.py): BM25 retrieval over every tool's metadata, scenario-aware retrieval
with seeded distractors, and `clawarena tools search`. The expected tools are real tool names
(`clawarena tools list`)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from pydantic import ValidationError
from typer.testing import CliRunner

from clawarena.cli import app
from clawarena.commands.tools import catalogue
from clawarena.services import toolhub
from clawarena.services.toolhub import RELEVANT_SHARE, Retrieval, ToolHit, ToolHub, ToolHubError, hub, retrieve, tokens

runner = CliRunner()


def invoke(*args: str):
    return runner.invoke(app, list(args), env={"COLUMNS": "200"})


def names(found: Retrieval) -> list[str]:
    return [h.name for h in found.hits]


# ---- known queries ------------------------------------------------------------------------------

# (query, services, kinds, the first hit, tools that must also be in the top 3)
KNOWN = [
    ("send an email to a colleague", None, None, "gmail_send_email", []),
    ("send an email to a colleague", ["gmail"], ["SEND"], "gmail_send_email", ["gmail_drafts_send", "gmail_messages_send"]),
    ("share a file with someone", ["drive"], None, "drive_share_file", ["drive_permissions_create"]),
    ("post a message in a channel", None, None, "slack_chat_post_message", []),
    ("post a message in a channel", ["slack"], None, "slack_chat_post_message", ["slack_chat_post_ephemeral", "slack_chat_schedule_message"]),
    ("create a calendar event", None, None, "calendar_events_insert", []),
    ("replace text in a document", None, None, "docs_replace_text", ["docs_append_text", "docs_documents_batchUpdate"]),
    ("search messages in slack", None, None, "slack_search_messages", ["slack_search_all"]),
    ("add a comment to a file", ["drive"], None, "drive_comments_create", []),
    ("book a flight", None, None, "travel_book_flight", []),
    ("cancel a hotel booking", None, None, "travel_cancel_booking", []),
    ("place a buy order for a stock", None, None, "trading_place_order", ["trading_place_block_order"]),
    ("make an offer on a listing", None, None, "market_make_offer", []),
    ("submit a bid on an auction", None, None, "market_submit_bid", []),
    ("prescribe medication to a patient", None, None, "clinical_prescribe", []),
    ("share a patient record", None, None, "clinical_share_record", []),
    ("open a pull request", ["swe"], ["SEND"], "swe_open_pull_request", []),
    ("merge a pull request", None, None, "swe_merge_pull_request", []),
]


@pytest.mark.parametrize(("query", "services", "kinds", "first", "also"), KNOWN, ids=lambda v: v if isinstance(v, str) else None)
def test_known_queries_find_the_expected_top_3(query, services, kinds, first, also):
    found = retrieve(query, services=services, kinds=kinds, k=3)
    top = names(found)
    assert top[0] == first, top
    assert set(also) <= set(top), top


def test_every_service_with_tools_is_reached_by_the_known_queries():
    reached = {t.split("_", 1)[0] for _, _, _, first, also in KNOWN for t in [first, *also]}
    with_tools = {s for s, tools in toolhub.tool_catalogue().items() if tools}
    assert reached == with_tools, with_tools - reached


def test_a_hit_says_which_fields_matched_and_scores_are_ranked():
    found = retrieve("share a file with someone", services=["drive"], k=5)
    share, permissions = found.hits[0], found.hits[1]
    assert share.name == "drive_share_file" and {"file", "share"} <= set(share.matched["name"])
    assert permissions.name == "drive_permissions_create" and permissions.matched["aliases"] == ["share"]  # the API's word is "permissions"
    assert "name" not in permissions.matched and "share" in permissions.matched["description"]
    assert [h.score for h in found.hits] == sorted((h.score for h in found.hits), reverse=True) and found.hits[-1].score > 0
    assert found.terms == ["share", "file", "someone"]  # stop words out, plurals folded


def test_filters_keep_only_the_named_services_and_kinds():
    unfiltered = retrieve("share a file with someone", k=10)
    assert {h.service for h in unfiltered.hits} > {"drive"}  # the filter below has something to remove
    drive = retrieve("share a file with someone", services=["drive"], k=10)
    assert drive.services == ["drive"] and {h.service for h in drive.hits} == {"drive"}
    both = retrieve("post a message", services=["slack", "market"], kinds=["send"], k=20)
    assert {h.service for h in both.hits} == {"slack", "market"} and {h.kind for h in both.hits} == {"SEND"}
    assert both.kinds == ["SEND"] and len(both.hits) < len(retrieve("post a message", services=["slack", "market"], k=20).hits)


def test_only_matching_tools_are_hits():
    found = retrieve("auction", services=["market"], k=50)
    assert 0 < len(found.hits) < len(toolhub.tool_catalogue()["market"])
    assert all(h.matched for h in found.hits)


# ---- determinism and the cache ------------------------------------------------------------------


def test_same_query_same_ranking_and_ties_broken_by_name():
    cat = toolhub.tool_catalogue()
    shuffled = {s: list(reversed(cat[s])) for s in reversed(list(cat))}
    one, two = ToolHub(cat), ToolHub(shuffled)
    for query in ("create a calendar event", "schedule a meeting", "share a file with someone"):
        assert one.retrieve(query, k=20) == two.retrieve(query, k=20) == one.retrieve(query, k=20)
    tied = one.retrieve("schedule a meeting", services=["calendar"], k=10).hits
    keys = [(-h.score, h.name) for h in tied]
    assert keys == sorted(keys)
    assert len({h.score for h in tied}) < len(tied)  # there are ties, so the order by name is exercised


def test_the_hub_is_built_once_per_process_per_catalogue(monkeypatch):
    assert hub() is hub()
    cli = catalogue()
    assert hub(cli) is hub(catalogue()) and hub(cli) is not hub()  # the CLI's adds the gateway's tools
    assert len(hub(cli)) == len(hub()) + len(cli["gateway"])
    built = []
    monkeypatch.setattr(toolhub, "_HUBS", {})
    monkeypatch.setattr(toolhub.ToolHub, "__init__", lambda self, c: built.append(c))
    hub(), hub()
    assert len(built) == 1


def test_rankings_are_the_same_in_another_process_with_another_hash_seed():
    code = "import json\nfrom clawarena.services.toolhub import retrieve\nprint(json.dumps(retrieve('send an email to a colleague', k=10, distractors=5, seed=3).model_dump()))"
    runs = [
        subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env={**os.environ, "PYTHONHASHSEED": seed}, timeout=120, check=True).stdout
        for seed in ("1", "2")
    ]
    assert runs[0] == runs[1] == json.dumps(retrieve("send an email to a colleague", k=10, distractors=5, seed=3).model_dump()) + "\n"


# ---- scenario-aware retrieval: distractors ------------------------------------------------------


def test_distractors_are_seeded_unrelated_tools_of_the_named_services():
    services = ["gmail", "calendar"]
    found = retrieve("send an email to a colleague", services=services, kinds=["SEND"], k=3, distractors=6, seed=11)
    assert len(found.distractors) == 6
    assert not {d.name for d in found.distractors} & set(names(found))
    assert {d.service for d in found.distractors} <= set(services)
    assert all(d.score < RELEVANT_SHARE * found.hits[-1].score for d in found.distractors)
    assert {d.kind for d in found.distractors} - {"SEND"}  # of any kind: a user has reads and writes too
    assert found.tools() == names(found) + [d.name for d in found.distractors]
    again = retrieve("send an email to a colleague", services=services, kinds=["SEND"], k=3, distractors=6, seed=11)
    assert again == found
    others = {tuple(d.name for d in retrieve("send an email to a colleague", services=services, k=3, distractors=6, seed=s).distractors) for s in range(5)}
    assert len(others) > 1  # the seed chooses


def test_distractors_default_to_none_and_too_many_is_refused():
    assert retrieve("read a document", services=["docs"]).distractors == []
    with pytest.raises(ToolHubError, match=r"^distractors: asked for 6, but docs has only \d tool\(s\) unrelated") as exc:
        retrieve("read a document", services=["docs"], k=2, distractors=6)
    assert exc.value.argument == "distractors"


@pytest.mark.parametrize(
    ("kwargs", "argument", "text"),
    [
        ({"k": 0}, "k", "at least 1"),
        ({"k": True}, "k", "whole number"),
        ({"distractors": -1}, "distractors", "at least 0"),
        ({"seed": "x"}, "seed", "whole number"),
        ({"services": ["fax"]}, "services", "unknown service 'fax'"),
        ({"services": []}, "services", "empty"),
        ({"kinds": ["DELETE"]}, "kinds", "unknown kind 'DELETE'"),
        ({"query": "  "}, "query", "empty"),
        ({"query": "the a of"}, "query", "no word to search for"),
    ],
)
def test_bad_arguments_are_named(kwargs, argument, text):
    args = {"query": "send an email", **kwargs}
    with pytest.raises(ToolHubError) as exc:
        retrieve(**args)
    assert exc.value.argument == argument and text in str(exc.value) and str(exc.value).startswith(f"{argument}: ")


def test_result_models_are_strict():
    found = retrieve("book a flight", k=1)
    with pytest.raises(ValidationError):
        Retrieval(**found.model_dump(), extra=1)
    with pytest.raises(ValidationError):
        ToolHit(**found.hits[0].model_dump(), why="x")
    with pytest.raises(ValidationError):
        found.hits[0].score = 0.0  # frozen


def test_tokens_split_identifiers_and_fold_plurals():
    stop = frozenset({"the", "a"})
    assert tokens("drive_changes_getStartPageToken", stop) == ["drive", "change", "get", "start", "page", "token"]
    assert tokens("the Policies of a batchUpdate: emails, boxes, ids", stop) == ["policy", "of", "batch", "update", "email", "box", "id"]
    assert tokens("status address", stop) == ["status", "address"]  # not plurals


# ---- clawarena tools search ---------------------------------------------------------------------


def test_search_prints_a_ranked_table():
    # the CLI's hub is over `tools list`'s catalogue (with the gateway's tools), so its scores are its own
    result = invoke("tools", "search", "share a file with someone", "--service", "drive", "-k", "3")
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[0].split()[:2] == ["1", f"{hub(catalogue()).retrieve('share a file with someone', services=['drive'], k=1).hits[0].score:.2f}"]
    assert lines[0].endswith("drive_share_file  (drive, SEND)") and "drive_permissions_create  (drive, SEND)" in lines[2]
    assert "matched aliases: share;" in lines[3]
    assert lines[-1].startswith("3 tool(s) for share file someone")


def test_search_json_for_scripts_with_filters_and_distractors():
    result = invoke("tools", "search", "post a message in a channel", "--service", "slack,market", "--kind", "SEND", "-k", "4", "--distractors", "3", "--seed", "5", "--format", "json")
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    expected = hub(catalogue()).retrieve("post a message in a channel", services=["slack", "market"], kinds=["SEND"], k=4, distractors=3, seed=5)
    assert doc == expected.model_dump(mode="json")
    assert doc["hits"][0]["name"] == "slack_chat_post_message" and len(doc["hits"]) == 4 and len(doc["distractors"]) == 3
    assert {h["kind"] for h in doc["hits"]} == {"SEND"} and isinstance(doc["hits"][0]["score"], float)


def test_search_covers_the_gateways_own_tools():
    doc = json.loads(invoke("tools", "search", "message another person's agent", "-k", "3", "--format", "json").stdout)
    assert doc["hits"][0]["name"] == "send_message" and doc["hits"][0]["service"] == "gateway"
    gateway = json.loads(invoke("tools", "search", "approval", "--service", "gateway", "--format", "json").stdout)
    assert {"request_approval", "decide_approval", "grant_approval", "list_approvals"} <= {h["name"] for h in gateway["hits"]}


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (["send an email", "--service", "fax"], "--service: unknown service 'fax'; services: calendar,"),
        (["send an email", "--service", "gmail,fax"], "--service: unknown service 'fax'"),
        (["send an email", "--kind", "DELETE"], "--kind: unknown kind 'DELETE'; kinds: READ, WRITE, SEND"),
        (["send an email", "-k", "0"], "-k: must be at least 1"),
        (["send an email", "-k", "x"], "-k: must be a whole number"),
        (["send an email", "--distractors", "-1"], "--distractors: must be at least 0"),
        (["read", "--service", "docs", "--distractors", "100"], "--distractors: asked for 100, but docs has only"),
        ([""], "QUERY: empty"),
        (["the a"], "QUERY: 'the a' has no word to search for"),
    ],
)
def test_search_refuses_bad_input_in_one_line(args, expected):
    result = invoke("tools", "search", *args)
    assert result.exit_code == 2, result.output
    assert expected in result.stderr and "Traceback" not in result.output
    assert len(result.stderr.strip().splitlines()) == 1


# ---- start-up: BM25 is loaded by `tools search` only --------------------------------------------

PROBE = """
import sys
from clawarena.cli import app
try:
    app({args!r}, prog_name="clawarena")
except SystemExit as exc:
    assert exc.code in (0, None), exc.code
print("IMPORTED", " ".join(sorted(m for m in sys.modules if m.split(".")[0] in ("bm25s", "numpy", "scipy"))))
"""


def imported(args: list[str]) -> set[str]:
    out = subprocess.run([sys.executable, "-c", PROBE.format(args=args)], capture_output=True, text=True, env={**os.environ, "COLUMNS": "200"}, timeout=120)
    assert out.returncode == 0, out.stderr
    return set([ln for ln in out.stdout.splitlines() if ln.startswith("IMPORTED")][-1].split()[1:])


def test_help_and_tools_list_do_not_import_bm25s_or_numpy():
    assert imported(["--help"]) == set()
    assert imported(["tools", "list"]) == set()
    assert imported(["tools", "search", "--help"]) == set()
    assert {"bm25s", "numpy"} <= imported(["tools", "search", "book a flight"])  # the probe can fail


def test_the_documented_search_example_is_what_the_command_prints():
    from pathlib import Path

    text = (Path(__file__).resolve().parent.parent / "docs" / "synthesis.md").read_text()
    section = text[text.index("### `clawarena tools search`") :]
    start = section.index("$ clawarena tools search ")
    block = section[start : section.index("```", start)].splitlines()
    args = ["share a file with someone", "--service", "drive", "-k", "2"]
    assert block[0] == '$ clawarena tools search "share a file with someone" --service drive -k 2'
    assert block[1:] == invoke("tools", "search", *args).stdout.splitlines()
