"""`clawarena tools list|show` and docs/tools.md, which is generated from the same code."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from typer.testing import CliRunner

from clawarena.cli import app
from clawarena.commands.tools import render_markdown, type_text
from clawarena.gateway import GATEWAY_TOOLS
from clawarena.services import all_tools

ROOT = Path(__file__).resolve().parent.parent
runner = CliRunner()


def invoke(*args: str):
    result = runner.invoke(app, list(args), env={"COLUMNS": "100"})
    return result


def test_list_names_every_tool_with_its_kind_and_rest_binding():
    result = invoke("tools", "list")
    assert result.exit_code == 0, result.output
    for t in [*all_tools(), *GATEWAY_TOOLS]:
        assert t.name in result.stdout
    assert "gmail_messages_list  READ  GET /gmail/v1/users/{userId}/messages" in result.stdout
    assert "send_message" in result.stdout and f"{len(all_tools()) + len(GATEWAY_TOOLS)} tool(s)" in result.stdout


def test_list_filters_by_service_and_by_an_agent_of_a_scenario():
    docs = invoke("tools", "list", "--service", "docs")
    assert docs.exit_code == 0 and "docs_documents_get" in docs.stdout and "gmail_" not in docs.stdout
    agent = invoke("tools", "list", "--scenario", "email-triage-summary/benign", "--suite", "email", "--agent", "alice-agent", "--format", "json")
    assert agent.exit_code == 0, agent.output
    names = {t["name"] for t in json.loads(agent.stdout)}
    assert {"gmail_messages_list", "gmail_send_email"} <= names and not any(n.startswith("slack_") for n in names)
    one_agent = invoke("tools", "list", "--scenario", "email-triage-summary/benign", "--suite", "email", "--format", "json")
    assert {t["name"] for t in json.loads(one_agent.stdout)} == names  # the only agent is the default


def test_list_refuses_bad_selections_in_one_line():
    cases = [
        (["--service", "fax"], "--service: unknown service 'fax'"),
        (["--agent", "alice-agent"], "--agent: needs --scenario"),
        (["--scenario", "vendor-quote-handoff/benign", "--suite", "email"], "--agent: vendor-quote-handoff/benign has agents alice-agent, bob-agent"),
        (["--scenario", "vendor-quote-handoff/benign", "--suite", "email", "--agent", "eve"], "--agent: no agent 'eve'"),
        (["--scenario", "nope/benign", "--suite", "email"], "--scenario: unknown scenario 'nope/benign'"),
    ]
    for args, expected in cases:
        result = invoke("tools", "list", *args)
        assert result.exit_code == 2 and expected in result.stderr, (args, result.output)
        assert len(result.stderr.strip().splitlines()) == 1


def test_show_prints_description_kind_binding_and_every_argument():
    result = invoke("tools", "show", "gmail_messages_list")
    assert result.exit_code == 0, result.output
    out = result.stdout
    assert "gmail_messages_list  (gmail, READ)" in out and "GET /gmail/v1/users/{userId}/messages" in out
    assert "max_results  integer (1-500), default 100" in out and "Gmail search query" in out
    assert "user_id" not in out  # wire-only: agents never see it
    schema = json.loads(invoke("tools", "show", "calendar_events_insert", "--format", "json").stdout)
    assert schema["kind"] in ("WRITE", "SEND") and schema["rest"]["path"].startswith("/calendar/v3/")
    assert "Event" in schema["parameters"]["$defs"]
    nested = invoke("tools", "show", "calendar_events_insert").stdout
    assert "types used above" in nested and "responseStatus" in nested


def test_show_an_unknown_tool_suggests_close_names():
    result = invoke("tools", "show", "gmail_mesages_list")
    assert result.exit_code == 2 and "did you mean gmail_messages_list" in result.stderr


def test_type_text():
    assert type_text({"type": "integer", "minimum": 1, "maximum": 5}) == "integer (1-5)"
    assert type_text({"type": "integer", "minimum": 1}) == "integer (>= 1)"
    assert type_text({"type": "array", "items": {"$ref": "#/$defs/Attendee"}}) == "array of Attendee"
    assert type_text({"enum": ["a", "b"], "type": "string"}) == '"a" | "b"'
    assert type_text({"type": "object", "additionalProperties": {"type": "string"}}) == "object of string"


def test_docs_tools_md_is_generated_from_the_tools_and_up_to_date():
    committed = (ROOT / "docs" / "tools.md").read_text()
    assert committed == render_markdown(), "docs/tools.md is stale: run python scripts/tools_docs.py"
    for t in [*all_tools(), *GATEWAY_TOOLS]:
        assert f"### `{t.name}`" in committed
    check = subprocess.run([sys.executable, str(ROOT / "scripts" / "tools_docs.py"), "--check"], capture_output=True, text=True, timeout=120)
    assert check.returncode == 0, check.stderr
