"""Slack service internals: reminder times, tool naming, schemas, and the golden-shape validator."""

import pytest

from clawarena.services import service
from clawarena.services.slack.api import tool_name
from clawarena.services.slack.core import micro_to_ts, normalize_ts, slack_id, ts_to_micro, user_id_for
from clawarena.services.slack.when import CannotParse, parse_when
from tests.conformance.slack_golden import check, methods

NOW = 1772442000  # Monday 2026-03-02 09:00 UTC


@pytest.mark.parametrize(
    "text, expected",
    [
        ("in 15 minutes", (NOW + 900, False, None)),
        ("in an hour", (NOW + 3600, False, None)),
        ("in 2 days", (NOW + 2 * 86400, False, None)),
        ("300", (NOW + 300, False, None)),
        (str(NOW + 10 * 86400), (NOW + 10 * 86400, False, None)),
        ("tomorrow", (NOW + 86400, False, None)),
        ("tomorrow at 3pm", (NOW + 86400 + 6 * 3600, False, None)),
        ("at 17:30", (NOW + 8 * 3600 + 1800, False, None)),
        ("friday", (NOW + 4 * 86400, False, None)),
        ("2026-03-05T10:00:00Z", (NOW + 3 * 86400 + 3600, False, None)),
        ("every weekday at 9am", (NOW + 86400, True, "every weekday")),
        ("every monday", (NOW + 7 * 86400, True, "every monday")),
    ],
)
def test_reminder_times(text, expected):
    assert parse_when(text, NOW) == expected


@pytest.mark.parametrize("text", ["", "whenever", "at 25:00", "in 5 fortnights"])
def test_reminder_times_that_cannot_parse(text):
    with pytest.raises(CannotParse):
        parse_when(text, NOW)


def test_tool_names_follow_the_method_names():
    assert tool_name("chat.postMessage") == "slack_chat_post_message"
    assert tool_name("files.getUploadURLExternal") == "slack_files_get_upload_url_external"
    assert tool_name("chat.scheduledMessages.list") == "slack_chat_scheduled_messages_list"
    assert tool_name("users.lookupByEmail") == "slack_users_lookup_by_email"


def test_ids_and_ts_helpers():
    assert user_id_for("alice") == user_id_for("alice") != user_id_for("bob")
    assert user_id_for("alice").startswith("U") and len(user_id_for("alice")) == 11
    assert slack_id("C", "general").startswith("C")
    assert normalize_ts("1772442000.0001") == "1772442000.000100"
    assert normalize_ts(1772442000) == "1772442000.000000"
    assert micro_to_ts(ts_to_micro("1772442000.000100") + 100) == "1772442000.000200"


def test_every_method_has_a_golden_shape_and_documented_arguments():
    slack = service("slack")
    by_method = {t.rest.path[len("/api/"):]: t for t in slack.tools if not t.rest.path.startswith("/api/_")}
    assert len(by_method) >= 45
    assert sorted(by_method) == methods()
    for method, t in by_method.items():
        schema = t.json_schema()
        assert t.description, method
        for name, prop in schema["properties"].items():
            assert prop.get("description"), f"{t.name}.{name} has no description"
        assert "request_base_url" not in schema["properties"] and "token" not in schema["properties"]


def test_upload_tool_hides_the_wire_only_media():
    upload = next(t for t in service("slack").tools if t.name == "slack_files_upload_content")
    assert set(upload.json_schema()["properties"]) == {"file_id", "content"}


def test_skills_are_present():
    slack = service("slack")
    assert "slack_chat_post_message" in slack.skill()
    assert {"channels", "search-and-threads"} <= set(slack.skill_pages())


def test_shape_validator():
    spec = {"ok": "boolean", "items": [{"id": "string", "n?": "integer"}], "x": "string|null", "c": "$ref:response_metadata"}
    good = {"ok": True, "items": [{"id": "a"}, {"id": "b", "n": 2}], "x": None, "c": {"next_cursor": ""}}
    assert check(spec, good) == []
    bad = {"ok": 1, "items": [{"n": "2"}], "c": {}}
    problems = check(spec, bad)
    assert "$.ok: expected boolean, got int 1" in problems
    assert "$.items[0]: missing required key 'id'" in problems
    assert any("items[0].n" in p for p in problems) and "$: missing required key 'x'" in problems
    assert "$.c: missing required key 'next_cursor'" in problems
    assert check({"$oneOf": ["string", {"a": "integer"}]}, {"a": 1}) == []
