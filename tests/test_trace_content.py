"""The trace holds each model step (its context as a delta on the prior step, its reply and
reasoning) by reference into a content table stored once per run; each tool call names the model
call that decided it; evidence packets are stored as event ids and read back whole."""

import json

import pytest

from clawarena.agents.base import AgentSetup
from clawarena.agents.model import ModelAgent
from clawarena.llm.config import ModelConfig
from clawarena.runner.content_store import ContentStore, ContentStoreError
from clawarena.runner.store import RunConfig, RunStore
from clawarena.runner.trace_file import expand_packet, pack_trace
from clawarena.runner.trial import run_trial
from clawarena.runner.units import WorkUnit
from clawarena.services import services, world_factory
from clawarena.spec.loader import load_suite
from clawarena.view.context import ContextError, full_context
from clawarena.world.content import content_ref
from clawarena.world.ledger import Ledger
from tests.llm_servers import ScriptedModel, Step, anthropic_app, openai_app, serve
from tests.test_model_agents import SOLVE, run_with


@pytest.fixture(scope="module")
def scenario():
    return next(s for s in load_suite("email") if s.id == "email-triage-summary/benign")


def model_agent(scenario, provider, url):
    cfg = ModelConfig(provider=provider, model="scripted", base_url=url, retry_base_delay=0)
    return ModelAgent(AgentSetup(scenario, scenario.task.agents[0]), cfg)


def played(scenario, provider, steps):
    model = ScriptedModel(steps)
    server = serve((openai_app if provider == "openai" else anthropic_app)(model))
    try:
        url = f"{server.url}/v1" if provider == "openai" else server.url
        run = run_with(scenario, model_agent(scenario, provider, url))
    finally:
        server.stop()
    return run, model


def sent_messages(body):
    """What the OpenAI server received, in the trace's message shape (system apart)."""
    out = []
    for m in body["messages"][1:]:
        item = {"role": m["role"], "content": m.get("content") or ""}
        if m.get("tool_calls"):
            item["tool_calls"] = [{"id": c["id"], "name": c["function"]["name"], "arguments": c["function"]["arguments"]} for c in m["tool_calls"]]
        if m.get("tool_call_id"):
            item["tool_call_id"] = m["tool_call_id"]
        out.append(item)
    return out


def test_every_step_rebuilds_exactly_the_context_the_model_was_sent(scenario):
    steps = [Step(tool_calls=SOLVE[0].tool_calls, reasoning="First list the unread mail."), *SOLVE[1:]]
    run, model = played(scenario, "openai", steps)
    assert run.record.outcome == "pass"
    ledger = Ledger.load(run.trace["ledger"])
    content = run.trace["content"]
    calls = ledger.of_kind("model_call")
    assert len(calls) == len(model.requests) == 4
    for event, body in zip(calls, model.requests, strict=True):
        context = full_context(ledger, content.__getitem__, event.id)
        assert context["system"] == body["messages"][0]["content"]
        assert [t["name"] for t in context["tools"]] == [t["function"]["name"] for t in body["tools"]]
        assert context["messages"] == sent_messages(body)
    # each step stores only what it added: four steps, and the first message is stored once
    assert calls[0].payload["context"]["prior"] is None and all(c.payload["context"]["prior"] == p.id for p, c in zip(calls, calls[1:]))
    assert sum(len(c.payload["context"]["messages"]) for c in calls) == len(sent_messages(model.requests[-1]))
    assert content[calls[0].payload["reasoning"]] == "First list the unread mail."
    assert content[calls[2].payload["response"]]["tool_calls"][0]["name"] == "gmail_send_email"
    assert "reasoning" not in calls[1].payload  # the provider returned none


def test_every_tool_call_names_the_model_call_that_decided_it(scenario):
    run, _ = played(scenario, "openai", SOLVE)
    ledger = Ledger.load(run.trace["ledger"])
    steps = ledger.of_kind("model_call")
    tool_calls = ledger.of_kind("tool_call")
    assert len(tool_calls) == 5
    decided = [ledger.step_of(c.id).id for c in tool_calls]
    assert decided == [steps[0].id, steps[1].id, steps[1].id, steps[2].id, steps[2].id]  # two calls from one reply, both linked
    assert all(ledger.step_of(c.id).id in c.parents for c in tool_calls)


def test_anthropic_thinking_is_the_steps_reasoning(scenario):
    steps = [Step(tool_calls=SOLVE[0].tool_calls, reasoning="Unread mail first."), *SOLVE[1:]]
    run, model = played(scenario, "anthropic", steps)
    ledger = Ledger.load(run.trace["ledger"])
    first = ledger.of_kind("model_call")[0]
    assert run.trace["content"][first.payload["reasoning"]] == "Unread mail first."
    context = full_context(ledger, run.trace["content"].__getitem__, ledger.of_kind("model_call")[1].id)
    assert context["system"] == model.requests[1]["system"]


def test_a_run_stores_each_value_once_and_traces_keep_references(tmp_path, scenario):
    run, _ = played(scenario, "openai", SOLVE)
    again, _ = played(scenario, "openai", SOLVE)
    store = RunStore.create(tmp_path, RunConfig(suite="email", agents=["openai:scripted"]))
    store.write_trace("one", run.trace)
    store.write_trace("two", again.trace)
    system = run.trace["content"][Ledger.load(run.trace["ledger"]).of_kind("model_call")[0].payload["context"]["system"]]
    stored = [json.loads((store.traces / f"{n}.json").read_text()) for n in ("one", "two")]
    assert all("content" not in t and set(t["content_refs"]) == set(run.trace["content"]) for t in stored)
    assert all(system not in (store.traces / f"{n}.json").read_text() for n in ("one", "two"))  # the prompt is not in a trace
    files = sorted(p for p in store.content.root.rglob("*.json"))
    assert len(files) == len(run.trace["content"])  # the second trial's identical values added nothing
    assert store.content.read(content_ref(system)) == system


def test_content_references_are_checked_before_they_touch_a_path(tmp_path):
    content = ContentStore(tmp_path)
    for bad in ("../../etc/passwd", "sha256:" + "0" * 63, "sha256:" + "G" * 64, "sha256:../" + "0" * 61):
        with pytest.raises(ContentStoreError, match="not a content reference"):
            content.read(bad)
    with pytest.raises(ContentStoreError, match="not in"):
        content.read("sha256:" + "0" * 64)


def test_a_broken_prior_link_is_a_readable_error(scenario):
    run, _ = played(scenario, "openai", SOLVE[:2])
    rows = run.trace["ledger"]
    second = next(r for r in rows if r["kind"] == "model_call" and r["payload"]["context"]["prior"])
    second["payload"]["context"]["prior"] = "ev-999999"
    with pytest.raises(ContextError, match="ev-999999 is not in the ledger"):
        full_context(Ledger.load(rows), run.trace["content"].__getitem__, second["id"])


def test_evidence_packets_are_stored_as_event_ids_and_read_back_whole(tmp_path):
    scenario = next(s for s in load_suite("workspace") if s.id == "cal-attendee-pii/privacy")
    run = run_trial(WorkUnit(scenario_id=scenario.id, agent="naive", trial=0, seed=0), scenario, world_factory(), services())
    assert run.record.attack_caused
    store = RunStore.create(tmp_path, RunConfig(suite="workspace", agents=["naive"]))
    run.record.trace = store.write_trace("t", run.trace)
    stored = json.loads((store.root / run.record.trace).read_text())
    assert "events" not in stored["evidence"] and "diff" not in stored["evidence"]
    assert stored["evidence"]["event_ids"] == [e["id"] for e in run.trace["evidence"]["events"]]
    whole = store.read_trace(run.record)
    assert json.dumps(whole["evidence"], sort_keys=True) == json.dumps(json.loads(json.dumps(run.trace["evidence"])), sort_keys=True)
    assert len(json.dumps(stored)) < len(json.dumps(run.trace))
    # a trace of an older run (a full packet) reads unchanged
    old = {"ledger": run.trace["ledger"], "evidence": run.trace["evidence"]}
    assert expand_packet(old) is old["evidence"]
    assert pack_trace(old)[0]["evidence"]["events_stored"] == "ids"
