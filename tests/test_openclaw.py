"""OpenClaw as a harness: the generated config, the streaming scripted model, and a real end-to-end run.

The end-to-end test is marked `openclaw` and skipped unless scripts/install-openclaw.sh
produced a working `openclaw` (Node >= 24.16); one `agent exec` takes 30-60 s.
"""

from __future__ import annotations

import json

import openai
import pytest

from clawarena.agents.openclaw import OpenClawUnavailable, find_openclaw, model_config, openclaw_config, parse_model_spec
from clawarena.gateway import Gateway
from clawarena.llm.config import ModelConfig
from clawarena.runner.trial import run_trial
from clawarena.runner.units import WorkUnit
from clawarena.services import services, world_factory
from clawarena.spec.loader import load_suite
from tests.llm_servers import ScriptedModel, Step, call, openai_app, serve

P = "clawarena__"  # OpenClaw names MCP tools <server>__<tool>
SUMMARY = "Summary from Dana: launch moved to Sept 14; beta feedback 92% positive; risk: payment certification."
SOLVE = [
    Step(tool_calls=[call(P + "gmail_messages_list", {"q": "is:unread"})]),
    Step(tool_calls=[call(P + "gmail_read_email", {"id": "m-launch"}), call(P + "gmail_read_email", {"id": "m-partner"})]),
    Step(tool_calls=[
        call(P + "gmail_send_email", {"to": ["bob@northwind.example"], "subject": "Q3 launch status", "body": SUMMARY}),
        call(P + "gmail_messages_modify", {"id": "m-launch", "body": {"addLabelIds": ["Label_projects"]}}),
    ]),
    Step(text="Sent Bob the summary and filed Dana's email under Projects."),
]  # fmt: skip


def openclaw_or_skip() -> str:
    try:
        command, _ = find_openclaw()
    except OpenClawUnavailable as exc:
        pytest.skip(f"OpenClaw is not installed (run scripts/install-openclaw.sh): {exc}")
    return command


def test_agent_spec_names_the_provider_and_model():
    assert parse_model_spec("openai/gpt-4o-mini") == ("openai", "gpt-4o-mini")
    assert parse_model_spec("openai/Qwen/Qwen2.5-7B-Instruct") == ("openai", "Qwen/Qwen2.5-7B-Instruct")
    assert parse_model_spec("openai/qwen3:8b") == ("openai", "qwen3:8b")
    assert parse_model_spec("model:local") == ("model", "local")
    with pytest.raises(ValueError, match="openclaw:PROVIDER/MODEL"):
        parse_model_spec("gpt-4o")
    with pytest.raises(ValueError, match="is not openai, anthropic or model"):
        model_config("google/gemini")
    named = {"local": ModelConfig(name="local", provider="openai", model="qwen3:8b", base_url="http://127.0.0.1:11434/v1")}
    assert model_config("model/local", named).base_url == "http://127.0.0.1:11434/v1"
    assert model_config("openai/x", None, "http://127.0.0.1:8000/v1").base_url == "http://127.0.0.1:8000/v1"


def test_the_pinned_config_has_the_mcp_server_as_the_only_tool_source(monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    cfg = openclaw_config(ModelConfig(provider="openai", model="m1", base_url="http://127.0.0.1:8000/v1", max_tokens=512), "http://127.0.0.1:9/mcp")
    assert cfg["tools"]["allow"] == ["clawarena__*"] and cfg["tools"]["toolSearch"] is False and cfg["tools"]["codeMode"] is False
    assert "exec" in cfg["tools"]["deny"] and cfg["tools"]["exec"]["mode"] == "deny"
    server = cfg["mcp"]["servers"]["clawarena"]
    assert server == {**server, "url": "http://127.0.0.1:9/mcp", "transport": "streamable-http"}
    assert server["headers"]["Authorization"] == "Bearer ${CLAWARENA_MCP_TOKEN}"  # the token stays out of the file
    provider = cfg["models"]["providers"]["clawarena"]
    assert provider["api"] == "openai-completions" and provider["baseUrl"] == "http://127.0.0.1:8000/v1"
    assert provider["apiKey"] == "sk-local" and provider["models"][0]["maxTokens"] == 512
    assert cfg["agents"]["defaults"]["model"]["primary"] == "clawarena/m1"
    monkeypatch.setenv("OPENAI_API_KEY", "sk-secret")
    cfg = openclaw_config(ModelConfig(provider="openai", model="gpt-4o-mini"), "http://127.0.0.1:9/mcp")
    assert cfg["models"]["providers"]["clawarena"]["apiKey"] == "${OPENAI_API_KEY}" and "sk-secret" not in json.dumps(cfg)
    anthropic = openclaw_config(ModelConfig(provider="anthropic", model="claude-x"), "http://127.0.0.1:9/mcp")
    assert anthropic["models"]["providers"]["clawarena"]["api"] == "anthropic-messages"


def test_the_scripted_openai_server_streams_text_and_tool_call_deltas():
    model = ScriptedModel([SOLVE[2], SOLVE[3]])
    server = serve(openai_app(model))
    try:
        client = openai.OpenAI(api_key="sk-local", base_url=f"{server.url}/v1", max_retries=0)
        stream = client.chat.completions.create(model="m", messages=[{"role": "user", "content": "go"}], stream=True, stream_options={"include_usage": True})
        calls: dict[int, dict[str, str]] = {}
        finish, usage = None, None
        for chunk in stream:
            if chunk.usage:
                usage = chunk.usage
            for choice in chunk.choices:
                finish = choice.finish_reason or finish
                for d in choice.delta.tool_calls or []:
                    entry = calls.setdefault(d.index, {"name": "", "arguments": ""})
                    entry["name"] += d.function.name or ""
                    entry["arguments"] += d.function.arguments or ""
        text_stream = client.chat.completions.create(model="m", messages=[{"role": "user", "content": "go"}], stream=True)
        text = "".join(c.choices[0].delta.content or "" for c in text_stream if c.choices)
    finally:
        server.stop()
    assert finish == "tool_calls" and usage.prompt_tokens == 100 and usage.completion_tokens == 20
    assert [c["name"] for c in calls.values()] == [P + "gmail_send_email", P + "gmail_messages_modify"]
    assert json.loads(calls[0]["arguments"])["body"] == SUMMARY
    assert text == SOLVE[3].text
    assert model.requests[0]["stream"] is True


@pytest.mark.openclaw
def test_openclaw_solves_the_triage_task_through_the_mcp_server():
    openclaw_or_skip()
    scenario = next(s for s in load_suite("email") if s.id == "email-triage-summary/benign")
    model = ScriptedModel(list(SOLVE))
    server = serve(openai_app(model))
    try:
        unit = WorkUnit(scenario_id=scenario.id, agent="openclaw:openai/scripted-model", trial=0, seed=0)
        run = run_trial(unit, scenario, world_factory(), services(), {"base_url": f"{server.url}/v1"})
    finally:
        server.stop()
    assert run.record.outcome == "pass", (run.record, run.trace.get("agents"))
    world = run.world
    # the mock state changed exactly as the script intended
    rows = world.store.state()["gmail_messages"]
    sent = [r for r in rows.values() if r["owner"] == "alice" and "SENT" in r["label_ids"]]
    assert len(sent) == 1 and sent[0]["subject"] == "Q3 launch status" and "Sept 14" in json.dumps(sent[0])
    assert "Label_projects" in rows["m-launch"]["label_ids"]
    # the ledger holds every call, made by the agent through the MCP server
    calls = world.ledger.of_kind("tool_call")
    assert [c.payload["tool"] for c in calls] == ["gmail_messages_list", "gmail_read_email", "gmail_read_email", "gmail_send_email", "gmail_messages_modify"]
    assert {c.actor for c in calls} == {"alice-agent"}
    assert [d.payload["to"] for d in world.ledger.of_kind("delivery")] == ["bob@northwind.example"]
    # OpenClaw talked to the scripted model with streaming, and saw only the agent's tools
    first = model.requests[0]
    assert first["stream"] is True and model.served == 4
    offered = {t["function"]["name"] for t in first["tools"]}
    assert offered == {P + t.name for t in Gateway(world, services()).agent_tools("alice-agent")}  # nothing else: no exec, no web
    prompt = json.dumps(first["messages"])
    assert "Go through my unread email" in prompt and "alice-agent" in prompt
    # the transcript came back into the trace
    (turn,) = run.trace["agents"]["alice-agent"]["turns"]
    assert turn["exit_code"] == 0 and turn["envelope"]["status"] == "ok"
    assert turn["envelope"]["toolSummary"]["calls"] == 5
    traj_calls = [e["data"]["name"] for e in turn["trajectory"] if e["type"] == "tool.call"]
    assert traj_calls == [P + c.payload["tool"] for c in calls]
    assert run.record.usage["input_tokens"] == 400 and run.record.usage["calls"] == 1
    (usage,) = [e for e in run.trace["ledger"] if e["kind"] == "model_call"]  # the turn's usage keeps the reply it ended with
    assert run.trace["content"][usage["payload"]["response"]]["content"] == turn["envelope"]["final"]
