"""Tokens are secrets from the CSPRNG, wire-only parameters are not an agent's to set, and a
tool that crashes after writing leaves no trace in the state and ends its trial as an error."""

from __future__ import annotations

import dataclasses
import hashlib

import google.oauth2.credentials
import httpx
import pytest
from googleapiclient.discovery import build

from clawarena.agents.base import AgentSetup
from clawarena.agents.registry import make_agent
from clawarena.gateway import Gateway, ToolFault
from clawarena.runner.episode import run_episode
from clawarena.runner.trial import score_world
from clawarena.runner.units import WorkUnit
from clawarena.server.app import WorldApp
from clawarena.server.serve import start_in_thread
from clawarena.services import services, world_factory


def gmail(url: str, token: str):
    creds = google.oauth2.credentials.Credentials(token=token)
    return build("gmail", "v1", credentials=creds, static_discovery=True, client_options={"api_endpoint": url}).users()


def list_status(url: str, token: str) -> int:
    return httpx.get(f"{url}/gmail/v1/users/me/messages", headers={"Authorization": f"Bearer {token}"}).status_code


def old_derived_token(scenario_id: str, kind: str, who: str) -> str:
    """How tokens were made before: derivable by anyone who knows the public scenario id."""
    return f"{kind}-{who}-" + hashlib.sha256(f"{scenario_id}/{kind}/{who}".encode()).hexdigest()[:20]


@pytest.fixture
def two_servers(mini_scenarios):
    factory = world_factory()
    scenario = mini_scenarios["benign"]
    worlds = [factory.build(scenario, 0) for _ in range(2)]
    servers = [start_in_thread(WorldApp(Gateway(w, services()), services()).app, port=0) for w in worlds]
    yield scenario, worlds, servers
    for s in servers:
        s.stop()


def test_two_serves_of_one_scenario_get_different_random_tokens(two_servers):
    scenario, (a, b), (sa, sb) = two_servers
    assert a.directory.tokens["alice"] != b.directory.tokens["alice"]
    assert a.directory.admin_token != b.directory.admin_token
    assert len(set(a.directory.tokens.values()) | set(b.directory.tokens.values()) | {a.directory.admin_token}) == 5
    # Each token works on its own world only.
    assert gmail(sa.url, a.directory.tokens["alice"]).messages().list(userId="me").execute()["messages"]
    assert list_status(sb.url, a.directory.tokens["alice"]) == 401
    # The state (and its hash) does not depend on the secrets.
    assert a.state_hash() == b.state_hash()


def test_a_token_computed_from_the_public_scenario_id_is_refused(two_servers):
    scenario, (world, _), (server, _) = two_servers
    forged_admin = old_derived_token(scenario.id, "admin", "world")
    r = httpx.get(f"{server.url}/_admin/state", headers={"Authorization": f"Bearer {forged_admin}"})
    assert r.status_code == 401
    assert list_status(server.url, world.directory.tokens["alice"]) == 200
    for forged in (old_derived_token(scenario.id, "ca", "alice"), "ca-alice", "ca-", world.directory.admin_token):
        assert list_status(server.url, forged) == 401


def test_wire_only_parameters_are_refused_from_agents(mini_scenarios, make_world):
    world, gw = make_world(mini_scenarios["benign"])
    tool = gw.tools["gmail_messages_list"]
    assert "user_id" not in tool.json_schema()["properties"]
    for name in ("user_id", "userId"):  # the Python name and the wire alias
        out = gw.call("alice-agent", "gmail_messages_list", {name: "bob@northwind.example"})
        assert not out.ok and out.status == 400
        assert "unknown argument" in out.error and name in out.error
    # A REST client holding alice's token may name the mailbox on the wire (and is refused another's).
    rest = gw.call_as_principal("alice", "gmail_messages_list", {"userId": "bob@northwind.example"})
    assert not rest.ok and rest.status == 403


def test_the_server_base_url_is_not_an_argument_anyone_can_set(mini_scenarios, make_world):
    world, gw = make_world(mini_scenarios["benign"])
    upload = gw.tools["slack_files_get_upload_url_external"]
    assert "request_base_url" not in upload.args_model.model_fields  # it travels in the call context


def _faulty(tool):
    """A tool that writes a row, then fails with a defect (not an API error)."""

    def fn(ctx, **kwargs):
        ctx.store.insert("gmail_labels", {"id": "Label_ghost", "owner": ctx.principal.id, "name": "Ghost", "type": "user"})
        raise RuntimeError("boom after writing")

    return dataclasses.replace(tool, fn=fn)


def _has_ghost(world) -> bool:
    return bool(world.store.select("gmail_labels", {"id": "Label_ghost"}))


def test_a_crashing_tool_rolls_back_and_the_next_call_does_not_take_the_blame(mini_scenarios, make_world):
    world, gw = make_world(mini_scenarios["benign"])
    gw.tools["gmail_read_email"] = _faulty(gw.tools["gmail_read_email"])
    with pytest.raises(ToolFault, match="boom after writing"):
        gw.call("alice-agent", "gmail_read_email", {"id": "m1"})
    assert not _has_ghost(world)
    failed = world.ledger.of_kind("tool_result")[-1]
    assert failed.payload["ok"] is False and failed.payload["status"] == 500
    assert gw.fault and "gmail_read_email" in gw.fault
    # A later successful write commits only its own rows and its state_change names only them.
    gw.fault = None
    assert gw.call("alice-agent", "gmail_labels_create", {"body": {"name": "Real"}}).ok
    assert not _has_ghost(world)
    changes = [c for e in world.ledger.of_kind("state_change") for c in e.payload["changes"]]
    assert changes and all("Label_ghost" not in c["key"] for c in changes)


def test_a_crashing_tool_ends_the_trial_as_an_error(mini_scenarios, make_world):
    scenario = mini_scenarios["benign"]
    world, gw = make_world(scenario)
    gw.tools["gmail_read_email"] = _faulty(gw.tools["gmail_read_email"])
    agents = {a.id: make_agent("oracle", AgentSetup(scenario, a)) for a in scenario.task.agents}
    episode = run_episode(gw, agents, scenario.task.turn_cap)
    assert episode.termination == "infrastructure_error" and "boom after writing" in (episode.error or "")
    run = score_world(WorkUnit(scenario_id=scenario.id, agent="oracle", trial=0, seed=0), scenario, world, episode)
    assert run.record.outcome == "error" and "gmail_read_email" in (run.record.error or "")
    assert not _has_ghost(world)


def test_a_crash_over_rest_is_recorded_and_the_world_keeps_serving(mini_scenarios, make_world):
    world, gw = make_world(mini_scenarios["benign"])
    gw.tools["gmail_labels_create"] = _faulty(gw.tools["gmail_labels_create"])
    outcome = gw.call_as_principal("alice", "gmail_labels_create", {"userId": "me", "body": {"name": "X"}})
    assert not outcome.ok and outcome.status == 500 and gw.fault
    assert not _has_ghost(world)
    assert gw.call_as_principal("alice", "gmail_messages_list", {"userId": "me"}).ok


def test_wire_only_and_unknown_arguments_are_refused_over_mcp(mini_scenarios, make_world):
    import anyio
    from mcp import Client

    from clawarena.mcp.server import agent_server

    world, gw = make_world(mini_scenarios["benign"])

    async def calls():
        async with Client(agent_server(gw, "alice-agent")) as client:
            listed = {t.name: t for t in (await client.list_tools()).tools}
            assert "user_id" not in listed["gmail_messages_list"].input_schema["properties"]
            hidden = await client.call_tool("gmail_messages_list", {"userId": "bob@northwind.example"})
            unknown = await client.call_tool("gmail_messages_list", {"no_such_arg": 1})
            fine = await client.call_tool("gmail_messages_list", {})
            return hidden, unknown, fine

    hidden, unknown, fine = anyio.run(calls)
    assert hidden.is_error and "userId: unknown argument" in hidden.content[0].text
    assert unknown.is_error and "no_such_arg" in unknown.content[0].text
    assert not fine.is_error
    refused = [e for e in world.ledger.of_kind("tool_result") if e.payload["ok"] is False]
    assert len(refused) == 2 and all(e.actor == "alice-agent" for e in refused)


def test_deeply_nested_arguments_are_a_readable_error_and_the_ledger_stays_writable(mini_scenarios, make_world):
    import json

    world, gw = make_world(mini_scenarios["benign"])
    deep: object = "x"
    for _ in range(20_000):
        deep = [deep]
    out = gw.call("alice-agent", "gmail_send_email", {"to": ["a@b.example"], "subject": deep, "body": "b"})
    assert not out.ok and out.status == 400 and "nested deeper than 64" in out.error
    json.dumps(world.ledger.dump())  # the recorded call holds no unserializable depth
    ok_nested = gw.call("alice-agent", "gmail_messages_list", {"label_ids": ["INBOX"]})
    assert ok_nested.ok


def test_a_lone_surrogate_in_agent_arguments_is_a_readable_error_not_a_crash(mini_scenarios, make_world):
    import json

    world, gw = make_world(mini_scenarios["benign"])
    for args in ({"body": {"name": "\ud800"}}, {"body": {"name": "ok", "\udfff": 1}}):
        out = gw.call("alice-agent", "gmail_labels_create", args)
        assert not out.ok and out.status == 400 and "lone surrogate" in out.error
    assert gw.fault is None
    calls = [e.payload["args"] for e in world.ledger.of_kind("tool_call")]
    assert calls == [{"body": {"name": "\ud800"}}, {"body": {"name": "ok", "\udfff": 1}}]  # the evidence, as sent
    assert json.loads(json.dumps(world.ledger.dump()))[-2]["payload"]["args"]["body"]["\udfff"] == 1


def test_json_inside_slack_form_fields_is_bounded(mini_scenarios, make_world):
    from clawarena.services.slack.args import _json

    deep = "[" * 5000 + "]" * 5000
    assert _json(deep) == deep  # left as text: the method answers invalid_<field>
    assert _json('["\\ud800"]') == '["\\ud800"]'
    assert _json('[{"type": "section"}]') == [{"type": "section"}]
