"""Slack tools declare the arguments the real Web API methods require (docs.slack.dev method pages and
the official clients' signatures: slack_sdk's WebClient and @slack/web-api's request types).

Where a method takes one of several ways to name its target and this mock serves only one
(`reactions.remove`/`reactions.get` by channel + timestamp, never by file), that one is required.
A choice between arguments (`text` or `blocks` or `attachments`; `users` or `channel`) stays optional
and the method answers its own error (`no_text`, `users_list_not_supplied`).
"""

import json

import pytest

from clawarena.services.slack import TOOLS

EXPECTED_REQUIRED = {
    "slack_auth_test": [],
    "slack_bookmarks_add": ["channel_id", "link", "title", "type"],
    "slack_bookmarks_edit": ["bookmark_id", "channel_id"],
    "slack_bookmarks_list": ["channel_id"],
    "slack_bookmarks_remove": ["bookmark_id", "channel_id"],
    "slack_chat_delete": ["channel", "ts"],
    "slack_chat_delete_scheduled_message": ["channel", "scheduled_message_id"],
    "slack_chat_get_permalink": ["channel", "message_ts"],
    "slack_chat_post_ephemeral": ["channel", "user"],
    "slack_chat_post_message": ["channel"],
    "slack_chat_schedule_message": ["channel", "post_at"],
    "slack_chat_scheduled_messages_list": [],
    "slack_chat_update": ["channel", "ts"],
    "slack_conversations_archive": ["channel"],
    "slack_conversations_create": ["name"],
    "slack_conversations_history": ["channel"],
    "slack_conversations_info": ["channel"],
    "slack_conversations_invite": ["channel", "users"],
    "slack_conversations_join": ["channel"],
    "slack_conversations_kick": ["channel", "user"],
    "slack_conversations_leave": ["channel"],
    "slack_conversations_list": [],
    "slack_conversations_mark": ["channel", "ts"],
    "slack_conversations_members": ["channel"],
    "slack_conversations_open": [],
    "slack_conversations_rename": ["channel", "name"],
    "slack_conversations_replies": ["channel", "ts"],
    "slack_conversations_set_purpose": ["channel", "purpose"],
    "slack_conversations_set_topic": ["channel", "topic"],
    "slack_conversations_unarchive": ["channel"],
    "slack_files_complete_upload_external": ["files"],
    "slack_files_delete": ["file"],
    "slack_files_get_upload_url_external": ["filename", "length"],
    "slack_files_info": ["file"],
    "slack_files_list": [],
    "slack_files_upload": [],
    "slack_files_upload_content": ["file_id"],
    "slack_pins_add": ["channel", "timestamp"],
    "slack_pins_list": ["channel"],
    "slack_pins_remove": ["channel", "timestamp"],
    "slack_reactions_add": ["channel", "name", "timestamp"],
    "slack_reactions_get": ["channel", "timestamp"],
    "slack_reactions_list": [],
    "slack_reactions_remove": ["channel", "name", "timestamp"],
    "slack_reminders_add": ["text", "time"],
    "slack_reminders_complete": ["reminder"],
    "slack_reminders_delete": ["reminder"],
    "slack_reminders_info": ["reminder"],
    "slack_reminders_list": [],
    "slack_search_all": ["query"],
    "slack_search_files": ["query"],
    "slack_search_messages": ["query"],
    "slack_team_info": [],
    "slack_usergroups_create": ["name"],
    "slack_usergroups_disable": ["usergroup"],
    "slack_usergroups_enable": ["usergroup"],
    "slack_usergroups_list": [],
    "slack_usergroups_update": ["usergroup"],
    "slack_usergroups_users_list": ["usergroup"],
    "slack_usergroups_users_update": ["usergroup", "users"],
    "slack_users_conversations": [],
    "slack_users_get_presence": [],
    "slack_users_info": ["user"],
    "slack_users_list": [],
    "slack_users_lookup_by_email": ["email"],
    "slack_users_profile_get": [],
    "slack_users_profile_set": [],
    "slack_users_set_presence": ["presence"],
}


def test_the_table_covers_every_slack_tool():
    assert sorted(t.name for t in TOOLS) == sorted(EXPECTED_REQUIRED)


@pytest.mark.parametrize("tool", TOOLS, ids=lambda t: t.name)
def test_required_arguments_are_required_in_the_agent_schema(tool):
    schema = tool.json_schema()
    assert sorted(schema.get("required", [])) == EXPECTED_REQUIRED[tool.name]
    for name in schema.get("required", []):
        assert "default" not in schema["properties"][name]


def test_optional_arguments_show_their_plain_type():
    """An optional string is {"type": "string"} for agents, not anyOf [string, null]."""
    props = next(t for t in TOOLS if t.name == "slack_conversations_history").json_schema()["properties"]
    assert props["cursor"]["type"] == "string" and "anyOf" not in props["cursor"]
    assert props["limit"]["type"] == "integer"
    types = next(t for t in TOOLS if t.name == "slack_conversations_list").json_schema()["properties"]["types"]
    assert types["type"] == "array" and types["items"] == {"type": "string"}


def test_the_slack_schemas_stay_small():
    """What every agent pays per turn for the Slack tools (40,035 characters before issue 8)."""
    assert sum(len(json.dumps(t.spec())) for t in TOOLS) < 36_000
