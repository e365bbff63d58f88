"""Slack conformance: search.messages, search.files and search.all through slack_sdk."""

import pytest
from slack_sdk.errors import SlackApiError

from tests.conformance.slack_golden import assert_shape
from tests.conformance.slack_world import ALICE, BOB, DM_AB, WORKSPACE, cid, ts_of


def texts(resp) -> list[str]:
    return [m["text"] for m in resp["messages"]["matches"]]


def test_search_only_reads_channels_the_caller_can_see(served):
    world = served.start(WORKSPACE)
    resp = served.slack("alice").search_messages(query="budget", sort="timestamp")
    assert_shape("search.messages", resp)
    # #finance (private, not a member) and the bob-carol DM are never searched
    assert texts(resp) == ["can you review my budget PR?", "Budget review notes for the deploy"]
    assert resp["messages"]["total"] == 2
    first = resp["messages"]["matches"][0]
    assert first["channel"]["id"] == DM_AB and first["channel"]["is_im"] is True and first["username"] == "bob"
    assert first["permalink"].endswith("p" + ts_of(world, "d1").replace(".", ""))
    bob = served.slack("bob").search_messages(query="budget")
    assert "Q3 budget is 1.2M, confidential" in texts(bob) and "salary budget numbers for bob only" in texts(bob)


def test_search_public_channels_without_membership(served):
    served.start(WORKSPACE)
    assert texts(served.slack("alice").search_messages(query="invoice")) == ["Invoice 4411 is due"]


def test_search_in_channel_and_from_user(served):
    served.start(WORKSPACE)
    client = served.slack("alice")
    # bob's share of plan.txt in #eng is a message too (with no text)
    assert texts(client.search_messages(query="in:#eng from:@bob", sort="timestamp")) == [
        "rollback plan is in the runbook https://wiki.example/runbook", "The deploy is at 5pm today", ""]  # fmt: skip
    assert texts(client.search_messages(query=f"deploy from:<@{ALICE}>")) == ["Budget review notes for the deploy"]
    assert texts(client.search_messages(query="in:eng from:me", sort="timestamp")) == [
        "Budget review notes for the deploy", "thanks, I will watch the dashboards"]  # fmt: skip
    assert texts(client.search_messages(query="in:@bob")) == ["can you review my budget PR?"]
    assert client.search_messages(query="in:#finance budget")["messages"]["total"] == 0


def test_search_quoted_phrases_and_exclusions(served):
    served.start(WORKSPACE)
    client = served.slack("alice")
    assert texts(client.search_messages(query='"deploy is at"')) == ["The deploy is at 5pm today"]
    assert client.search_messages(query='"is at deploy"')["messages"]["total"] == 0
    assert texts(client.search_messages(query="deploy -budget")) == ["The deploy is at 5pm today"]
    assert texts(client.search_messages(query="dash*")) == ["thanks, I will watch the dashboards"]


def test_search_dates_and_has_modifiers(served):
    served.start(WORKSPACE)
    client = served.slack("alice")
    # archived public channels are searched too
    assert texts(client.search_messages(query="before:2026-02-28")) == ["Welcome to Northwind! All-hands on Friday.", "project closed"]
    assert texts(client.search_messages(query="on:2026-03-01", sort="timestamp")) == ["Hiring plan: two engineers", "Invoice 4411 is due"]
    assert texts(client.search_messages(query="has:link")) == ["rollback plan is in the runbook https://wiki.example/runbook"]
    assert texts(client.search_messages(query="has:pin")) == ["The deploy is at 5pm today"]
    assert sorted(texts(client.search_messages(query="has:reaction"))) == ["The deploy is at 5pm today", "Welcome to Northwind! All-hands on Friday."]
    assert texts(client.search_messages(query="has::wave:")) == ["Welcome to Northwind! All-hands on Friday."]


def test_search_paging_and_cursor(served):
    served.start(WORKSPACE)
    client = served.slack("alice")
    for i in range(5):
        client.chat_postMessage(channel=cid("random"), text=f"weekly sync {i}")
    page1 = client.search_messages(query="sync", count=2, sort="timestamp")
    assert page1["messages"]["paging"] == {"count": 2, "total": 5, "page": 1, "pages": 3}
    assert page1["messages"]["pagination"]["first"] == 1 and page1["messages"]["pagination"]["last"] == 2
    page3 = client.search_messages(query="sync", count=2, page=3, sort="timestamp")
    assert texts(page3) == ["weekly sync 0"]
    asc = client.search_messages(query="sync", sort="timestamp", sort_dir="asc")
    assert texts(asc) == [f"weekly sync {i}" for i in range(5)]
    first = client.search_messages(query="sync", count=2, cursor="*", sort="timestamp")
    second = client.search_messages(query="sync", count=2, cursor=first["response_metadata"]["next_cursor"], sort="timestamp")
    assert texts(second) == ["weekly sync 2", "weekly sync 1"]


def test_search_requires_a_query(served):
    served.start(WORKSPACE)
    with pytest.raises(SlackApiError) as info:
        served.slack("alice").search_messages(query="  ")
    assert info.value.response["error"] == "no_query"


def test_search_finds_thread_replies_and_mentions(served):
    served.start(WORKSPACE)
    client = served.slack("alice")
    client.chat_postMessage(channel=cid("eng"), text=f"<@{BOB}> please check the canary")
    assert texts(client.search_messages(query="is:thread runbook")) == ["rollback plan is in the runbook https://wiki.example/runbook"]
    assert texts(client.search_messages(query="canary")) == [f"<@{BOB}> please check the canary"]


def test_search_files(served):
    served.start(WORKSPACE)
    resp = served.slack("alice").search_files(query="ship")
    assert_shape("search.files", resp)
    assert [f["name"] for f in resp["files"]["matches"]] == ["plan.txt"]
    assert served.slack("alice").search_files(query="salary")["files"]["total"] == 0
    assert served.slack("bob").search_files(query="salary in:#finance")["files"]["total"] == 1


def test_search_all(served):
    served.start(WORKSPACE)
    resp = served.slack("alice").search_all(query="plan")
    assert_shape("search.all", resp)
    assert [f["name"] for f in resp["files"]["matches"]] == ["plan.txt"]
    assert "rollback plan is in the runbook https://wiki.example/runbook" in texts(resp)
