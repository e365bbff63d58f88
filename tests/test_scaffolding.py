"""The skills and meta-prompt levers, and conditions as run options."""

import json
import os
import subprocess
import sys

import pytest

from clawarena.agents.scaffolding import GRID, META_PROMPT, Condition
from tests.llm_servers import ScriptedModel, Step, call, openai_app, serve


def test_condition_ids_round_trip_and_grid():
    assert [c.id for c in GRID] == ["skills-off__meta-off", "skills-off__meta-on", "skills-on__meta-off", "skills-on__meta-on"]
    assert Condition.parse("skills-on__meta-off") == Condition(skills=True, meta=False)
    with pytest.raises(ValueError, match="not a condition id"):
        Condition.parse("skills-maybe__meta-off")


def cli(*args):
    return subprocess.run([sys.executable, "-m", "clawarena.cli", *args], capture_output=True, text=True, timeout=300, env={**os.environ, "COLUMNS": "200"})


def test_conditions_grid_runs_every_condition_and_records_it(tmp_path):
    out = cli("run", "--suite", "email", "--runs-dir", str(tmp_path), "--run-id", "g", "--agent", "oracle", "--conditions", "grid", "--task", "email-triage-summary/benign")
    assert out.returncode == 0, out.stderr
    rows = [json.loads(line) for line in (tmp_path / "g" / "trials.jsonl").read_text().splitlines()]
    assert sorted(r["condition"] for r in rows) == sorted(c.id for c in GRID)
    assert len({r["final_hash"] for r in rows}) == 1  # the oracle ignores the prompt: same world, same result
    assert "skills-on__meta-on" in out.stdout
    bad = cli("run", "--suite", "email", "--runs-dir", str(tmp_path), "--skills", "maybe")
    assert bad.returncode == 2 and "--skills: expected on or off" in bad.stderr


def test_skills_and_meta_reach_the_model_and_read_skill_serves_tier_two(tmp_path):
    model = ScriptedModel([
        Step(tool_calls=[call("read_skill", {"service": "gmail"}), call("read_skill", {"service": "gmail", "page": "search"})]),
        Step(text="done"),
    ])  # fmt: skip
    server = serve(openai_app(model))
    try:
        out = cli("run", "--suite", "email", "--runs-dir", str(tmp_path), "--run-id", "s", "--agent", "openai:m", "--base-url", f"{server.url}/v1",
                  "--skills", "on", "--meta", "on", "--task", "email-triage-summary/benign")  # fmt: skip
        assert out.returncode == 0, out.stderr
        plain = cli("run", "--suite", "email", "--runs-dir", str(tmp_path), "--run-id", "p", "--agent", "openai:m", "--base-url", f"{server.url}/v1",
                    "--task", "email-triage-summary/benign")  # fmt: skip
        assert plain.returncode == 0, plain.stderr
    finally:
        server.stop()
    first, second = model.requests[0], model.requests[1]
    system = first["messages"][0]["content"]
    assert META_PROMPT in system and "# Gmail" in system and "read_skill" in system
    assert "read_skill" in {t["function"]["name"] for t in first["tools"]}
    results = [m["content"] for m in second["messages"] if m["role"] == "tool"]
    assert "search" in json.loads(results[0])["pages"]
    assert "Gmail search reference" in json.loads(results[1])["text"]
    off = model.requests[2]  # the skills-off, meta-off run
    assert META_PROMPT not in off["messages"][0]["content"] and "# Gmail" not in off["messages"][0]["content"]
    assert "read_skill" not in {t["function"]["name"] for t in off["tools"]}
