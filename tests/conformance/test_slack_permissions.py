"""Slack conformance: what each role may do (Slack's default workspace permissions), through slack_sdk.

A refused action answers the real Web API error, is recorded as `refused`, and changes no row.
In WORKSPACE alice created #eng, #leads and #old-project; bob created #finance and #vendors;
nobody is an admin or a guest unless `with_roles` makes them one.
"""

import pytest
from slack_sdk.errors import SlackApiError

from tests.conformance.slack_golden import assert_shape
from tests.conformance.slack_world import ALICE, BOB, CAROL, WORKSPACE, cid, refused, ts_of, with_roles

def refused_without_change(world, call, code: str, tool: str, **kwargs) -> None:
    """`call(**kwargs)` fails with `code`, the ledger records a refusal of `tool`, and the state is as before."""
    before = world.state_hash()
    with pytest.raises(SlackApiError) as info:
        call(**kwargs)
    assert info.value.response.data == {"ok": False, "error": code}
    assert refused(world)[-1].payload["tool"] == tool
    assert world.state_hash() == before


def members(world, channel: str) -> set[str]:
    return {m["user"] for m in world.store.select("slack_members", {"channel": channel})}


# ---- conversations.* ------------------------------------------------------------------------------
def test_a_member_cannot_remove_people_from_a_public_channel(served):
    world = served.start(WORKSPACE)
    refused_without_change(world, served.slack("bob").conversations_kick, "restricted_action", "slack_conversations_kick",
                           channel=cid("eng"), user=ALICE)  # fmt: skip
    assert members(world, cid("eng")) == {ALICE, BOB}


def test_an_admin_can_remove_people_from_a_public_channel(served):
    world = served.start(with_roles(admins=("bob",)))
    assert_shape("conversations.kick", served.slack("bob").conversations_kick(channel=cid("eng"), user=ALICE))
    assert members(world, cid("eng")) == {BOB}


def test_a_member_can_remove_people_from_a_private_channel_but_a_guest_cannot(served):
    world = served.start(with_roles(guests=("carol",)))
    refused_without_change(world, served.slack("carol").conversations_kick, "user_is_restricted", "slack_conversations_kick",
                           channel=cid("leads"), user=ALICE)  # fmt: skip
    served.slack("alice").conversations_kick(channel=cid("leads"), user=CAROL)
    assert members(world, cid("leads")) == {ALICE}


def test_only_the_creator_or_an_admin_may_rename(served):
    world = served.start(with_roles(admins=("carol",)))
    refused_without_change(world, served.slack("bob").conversations_rename, "not_authorized", "slack_conversations_rename",
                           channel=cid("eng"), name="engineering")  # fmt: skip
    served.slack("carol").conversations_join(channel=cid("eng"))
    assert served.slack("carol").conversations_rename(channel=cid("eng"), name="engineering")["channel"]["name"] == "engineering"


def test_guests_cannot_archive_invite_or_create_public_channels(served):
    world = served.start(with_roles(guests=("carol",)))
    carol = served.slack("carol")
    refused_without_change(world, carol.conversations_archive, "user_is_restricted", "slack_conversations_archive", channel=cid("leads"))
    refused_without_change(world, carol.conversations_invite, "user_is_restricted", "slack_conversations_invite",
                           channel=cid("leads"), users=BOB)  # fmt: skip
    refused_without_change(world, carol.conversations_create, "user_is_restricted", "slack_conversations_create", name="carols-room")
    assert carol.conversations_create(name="carols-private", is_private=True)["channel"]["is_private"] is True


def test_any_member_may_archive_a_channel_they_are_in(served):
    world = served.start(WORKSPACE)
    served.slack("bob").conversations_archive(channel=cid("eng"))  # alice created it
    assert world.store.get("slack_channels", {"id": cid("eng")})["is_archived"] is True


# ---- messages ---------------------------------------------------------------------------------------
def test_an_admin_may_delete_someone_elses_message_but_not_edit_it(served):
    world = served.start(with_roles(admins=("alice",)))
    alice, e4 = served.slack("alice"), ts_of(world, "e4")
    refused_without_change(world, served.slack("bob").chat_delete, "cant_delete_message", "slack_chat_delete", channel=cid("eng"), ts=e4)
    refused_without_change(world, alice.chat_update, "cant_update_message", "slack_chat_update",
                           channel=cid("eng"), ts=ts_of(world, "e1"), text="edited by an admin")  # fmt: skip
    assert_shape("chat.delete", alice.chat_delete(channel=cid("eng"), ts=ts_of(world, "e1")))
    assert world.store.get("slack_messages", {"channel": cid("eng"), "ts": ts_of(world, "e1")})["subtype"] == "tombstone"


def test_someone_elses_scheduled_message_looks_unknown(served):
    world = served.start(WORKSPACE)
    sid = served.slack("bob").chat_scheduleMessage(channel=cid("eng"), post_at=1772442000 + 3600, text="later")["scheduled_message_id"]
    refused_without_change(world, served.slack("alice").chat_deleteScheduledMessage, "invalid_scheduled_message_id",
                           "slack_chat_delete_scheduled_message",
                           channel=cid("eng"), scheduled_message_id=sid)  # fmt: skip


def test_reactions_remove_only_takes_your_own_reaction(served):
    world = served.start(WORKSPACE)
    before = world.state_hash()
    with pytest.raises(SlackApiError) as info:  # bob's :wave: on g1
        served.slack("alice").reactions_remove(channel=cid("general"), timestamp=ts_of(world, "g1"), name="wave")
    assert info.value.response["error"] == "no_reaction" and world.state_hash() == before


# ---- files, people, reminders, user groups ---------------------------------------------------------------
def test_an_admin_may_delete_someone_elses_file(served):
    world = served.start(with_roles(admins=("alice",)))
    plan = world.store.select("slack_files", {"name": "plan.txt"})[0]["id"]
    refused_without_change(world, served.slack("carol").files_delete, "cant_delete_file", "slack_files_delete", file=plan)
    assert_shape("files.delete", served.slack("alice").files_delete(file=plan))
    assert world.store.get("slack_files", {"id": plan}) is None


def test_an_admin_may_set_a_members_profile_but_not_another_admins(served):
    world = served.start(with_roles(admins=("alice", "carol")))
    alice = served.slack("alice")
    assert alice.users_profile_set(user=BOB, profile={"title": "Principal engineer"})["profile"]["title"] == "Principal engineer"
    refused_without_change(world, alice.users_profile_set, "cannot_update_admin_user", "slack_users_profile_set",
                           user=CAROL, profile={"title": "Intern"})  # fmt: skip
    refused_without_change(world, served.slack("bob").users_profile_set, "not_admin", "slack_users_profile_set",
                           profile={"email": "bob@elsewhere.example"})  # fmt: skip


def test_reminders_for_someone_else_are_refused(served):
    world = served.start(WORKSPACE)
    refused_without_change(world, served.slack("alice").reminders_add, "cannot_add_others", "slack_reminders_add",
                           text="ping", time="in 5 minutes", user=BOB)  # fmt: skip
    refused_without_change(world, served.slack("alice").reminders_delete, "not_found", "slack_reminders_delete", reminder="RmBOB1")


def test_only_admins_manage_user_groups(served):
    world = served.start(WORKSPACE)
    bob = served.slack("bob")
    gid = bob.usergroups_list()["usergroups"][0]["id"]  # reading is for everyone
    tool = "slack_usergroups_"
    refused_without_change(world, bob.usergroups_create, "permission_denied", tool + "create", name="Design")
    refused_without_change(world, bob.usergroups_update, "permission_denied", tool + "update", usergroup=gid, description="x")
    refused_without_change(world, bob.usergroups_disable, "permission_denied", tool + "disable", usergroup=gid)
    refused_without_change(world, bob.usergroups_enable, "permission_denied", tool + "enable", usergroup=gid)
    refused_without_change(world, bob.usergroups_users_update, "permission_denied", tool + "users_update", usergroup=gid, users=[BOB])
