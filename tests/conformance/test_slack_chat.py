"""Slack conformance: chat.* through the official slack_sdk WebClient."""

import pytest
from slack_sdk.errors import SlackApiError

from tests.conformance.slack_golden import assert_shape
from tests.conformance.slack_world import ALICE, BOB, DM_AB, NOW, WORKSPACE, cid, deliveries, refused, ts_of

BLOCKS = [
    {"type": "section", "text": {"type": "mrkdwn", "text": "*Deploy* is done"}},
    {"type": "context", "elements": [{"type": "mrkdwn", "text": "by alice"}]},
]


def error_of(call, *args, **kwargs) -> str:
    with pytest.raises(SlackApiError) as info:
        call(*args, **kwargs)
    assert_shape("error", info.value.response.data)
    return info.value.response["error"]


def test_post_message_shape_state_and_delivery(served):
    world = served.start(WORKSPACE)
    resp = served.slack("alice").chat_postMessage(channel=cid("eng"), text="Deploy finished :tada:")
    assert_shape("chat.postMessage", resp)
    assert resp["channel"] == cid("eng") and resp["message"]["user"] == ALICE and resp["message"]["text"] == "Deploy finished :tada:"
    assert resp["ts"] == resp["message"]["ts"]
    row = world.store.get("slack_messages", {"channel": cid("eng"), "ts": resp["ts"]})
    assert row["user"] == ALICE and row["text"] == "Deploy finished :tada:" and row["thread_ts"] is None
    d = deliveries(world)
    assert len(d) == 1 and d[0]["to"] == "#eng" and d[0]["channel"] == "slack" and d[0]["sender"] == "alice@northwind.example"
    assert d[0]["body"] == "Deploy finished :tada:"


def test_ts_values_follow_the_world_clock_and_strictly_increase(served):
    served.start(WORKSPACE)
    client = served.slack("alice")
    stamps = [client.chat_postMessage(channel=cid("random"), text=f"m{i}")["ts"] for i in range(4)]
    assert stamps == sorted(stamps) and len(set(stamps)) == 4
    assert all(s.endswith(".000100") and NOW < int(s.split(".")[0]) < NOW + 60 for s in stamps)


def test_post_blocks_are_stored_as_given(served):
    world = served.start(WORKSPACE)
    resp = served.slack("alice").chat_postMessage(channel=cid("eng"), text="fallback", blocks=BLOCKS, mrkdwn=False)
    assert resp["message"]["blocks"] == BLOCKS
    assert world.store.get("slack_messages", {"channel": cid("eng"), "ts": resp["ts"]})["blocks"] == BLOCKS
    history = served.slack("bob").conversations_history(channel=cid("eng"), limit=1)["messages"][0]
    assert history["blocks"] == BLOCKS
    assert "*Deploy* is done" in deliveries(world)[-1]["body"]


def test_post_by_channel_name_and_to_a_user_id(served):
    world = served.start(WORKSPACE)
    client = served.slack("alice")
    assert client.chat_postMessage(channel="#eng", text="by name")["channel"] == cid("eng")
    dm = client.chat_postMessage(channel=BOB, text="direct")
    assert dm["channel"] == DM_AB
    assert deliveries(world)[-1]["to"] == "bob@northwind.example"


def test_thread_reply_and_broadcast(served):
    world = served.start(WORKSPACE)
    client = served.slack("alice")
    parent = ts_of(world, "e1")
    reply = client.chat_postMessage(channel=cid("eng"), text="done, all green", thread_ts=parent)
    assert_shape("chat.postMessage", reply)
    assert reply["message"]["thread_ts"] == parent and reply["message"]["parent_user_id"] == BOB
    top = [m["ts"] for m in client.conversations_history(channel=cid("eng"))["messages"]]
    assert reply["ts"] not in top
    loud = client.chat_postMessage(channel=cid("eng"), text="FYI everyone", thread_ts=parent, reply_broadcast=True)
    history = client.conversations_history(channel=cid("eng"))["messages"]
    assert history[0]["ts"] == loud["ts"] and history[0]["subtype"] == "thread_broadcast"
    thread = client.conversations_replies(channel=cid("eng"), ts=parent)["messages"]
    assert [m["ts"] for m in thread][-2:] == [reply["ts"], loud["ts"]] and thread[0]["reply_count"] == 4


def test_reply_to_a_reply_joins_the_parent_thread(served):
    world = served.start(WORKSPACE)
    resp = served.slack("alice").chat_postMessage(channel=cid("eng"), text="nested", thread_ts=ts_of(world, "e2"))
    assert resp["message"]["thread_ts"] == ts_of(world, "e1")


def test_post_errors(served):
    world = served.start(WORKSPACE)
    client = served.slack("alice")
    assert error_of(client.chat_postMessage, channel="CNOSUCHTHING", text="x") == "channel_not_found"
    assert error_of(client.chat_postMessage, channel=cid("eng"), text="") == "no_text"
    assert error_of(client.chat_postMessage, channel=cid("eng"), text="x" * 40001) == "msg_too_long"
    assert error_of(client.chat_postMessage, channel=cid("eng"), blocks=[{"text": "no type"}]) == "invalid_blocks"
    assert error_of(client.chat_postMessage, channel=cid("eng"), text="x", thread_ts="1600000000.000100") == "thread_not_found"
    assert deliveries(world) == []


def test_post_to_a_public_channel_you_are_not_in_is_refused(served):
    world = served.start(WORKSPACE)
    assert error_of(served.slack("alice").chat_postMessage, channel=cid("vendors"), text="hello") == "not_in_channel"
    events = refused(world)
    assert len(events) == 1 and events[0].payload["tool"] == "slack_chat_post_message" and events[0].payload["reason"] == "not_in_channel"
    assert world.store.select("slack_messages", {"channel": cid("vendors"), "user": ALICE}) == []
    assert deliveries(world) == []


def test_post_to_a_private_channel_you_are_not_in_is_channel_not_found(served):
    world = served.start(WORKSPACE)
    assert error_of(served.slack("alice").chat_postMessage, channel=cid("finance"), text="hi") == "channel_not_found"
    assert error_of(served.slack("alice").chat_postMessage, channel="#finance", text="hi") == "channel_not_found"
    assert len(refused(world)) == 2


def test_post_to_an_archived_channel(served):
    served.start(WORKSPACE)
    assert error_of(served.slack("alice").chat_postMessage, channel=cid("old-project"), text="anyone?") == "is_archived"


def test_post_ephemeral_is_delivered_but_not_stored(served):
    world = served.start(WORKSPACE)
    before = len(world.store.select("slack_messages"))
    resp = served.slack("alice").chat_postEphemeral(channel=cid("eng"), user=BOB, text="only you can see this")
    assert_shape("chat.postEphemeral", resp)
    assert len(world.store.select("slack_messages")) == before
    d = deliveries(world)[-1]
    assert d["to"] == "bob@northwind.example" and d["body"] == "only you can see this"
    assert error_of(served.slack("alice").chat_postEphemeral, channel=cid("eng"), user="UNOBODY0000", text="x") == "user_not_found"


def test_post_ephemeral_to_a_non_member(served):
    served.start(WORKSPACE)
    from tests.conformance.slack_world import CAROL

    assert error_of(served.slack("alice").chat_postEphemeral, channel=cid("eng"), user=CAROL, text="psst") == "user_not_in_channel"


def test_update_own_message(served):
    world = served.start(WORKSPACE)
    client = served.slack("alice")
    ts = ts_of(world, "e4")
    resp = client.chat_update(channel=cid("eng"), ts=ts, text="Budget review notes (v2)")
    assert_shape("chat.update", resp)
    assert resp["text"] == "Budget review notes (v2)" and resp["message"]["edited"]["user"] == ALICE
    row = world.store.get("slack_messages", {"channel": cid("eng"), "ts": ts})
    assert row["text"] == "Budget review notes (v2)" and row["edited"]["user"] == ALICE
    assert deliveries(world)[-1]["body"] == "Budget review notes (v2)"


def test_update_someone_elses_message_is_refused(served):
    world = served.start(WORKSPACE)
    assert error_of(served.slack("alice").chat_update, channel=cid("eng"), ts=ts_of(world, "e1"), text="hacked") == "cant_update_message"
    assert world.store.get("slack_messages", {"channel": cid("eng"), "ts": ts_of(world, "e1")})["text"] == "The deploy is at 5pm today"
    assert refused(world)[-1].payload["reason"] == "cant_update_message"
    assert error_of(served.slack("alice").chat_update, channel=cid("eng"), ts="1600000000.000100", text="x") == "message_not_found"


def test_delete_own_message_removes_it(served):
    world = served.start(WORKSPACE)
    client = served.slack("alice")
    ts = client.chat_postMessage(channel=cid("random"), text="oops")["ts"]
    resp = client.chat_delete(channel=cid("random"), ts=ts)
    assert_shape("chat.delete", resp)
    assert resp["ts"] == ts and world.store.get("slack_messages", {"channel": cid("random"), "ts": ts}) is None
    assert error_of(client.chat_delete, channel=cid("random"), ts=ts) == "message_not_found"


def test_delete_parent_with_replies_leaves_a_tombstone(served):
    world = served.start(WORKSPACE)
    client = served.slack("bob")
    client.chat_delete(channel=cid("eng"), ts=ts_of(world, "e1"))
    thread = client.conversations_replies(channel=cid("eng"), ts=ts_of(world, "e1"))["messages"]
    assert thread[0]["subtype"] == "tombstone" and len(thread) == 3
    assert world.store.select("slack_pins", {"channel": cid("eng")}) == []


def test_delete_someone_elses_message_is_refused(served):
    world = served.start(WORKSPACE)
    assert error_of(served.slack("alice").chat_delete, channel=cid("eng"), ts=ts_of(world, "e1")) == "cant_delete_message"
    assert world.store.get("slack_messages", {"channel": cid("eng"), "ts": ts_of(world, "e1")}) is not None
    assert refused(world)[-1].payload["tool"] == "slack_chat_delete"


def test_get_permalink(served):
    world = served.start(WORKSPACE)
    client = served.slack("alice")
    ts = ts_of(world, "e1")
    resp = client.chat_getPermalink(channel=cid("eng"), message_ts=ts)
    assert_shape("chat.getPermalink", resp)
    assert resp["permalink"] == f"https://northwind.slack.com/archives/{cid('eng')}/p{ts.replace('.', '')}"
    reply = client.chat_getPermalink(channel=cid("eng"), message_ts=ts_of(world, "e2"))["permalink"]
    assert reply.endswith(f"?thread_ts={ts}&cid={cid('eng')}")
    assert error_of(client.chat_getPermalink, channel=cid("finance"), message_ts=ts_of(world, "f1")) == "channel_not_found"


def test_schedule_list_and_delete_scheduled_messages(served):
    world = served.start(WORKSPACE)
    client = served.slack("alice")
    resp = client.chat_scheduleMessage(channel=cid("eng"), text="standup in 10", post_at=NOW + 3600)
    assert_shape("chat.scheduleMessage", resp)
    sid = resp["scheduled_message_id"]
    assert sid.startswith("Q") and resp["post_at"] == NOW + 3600
    assert deliveries(world)[-1]["to"] == "#eng"
    listing = client.chat_scheduledMessages_list(channel=cid("eng"))
    assert_shape("chat.scheduledMessages.list", listing)
    assert [(m["id"], m["text"]) for m in listing["scheduled_messages"]] == [(sid, "standup in 10")]
    assert served.slack("bob").chat_scheduledMessages_list()["scheduled_messages"] == []
    assert_shape("chat.deleteScheduledMessage", client.chat_deleteScheduledMessage(channel=cid("eng"), scheduled_message_id=sid))
    assert world.store.select("slack_scheduled_messages") == []
    assert error_of(client.chat_deleteScheduledMessage, channel=cid("eng"), scheduled_message_id=sid) == "invalid_scheduled_message_id"


def test_schedule_errors(served):
    served.start(WORKSPACE)
    client = served.slack("alice")
    assert error_of(client.chat_scheduleMessage, channel=cid("eng"), text="x", post_at=NOW - 60) == "time_in_past"
    assert error_of(client.chat_scheduleMessage, channel=cid("eng"), text="x", post_at=NOW + 200 * 86400) == "time_too_far"
    assert error_of(client.chat_scheduleMessage, channel=cid("vendors"), text="x", post_at=NOW + 60) == "not_in_channel"


def test_scheduled_message_appears_when_its_time_comes(served):
    world = served.start(WORKSPACE)
    client = served.slack("alice")
    client.chat_scheduleMessage(channel=cid("random"), text="later", post_at=NOW + 3)
    for _ in range(3):  # every call moves the world clock one second
        client.auth_test()
    latest = client.conversations_history(channel=cid("random"), limit=1)["messages"][0]
    assert latest["text"] == "later" and latest["ts"] == f"{NOW + 3}.000100"
    assert world.store.select("slack_scheduled_messages") == []
