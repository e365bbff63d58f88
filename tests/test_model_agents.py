"""Model agents over real HTTP against scripted OpenAI- and Anthropic-compatible servers, with the real SDKs."""

import json
import os
import subprocess
import sys

import pytest
import yaml

from clawarena.agents.base import AgentSetup
from clawarena.agents.model import ModelAgent
from clawarena.llm.config import Budget, ModelConfig
from clawarena.runner.trial import run_trial
from clawarena.runner.units import WorkUnit
from clawarena.services import services, world_factory
from clawarena.spec.loader import load_suite
from tests.llm_servers import ScriptedModel, Step, anthropic_app, call, openai_app, serve

SUMMARY = "Summary from Dana: launch moved to Sept 14; beta feedback 92% positive; risk: payment certification due Aug 30."
SOLVE = [
    Step(tool_calls=[call("gmail_messages_list", {"q": "is:unread"})]),
    Step(tool_calls=[call("gmail_read_email", {"id": "m-launch"}), call("gmail_read_email", {"id": "m-partner"})]),
    Step(tool_calls=[
        call("gmail_send_email", {"to": ["bob@northwind.example"], "subject": "Q3 launch status", "body": SUMMARY}),
        call("gmail_messages_modify", {"id": "m-launch", "body": {"addLabelIds": ["Label_projects"]}}),
    ]),
    Step(text="Sent Bob the summary and filed Dana's email under Projects."),
]  # fmt: skip


@pytest.fixture
def scenario():
    return next(s for s in load_suite("email") if s.id == "email-triage-summary/benign")


def run_with(scenario, agent: ModelAgent):
    """run_trial with a prebuilt agent (tests inject configs without a models file)."""
    from clawarena.agents import registry

    registry._KINDS.register("_test_model", registry.AgentKind(lambda setup: agent, registry.DIRECT_HARNESS))
    try:
        return run_trial(WorkUnit(scenario_id=scenario.id, agent="_test_model", trial=0, seed=0), scenario, world_factory(), services())
    finally:
        registry._KINDS.unregister("_test_model")


def make_agent(scenario, provider: str, url: str, **config) -> ModelAgent:
    cfg = ModelConfig(provider=provider, model="scripted", base_url=url, retry_base_delay=0, **config)
    return ModelAgent(AgentSetup(scenario, scenario.task.agents[0]), cfg)


def test_cli_run_with_openai_agent_survives_injected_429_and_500(tmp_path, scenario):
    steps = [Step(fault=429), SOLVE[0], Step(fault=500), Step(fault=503), *SOLVE[1:]]
    model = ScriptedModel(steps)
    server = serve(openai_app(model))
    models = tmp_path / "models.yaml"
    models.write_text(yaml.safe_dump({"models": [{"name": "scripted", "provider": "openai", "model": "scripted-model",
                                                  "retry_base_delay": 0.01, "price": {"input_per_mtok": 2.0, "output_per_mtok": 10.0}}]}))  # fmt: skip
    try:
        out = subprocess.run(
            [sys.executable, "-m", "clawarena.cli", "run", "--suite", "email", "--runs-dir", str(tmp_path), "--run-id", "m", "--agent", "model:scripted",
             "--models", str(models), "--base-url", f"{server.url}/v1", "--task", "email-triage-summary/benign"],
            capture_output=True, text=True, timeout=120, env={**os.environ, "COLUMNS": "200"},
        )  # fmt: skip
    finally:
        server.stop()
    assert out.returncode == 0, out.stderr
    (record,) = [json.loads(line) for line in (tmp_path / "m" / "trials.jsonl").read_text().splitlines()]
    assert record["outcome"] == "pass" and record["utility"] == 1.0
    assert record["usage"]["retries"] == 3 and record["usage"]["calls"] == 4
    assert record["usage"]["input_tokens"] == 400 and record["usage"]["cost_usd"] == pytest.approx((400 * 2 + 80 * 10) / 1e6)
    first = model.requests[0]
    assert {t["function"]["name"] for t in first["tools"]} >= {"gmail_messages_list", "gmail_send_email"}
    assert first["messages"][0]["role"] == "system" and "Alice Chen" in first["messages"][0]["content"]
    assert "Go through my unread email" in first["messages"][1]["content"]
    last = model.requests[-1]["messages"]
    tool_msgs = [m for m in last if m["role"] == "tool"]
    assert len(tool_msgs) == 5 and "Sept 14" in tool_msgs[1]["content"] + tool_msgs[2]["content"]


def test_anthropic_agent_solves_the_task(scenario):
    model = ScriptedModel([Step(fault=429), *SOLVE])
    server = serve(anthropic_app(model))
    try:
        run = run_with(scenario, make_agent(scenario, "anthropic", server.url))
    finally:
        server.stop()
    assert run.record.outcome == "pass", run.record
    assert run.record.usage["retries"] == 1
    body = model.requests[3]  # after the two reads (request 0 was the injected 429)
    assert body["system"].startswith("You are alice-agent")
    results = body["messages"][-1]["content"]
    assert [b["type"] for b in results] == ["tool_result", "tool_result"]  # both results in one user turn
    assert {t["name"] for t in body["tools"]} >= {"gmail_read_email"}


def test_exhausted_retries_end_the_trial_as_an_error_never_a_result(scenario):
    model = ScriptedModel([Step(fault=500)] * 10)
    server = serve(openai_app(model))
    try:
        run = run_with(scenario, make_agent(scenario, "openai", f"{server.url}/v1", max_retries=2))
    finally:
        server.stop()
    assert run.record.outcome == "error" and run.record.termination == "infrastructure_error"
    assert "giving up after 3 attempts" in run.record.error and model.served == 3
    assert not run.record.passed and not run.record.harmed


def test_malformed_tool_calls_get_readable_errors_and_are_counted(scenario):
    model = ScriptedModel([
        Step(tool_calls=[call("gmail_delete_everything", {}), call("gmail_read_email", "{not json"), call("gmail_read_email", {"id": 7, "x": 1})]),
        Step(text="giving up"),
    ])  # fmt: skip
    server = serve(openai_app(model))
    try:
        run = run_with(scenario, make_agent(scenario, "openai", f"{server.url}/v1"))
    finally:
        server.stop()
    assert run.record.malformed_calls == 3 and run.record.outcome == "fail"
    errors = [m["content"] for m in model.requests[1]["messages"] if m["role"] == "tool"]
    assert errors[0].startswith("ERROR 404: unknown tool 'gmail_delete_everything'")
    assert errors[1].startswith("ERROR 400: arguments of gmail_read_email must be a JSON object")
    assert errors[2].startswith("ERROR 400: invalid arguments for gmail_read_email")


def test_token_budget_ends_the_episode_and_is_scored(scenario):
    model = ScriptedModel(SOLVE)
    server = serve(openai_app(model))
    try:
        run = run_with(scenario, make_agent(scenario, "openai", f"{server.url}/v1", budget=Budget(max_tokens=150)))
    finally:
        server.stop()
    assert run.record.termination == "budget" and run.record.outcome == "fail"
    assert model.served == 2


def test_resume_with_retry_errors_reruns_only_errored_trials(tmp_path):
    model = ScriptedModel([Step(fault=500)] * 3 + [Step(text="nothing to do")] * 40)
    server = serve(openai_app(model))
    models = tmp_path / "models.yaml"
    models.write_text(yaml.safe_dump({"models": [{"name": "m", "provider": "openai", "model": "x", "max_retries": 2, "retry_base_delay": 0}]}))
    base = [sys.executable, "-m", "clawarena.cli", "run"]
    try:
        first = subprocess.run([*base, "--suite", "email", "--runs-dir", str(tmp_path), "--run-id", "r", "--agent", "model:m", "--models", str(models),
                                "--base-url", f"{server.url}/v1", "--task", "email-triage-summary/*", "--workers", "1"],  # one at a time: the faults go to the first trial
                               capture_output=True, text=True, timeout=120)  # fmt: skip
        assert first.returncode == 0, first.stderr
        rows = [json.loads(line) for line in (tmp_path / "r" / "trials.jsonl").read_text().splitlines()]
        assert [r["outcome"] for r in rows].count("error") == 1
        second = subprocess.run([*base, "--resume", str(tmp_path / "r"), "--retry-errors"], capture_output=True, text=True, timeout=120)
        assert second.returncode == 0, second.stderr
    finally:
        server.stop()
    rows = [json.loads(line) for line in (tmp_path / "r" / "trials.jsonl").read_text().splitlines()]
    assert len(rows) == 4  # 3 trials + 1 retried line appended
    from clawarena.runner.store import RunStore

    latest = RunStore.open(tmp_path / "r").records()
    assert len(latest) == 3 and all(r.outcome != "error" for r in latest)


def test_bad_model_agent_arguments_fail_before_the_run(tmp_path):
    out = subprocess.run([sys.executable, "-m", "clawarena.cli", "run", "--suite", "email", "--runs-dir", str(tmp_path), "--agent", "openai:"], capture_output=True, text=True)
    assert out.returncode == 2 and "openai: needs a model name" in out.stderr
    out = subprocess.run([sys.executable, "-m", "clawarena.cli", "run", "--suite", "email", "--runs-dir", str(tmp_path), "--agent", "model:nope"], capture_output=True, text=True)
    assert out.returncode == 2 and "no model named 'nope'" in out.stderr


def test_wall_clock_budget_ends_the_episode(scenario):
    model = ScriptedModel(SOLVE)
    server = serve(openai_app(model))
    try:
        agent = make_agent(scenario, "openai", f"{server.url}/v1", budget=Budget(max_seconds=0.000001))
        run = run_with(scenario, agent)
    finally:
        server.stop()
    assert run.record.termination == "budget" and "time budget" in run.record.error and model.served == 1
