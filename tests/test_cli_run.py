"""`clawarena run` as a new user meets it: model endpoints checked before the run, runs that all
failed exit non-zero, unwritable folders and contradicting --resume options refused in one line,
--format json for scripts, tables that keep whole ids at 80 columns."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from fastapi import FastAPI
from fastapi.responses import JSONResponse

from tests.llm_servers import ScriptedModel, Step, openai_app, serve

pytestmark = pytest.mark.slow  # subprocesses, like a user runs them
CLI = [sys.executable, "-m", "clawarena.cli"]
TRIAGE = "email-triage-summary/*"


def clawarena(*args: str, columns: int = 200, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    base = {k: v for k, v in os.environ.items() if k not in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY")}
    return subprocess.run([*CLI, *args], capture_output=True, text=True, timeout=300, env={**base, "COLUMNS": str(columns), **(env or {})})


def one_error_line(out: subprocess.CompletedProcess) -> str:
    lines = [line for line in out.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: "), out.stderr
    assert "Traceback" not in out.stderr
    return lines[0]


def unused_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def models_file(tmp_path: Path, **entry) -> Path:
    path = tmp_path / "models.yaml"
    path.write_text(yaml.safe_dump({"models": [{"name": "m", "provider": "openai", "model": "x", "retry_base_delay": 0, **entry}]}))
    return path


# ---- model endpoints are checked before the run -------------------------------------------------


def test_a_missing_key_fails_before_the_run_in_one_line(tmp_path):
    out = clawarena("run", "--suite", "email", "--runs-dir", str(tmp_path), "--agent", "openai:gpt-4o-mini", "--task", TRIAGE)
    assert out.returncode == 2
    assert "--agent openai:gpt-4o-mini: OPENAI_API_KEY is not set" in one_error_line(out)
    out = clawarena("run", "--suite", "email", "--runs-dir", str(tmp_path), "--agent", "anthropic:claude-x", "--task", TRIAGE)
    assert out.returncode == 2 and "ANTHROPIC_API_KEY is not set" in one_error_line(out)
    # a models file that names a variable needs it even with a base_url
    named = models_file(tmp_path, base_url="http://127.0.0.1:9/v1", api_key_env="CLAWARENA_TEST_NO_SUCH_KEY")
    out = clawarena("run", "--suite", "email", "--runs-dir", str(tmp_path), "--models", str(named), "--agent", "model:m", "--task", TRIAGE)
    assert out.returncode == 2 and "CLAWARENA_TEST_NO_SUCH_KEY is not set" in one_error_line(out)
    assert not any(tmp_path.glob("*/run.json"))  # no run folder for a refused run


def test_an_endpoint_that_does_not_answer_fails_before_the_run(tmp_path):
    url = f"http://127.0.0.1:{unused_port()}/v1"
    out = clawarena("run", "--suite", "email", "--runs-dir", str(tmp_path / "runs"), "--agent", "openai:m", "--base-url", url, "--task", TRIAGE)
    assert out.returncode == 2
    line = one_error_line(out)
    assert f"--agent openai:m: {url} does not answer" in line and "--base-url" in line
    assert not (tmp_path / "runs").exists()


def test_an_endpoint_that_refuses_the_key_fails_before_the_run(tmp_path):
    app = FastAPI()

    @app.get("/v1/models")
    async def models():
        return JSONResponse({"error": {"message": "bad key", "type": "invalid_request_error", "code": "invalid_api_key"}}, status_code=401)

    server = serve(app)
    try:
        out = clawarena("run", "--suite", "email", "--runs-dir", str(tmp_path), "--agent", "openai:m", "--base-url", f"{server.url}/v1",
                        "--task", TRIAGE, env={"OPENAI_API_KEY": "sk-wrong"})  # fmt: skip
    finally:
        server.stop()
    assert out.returncode == 2 and "refused the key in OPENAI_API_KEY (HTTP 401)" in one_error_line(out)


def test_a_run_whose_trials_all_end_in_error_exits_non_zero(tmp_path):
    model = ScriptedModel([Step(fault=500)] * 20)
    server = serve(openai_app(model))  # answers (404 on the model list, 500 on every completion)
    try:
        out = clawarena("run", "--suite", "email", "--runs-dir", str(tmp_path), "--run-id", "r", "--models", str(models_file(tmp_path, max_retries=0)),
                        "--agent", "model:m", "--base-url", f"{server.url}/v1", "--task", TRIAGE)  # fmt: skip
    finally:
        server.stop()
    assert out.returncode == 1, out.stderr
    assert "clawarena summary" in out.stdout  # the summary is still shown
    assert "every trial ended in error" in out.stderr and "giving up" in out.stderr
    rows = [json.loads(line) for line in (tmp_path / "r" / "trials.jsonl").read_text().splitlines()]
    assert len(rows) == 3 and all(r["outcome"] == "error" for r in rows)


# ---- folders and --resume ------------------------------------------------------------------------


@pytest.mark.parametrize("layout", ["a-file", "under-a-file"])
def test_a_runs_dir_that_cannot_be_written_is_one_line(tmp_path, layout):
    blocker = tmp_path / "blocker"
    blocker.write_text("not a folder")
    runs_dir = blocker if layout == "a-file" else blocker / "runs"
    out = clawarena("run", "--suite", "email", "--runs-dir", str(runs_dir), "--agent", "oracle", "--task", TRIAGE)
    assert out.returncode == 2
    assert one_error_line(out).startswith(f"error: --runs-dir: cannot write to {runs_dir}")


def test_resume_refuses_options_that_contradict_the_stored_run(tmp_path):
    first = clawarena("run", "--suite", "email", "--runs-dir", str(tmp_path), "--run-id", "r", "--agent", "oracle", "--task", TRIAGE)
    assert first.returncode == 0, first.stderr
    run = str(tmp_path / "r")
    cases = [
        (["--agent", "naive"], "--agent: the run was made with oracle, not naive"),
        (["--suite", "workspace"], "--suite: the run was made with email, not workspace"),
        (["--trials", "3"], "--trials: the run was made with 1, not 3"),
        (["--seed", "5"], "--seed: the run was made with 0, not 5"),
        (["--task", "vendor-*"], f"--task: the run was made with {TRIAGE}, not vendor-*"),
        (["--skills", "on"], "--skills: the run was made with conditions skills-off__meta-off, not skills-on__meta-off"),
        (["--conditions", "grid"], "--conditions: the run was made with conditions skills-off__meta-off"),
        (["--base-url", "http://127.0.0.1:1/v1"], "--base-url: the run was made with (none)"),
        (["--run-id", "other"], "--run-id: the run was made with r, not other"),
    ]
    for args, expected in cases:
        out = clawarena("run", "--resume", run, *args)
        assert out.returncode == 2, (args, out.stderr)
        assert expected in one_error_line(out), (args, out.stderr)
    # options equal to the stored ones (or a different --workers) are fine
    same = clawarena("run", "--resume", run, "--agent", "oracle", "--suite", "email", "--trials", "1", "--skills", "off", "--task", TRIAGE,
                     "--workers", "2", "--runs-dir", str(tmp_path))  # fmt: skip
    assert same.returncode == 0, same.stderr
    assert "3 already finished" in same.stdout


# ---- output for scripts and for 80 columns -------------------------------------------------------


def test_run_and_tasks_list_take_format_json_with_nothing_else_on_stdout(tmp_path):
    out = clawarena("run", "--suite", "email", "--runs-dir", str(tmp_path), "--run-id", "j", "--agent", "oracle,noop", "--task", TRIAGE, "--format", "json")
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)  # the whole of stdout is one JSON document
    assert data["run_id"] == "j" and data["trials"].endswith("trials.jsonl")
    by_agent = {row["agent"]: row for row in data["summary"]}
    assert by_agent["oracle"]["trials"] == 3 and by_agent["oracle"]["errors"] == 0 and by_agent["noop"]["mean_score"] is not None
    assert "run j" in out.stderr  # what people read went to stderr
    listed = clawarena("tasks", "list", "--suite", "email", "--format", "json")
    assert listed.returncode == 0
    scenarios = json.loads(listed.stdout)["scenarios"]
    assert len(scenarios) == 7 and {"id", "task", "variant", "agents", "attacks", "harm_codes"} == set(scenarios[0])


def test_tables_keep_whole_ids_at_80_columns(tmp_path):
    from clawarena.spec.loader import load_suite

    listed = clawarena("tasks", "list", columns=80)
    assert listed.returncode == 0, listed.stderr
    for s in load_suite("workspace"):
        assert s.id in listed.stdout and all(a.id in listed.stdout for a in s.task.agents)
    assert "…" not in listed.stdout
    assert max(len(line.rstrip()) for line in listed.stdout.splitlines()) <= 80
    out = clawarena("run", "--suite", "email", "--runs-dir", str(tmp_path), "--agent", "oracle,naive", "--conditions", "grid", "--task", "vendor-quote-handoff/benign", columns=80)
    assert out.returncode == 0, out.stderr
    assert "…" not in out.stdout
    for condition in ("skills-off__meta-off", "skills-on__meta-on", "skills-on__meta-off"):
        assert condition in out.stdout
    checked = clawarena("check", "--suite", "email", columns=80)
    assert checked.returncode == 0 and "…" not in checked.stdout and "vendor-quote-handoff/collaboration" in checked.stdout


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
def test_preflight_accepts_any_answer_and_refuses_silence(provider, monkeypatch):
    from clawarena.llm.config import ModelConfig
    from clawarena.llm.preflight import EndpointUnavailable, check_endpoint
    from tests.llm_servers import anthropic_app

    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    model = ScriptedModel([])
    server = serve(openai_app(model) if provider == "openai" else anthropic_app(model))
    try:
        base = f"{server.url}/v1" if provider == "openai" else server.url
        check_endpoint(ModelConfig(provider=provider, model="m", base_url=base), f"{provider}:m")  # 404 on the model list: it answers
    finally:
        server.stop()
    assert model.requests == []  # no completion was asked for: the check costs no tokens
    silent = f"http://127.0.0.1:{unused_port()}"
    with pytest.raises(EndpointUnavailable, match="does not answer"):
        check_endpoint(ModelConfig(provider=provider, model="m", base_url=silent), f"{provider}:m", timeout=5)
    with pytest.raises(EndpointUnavailable, match="is not set"):
        check_endpoint(ModelConfig(provider=provider, model="m"), f"{provider}:m")
