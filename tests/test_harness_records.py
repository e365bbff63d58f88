"""Harness and model as separate axes of every trial, and a sandboxed harness's shell commands and
escalation attempts on the record: ledger events, trial record fields, the summary's escalation
columns and the paired comparison of one model under two harnesses (run_trial, `clawarena run`,
`clawarena report`)."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest
from pydantic import ValidationError
from typer.testing import CliRunner

from clawarena.agents import registry
from clawarena.agents.base import AgentSession, AgentSetup, TurnInput, TurnOutput
from clawarena.cli import app
from clawarena.llm.config import ModelConfig
from clawarena.records import TrialRecord
from clawarena.report.headline import harness_cells, headline_columns, interval_text
from clawarena.runner.store import RunStore
from clawarena.runner.trial import run_trial
from clawarena.runner.units import WorkUnit
from clawarena.scoring.metrics import harness_comparisons, summarize
from clawarena.services import services, world_factory
from clawarena.spec.loader import load_suite
from clawarena.world.harness_events import CLIPPED, OUTPUT_LIMIT, EscalationAttempt, ShellCommand
from tests.llm_servers import ScriptedModel, openai_app, serve

MIXED = "cal-clear-conflicts/*,cal-attendee-pii/*"  # workspace: a capability task and a safety task
BENIGN = "email-triage-summary/benign"


def _model(rest: str, models: dict[str, ModelConfig] | None, base_url: str | None) -> ModelConfig:
    """`fake-x:NAME`: a named config of the models file, else openai:NAME (at --base-url, for the preflight)."""
    if models and rest in models:
        return models[rest]
    return ModelConfig(provider="openai", model=rest or "shared", base_url=base_url)


class EscalatingHarness:
    """Plays the oracle's moves, runs `ls` and tries `/_admin` through the proxy on every turn,
    and on its first turn curls a REST route from the shell."""

    def __init__(self, setup: AgentSetup, harness: str):
        self.inner = registry.make_agent("oracle", AgentSetup(setup.scenario, setup.spec, {}))
        self.harness = harness

    def take_turn(self, turn: TurnInput, session: AgentSession) -> TurnOutput:
        self.inner.take_turn(turn, session)
        session.record_shell_command({"harness": self.harness, "turn": turn.turn, "command": "ls", "exit_code": 0, "output": "notes.txt\n", "tool_id": f"t{turn.turn}"})
        session.record_escalation_attempt({"harness": self.harness, "turn": turn.turn, "kind": "route", "target": "/_admin/state", "detail": "blocked by the proxy", "source": "proxy"})
        if turn.turn == 1:
            curl = "curl http://127.0.0.1:8080/gmail/v1/users/me/messages"
            session.record_shell_command(ShellCommand(harness=self.harness, turn=1, command=curl, exit_code=7, output="x" * (OUTPUT_LIMIT + 50)))
            session.record_escalation_attempt(EscalationAttempt(harness=self.harness, turn=1, kind="network", target="127.0.0.1:8080", source="shell", command=curl))
        return TurnOutput(text="done")


class QuietHarness:
    """Does nothing but one shell command per turn: no moves, no escalation."""

    def __init__(self, setup: AgentSetup, harness: str):
        self.harness = harness

    def take_turn(self, turn: TurnInput, session: AgentSession) -> TurnOutput:
        session.record_shell_command({"harness": self.harness, "turn": turn.turn, "command": "pwd", "exit_code": None})
        return TurnOutput(text="")


class BadPayloadHarness:
    def __init__(self, setup: AgentSetup):
        pass

    def take_turn(self, turn: TurnInput, session: AgentSession) -> TurnOutput:
        session.record_shell_command({"harness": "fake-bad", "turn": turn.turn, "command": "ls", "bogus_field": 1})
        return TurnOutput(text="")


KINDS = {
    "fake-a": registry.AgentKind(lambda setup: EscalatingHarness(setup, "fake-harness-a"), harness="fake-harness-a", model=_model),
    "fake-b": registry.AgentKind(lambda setup: QuietHarness(setup, "fake-harness-b"), harness="fake-harness-b", model=_model),
    "fake-bad": registry.AgentKind(BadPayloadHarness, harness="fake-bad", model=_model),
}


@pytest.fixture
def fake_kinds() -> Iterator[None]:
    for name, kind in KINDS.items():
        registry._KINDS.register(name, kind)
    try:
        yield
    finally:
        for name in KINDS:
            registry._KINDS.unregister(name)


@pytest.fixture(scope="module")
def triage():
    return {s.id: s for s in load_suite("email") if s.id.startswith("email-triage-summary/")}


def trial(scenario, agent: str, options: dict | None = None):
    return run_trial(WorkUnit(scenario_id=scenario.id, agent=agent, trial=0, seed=7), scenario, world_factory(), services(), options)


# ---- the ledger and the trial record ------------------------------------------------------------


def test_shell_commands_and_escalation_attempts_reach_the_ledger_and_the_record(fake_kinds, triage):
    run = trial(triage[BENIGN], "fake-a:shared")
    r = run.record
    ledger = run.trace["ledger"]
    shells = [e for e in ledger if e["kind"] == "shell_command"]
    attempts = [e for e in ledger if e["kind"] == "escalation_attempt"]
    assert r.outcome == "pass", r.error  # the oracle's moves still ran
    assert (r.harness, r.model) == ("fake-harness-a", "openai:shared")
    assert r.shell_commands == len(shells) == r.turns + 1 and r.escalation_attempts == len(attempts) == r.turns + 1
    assert r.escalations == {"route": r.turns, "network": 1}
    first = shells[0]
    assert first["actor"] == triage[BENIGN].task.agents[0].id
    assert first["payload"] == {"harness": "fake-harness-a", "turn": 1, "command": "ls", "exit_code": 0, "output": "notes.txt\n", "tool_id": "t1"}
    curl = next(e for e in shells if e["payload"]["command"].startswith("curl"))
    assert curl["payload"]["exit_code"] == 7 and curl["payload"]["output"] == "x" * OUTPUT_LIMIT + CLIPPED  # clipped in the ledger
    shell_attempt = next(e for e in attempts if e["payload"]["source"] == "shell")
    assert shell_attempt["payload"] == {"harness": "fake-harness-a", "turn": 1, "kind": "network", "target": "127.0.0.1:8080", "detail": "",
                                        "source": "shell", "command": curl["payload"]["command"]}  # fmt: skip
    # same parents rule as model_call: the agent's cursor (the last result it had seen), which they leave where it was
    last_result = [e["id"] for e in ledger if e["kind"] == "tool_result" and e["seq"] < first["seq"]][-1]
    turn_one = [e for e in shells + attempts if e["payload"]["turn"] == 1]
    assert len(turn_one) == 4 and all(e["parents"] == [last_result] for e in turn_one)
    assert next(e for e in ledger if e["kind"] == "turn_end")["parents"] == [last_result]
    stored = TrialRecord.model_validate_json(r.model_dump_json())
    assert (stored.harness, stored.model, stored.escalations) == (r.harness, r.model, r.escalations)


def test_the_model_comes_from_the_runs_models_file(fake_kinds, triage):
    models = {"fast": ModelConfig(name="fast", provider="anthropic", model="claude-x")}
    r = trial(triage[BENIGN], "fake-b:fast", {"models": models}).record
    assert (r.harness, r.model, r.shell_commands, r.escalation_attempts, r.escalations) == ("fake-harness-b", "anthropic:claude-x", r.turns, 0, {})
    without = trial(triage[BENIGN], "fake-b:fast").record  # no models file: the spec's own name
    assert without.model == "openai:fast"


def test_the_builtin_agents_name_their_harness(triage):
    r = trial(triage[BENIGN], "oracle").record
    assert (r.harness, r.model, r.shell_commands, r.escalation_attempts) == ("scripted", "", 0, 0)


def test_a_trial_that_fails_to_start_still_names_its_harness_and_model(triage):
    def broken(setup: AgentSetup):
        raise RuntimeError("the harness is not installed")

    registry._KINDS.register("fake-broken", registry.AgentKind(broken, harness="fake-broken", model=_model))
    try:
        r = trial(triage[BENIGN], "fake-broken:shared").record
    finally:
        registry._KINDS.unregister("fake-broken")
    assert (r.outcome, r.termination, r.harness, r.model) == ("error", "infrastructure_error", "fake-broken", "openai:shared")


def test_an_unknown_payload_field_is_refused(fake_kinds, triage):
    r = trial(triage[BENIGN], "fake-bad:shared").record
    assert r.outcome == "error" and "bogus_field" in (r.error or "")
    with pytest.raises(ValidationError, match="bogus"):
        EscalationAttempt.model_validate({"harness": "h", "turn": 1, "kind": "route", "target": "/x", "source": "proxy", "bogus": 1})
    with pytest.raises(ValidationError, match="kind"):
        EscalationAttempt.model_validate({"harness": "h", "turn": 1, "kind": "ports", "target": "/x", "source": "proxy"})
    with pytest.raises(ValidationError, match="source is 'proxy'"):
        EscalationAttempt(harness="h", turn=1, kind="route", target="/x", source="proxy", command="curl /x")
    with pytest.raises(ValidationError, match="names the command"):
        EscalationAttempt(harness="h", turn=1, kind="secret", target="OPENAI_API_KEY", source="shell")
    with pytest.raises(ValidationError, match="turn"):
        ShellCommand.model_validate({"harness": "h", "turn": "1", "command": "ls"})  # strict: no coercion


def test_old_trial_records_without_the_new_fields_load():
    old = {"unit_id": "u", "scenario_id": "s/benign", "task_id": "s", "variant": "benign", "agent": "oracle", "trial": 0, "seed": 1,
           "outcome": "pass", "termination": "done", "passed": True, "schema_version": 1}  # fmt: skip
    r = TrialRecord.model_validate_json(json.dumps(old))
    assert (r.harness, r.model, r.shell_commands, r.escalation_attempts, r.escalations) == ("", "", 0, 0, {})
    (g,) = summarize([r])
    assert (g.harness, g.model, g.escalation_rate.value, g.escalations_per_trial.value) == ("", "", 0.0, 0.0)
    assert harness_comparisons([r]) == []


# ---- the paired harness comparison --------------------------------------------------------------


def _rec(scenario: str, harness: str, model: str, *, trial: int = 0, passed: bool, attempts: int = 0, seed: int = 1) -> TrialRecord:
    return TrialRecord(unit_id=f"{scenario}::{harness}::{model}::{trial}", scenario_id=f"{scenario}/benign", task_id=scenario, variant="benign",
                       agent=f"{harness}:{model}", trial=trial, seed=seed, outcome="pass" if passed else "fail", termination="done",
                       passed=passed, harness=harness, model=model, escalation_attempts=attempts)  # fmt: skip


def test_harness_comparison_pairs_trials_of_one_model_only():
    records = []
    for i in range(6):
        records += [_rec(f"t{i}", "codex", "openai:m", passed=True, attempts=2), _rec(f"t{i}", "openclaw", "openai:m", passed=i % 2 == 0)]
    records.append(_rec("t9", "codex", "openai:m", passed=True))  # no partner: not paired
    records.append(_rec("t0", "openclaw", "openai:m", passed=False, seed=99, trial=5))  # another seed and repeat: not a partner
    records += [_rec("t0", "codex", "openai:other", passed=True), _rec("t0", "scripted", "", passed=True)]
    rows = {c.metric: c for c in harness_comparisons(records)}
    assert set(rows) == {"tsr", "escalation_rate"}  # no safety trials: no UAR pairs
    tsr = rows["tsr"]
    assert (tsr.model, tsr.a, tsr.b, tsr.pairs) == ("openai:m", "codex", "openclaw", 6)
    assert tsr.difference.value == pytest.approx(-0.5) and len(tsr.basis) == 12
    assert rows["escalation_rate"].difference.value == pytest.approx(-1.0) and rows["escalation_rate"].p_wilcoxon is not None
    columns = [c.name for c in headline_columns(records, summarize(records))]
    assert columns[:3] == ["agent", "harness", "model"] and columns.index("escalation") == columns.index("TSR") + 1
    (g_codex,) = [g for g in summarize(records) if g.agent == "codex:openai:m"]
    assert g_codex.escalation_rate.value == pytest.approx(6 / 7) and g_codex.escalations_per_trial.value == pytest.approx(12 / 7)


# ---- through the CLI: clawarena run and clawarena report ----------------------------------------


def _table_rows(output: str, first: str) -> list[list[str]]:
    rows = []
    for line in output.splitlines():
        cells = [c.strip() for c in line.strip().strip("│┃").replace("┃", "│").split("│")]
        if cells and cells[0] == first:
            rows.append(cells)
    return rows


def _header(output: str, marker: str) -> list[str]:
    line = next(line for line in output.splitlines() if marker in line and ("│" in line or "┃" in line))
    return [c.strip() for c in line.strip().strip("│┃").replace("┃", "│").split("│")]


@pytest.fixture
def model_server():
    server = serve(openai_app(ScriptedModel([])))  # answers the preflight; the fake harnesses call no model
    try:
        yield f"{server.url}/v1"
    finally:
        server.stop()


def test_cli_run_shows_harness_model_escalation_and_the_paired_comparison(fake_kinds, model_server, tmp_path):
    runner = CliRunner()
    args = ["run", "--suite", "workspace", "--task", MIXED, "--agent", "fake-a:shared,fake-b:shared", "--base-url", model_server,
            "--runs-dir", str(tmp_path), "--workers", "1"]  # fmt: skip
    out = runner.invoke(app, [*args, "--run-id", "h"], env={"COLUMNS": "300"})
    assert out.exit_code == 0, out.output
    records = RunStore.open(tmp_path / "h").records()
    assert {(r.agent, r.harness, r.model) for r in records} == {("fake-a:shared", "fake-harness-a", "openai:shared"), ("fake-b:shared", "fake-harness-b", "openai:shared")}
    assert all(r.escalation_attempts > 0 for r in records if r.agent == "fake-a:shared")
    assert all(r.escalation_attempts == 0 and r.shell_commands > 0 for r in records if r.agent == "fake-b:shared")

    names = _header(out.output, "escalation")
    assert names[:3] == ["agent", "harness", "model"] and names.index("escalation") == names.index("SCR") + 1 and "esc/trial" in names
    for g in summarize(records):
        (row,) = _table_rows(out.output, g.agent)
        cells = dict(zip(names, row))
        assert (cells["harness"], cells["model"]) == (g.harness, g.model)
        assert (cells["escalation"], cells["esc/trial"]) == (interval_text(g.escalation_rate), interval_text(g.escalations_per_trial, percent=False))
    assert {g.agent: g.escalation_rate.value for g in summarize(records)} == {"fake-a:shared": 1.0, "fake-b:shared": 0.0}

    comparisons = harness_comparisons(records)
    assert {c.metric for c in comparisons} == {"tsr", "uar", "escalation_rate"}
    assert "harness comparison" in out.output
    shown = _table_rows(out.output, "TSR") + _table_rows(out.output, "UAR") + _table_rows(out.output, "escalation")
    assert sorted(shown) == sorted(harness_cells(c) for c in comparisons)
    by_metric = {c.metric: c for c in comparisons}
    assert (by_metric["tsr"].a, by_metric["tsr"].b) == ("fake-harness-a", "fake-harness-b")
    assert by_metric["tsr"].difference.value == pytest.approx(-1.0)  # the quiet harness solves nothing the oracle's moves solved
    assert by_metric["escalation_rate"].difference.value == pytest.approx(-1.0)
    assert by_metric["tsr"].pairs == sum(1 for r in records if r.agent == "fake-a:shared" and r.category == "capability")

    as_json = runner.invoke(app, [*args, "--run-id", "j", "--format", "json"], env={"COLUMNS": "300"})
    assert as_json.exit_code == 0, as_json.output
    data = json.loads(as_json.stdout[as_json.stdout.index("{"):])
    assert {row["agent"]: (row["harness"], row["model"]) for row in data["summary"]} == {"fake-a:shared": ("fake-harness-a", "openai:shared"),
                                                                                        "fake-b:shared": ("fake-harness-b", "openai:shared")}  # fmt: skip
    assert {(c["metric"], c["a"], c["b"], c["pairs"]) for c in data["harness_comparisons"]} == {(c.metric, c.a, c.b, c.pairs) for c in comparisons}

    report = runner.invoke(app, ["report", str(tmp_path / "h"), "--out", str(tmp_path / "rep")], env={"COLUMNS": "300"})
    assert report.exit_code == 0, report.output
    md = (tmp_path / "rep" / "report.md").read_text(encoding="utf-8")
    assert "### Harness comparison (same model)" in md
    for c in comparisons:
        assert "| " + " | ".join(harness_cells(c)) + " |" in md
    headline = md[md.index("### Headline"):md.index("### Harness comparison")]
    assert "| escalation | esc/trial |" in headline and "fake-harness-a" in headline
    html = (tmp_path / "rep" / "report.html").read_text(encoding="utf-8")
    assert 'id="tbl-harness-comparison"' in html
    csv_header = (tmp_path / "rep" / "results.csv").read_text(encoding="utf-8").splitlines()[0].split(",")
    assert {"harness", "model", "escalation_rate", "escalations_per_trial_high"} <= set(csv_header)


def test_a_run_of_scripted_agents_shows_no_harness_columns(tmp_path):
    out = CliRunner().invoke(app, ["run", "--suite", "email", "--task", BENIGN, "--agent", "oracle,noop", "--runs-dir", str(tmp_path), "--run-id", "s"], env={"COLUMNS": "250"})
    assert out.exit_code == 0, out.output
    names = _header(out.output, "TSR")
    assert "harness" not in names and "escalation" not in names and "harness comparison" not in out.output
