"""Slack conformance: auth.test, team.info and users.* through slack_sdk."""

import pytest
from slack_sdk.errors import SlackApiError

from tests.conformance.slack_golden import assert_shape
from tests.conformance.slack_world import ALICE, BOB, CAROL, DANA, DM_AB, ERIN, GROUP_ABC, WORKSPACE, cid, refused


def error_of(call, *args, **kwargs) -> str:
    with pytest.raises(SlackApiError) as info:
        call(*args, **kwargs)
    assert_shape("error", info.value.response.data)
    return info.value.response["error"]


def test_auth_test_names_the_caller(served):
    served.start(WORKSPACE)
    resp = served.slack("bob").auth_test()
    assert_shape("auth.test", resp)
    assert resp["user_id"] == BOB and resp["user"] == "bob" and resp["team"] == "Northwind"
    assert resp["url"] == "https://northwind.slack.com/" and resp["team_id"].startswith("T")


def test_user_ids_are_derived_from_principals(served):
    served.start(WORKSPACE)
    ids = {served.slack(p).auth_test()["user_id"] for p in ("alice", "bob", "carol")}
    assert ids == {ALICE, BOB, CAROL}
    assert all(len(i) == 11 and i.startswith("U") and i[1:].isalnum() and i == i.upper() for i in ids)


def test_invalid_token_is_invalid_auth(served):
    served.start(WORKSPACE)
    from slack_sdk import WebClient

    bad = WebClient(token="xoxp-not-a-token", base_url=served.server.url + "/api/")
    assert error_of(bad.auth_test) == "invalid_auth"
    assert error_of(bad.conversations_list) == "invalid_auth"


def test_team_info(served):
    served.start(WORKSPACE)
    resp = served.slack("alice").team_info()
    assert_shape("team.info", resp)
    assert resp["team"]["name"] == "Northwind" and resp["team"]["domain"] == "northwind"
    assert resp["team"]["email_domain"] == "northwind.example"


def test_team_from_fixture(served):
    served.start({"slack": {"team": {"name": "Acme Labs", "domain": "acme"}}})
    client = served.slack("alice")
    assert client.team_info()["team"]["domain"] == "acme" and client.auth_test()["url"] == "https://acme.slack.com/"


def test_users_list_includes_outside_and_deactivated_people(served):
    served.start(WORKSPACE)
    resp = served.slack("alice").users_list()
    assert_shape("users.list", resp)
    by_name = {u["name"]: u for u in resp["members"]}
    assert list(by_name) == ["alice", "bob", "carol", "dana", "erin"]
    assert by_name["dana"]["is_restricted"] is True and by_name["dana"]["profile"]["email"] == "dana@vendor.example"
    assert by_name["erin"]["deleted"] is True
    assert by_name["bob"]["profile"]["title"] == "Staff engineer" and by_name["alice"]["real_name"] == "Alice Chen"


def test_users_list_pagination(served):
    served.start(WORKSPACE)
    client = served.slack("alice")
    first = client.users_list(limit=3)
    assert len(first["members"]) == 3 and first["response_metadata"]["next_cursor"]
    second = client.users_list(limit=3, cursor=first["response_metadata"]["next_cursor"])
    assert [u["name"] for u in second["members"]] == ["dana", "erin"] and second["response_metadata"]["next_cursor"] == ""


def test_users_info_and_not_found(served):
    served.start(WORKSPACE)
    client = served.slack("alice")
    resp = client.users_info(user=DANA)
    assert_shape("users.info", resp)
    assert resp["user"]["real_name"] == "Dana Vendor" and resp["user"]["profile"]["title"] == "Account manager"
    assert error_of(client.users_info, user="UNOBODY0000") == "user_not_found"


def test_users_lookup_by_email(served):
    served.start(WORKSPACE)
    client = served.slack("alice")
    resp = client.users_lookupByEmail(email="Carol@Northwind.example")
    assert_shape("users.lookupByEmail", resp)
    assert resp["user"]["id"] == CAROL
    assert error_of(client.users_lookupByEmail, email="nobody@nowhere.example") == "users_not_found"


def test_users_conversations_only_what_the_caller_may_see(served):
    served.start(WORKSPACE)
    client = served.slack("alice")
    mine = client.users_conversations(types="public_channel,private_channel,im,mpim")
    assert_shape("users.conversations", mine)
    assert {c["id"] for c in mine["channels"]} == {cid("general"), cid("random"), cid("eng"), cid("leads"), cid("old-project"), DM_AB, GROUP_ABC}
    bobs = client.users_conversations(user=BOB, types="public_channel,private_channel")
    assert {c["name"] for c in bobs["channels"]} == {"general", "random", "eng", "old-project", "vendors"}  # not #finance
    assert "old-project" not in {c["name"] for c in client.users_conversations(exclude_archived=True)["channels"]}


def test_profile_get_and_set(served):
    world = served.start(WORKSPACE)
    client = served.slack("alice")
    got = client.users_profile_get()
    assert_shape("users.profile.get", got)
    assert got["profile"]["real_name"] == "Alice Chen" and got["profile"]["email"] == "alice@northwind.example"
    resp = client.users_profile_set(profile={"title": "VP Engineering", "status_text": "In Lisbon", "status_emoji": ":airplane:"})
    assert_shape("users.profile.set", resp)
    assert resp["profile"]["title"] == "VP Engineering"
    row = world.store.get("slack_users", {"id": ALICE})
    assert row["title"] == "VP Engineering" and row["status_text"] == "In Lisbon" and row["principal"] == "alice"
    assert served.slack("bob").users_profile_get(user=ALICE)["profile"]["status_emoji"] == ":airplane:"
    client.users_profile_set(name="display_name", value="ally")
    assert client.users_info(user=ALICE)["user"]["profile"]["display_name"] == "ally"


def test_profile_set_for_someone_else_is_refused(served):
    world = served.start(WORKSPACE)
    client = served.slack("alice")
    assert error_of(client.users_profile_set, user=BOB, profile={"title": "Intern"}) == "not_admin"
    assert refused(world)[-1].payload["tool"] == "slack_users_profile_set"
    assert client.users_info(user=BOB)["user"]["profile"]["title"] == "Staff engineer"
    assert error_of(client.users_profile_set, profile={"email": "evil@x.example"}) == "not_admin"
    assert error_of(client.users_profile_get, user=ERIN[:-1] + "Z") == "user_not_found"


def test_presence_get_and_set(served):
    world = served.start(WORKSPACE)
    client = served.slack("alice")
    me = client.users_getPresence(user=ALICE)
    assert_shape("users.getPresence", me)
    assert me["presence"] == "active" and me["manual_away"] is False
    assert_shape("users.setPresence", client.users_setPresence(presence="away"))
    assert world.store.get("slack_users", {"id": ALICE})["presence"] == "away"
    other = served.slack("bob").users_getPresence(user=ALICE)
    assert other["presence"] == "away" and "manual_away" not in other.data
    assert error_of(client.users_setPresence, presence="busy") == "invalid_presence"
    assert served.slack("bob").users_getPresence(user=DANA)["presence"] == "away"
