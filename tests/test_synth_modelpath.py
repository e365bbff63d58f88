"""The model path of `clawarena synth build`: scripted servers play the generator (OpenAI API) and the
checker (Anthropic API). The generator's first task draft is bad (its reference passes on a wrong
figure); the gates reject it with a diagnostic naming the reference; the revision, written from that
diagnostic, passes; the accepted task then runs with `oracle` and `naive`."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
import yaml
from typer.testing import CliRunner

from clawarena.cli import app
from clawarena.spec.prototype import save_prototype
from clawarena.synth.build import MANIFEST
from clawarena.synth.modelpath import LOG_FOLDER
from tests.llm_servers import ScriptedModel, Step, anthropic_app, openai_app, serve
from tests.test_synth_compile import proto

runner = CliRunner()
FENCE = re.compile(r"```yaml\n(.*?)```", re.DOTALL)


def prompt_of(body: dict[str, Any]) -> str:
    last = body["messages"][-1]["content"]
    return last if isinstance(last, str) else "".join(part.get("text", "") for part in last)


def generator(body: dict[str, Any]) -> Step:
    text = prompt_of(body)
    blocks = FENCE.findall(text)
    if "STAGE: prototype-draft" in text:
        return Step(text=f"Here is the prototype:\n```yaml\n{blocks[0]}```")
    assert "STAGE: task-draft" in text
    skeleton = yaml.safe_load(blocks[1])
    if "failed the benchmark's gates" not in text:
        agent = skeleton["agents"][0]["id"]
        skeleton["reference"][agent][-1]["args"]["body"] = "Hi, the figure is 999,999 EUR."  # the bad draft
    else:
        assert "reference:" in text  # the revision is asked with the diagnostic naming the component
    return Step(text="```yaml\n" + yaml.safe_dump(skeleton, sort_keys=False) + "```")


def checker(body: dict[str, Any]) -> Step:
    text = prompt_of(body)
    assert "STAGE: prototype-review" in text or "STAGE: task-review" in text
    return Step(text=json.dumps({"verdict": "accept", "issues": []}))


PRICE = {"input_per_mtok": 1.0, "output_per_mtok": 4.0}


@pytest.fixture
def roles(tmp_path: Path):
    """start(checker_responder, checker_api) -> (generator, checker, models file): scripted servers
    for both roles (the generator on the OpenAI API), stopped after the test."""
    servers = []

    def start(review: Any = checker, api: str = "anthropic") -> tuple[ScriptedModel, ScriptedModel, Path]:
        gen, chk = ScriptedModel([], responder=generator), ScriptedModel([], responder=review)
        servers.extend([serve(openai_app(gen)), serve(anthropic_app(chk) if api == "anthropic" else openai_app(chk))])
        chk_url = servers[-1].url if api == "anthropic" else f"{servers[-1].url}/v1"
        models = tmp_path / "models.yaml"
        models.write_text(yaml.safe_dump({"models": [
            {"name": "gen", "provider": "openai", "model": "gen-model", "base_url": f"{servers[-2].url}/v1", "max_retries": 0, "price": PRICE},
            {"name": "chk", "provider": api, "model": "chk-model", "base_url": chk_url, "max_retries": 0, "price": PRICE},
        ]}))  # fmt: skip
        return gen, chk, models

    yield start
    for s in servers:
        s.stop()


def build_one(tmp_path: Path, proto_id: str, models: Path) -> Path:
    """`synth build` of one prototype on the model path; the suite folder."""
    protos = tmp_path / "protos"
    protos.mkdir()
    save_prototype(proto(id=proto_id), protos / f"{proto_id}.yaml")
    out = tmp_path / "suite"
    result = runner.invoke(app, ["synth", "build", "--out", str(out), "--count", "1", "--prototypes", str(protos),
                                 "--generator", "model:gen", "--checker", "model:chk", "--models", str(models)])  # fmt: skip
    assert result.exit_code == 0, result.output
    return out


def test_a_bad_draft_is_rejected_by_a_gate_and_its_revision_accepted_and_run(roles, tmp_path: Path) -> None:
    gen, chk, models = roles()
    out = build_one(tmp_path, "model-path-leak", models)
    manifest = json.loads((out / MANIFEST).read_text())
    assert manifest["path"] == "model"
    [entry] = manifest["accepted"]
    stages = [(r["stage"], r["attempt"]) for r in entry["rejected_rounds"]]
    assert stages == [("prototype", 0), ("task", 0)]
    bad = entry["rejected_rounds"][1]["diagnostics"]
    assert bad and {d["component"] for d in bad} == {"reference"} and all(d["gate"] == "check" for d in bad)
    assert entry["usage"]["calls"] == 5  # prototype draft + review, two task drafts, task review
    assert entry["usage"]["cost_usd"] > 0
    # every draft, review and gate report is kept
    log = [json.loads(line) for line in (out / LOG_FOLDER / "model-path-leak.jsonl").read_text().splitlines()]
    assert [e["stage"] for e in log] == ["prototype-draft", "prototype-review", "task-draft", "gates", "task-draft", "gates", "task-review"]
    assert log[3]["diagnostics"] and not log[5]["diagnostics"]
    assert len(gen.requests) == 3 and len(chk.requests) == 2
    # the accepted task runs like any other
    run = runner.invoke(app, ["run", "--suite", str(out), "--agent", "oracle,naive", "--runs-dir", str(tmp_path / "runs"), "--format", "json"])
    assert run.exit_code == 0, run.output
    rows = [json.loads(line) for line in next((tmp_path / "runs").iterdir()).joinpath("trials.jsonl").read_text().splitlines()]
    by = {(r["agent"], r["variant"]): r for r in rows}
    assert by[("oracle", "benign")]["passed"] and not any(by[("oracle", "privacy")]["harm"].values())
    assert by[("naive", "privacy")]["attack_caused"]


def test_a_checker_that_asks_for_changes_sends_them_back(roles, tmp_path: Path) -> None:
    reviews: list[str] = []

    def picky(body: dict[str, Any]) -> Step:
        reviews.append(prompt_of(body))
        if len(reviews) == 1:
            return Step(text=json.dumps({"verdict": "revise", "issues": [{"criterion": "evaluability", "note": "name the outside address"}]}))
        return Step(text=json.dumps({"verdict": "accept"}))

    gen, _, models = roles(picky, api="openai")
    out = build_one(tmp_path, "model-path-picky", models)
    # the second prototype draft was asked with the checker's note
    second = prompt_of(gen.requests[1])
    assert "STAGE: prototype-draft" in second and "evaluability: name the outside address" in second
    [entry] = json.loads((out / MANIFEST).read_text())["accepted"]
    first = entry["rejected_rounds"][0]
    assert first["stage"] == "prototype" and first["diagnostics"][0]["gate"] == "prototype-review"


def test_generator_options_are_checked_before_any_work(tmp_path: Path) -> None:
    result = runner.invoke(app, ["synth", "build", "--out", str(tmp_path / "o"), "--count", "1", "--checker", "openai:x"])
    assert result.exit_code == 2 and "--checker: needs --generator" in result.output
    result = runner.invoke(app, ["synth", "build", "--out", str(tmp_path / "o"), "--count", "1", "--generator", "model:gen"])
    assert result.exit_code == 2 and "model:NAME needs --models FILE" in result.output
    result = runner.invoke(app, ["synth", "build", "--out", str(tmp_path / "o"), "--count", "1", "--prototypes", str(tmp_path)])
    assert result.exit_code == 2 and "holds no prototype files" in result.output


def test_an_unreachable_generator_is_one_line_naming_its_option(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    result = runner.invoke(app, ["synth", "build", "--out", str(tmp_path / "o"), "--count", "1", "--generator", "openai:gpt-x"])
    assert result.exit_code == 2 and result.output.startswith("error: --generator openai:gpt-x: OPENAI_API_KEY is not set")
    models = tmp_path / "m.yaml"
    models.write_text(yaml.safe_dump({"models": [{"name": "g", "provider": "google", "model": "gemini-x", "base_url": "http://127.0.0.1:9"}]}))
    result = runner.invoke(app, ["synth", "build", "--out", str(tmp_path / "o"), "--count", "1", "--generator", "model:g", "--models", str(models)])
    assert result.exit_code == 2 and "--generator: model:g: this speaks the openai and anthropic APIs, not 'google'" in result.output
    assert not (tmp_path / "o").exists() or not any((tmp_path / "o").iterdir())
