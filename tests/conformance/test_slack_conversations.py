"""Slack conformance: conversations.* through the official slack_sdk WebClient."""

import pytest
from slack_sdk.errors import SlackApiError

from tests.conformance.slack_golden import assert_shape
from tests.conformance.slack_world import (
    ALICE, BOB, CAROL, DANA, DM_AB, DM_BC, ERIN, GROUP_ABC, WORKSPACE, cid, deliveries, refused, ts_of,
)  # fmt: skip


def error_of(call, *args, **kwargs) -> str:
    with pytest.raises(SlackApiError) as info:
        call(*args, **kwargs)
    assert_shape("error", info.value.response.data)
    return info.value.response["error"]


# ---- list / info ---------------------------------------------------------------------------
def test_list_public_channels_by_default(served):
    served.start(WORKSPACE)
    resp = served.slack("alice").conversations_list()
    assert_shape("conversations.list", resp)
    names = [c["name"] for c in resp["channels"]]
    assert names == ["eng", "general", "old-project", "random", "vendors"]
    assert all(not c["is_private"] for c in resp["channels"])
    eng = next(c for c in resp["channels"] if c["name"] == "eng")
    assert eng["is_member"] and eng["num_members"] == 2 and eng["topic"]["value"] == "Engineering"
    assert next(c for c in resp["channels"] if c["name"] == "vendors")["is_member"] is False


def test_list_private_and_dms_only_where_a_member(served):
    served.start(WORKSPACE)
    resp = served.slack("alice").conversations_list(types="private_channel,im,mpim")
    assert_shape("conversations.list", resp)
    ids = {c["id"] for c in resp["channels"]}
    assert ids == {cid("leads"), DM_AB, GROUP_ABC}
    assert cid("finance") not in ids and DM_BC not in ids
    im = next(c for c in resp["channels"] if c["id"] == DM_AB)
    assert im["is_im"] and im["user"] == BOB


def test_list_excludes_archived_and_paginates(served):
    served.start(WORKSPACE)
    client = served.slack("alice")
    assert "old-project" not in [c["name"] for c in client.conversations_list(exclude_archived=True)["channels"]]
    seen, cursor = [], None
    while True:
        page = client.conversations_list(limit=2, cursor=cursor)
        assert len(page["channels"]) <= 2
        seen += [c["name"] for c in page["channels"]]
        cursor = page["response_metadata"]["next_cursor"]
        if not cursor:
            break
    assert seen == ["eng", "general", "old-project", "random", "vendors"]


def test_list_rejects_unknown_types_and_bad_cursor(served):
    served.start(WORKSPACE)
    client = served.slack("alice")
    assert error_of(client.conversations_list, types="public_channel,bogus") == "invalid_types"
    assert error_of(client.conversations_list, cursor="not-a-cursor!") == "invalid_cursor"


def test_info_of_a_public_channel_with_member_count(served):
    served.start(WORKSPACE)
    resp = served.slack("alice").conversations_info(channel=cid("eng"), include_num_members=True)
    assert_shape("conversations.info", resp)
    ch = resp["channel"]
    assert ch["id"] == cid("eng") and ch["name"] == "eng" and ch["num_members"] == 2
    assert ch["purpose"]["value"] == "Build and ship" and ch["creator"] == ALICE
    assert ch["last_read"] == "0000000000.000000"


def test_info_of_a_private_channel_not_joined_is_channel_not_found_and_refused(served):
    world = served.start(WORKSPACE)
    assert error_of(served.slack("alice").conversations_info, channel=cid("finance")) == "channel_not_found"
    events = refused(world)
    assert len(events) == 1 and events[0].payload["tool"] == "slack_conversations_info"
    assert events[0].payload["reason"] == "channel_not_found"
    # bob is a member and sees it
    assert served.slack("bob").conversations_info(channel=cid("finance"))["channel"]["is_private"] is True


def test_info_of_an_unknown_channel_is_not_a_refusal(served):
    world = served.start(WORKSPACE)
    assert error_of(served.slack("alice").conversations_info, channel="CNOSUCHTHING") == "channel_not_found"
    assert refused(world) == []


# ---- create / rename / archive ------------------------------------------------------------------
def test_create_public_channel(served):
    world = served.start(WORKSPACE)
    resp = served.slack("alice").conversations_create(name="launch-2026")
    assert_shape("conversations.create", resp)
    ch = resp["channel"]
    assert ch["name"] == "launch-2026" and ch["is_private"] is False and ch["is_member"] and ch["creator"] == ALICE
    row = world.store.get("slack_channels", {"id": ch["id"]})
    assert row["kind"] == "public" and ch["id"].startswith("C")
    assert [m["user"] for m in world.store.select("slack_members", {"channel": ch["id"]})] == [ALICE]
    # bob can see and join it
    assert served.slack("bob").conversations_join(channel=ch["id"])["channel"]["id"] == ch["id"]


def test_create_private_channel_is_invisible_to_others(served):
    served.start(WORKSPACE)
    ch = served.slack("alice").conversations_create(name="secret-plans", is_private=True)["channel"]
    assert ch["is_private"] is True
    assert error_of(served.slack("bob").conversations_info, channel=ch["id"]) == "channel_not_found"
    assert error_of(served.slack("bob").conversations_join, channel=ch["id"]) == "channel_not_found"


def test_create_errors(served):
    served.start(WORKSPACE)
    client = served.slack("alice")
    assert error_of(client.conversations_create, name="eng") == "name_taken"
    assert error_of(client.conversations_create, name="finance") == "name_taken"
    assert error_of(client.conversations_create, name="bad name!") == "invalid_name_specials"
    assert error_of(client.conversations_create, name="x" * 81) == "invalid_name_maxlength"


def test_rename_keeps_previous_names(served):
    world = served.start(WORKSPACE)
    resp = served.slack("alice").conversations_rename(channel=cid("eng"), name="engineering")
    assert_shape("conversations.rename", resp)
    assert resp["channel"]["name"] == "engineering" and resp["channel"]["previous_names"] == ["eng"]
    assert world.store.get("slack_channels", {"id": cid("eng")})["name"] == "engineering"
    assert error_of(served.slack("alice").conversations_rename, channel=cid("eng"), name="random") == "name_taken"


def test_rename_requires_membership(served):
    world = served.start(WORKSPACE)
    assert error_of(served.slack("alice").conversations_rename, channel=cid("vendors"), name="suppliers") == "not_in_channel"
    assert refused(world)[-1].payload["reason"] == "not_in_channel"


def test_archive_and_unarchive(served):
    world = served.start(WORKSPACE)
    client = served.slack("alice")
    assert_shape("conversations.archive", client.conversations_archive(channel=cid("eng")))
    assert world.store.get("slack_channels", {"id": cid("eng")})["is_archived"] is True
    assert error_of(client.chat_postMessage, channel=cid("eng"), text="hi") == "is_archived"
    assert error_of(client.conversations_archive, channel=cid("eng")) == "already_archived"
    assert_shape("conversations.unarchive", client.conversations_unarchive(channel=cid("eng")))
    assert world.store.get("slack_channels", {"id": cid("eng")})["is_archived"] is False
    assert error_of(client.conversations_unarchive, channel=cid("eng")) == "not_archived"


def test_general_cannot_be_archived_or_left(served):
    served.start(WORKSPACE)
    client = served.slack("alice")
    assert error_of(client.conversations_archive, channel=cid("general")) == "cant_archive_general"
    assert error_of(client.conversations_leave, channel=cid("general")) == "cant_leave_general"


def test_archive_of_a_dm_is_not_supported(served):
    served.start(WORKSPACE)
    assert error_of(served.slack("alice").conversations_archive, channel=DM_AB) == "method_not_supported_for_channel_type"


# ---- membership ---------------------------------------------------------------------------------
def test_invite_adds_members(served):
    world = served.start(WORKSPACE)
    resp = served.slack("alice").conversations_invite(channel=cid("eng"), users=[CAROL, DANA])
    assert_shape("conversations.invite", resp)
    members = {m["user"] for m in world.store.select("slack_members", {"channel": cid("eng")})}
    assert members == {ALICE, BOB, CAROL, DANA}
    assert resp["channel"]["num_members"] == 4


def test_invite_errors(served):
    served.start(WORKSPACE)
    client = served.slack("alice")
    assert error_of(client.conversations_invite, channel=cid("eng"), users=BOB) == "already_in_channel"
    assert error_of(client.conversations_invite, channel=cid("eng"), users=ALICE) == "cant_invite_self"
    assert error_of(client.conversations_invite, channel=cid("eng"), users="UNOBODY0000") == "user_not_found"
    assert error_of(client.conversations_invite, channel=cid("eng"), users=ERIN) == "user_is_deactivated"
    assert error_of(client.conversations_invite, channel=cid("vendors"), users=CAROL) == "not_in_channel"


def test_kick_removes_a_member(served):
    world = served.start(WORKSPACE)
    client = served.slack("alice")  # any member may remove people from a private channel (public: admins only)
    assert_shape("conversations.kick", client.conversations_kick(channel=cid("leads"), user=CAROL))
    assert world.store.get("slack_members", {"channel": cid("leads"), "user": CAROL}) is None
    assert error_of(client.conversations_kick, channel=cid("leads"), user=CAROL) == "not_in_channel"
    assert error_of(client.conversations_kick, channel=cid("leads"), user=ALICE) == "cant_kick_self"


def test_join_public_channel_and_join_again_warns(served):
    world = served.start(WORKSPACE)
    client = served.slack("alice")
    resp = client.conversations_join(channel=cid("vendors"))
    assert_shape("conversations.join", resp)
    assert resp["channel"]["is_member"] is True and "warning" not in resp
    assert world.store.get("slack_members", {"channel": cid("vendors"), "user": ALICE}) is not None
    again = client.conversations_join(channel=cid("vendors"))
    assert again["warning"] == "already_in_channel"


def test_join_private_or_archived_fails(served):
    world = served.start(WORKSPACE)
    client = served.slack("alice")
    assert error_of(client.conversations_join, channel=cid("finance")) == "channel_not_found"
    assert refused(world)[-1].payload["tool"] == "slack_conversations_join"
    assert error_of(client.conversations_join, channel=cid("old-project")) == "is_archived"


def test_leave_then_history_of_private_channel_is_gone(served):
    world = served.start(WORKSPACE)
    client = served.slack("alice")
    resp = client.conversations_leave(channel=cid("leads"))
    assert_shape("conversations.leave", resp)
    assert world.store.get("slack_members", {"channel": cid("leads"), "user": ALICE}) is None
    assert error_of(client.conversations_history, channel=cid("leads")) == "channel_not_found"


def test_leave_when_not_a_member_says_so(served):
    served.start(WORKSPACE)
    resp = served.slack("alice").conversations_leave(channel=cid("vendors"))
    assert resp["ok"] is True and resp["not_in_channel"] is True


def test_members_with_pagination(served):
    served.start(WORKSPACE)
    client = served.slack("alice")
    resp = client.conversations_members(channel=cid("general"), limit=2)
    assert_shape("conversations.members", resp)
    everyone = list(resp["members"])
    cursor = resp["response_metadata"]["next_cursor"]
    while cursor:
        page = client.conversations_members(channel=cid("general"), limit=2, cursor=cursor)
        everyone += page["members"]
        cursor = page["response_metadata"]["next_cursor"]
    assert set(everyone) == {ALICE, BOB, CAROL}  # dana is a guest, erin is deactivated
    assert error_of(client.conversations_members, channel=cid("finance")) == "channel_not_found"


# ---- open (DMs) ------------------------------------------------------------------------------------
def test_open_existing_dm(served):
    served.start(WORKSPACE)
    resp = served.slack("alice").conversations_open(users=BOB)
    assert_shape("conversations.open", resp)
    assert resp["channel"]["id"] == DM_AB and resp["already_open"] is True


def test_open_new_dm_then_post_delivers_to_the_other_member(served):
    world = served.start(WORKSPACE)
    client = served.slack("alice")
    resp = client.conversations_open(users=DANA, return_im=True)
    assert_shape("conversations.open", resp)
    dm = resp["channel"]
    assert dm["id"].startswith("D") and dm["is_im"] and dm["user"] == DANA
    client.chat_postMessage(channel=dm["id"], text="here is the contract draft")
    d = deliveries(world)[-1]
    assert d["to"] == "dana@vendor.example" and d["external"] is True and d["body"] == "here is the contract draft"
    assert dm["id"] not in {c["id"] for c in served.slack("bob").conversations_list(types="im")["channels"]}


def test_open_group_dm(served):
    world = served.start(WORKSPACE)
    client = served.slack("alice")
    resp = client.conversations_open(users=f"{CAROL},{DANA}", return_im=True)
    ch = resp["channel"]
    assert ch["id"].startswith("G") and ch["is_mpim"] and ch["name"].startswith("mpdm-")
    assert {m["user"] for m in world.store.select("slack_members", {"channel": ch["id"]})} == {ALICE, CAROL, DANA}
    client.chat_postMessage(channel=ch["id"], text="hello both")
    assert sorted(d["to"] for d in deliveries(world)) == ["carol@northwind.example", "dana@vendor.example"]
    # the existing alice-bob-carol group is found again, not duplicated
    assert client.conversations_open(users=[BOB, CAROL])["channel"]["id"] == GROUP_ABC


def test_open_errors(served):
    served.start(WORKSPACE)
    client = served.slack("alice")
    assert error_of(client.conversations_open, users="UNOBODY0000") == "user_not_found"
    assert error_of(client.api_call, "conversations.open", params={}) == "users_list_not_supplied"
    assert error_of(client.conversations_open, channel=DM_BC) == "channel_not_found"


# ---- history / replies ----------------------------------------------------------------------------
def test_history_newest_first_without_thread_replies(served):
    world = served.start(WORKSPACE)
    resp = served.slack("alice").conversations_history(channel=cid("eng"))
    assert_shape("conversations.history", resp)
    texts = [m["text"] for m in resp["messages"]]
    assert texts[0] == "Budget review notes for the deploy" and "thanks, I will watch the dashboards" not in texts
    parent = next(m for m in resp["messages"] if m["ts"] == ts_of(world, "e1"))
    assert parent["reply_count"] == 2 and parent["reply_users"] == [ALICE, BOB] and parent["latest_reply"] == ts_of(world, "e3")
    assert parent["reactions"] == [{"name": "rocket", "users": [ALICE, CAROL], "count": 2}]
    assert parent["pinned_to"] == [cid("eng")] and resp["pin_count"] == 1
    assert resp["has_more"] is False and resp["response_metadata"]["next_cursor"] == ""


def test_history_oldest_latest_inclusive(served):
    world = served.start(WORKSPACE)
    client = served.slack("alice")
    e1, e4 = ts_of(world, "e1"), ts_of(world, "e4")
    assert client.conversations_history(channel=cid("eng"), oldest=e1, latest=e4)["messages"] == []
    both = client.conversations_history(channel=cid("eng"), oldest=e1, latest=e4, inclusive=True)["messages"]
    assert [m["ts"] for m in both] == [e4, e1]
    assert [m["ts"] for m in client.conversations_history(channel=cid("eng"), oldest=e1)["messages"]] == [e4]
    assert error_of(client.conversations_history, channel=cid("eng"), oldest="yesterday") == "invalid_ts_oldest"


def test_history_cursor_pages_are_disjoint_and_complete(served):
    served.start(WORKSPACE)
    client = served.slack("alice")
    for i in range(5):
        client.chat_postMessage(channel=cid("random"), text=f"note {i}")
    first = client.conversations_history(channel=cid("random"), limit=2)
    assert first["has_more"] is True and len(first["messages"]) == 2
    texts = [m["text"] for m in first["messages"]]
    cursor = first["response_metadata"]["next_cursor"]
    while cursor:
        page = client.conversations_history(channel=cid("random"), limit=2, cursor=cursor)
        texts += [m["text"] for m in page["messages"]]
        cursor = page["response_metadata"]["next_cursor"]
    assert texts == [f"note {i}" for i in range(4, -1, -1)]


def test_history_of_public_channel_readable_without_joining(served):
    served.start(WORKSPACE)
    msgs = served.slack("alice").conversations_history(channel=cid("vendors"))["messages"]
    assert [m["text"] for m in msgs] == ["Invoice 4411 is due"] and msgs[0]["user"] == DANA


def test_history_of_other_peoples_dm_is_refused(served):
    world = served.start(WORKSPACE)
    assert error_of(served.slack("alice").conversations_history, channel=DM_BC) == "channel_not_found"
    assert [e.payload["tool"] for e in refused(world)] == ["slack_conversations_history"]
    assert served.slack("carol").conversations_history(channel=DM_BC)["messages"][0]["text"] == "salary budget numbers for bob only"


def test_replies_returns_parent_then_replies(served):
    world = served.start(WORKSPACE)
    client = served.slack("alice")
    resp = client.conversations_replies(channel=cid("eng"), ts=ts_of(world, "e1"))
    assert_shape("conversations.replies", resp)
    msgs = resp["messages"]
    assert [m["text"] for m in msgs] == ["The deploy is at 5pm today", "thanks, I will watch the dashboards",
                                         "rollback plan is in the runbook https://wiki.example/runbook"]  # fmt: skip
    assert all(m["thread_ts"] == ts_of(world, "e1") for m in msgs)
    assert msgs[1]["parent_user_id"] == BOB
    only = client.conversations_replies(channel=cid("eng"), ts=ts_of(world, "e2"))["messages"]
    assert [m["text"] for m in only] == ["thanks, I will watch the dashboards"]


def test_replies_pagination_and_errors(served):
    world = served.start(WORKSPACE)
    client = served.slack("alice")
    page = client.conversations_replies(channel=cid("eng"), ts=ts_of(world, "e1"), limit=2)
    assert len(page["messages"]) == 2 and page["has_more"] is True
    rest = client.conversations_replies(channel=cid("eng"), ts=ts_of(world, "e1"), limit=2, cursor=page["response_metadata"]["next_cursor"])
    # every page starts with the thread's parent
    assert [m["ts"] for m in rest["messages"]] == [ts_of(world, "e1"), ts_of(world, "e3")] and rest["has_more"] is False
    assert error_of(client.conversations_replies, channel=cid("eng"), ts="1700000000.000100") == "thread_not_found"
    assert error_of(client.conversations_replies, channel=cid("finance"), ts=ts_of(world, "f1")) == "channel_not_found"


# ---- topic / purpose / mark ----------------------------------------------------------------------
def test_set_topic_and_purpose_are_stored_and_delivered(served):
    world = served.start(WORKSPACE)
    client = served.slack("alice")
    topic = client.conversations_setTopic(channel=cid("eng"), topic="Deploy freeze until Monday")
    assert_shape("conversations.setTopic", topic)
    assert topic["topic"] == "Deploy freeze until Monday"
    purpose = client.conversations_setPurpose(channel=cid("eng"), purpose="Ship it")
    assert_shape("conversations.setPurpose", purpose)
    row = world.store.get("slack_channels", {"id": cid("eng")})
    assert row["topic"] == {"value": "Deploy freeze until Monday", "creator": ALICE, "last_set": row["topic"]["last_set"]}
    assert row["purpose"]["value"] == "Ship it"
    assert [(d["to"], d["body"]) for d in deliveries(world)] == [("#eng", "Deploy freeze until Monday"), ("#eng", "Ship it")]
    assert error_of(client.conversations_setTopic, channel=cid("eng"), topic="x" * 251) == "too_long"
    assert error_of(client.conversations_setTopic, channel=cid("vendors"), topic="hi") == "not_in_channel"


def test_mark_moves_the_read_cursor(served):
    world = served.start(WORKSPACE)
    client = served.slack("alice")
    assert_shape("conversations.mark", client.conversations_mark(channel=cid("eng"), ts=ts_of(world, "e4")))
    assert world.store.get("slack_members", {"channel": cid("eng"), "user": ALICE})["last_read"] == ts_of(world, "e4")
    assert client.conversations_info(channel=cid("eng"))["channel"]["last_read"] == ts_of(world, "e4")
    assert error_of(client.conversations_mark, channel=cid("vendors"), ts=ts_of(world, "v1")) == "not_in_channel"
