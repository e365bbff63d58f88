"""Model-bound trials in flight at once (issue 12): `--max-concurrency` trials per worker on its
event loop, against a scripted OpenAI-compatible server that holds each request until enough are
in flight; and each endpoint's `max_concurrency` holds across worker processes."""

from __future__ import annotations

import json
from pathlib import Path

import yaml
from typer.testing import CliRunner

from clawarena.cli import app
from tests.llm_servers import GatedModel, gated_openai_app, serve

TASK = "email-triage-summary/benign"


def _models(tmp_path: Path, limit: int) -> Path:
    path = tmp_path / "models.yaml"
    path.write_text(yaml.safe_dump({"models": [{"name": "gated", "provider": "openai", "model": "gated", "max_concurrency": limit, "retry_base_delay": 0}]}))
    return path


def _run(tmp_path: Path, model: GatedModel, limit: int, *args: str):
    server = serve(gated_openai_app(model))
    try:
        result = CliRunner().invoke(app, [
            "run", "--suite", "email", "--task", TASK, "--agent", "model:gated", "--models", str(_models(tmp_path, limit)),
            "--base-url", f"{server.url}/v1", "--runs-dir", str(tmp_path), "--run-id", "r", "--format", "json", *args,
        ])  # fmt: skip
    finally:
        server.stop()
    return result


def _records(tmp_path: Path) -> list[dict]:
    return [json.loads(line) for line in (tmp_path / "r" / "trials.jsonl").read_text().splitlines()]


def test_one_worker_holds_max_concurrency_model_calls_at_once(tmp_path):
    model = GatedModel(gate=16, hold_s=60)  # without 16 calls in flight together each would wait 60 s
    result = _run(tmp_path, model, 64, "--trials", "16", "--max-concurrency", "16")
    assert result.exit_code == 0, result.output
    assert model.reached and model.peak == 16
    records = _records(tmp_path)
    assert len(records) == 16 and {r["termination"] for r in records} == {"completed"}
    assert all(r["usage"]["calls"] == 1 for r in records)
    assert json.loads((tmp_path / "r" / "run.json").read_text())["config"]["max_concurrency"] == 16


def test_an_endpoint_limit_holds_across_worker_processes(tmp_path):
    # 2 processes x 4 trials in flight each, but the endpoint allows 2 calls: each worker gets 1
    model = GatedModel(gate=3, hold_s=0.3)  # a third call at once would open the gate
    result = _run(tmp_path, model, 2, "--trials", "8", "--workers", "2", "--executor", "process", "--max-concurrency", "4")
    assert result.exit_code == 0, result.output
    assert not model.reached and model.peak <= 2 and model.served == 8
    assert len(_records(tmp_path)) == 8


def test_more_worker_processes_than_an_endpoint_allows_is_refused_before_the_run(tmp_path):
    result = _run(tmp_path, GatedModel(), 2, "--workers", "3", "--executor", "process")
    assert result.exit_code == 2
    assert "--workers: 3 process workers would exceed the max_concurrency of 2" in result.output
    assert not (tmp_path / "r").exists()
