"""Slack conformance: pins, reactions, reminders, bookmarks and user groups through slack_sdk."""

import pytest
from slack_sdk.errors import SlackApiError

from tests.conformance.slack_golden import assert_shape
from tests.conformance.slack_world import ALICE, BOB, CAROL, DANA, NOW, WORKSPACE, cid, deliveries, refused, ts_of, with_roles


def error_of(call, *args, **kwargs) -> str:
    with pytest.raises(SlackApiError) as info:
        call(*args, **kwargs)
    assert_shape("error", info.value.response.data)
    return info.value.response["error"]


# ---- pins ------------------------------------------------------------------------------------
def test_pins_list_shows_fixture_pin(served):
    world = served.start(WORKSPACE)
    resp = served.slack("alice").pins_list(channel=cid("eng"))
    assert_shape("pins.list", resp)
    assert len(resp["items"]) == 1
    item = resp["items"][0]
    assert item["created_by"] == BOB and item["message"]["ts"] == ts_of(world, "e1") and item["channel"] == cid("eng")


def test_pins_add_and_remove(served):
    world = served.start(WORKSPACE)
    client = served.slack("alice")
    ts = ts_of(world, "e4")
    assert_shape("pins.add", client.pins_add(channel=cid("eng"), timestamp=ts))
    assert world.store.get("slack_pins", {"channel": cid("eng"), "ts": ts})["pinned_by"] == ALICE
    assert [i["message"]["ts"] for i in client.pins_list(channel=cid("eng"))["items"]][0] == ts
    assert error_of(client.pins_add, channel=cid("eng"), timestamp=ts) == "already_pinned"
    assert_shape("pins.remove", client.pins_remove(channel=cid("eng"), timestamp=ts))
    assert world.store.get("slack_pins", {"channel": cid("eng"), "ts": ts}) is None
    assert error_of(client.pins_remove, channel=cid("eng"), timestamp=ts) == "no_pin"


def test_pins_errors(served):
    world = served.start(WORKSPACE)
    client = served.slack("alice")
    assert error_of(client.pins_add, channel=cid("eng"), timestamp="1600000000.000100") == "message_not_found"
    assert error_of(client.pins_add, channel=cid("vendors"), timestamp=ts_of(world, "v1")) == "not_in_channel"
    assert error_of(client.pins_list, channel=cid("finance")) == "channel_not_found"
    assert len(refused(world)) == 2


# ---- reactions ---------------------------------------------------------------------------------
def test_reactions_add_get_remove(served):
    world = served.start(WORKSPACE)
    client = served.slack("alice")
    ts = ts_of(world, "e4")
    assert_shape("reactions.add", client.reactions_add(channel=cid("eng"), timestamp=ts, name="eyes"))
    assert world.store.get("slack_reactions", {"channel": cid("eng"), "ts": ts, "name": "eyes", "user": ALICE}) is not None
    client.api_call("reactions.add", params={"channel": cid("eng"), "timestamp": ts, "name": ":+1:"})
    got = client.reactions_get(channel=cid("eng"), timestamp=ts)
    assert_shape("reactions.get", got)
    assert got["type"] == "message" and [r["name"] for r in got["message"]["reactions"]] == ["eyes", "+1"]
    assert error_of(client.reactions_add, channel=cid("eng"), timestamp=ts, name="eyes") == "already_reacted"
    assert_shape("reactions.remove", client.reactions_remove(channel=cid("eng"), timestamp=ts, name="eyes"))
    assert error_of(client.reactions_remove, channel=cid("eng"), timestamp=ts, name="eyes") == "no_reaction"


def test_reactions_get_counts_fixture_reactions(served):
    world = served.start(WORKSPACE)
    got = served.slack("bob").reactions_get(channel=cid("eng"), timestamp=ts_of(world, "e1"))
    assert got["message"]["reactions"] == [{"name": "rocket", "users": [ALICE, CAROL], "count": 2}]


def test_reactions_errors(served):
    world = served.start(WORKSPACE)
    client = served.slack("alice")
    assert error_of(client.reactions_add, channel=cid("eng"), timestamp=ts_of(world, "e4"), name="not an emoji!") == "invalid_name"
    assert error_of(client.reactions_add, channel=cid("finance"), timestamp=ts_of(world, "f1"), name="eyes") == "channel_not_found"
    assert error_of(client.reactions_get, channel=cid("eng"), timestamp="1600000000.000100") == "message_not_found"


def test_reactions_list_only_visible_items(served):
    world = served.start(WORKSPACE)
    bob = served.slack("bob")
    bob.reactions_add(channel=cid("finance"), timestamp=ts_of(world, "f1"), name="moneybag")
    mine = bob.reactions_list()
    assert_shape("reactions.list", mine)
    assert [i["channel"] for i in mine["items"]] == [cid("finance"), cid("general")]
    # alice asking about bob's reactions does not see the private channel
    seen_by_alice = served.slack("alice").reactions_list(user=BOB)
    assert [i["channel"] for i in seen_by_alice["items"]] == [cid("general")]


# ---- reminders -------------------------------------------------------------------------------
def test_reminders_add_with_natural_language_and_unix_time(served):
    world = served.start(WORKSPACE)
    client = served.slack("alice")
    r = client.reminders_add(text="call the bank", time="in 15 minutes")
    assert_shape("reminders.add", r)
    rem = r["reminder"]
    assert rem["user"] == ALICE and rem["creator"] == ALICE and rem["recurring"] is False
    assert NOW + 15 * 60 <= rem["time"] <= NOW + 15 * 60 + 5 and rem["complete_ts"] == 0
    assert client.reminders_add(text="pay rent", time=str(NOW + 86400 * 3))["reminder"]["time"] == NOW + 86400 * 3
    weekly = client.reminders_add(text="status report", time="every friday at 4pm")["reminder"]
    assert weekly["recurring"] is True
    assert len(world.store.select("slack_reminders", {"user": ALICE})) == 4


def test_reminders_add_errors(served):
    served.start(WORKSPACE)
    client = served.slack("alice")
    assert error_of(client.reminders_add, text="x", time="whenever you like") == "cannot_parse"
    assert error_of(client.reminders_add, text="x", time="in 5 minutes", user=BOB) == "cannot_add_others"


def test_reminders_list_info_complete_delete(served):
    world = served.start(WORKSPACE)
    client = served.slack("alice")
    listing = client.reminders_list()
    assert_shape("reminders.list", listing)
    assert [r["id"] for r in listing["reminders"]] == ["RmALICE1"]
    info = client.reminders_info(reminder="RmALICE1")
    assert_shape("reminders.info", info)
    assert info["reminder"]["text"] == "submit expenses"
    assert_shape("reminders.complete", client.reminders_complete(reminder="RmALICE1"))
    assert world.store.get("slack_reminders", {"id": "RmALICE1"})["complete_ts"] > 0
    assert error_of(client.reminders_complete, reminder="RmALICE1") == "already_completed"
    assert_shape("reminders.delete", client.reminders_delete(reminder="RmALICE1"))
    assert world.store.get("slack_reminders", {"id": "RmALICE1"}) is None


def test_someone_elses_reminder_is_refused(served):
    world = served.start(WORKSPACE)
    client = served.slack("alice")
    assert error_of(client.reminders_info, reminder="RmBOB1") == "not_found"
    assert error_of(client.reminders_delete, reminder="RmBOB1") == "not_found"
    assert len(refused(world)) == 2
    assert world.store.get("slack_reminders", {"id": "RmBOB1"}) is not None


def test_recurring_reminders_cannot_be_completed(served):
    served.start(WORKSPACE)
    client = served.slack("alice")
    rid = client.reminders_add(text="water plants", time="every day at 8am")["reminder"]["id"]
    assert error_of(client.reminders_complete, reminder=rid) == "cannot_complete_recurring"


# ---- bookmarks -----------------------------------------------------------------------------------
def test_bookmarks_add_list_edit_remove(served):
    world = served.start(WORKSPACE)
    client = served.slack("alice")
    listing = client.bookmarks_list(channel_id=cid("eng"))
    assert_shape("bookmarks.list", listing)
    assert [b["title"] for b in listing["bookmarks"]] == ["Runbook"]
    added = client.bookmarks_add(channel_id=cid("eng"), title="Dashboards", type="link", link="https://grafana.example/d/1")
    assert_shape("bookmarks.add", added)
    bid = added["bookmark"]["id"]
    assert deliveries(world)[-1]["to"] == "#eng" and "grafana.example" in deliveries(world)[-1]["body"]
    edited = client.bookmarks_edit(bookmark_id=bid, channel_id=cid("eng"), title="Grafana")
    assert_shape("bookmarks.edit", edited)
    assert edited["bookmark"]["title"] == "Grafana" and world.store.get("slack_bookmarks", {"id": bid})["title"] == "Grafana"
    assert [b["title"] for b in client.bookmarks_list(channel_id=cid("eng"))["bookmarks"]] == ["Runbook", "Grafana"]
    assert_shape("bookmarks.remove", client.bookmarks_remove(bookmark_id=bid, channel_id=cid("eng")))
    assert world.store.get("slack_bookmarks", {"id": bid}) is None


def test_bookmarks_errors(served):
    served.start(WORKSPACE)
    client = served.slack("alice")
    assert error_of(client.bookmarks_add, channel_id=cid("eng"), title="x", type="link", link="not a url") == "invalid_link"
    assert error_of(client.bookmarks_add, channel_id=cid("finance"), title="x", type="link", link="https://x.example") == "channel_not_found"
    assert error_of(client.bookmarks_remove, bookmark_id="BkNOPE", channel_id=cid("eng")) == "not_found"


# ---- user groups ------------------------------------------------------------------------------------
def test_usergroups_create_list_update(served):
    world = served.start(with_roles(admins=("alice",)))  # user groups are for admins
    client = served.slack("alice")
    created = client.usergroups_create(name="Design", handle="design", description="Designers", channels=[cid("random")], include_count=True)
    assert_shape("usergroups.create", created)
    gid = created["usergroup"]["id"]
    assert gid.startswith("S") and created["usergroup"]["prefs"]["channels"] == [cid("random")] and created["usergroup"]["user_count"] == 0
    listing = client.usergroups_list(include_users=True)
    assert_shape("usergroups.list", listing)
    assert [g["handle"] for g in listing["usergroups"]] == ["design", "eng-team"]
    assert next(g for g in listing["usergroups"] if g["handle"] == "eng-team")["users"] == [ALICE, BOB]
    updated = client.usergroups_update(usergroup=gid, description="Product designers")
    assert_shape("usergroups.update", updated)
    assert world.store.get("slack_usergroups", {"id": gid})["description"] == "Product designers"
    assert error_of(client.usergroups_create, name="Design", handle="design2") == "name_already_exists"
    assert error_of(client.usergroups_create, name="Other", handle="alice") == "handle_already_exists"


def test_usergroups_users_and_enable_disable(served):
    world = served.start(with_roles(admins=("alice",)))  # user groups are for admins
    client = served.slack("alice")
    gid = client.usergroups_list()["usergroups"][0]["id"]
    users = client.usergroups_users_list(usergroup=gid)
    assert_shape("usergroups.users.list", users)
    assert users["users"] == [ALICE, BOB]
    upd = client.usergroups_users_update(usergroup=gid, users=[ALICE, CAROL, DANA])
    assert_shape("usergroups.users.update", upd)
    assert world.store.get("slack_usergroups", {"id": gid})["users"] == [ALICE, CAROL, DANA]
    disabled = client.usergroups_disable(usergroup=gid)
    assert_shape("usergroups.disable", disabled)
    assert disabled["usergroup"]["date_delete"] > 0 and client.usergroups_list()["usergroups"] == []
    assert len(client.usergroups_list(include_disabled=True)["usergroups"]) == 1
    enabled = client.usergroups_enable(usergroup=gid)
    assert_shape("usergroups.enable", enabled)
    assert enabled["usergroup"]["date_delete"] == 0
    assert error_of(client.usergroups_users_update, usergroup=gid, users="UNOBODY0000") == "invalid_users"
    assert error_of(client.usergroups_users_list, usergroup="SNOPE") == "no_such_subteam"
