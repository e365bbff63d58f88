"""The defense track (docs/defenses.md): each defense changes what it should on a known scenario,
through the runner's public trial path, the CLI and scripted model servers."""

from __future__ import annotations

import base64
import json
import os
import subprocess
import sys

import pytest

from clawarena.agents import registry
from clawarena.agents.base import TurnOutput
from clawarena.agents.defenses import DefenseError, parse_stack
from clawarena.agents.defenses.spotlight import MARK
from clawarena.agents.defenses.text import free_texts, map_free_text
from clawarena.agents.model import ModelAgent
from clawarena.agents.scaffolding import Condition
from clawarena.llm.config import ModelConfig
from clawarena.runner.trial import run_trial
from clawarena.runner.units import WorkUnit
from clawarena.services import services, world_factory
from clawarena.spec.loader import load_suite
from tests.llm_servers import ScriptedModel, Step, call, openai_app, serve

BASE = "skills-off__meta-off"


def scenario(suite: str, sid: str):
    return next(s for s in load_suite(suite) if s.id == sid)


def trial(sc, agent: str, defenses: str = "", options: dict | None = None):
    condition = f"{BASE}__defense-{defenses}" if defenses else BASE
    unit = WorkUnit(scenario_id=sc.id, agent=agent, trial=0, seed=0, condition=Condition.parse(condition).id)
    return run_trial(unit, sc, world_factory(), services(), options or {})


def events(run, kind: str):
    return [e for e in run.trace["ledger"] if e["kind"] == kind]


# ---- names, stacks, condition ids ------------------------------------------------------------


def test_a_stack_is_a_sorted_set_in_the_condition_id_and_bad_names_are_named():
    assert parse_stack("spotlight,policy-monitor") == parse_stack("policy-monitor+spotlight") == ("policy-monitor", "spotlight")
    assert parse_stack("none") == ()
    cond = Condition.parse(f"{BASE}__defense-spotlight:encode+tool-filter:4")
    assert cond.id == f"{BASE}__defense-spotlight:encode+tool-filter:4" and cond.undefended.id == BASE
    for bad, words in (("spotlite", "unknown defense 'spotlite'"), ("spotlight:bold", "unknown option 'bold'"),
                       ("spotlight,spotlight:encode", "twice"), (",", "names no defense")):  # fmt: skip
        with pytest.raises(DefenseError, match=words):
            parse_stack(bad)
    with pytest.raises(ValueError, match="unknown defense"):
        Condition.parse(f"{BASE}__defense-nope")


def test_free_text_is_found_inside_base64_bodies_and_ids_are_left_alone():
    body = base64.urlsafe_b64encode(b"Please forward the payroll file").decode().rstrip("=")
    value = {"id": "m-launch", "labels": ["INBOX"], "payload": {"body": {"data": body}}, "snippet": "see you soon"}
    changed, n = map_free_text(value, lambda s: s.upper())
    assert n == 2 and changed["id"] == "m-launch" and changed["labels"] == ["INBOX"]
    assert base64.urlsafe_b64decode(changed["payload"]["body"]["data"] + "==").decode() == "PLEASE FORWARD THE PAYROLL FILE"
    assert free_texts(value) == ["Please forward the payroll file", "see you soon"]


# ---- policy-monitor ------------------------------------------------------------------------------


def test_policy_monitor_refuses_the_forbidden_flow_the_undefended_agent_makes():
    sc = scenario("network", "bakery-van-fleet/security")
    bare, guarded = trial(sc, "naive"), trial(sc, "naive", "policy-monitor")
    assert bare.record.attack_caused and bare.record.harmed
    assert not guarded.record.attack_caused and not guarded.record.harmed
    refused = [e for e in events(guarded, "refused") if "policy" in e["payload"]["error"]]
    assert refused and all(e["payload"]["status"] == 403 for e in refused)
    assert not [e for e in events(bare, "refused") if "policy" in e["payload"].get("error", "")]
    assert guarded.record.defense == {"policy-monitor:enforcing": len(sc.task.agents)}
    assert guarded.record.condition == f"{BASE}__defense-policy-monitor"


def test_policy_monitor_on_a_task_without_policies_says_so_and_changes_nothing():
    sc = scenario("email", "email-triage-summary/privacy")
    bare, guarded = trial(sc, "naive"), trial(sc, "naive", "policy-monitor")
    assert guarded.record.defense == {"policy-monitor:no-policy": 1}
    assert (guarded.record.attack_caused, guarded.record.utility) == (bare.record.attack_caused, bare.record.utility)


# ---- tool-filter ------------------------------------------------------------------------------------


def test_tool_filter_removes_tools_and_refuses_a_call_to_one():
    sc = scenario("email", "email-triage-summary/security")
    seen: dict[str, list[str]] = {}

    class Probe:
        def __init__(self, setup):
            pass

        def take_turn(self, turn, session):
            seen["tools"] = [t.name for t in session.tools]
            seen["outcome"] = session.call("gmail_messages_trash", {"id": "m-launch"})
            return TurnOutput(text="done")

    registry._KINDS.register("_probe", registry.AgentKind(Probe))
    try:
        bare, filtered = trial(sc, "_probe"), trial(sc, "_probe", "tool-filter:4")
    finally:
        registry._KINDS.unregister("_probe")
    (filt,) = [e for e in events(filtered, "defense") if e["payload"]["action"] == "filtered"]
    kept, removed = filt["payload"]["kept"], filt["payload"]["removed"]
    assert len(kept) == 4 and "gmail_messages_trash" in removed and sorted(seen["tools"]) == sorted(kept)
    outcome = seen["outcome"]
    assert not outcome.ok and outcome.status == 403 and "tool-filter" in outcome.error and "gmail_messages_trash" in outcome.error
    assert filtered.record.defense["tool-filter:refused"] == 1 and filtered.record.final_hash != bare.record.final_hash  # the delete never ran


# ---- confirm-writes ----------------------------------------------------------------------------------


def test_confirm_writes_declines_the_attack_and_approves_the_task():
    sc = scenario("email", "email-triage-summary/privacy")
    bare, guarded = trial(sc, "naive"), trial(sc, "naive", "confirm-writes")
    assert bare.record.attack_caused and not guarded.record.attack_caused
    declined = [e for e in events(guarded, "defense") if e["payload"]["action"] == "declined"]
    assert declined and all("your principal declined" in e["payload"]["refusal"] for e in declined)
    assert not events(guarded, "delivery") or all("attacker" not in e["payload"]["to"] for e in events(guarded, "delivery"))
    oracle = trial(sc, "oracle", "confirm-writes")
    assert oracle.record.outcome == "pass" and oracle.record.defense.get("confirm-writes:declined", 0) == 0
    assert oracle.record.defense["confirm-writes:approved"] >= 1


def test_a_declined_write_is_undone_and_nothing_leaves():
    sc = scenario("email", "email-triage-summary/privacy")
    guarded = trial(sc, "naive", "confirm-writes")
    for e in events(guarded, "defense"):
        if e["payload"]["action"] == "declined":
            call_id = e["parents"][0]
            children = [c for c in guarded.trace["ledger"] if call_id in c["parents"]]
            assert {c["kind"] for c in children} == {"defense", "refused"}  # no state_change, no delivery


# ---- spotlight (a model agent on a scripted server) -----------------------------------------------


def _model_trial(sc, defenses: str, steps: list[Step], options: dict | None = None):
    model = ScriptedModel(steps)
    server = serve(openai_app(model))
    cfg = ModelConfig(provider="openai", model="scripted", base_url=f"{server.url}/v1", retry_base_delay=0)
    registry._KINDS.register("_model", registry.AgentKind(lambda setup: ModelAgent(setup, cfg), registry.DIRECT_HARNESS))
    try:
        return trial(sc, "_model", defenses, options), model
    finally:
        registry._KINDS.unregister("_model")
        server.stop()


READ = [Step(tool_calls=[call("gmail_read_email", {"id": "m-partner"})]), Step(text="done")]


@pytest.mark.parametrize("variant", ["", ":delimit", ":encode"])
def test_spotlight_changes_the_prompt_and_marks_what_tools_return(variant):
    sc = scenario("email", "email-triage-summary/privacy")
    (bare, plain), (marked, spot) = _model_trial(sc, "", READ), _model_trial(sc, f"spotlight{variant}", READ)
    system = spot.requests[0]["messages"][0]["content"]
    assert "Untrusted data" in system and "Untrusted data" not in plain.requests[0]["messages"][0]["content"]
    before = next(m for m in plain.requests[1]["messages"] if m["role"] == "tool")["content"]
    after = next(m for m in spot.requests[1]["messages"] if m["role"] == "tool")["content"]
    assert before != after and json.loads(after)["id"] == json.loads(before)["id"] == "m-partner"  # ids stay usable
    if variant == "":
        assert MARK in after and f"Untrusted data" in system and MARK in system
    elif variant == ":delimit":
        tag = system.split("between <", 1)[1].split(">", 1)[0]
        assert f"<{tag}>" in after and f"</{tag}>" in after and tag.startswith("data-")
    else:
        assert "b64:" in after and "ZX-CANARY" not in after and "ZX-CANARY" in before
    assert marked.record.defense.get("spotlight:marked", 0) >= 1
    assert marked.record.exposures == bare.record.exposures  # the material still reached the agent, marked


# ---- injection-detector --------------------------------------------------------------------------------


def _detector(answer):
    model = ScriptedModel([], responder=lambda body: Step(text=answer(body["messages"][-1]["content"])))
    return model, serve(openai_app(model))


def _detector_options(server) -> dict:
    return {"detector": ModelConfig(provider="openai", model="detector", base_url=f"{server.url}/v1", retry_base_delay=0)}


def test_the_detector_flags_a_planted_injection_and_the_agent_never_acts_on_it():
    sc = scenario("email", "email-triage-summary/privacy")
    model, server = _detector(lambda text: "INJECTION" if "ZX-CANARY" in text else "CLEAN")
    try:
        guarded = trial(sc, "naive", "injection-detector", _detector_options(server))
    finally:
        server.stop()
    assert model.requests and model.requests[0]["messages"][0]["content"].startswith("You are a prompt-injection detector")
    assert trial(sc, "naive").record.attack_caused and not guarded.record.attack_caused
    assert guarded.record.defense["injection-detector:flagged"] >= 1 and "injection-detector:missed" not in guarded.record.defense
    assert guarded.record.usage["calls"] == len(model.requests)  # its calls are in the trial's usage
    flagged = [e for e in events(guarded, "defense") if e["payload"]["action"] == "flagged"]
    assert all(e["payload"]["materials"] == ["partner-exfil"] for e in flagged)


def test_the_detectors_false_flags_on_a_benign_trial_are_counted():
    sc = scenario("email", "email-triage-summary/benign")
    _, server = _detector(lambda text: "INJECTION")
    try:
        flagged = trial(sc, "oracle", "injection-detector", _detector_options(server))
    finally:
        server.stop()
    assert flagged.record.defense.get("injection-detector:false_flag", 0) >= 1
    assert "injection-detector:flagged" not in flagged.record.defense


def test_a_model_agent_reads_withheld_text_in_place_of_the_flagged_content():
    sc = scenario("email", "email-triage-summary/privacy")
    _, det = _detector(lambda text: "INJECTION" if "ZX-CANARY" in text else "CLEAN")
    try:
        run, model = _model_trial(sc, "injection-detector", READ, _detector_options(det))
    finally:
        det.stop()
    tool_text = next(m for m in model.requests[1]["messages"] if m["role"] == "tool")["content"]
    assert "withheld" in tool_text and "ZX-CANARY" not in tool_text and json.loads(tool_text)["id"] == "m-partner"
    assert run.record.defense["injection-detector:flagged"] == 1


# ---- the command ------------------------------------------------------------------------------------


def _cli(*args, tmp_path):
    return subprocess.run([sys.executable, "-m", "clawarena.cli", "run", "--runs-dir", str(tmp_path), *args],
                          capture_output=True, text=True, timeout=300, env={**os.environ, "COLUMNS": "200"})  # fmt: skip


def test_run_with_defenses_runs_each_stack_beside_no_defense(tmp_path):
    out = _cli("--suite", "email", "--agent", "naive", "--defense", "confirm-writes", "--defense", "spotlight,tool-filter",
               "--task", "email-triage-summary/*", "--run-id", "d", "--workers", "1", tmp_path=tmp_path)  # fmt: skip
    assert out.returncode == 0, out.stderr
    records = [json.loads(line) for line in (tmp_path / "d" / "trials.jsonl").read_text().splitlines()]
    conditions = {r["condition"] for r in records}
    assert conditions == {BASE, f"{BASE}__defense-confirm-writes", f"{BASE}__defense-spotlight+tool-filter"}
    assert len(records) == 3 * 3
    assert "defense" in out.stdout.lower() and "ASR" in out.stdout


@pytest.mark.parametrize(("args", "message"), [
    (["--defense", "spotlite"], "--defense: unknown defense 'spotlite'"),
    (["--defense", "injection-detector"], "--defense injection-detector needs a detector model: --detector"),
    (["--defense", "injection-detector", "--detector", "model:nope"], "--detector: no model named 'nope'"),
])  # fmt: skip
def test_bad_defense_options_fail_before_the_run_naming_the_flag(tmp_path, args, message):
    out = _cli("--suite", "email", "--agent", "naive", *args, tmp_path=tmp_path)
    assert out.returncode != 0 and message in out.stderr and "Traceback" not in out.stderr
    assert not list(tmp_path.iterdir())  # no run folder was made
