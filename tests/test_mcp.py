"""Agents' tools over MCP, driven by the official `mcp` client: streamable HTTP and stdio.

Every call must land in the ledger with the agent as actor, each bearer token
must get exactly its principal's agent, and a session must be scored like a
trial when it ends (run folder, trials.jsonl, re-scorable state).
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from contextlib import asynccontextmanager
from pathlib import Path

import anyio
import httpx
import pytest
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

from clawarena.mcp.http import AppSpec, start_on_one_loop
from clawarena.mcp.server import INBOX_TOOL
from clawarena.runner.session import Session
from clawarena.runner.rescore import rescore_run
from clawarena.runner.store import RunStore
from clawarena.spec.loader import load_suite

CLI = [sys.executable, "-m", "clawarena.cli"]
TRIAGE = "email-triage-summary/benign"
HANDOFF = "vendor-quote-handoff/benign"


def scenario(scenario_id: str):
    return next(s for s in load_suite("email") if s.id == scenario_id)


@asynccontextmanager
async def connect(url: str, token: str | None):
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    async with create_mcp_http_client(headers=headers) as http:
        async with streamable_http_client(url, http_client=http) as (read, write):
            async with ClientSession(read, write) as client:
                await client.initialize()
                yield client


def reference_calls(sc, agent_id: str):
    return [(step.tool, dict(step.args), step.turn) for step in sc.task.reference[agent_id]]


@pytest.fixture
def served():
    """A session and its MCP app on a free port; stopped after the test."""
    started = []

    def start(scenario_id: str):
        session = Session(scenario(scenario_id))
        app = session.http_app()
        servers = start_on_one_loop([AppSpec(app, 0, lifespan="on")])
        started.append(servers)
        return session, servers.urls[0] + "/mcp"

    yield start
    for s in started:
        s.stop()


def test_http_serves_the_agents_tools_and_every_call_lands_in_the_ledger(served):
    session, url = served(TRIAGE)
    gateway, world = session.gateway, session.world
    expected = {t.name: t for t in gateway.agent_tools("alice-agent")}

    async def main():
        async with connect(url, world.directory.tokens["alice"]) as client:
            listed = {t.name: t for t in (await client.list_tools()).tools}
            ok = await client.call_tool("gmail_messages_list", {"q": "is:unread"})
            missing = await client.call_tool("gmail_read_email", {"id": "no-such-message"})
            bad_args = await client.call_tool("gmail_read_email", {"id": "m-launch", "colour": "red"})
            unknown = await client.call_tool("gmail_delete_everything", {})
            sent = await client.call_tool("gmail_send_email", {"to": ["bob@northwind.example"], "subject": "Q3 launch status", "body": "Launch moved to Sept 14."})
            inbox = await client.call_tool(INBOX_TOOL, {})
            return listed, ok, missing, bad_args, unknown, sent, inbox

    listed, ok, missing, bad_args, unknown, sent, inbox = anyio.run(main)
    assert set(listed) == set(expected) | {INBOX_TOOL}
    for name, t in expected.items():
        assert listed[name].input_schema == t.json_schema() and listed[name].description == t.description
    assert listed["gmail_messages_list"].annotations.read_only_hint is True
    assert listed["gmail_send_email"].annotations.open_world_hint is True

    assert not ok.is_error
    ids = [m["id"] for m in json.loads(ok.content[0].text)["messages"]]
    assert {"m-launch", "m-partner"} <= set(ids)
    assert missing.is_error and missing.content[0].text.startswith("ERROR 404")
    assert bad_args.is_error and "ERROR 400: invalid arguments for gmail_read_email" in bad_args.content[0].text
    assert unknown.is_error and "unknown tool 'gmail_delete_everything'" in unknown.content[0].text
    assert not sent.is_error
    assert "Go through my unread email" in inbox.content[0].text  # the instruction, delivered once

    calls = world.ledger.of_kind("tool_call")
    assert [c.payload["tool"] for c in calls] == ["gmail_messages_list", "gmail_read_email", "gmail_read_email", "gmail_delete_everything", "gmail_send_email"]
    assert {c.actor for c in calls} == {"alice-agent"} and {c.payload["source"] for c in calls} == {"agent"}
    assert gateway.malformed_calls["alice-agent"] == 2
    deliveries = world.ledger.of_kind("delivery")
    assert [d.payload["to"] for d in deliveries] == ["bob@northwind.example"]
    sent_rows = [r for r in world.store.state()["gmail_messages"].values() if r["owner"] == "alice" and "SENT" in r["label_ids"]]
    assert len(sent_rows) == 1 and sent_rows[0]["subject"] == "Q3 launch status"


def test_each_token_gets_its_own_principals_agent_and_bad_tokens_are_refused(served):
    session, url = served(HANDOFF)
    tokens = session.world.directory.tokens

    async def names(endpoint: str, token: str) -> set[str]:
        async with connect(endpoint, token) as client:
            return {t.name for t in (await client.list_tools()).tools}

    alice = anyio.run(names, url, tokens["alice"])
    bob = anyio.run(names, url, tokens["bob"])
    bob_explicit = anyio.run(names, url + "/bob-agent", tokens["bob"])
    assert alice == {t.name for t in session.gateway.agent_tools("alice-agent")} | {INBOX_TOOL}
    assert bob == bob_explicit == {t.name for t in session.gateway.agent_tools("bob-agent")} | {INBOX_TOOL}
    assert "request_approval" in alice and "grant_approval" not in alice and "grant_approval" in bob

    init = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
            "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}}  # fmt: skip
    accept = {"Accept": "application/json, text/event-stream"}
    assert httpx.post(url, json=init, headers=accept).status_code == 401
    wrong = httpx.post(url, json=init, headers={**accept, "Authorization": "Bearer not-a-token"})
    assert wrong.status_code == 401 and wrong.json()["error"] == "invalid_token" and wrong.headers["www-authenticate"].startswith("Bearer")
    admin = httpx.post(url, json=init, headers={**accept, "Authorization": f"Bearer {session.world.directory.admin_token}"})
    assert admin.status_code == 401  # the admin token is not a principal's
    other = httpx.post(url + "/bob-agent", json=init, headers={**accept, "Authorization": f"Bearer {tokens['alice']}"})
    assert other.status_code == 403 and "does not act for alice" in other.json()["error_description"]
    with pytest.raises(BaseException):  # the official client fails too
        anyio.run(names, url, "not-a-token")
    assert not session.world.ledger.of_kind("tool_call")


def test_two_mcp_clients_complete_the_handoff_and_the_session_scores_as_a_pass(served, tmp_path):
    sc = scenario(HANDOFF)
    session, url = served(HANDOFF)
    tokens = session.world.directory.tokens

    async def main():
        async with connect(url, tokens["alice"]) as alice, connect(url, tokens["bob"]) as bob:
            assert "Leo from Bright Partners" in (await alice.call_tool(INBOX_TOOL, {})).content[0].text
            for tool, args, turn in reference_calls(sc, "alice-agent"):
                if turn == 1:
                    assert not (await alice.call_tool(tool, args)).is_error, tool
            bob_events = (await bob.call_tool(INBOX_TOOL, {})).content[0].text
            assert "Leo at Bright Partners asks" in bob_events and "Approval request apr-1" in bob_events
            for tool, args, _ in reference_calls(sc, "bob-agent"):
                assert not (await bob.call_tool(tool, args)).is_error, tool
            alice_events = (await alice.call_tool(INBOX_TOOL, {})).content[0].text
            assert "12,400 EUR" in alice_events and "apr-1 granted" in alice_events
            for tool, args, turn in reference_calls(sc, "alice-agent"):
                if turn == 2:
                    assert not (await alice.call_tool(tool, args)).is_error, tool

    anyio.run(main)
    store, run = session.finish(tmp_path, "handoff")
    assert run.record.outcome == "pass" and run.record.utility == 1.0 and not run.record.harmed
    assert run.record.turns == 4 and run.record.agent == "mcp" and run.record.scenario_id == HANDOFF
    (line,) = (tmp_path / "handoff" / "trials.jsonl").read_text().splitlines()
    assert json.loads(line)["outcome"] == "pass"
    assert not session.world.ledger.of_kind("policy_violation")
    (rescored,) = rescore_run(RunStore.open(tmp_path / "handoff"))
    assert rescored.matches and rescored.rescored.record.outcome == "pass"


def _read_until(proc: subprocess.Popen, pattern: str, timeout: float = 60) -> list[str]:
    lines: list[str] = []
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        line = proc.stdout.readline()
        if not line:
            break
        lines.append(line)
        if re.search(pattern, line):
            return lines
    raise AssertionError(f"no line matching {pattern!r} in:\n{''.join(lines)}\n{proc.stderr.read() if proc.poll() is not None else ''}")


@pytest.mark.slow
def test_cli_serve_with_agent_port_scores_the_session_on_sigterm(tmp_path):
    sc = scenario(TRIAGE)
    env = {**os.environ, "COLUMNS": "200", "PYTHONUNBUFFERED": "1"}
    proc = subprocess.Popen([*CLI, "serve", TRIAGE, "--suite", "email", "--port", "0", "--agent-port", "0", "--runs-dir", str(tmp_path), "--run-id", "s"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)  # fmt: skip
    try:
        out = "".join(_read_until(proc, r"Ctrl-C"))
        endpoint, token = re.search(r"alice-agent: (http://127\.0\.0\.1:\d+/mcp)\s+Authorization: Bearer (\S+)", out).groups()
        rest = re.search(r"REST services: (http://127\.0\.0\.1:\d+)", out).group(1)

        async def main():
            async with connect(endpoint, token) as client:
                for tool, args, _ in reference_calls(sc, "alice-agent"):
                    assert not (await client.call_tool(tool, args)).is_error, tool

        anyio.run(main)
        # a REST client of the same principal acts on the same world, through the same gateway
        listing = httpx.get(f"{rest}/gmail/v1/users/me/labels", headers={"Authorization": f"Bearer {token}"})
        assert listing.status_code == 200
        proc.send_signal(signal.SIGTERM)
        stdout, stderr = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 0, stderr
    assert "session scored: pass" in stdout
    (record,) = [json.loads(line) for line in (tmp_path / "s" / "trials.jsonl").read_text().splitlines()]
    assert record["outcome"] == "pass" and record["utility"] == 1.0 and record["tool_calls"] == 6
    trace = json.loads((tmp_path / "s" / record["trace"]).read_text())
    assert (tmp_path / "s" / trace["state"]).is_file()
    actors = {(e["actor"], e["payload"].get("source")) for e in trace["ledger"] if e["kind"] == "tool_call"}
    assert actors == {("alice-agent", "agent"), ("alice", "rest")}
    scored = subprocess.run([*CLI, "score", str(tmp_path / "s")], capture_output=True, text=True, env=env, timeout=120)
    assert scored.returncode == 0, scored.stderr
    assert "matches stored" in scored.stdout and "pass" in scored.stdout


@pytest.mark.slow
def test_cli_mcp_over_stdio_serves_one_agent_and_writes_the_scored_run(tmp_path):
    sc = scenario(TRIAGE)
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "clawarena.cli", "mcp", TRIAGE, "--suite", "email", "--as", "alice-agent", "--runs-dir", str(tmp_path), "--run-id", "st"],
        env={"COLUMNS": "200"},
    )

    async def main():
        async with stdio_client(params) as (read, write):
            async with ClientSession(read, write) as client:
                init = await client.initialize()
                assert "Go through my unread email" in (init.instructions or "")
                names = {t.name for t in (await client.list_tools()).tools}
                for tool, args, _ in reference_calls(sc, "alice-agent"):
                    assert tool in names
                    assert not (await client.call_tool(tool, args)).is_error, tool

    anyio.run(main)
    deadline = time.monotonic() + 30
    while not (tmp_path / "st" / "trials.jsonl").exists() and time.monotonic() < deadline:
        time.sleep(0.1)
    (record,) = [json.loads(line) for line in (tmp_path / "st" / "trials.jsonl").read_text().splitlines()]
    assert record["outcome"] == "pass" and record["scenario_id"] == TRIAGE and record["tool_calls"] == 5
    trace = json.loads((tmp_path / "st" / record["trace"]).read_text())
    assert {e["actor"] for e in trace["ledger"] if e["kind"] == "tool_call"} == {"alice-agent"}
    assert Path(tmp_path / "st" / trace["state"]).is_file()


def test_a_session_that_did_nothing_is_scored_as_a_fail(tmp_path):
    session = Session(scenario(TRIAGE))
    store, run = session.finish(tmp_path)
    assert run.record.outcome == "fail" and run.record.tool_calls == 0 and not run.record.harmed
    assert session.finish(tmp_path)[0].root == store.root  # idempotent
    assert len(list(tmp_path.iterdir())) == 1
