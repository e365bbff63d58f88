"""`clawarena view`'s JSON API and command over real run folders: the trial index with filters,
sorting and paging; a trial's three views, checks and evidence chain; benign against attacked;
model contexts; and bad input (parameters, ids, references, hosts, broken files) answered with a
readable 4xx, never a 5xx."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path
from urllib.parse import quote

import httpx
import pytest
from fastapi.testclient import TestClient

from clawarena.view.app import build_app
from clawarena.view.index import FILTERS, TrialIndex, ViewError, open_runs
from clawarena.view.links import trial_path
from tests.test_report import invoke
from tests.view_runs import network_run, workspace_run

ATTACKED = "cal-attendee-pii/privacy::naive::skills-off__meta-off::0"
BENIGN = "cal-attendee-pii/benign::naive::skills-off__meta-off::0"


@pytest.fixture(scope="module")
def runs(tmp_path_factory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("view-runs")
    return {"ws": workspace_run(root), "net": network_run(root)}


@pytest.fixture(scope="module")
def client(runs) -> TestClient:
    index = TrialIndex(open_runs([runs["ws"], runs["net"]]))
    return TestClient(build_app(index), base_url="http://127.0.0.1")


def trials(client, **params):
    response = client.get("/api/trials", params=params)
    assert response.status_code == 200, response.text
    return response.json()


def trial(client, run, unit):
    response = client.get(f"/api/runs/{run}/trials/{quote(unit, safe='')}")
    assert response.status_code == 200, response.text
    return response.json()


def records(root: Path) -> list[dict]:
    return [json.loads(line) for line in (root / "trials.jsonl").read_text().splitlines()]


# ---- the list ------------------------------------------------------------------------------------


def test_the_list_holds_every_trial_of_every_run_with_its_menus(client, runs):
    everything = trials(client, limit=1000)
    expected = {(run, r["unit_id"]) for run in runs for r in records(runs[run])}
    assert {(r["run"], r["unit"]) for r in everything["rows"]} == expected and everything["total"] == len(expected)
    facets = client.get("/api/facets").json()["facets"]
    assert set(facets) == set(FILTERS)
    assert facets["run"] == {"net": len(records(runs["net"])), "ws": len(records(runs["ws"]))}
    assert facets["agent"]["oracle"] == sum(r["agent"] == "oracle" for r in records(runs["ws"]))


@pytest.mark.parametrize(
    ("params", "keep"),
    [
        ({"agent": "naive"}, lambda r: r["agent"] == "naive"),
        ({"outcome": "fail"}, lambda r: r["outcome"] == "fail"),
        ({"vector": "benign"}, lambda r: not r["vector"]),
        ({"vector": "calendar_event"}, lambda r: r["vector"] == "calendar_event"),
        ({"harm": "privacy"}, lambda r: r["harm"].get("privacy")),
        ({"harm": "none"}, lambda r: not r["harmed"]),
        ({"attributed": "yes"}, lambda r: r["attack_caused"]),
        ({"domain": "bargaining"}, lambda r: r["domain"] == "bargaining"),
        ({"agent": "naive", "attributed": "no", "suite": "workspace"}, lambda r: r["agent"] == "naive" and not r["attack_caused"] and r["suite"] == "workspace"),
        ({"q": "GMAIL-injection"}, lambda r: "gmail-injection" in r["unit_id"]),
    ],
)
def test_each_filter_keeps_exactly_the_trials_it_names(client, runs, params, keep):
    got = {r["unit"] for r in trials(client, limit=1000, **params)["rows"]}
    want = {r["unit_id"] for run in runs.values() for r in records(run) if keep(r)}
    assert got == want and want  # a filter that matched nothing would prove nothing


def test_judge_disagreement_is_a_filter(client, runs):
    from clawarena.runner.judging import load_judgments

    contrary = {j.unit_id for j in load_judgments(runs["ws"]) if j.verdict is not None and j.verdict.harm != j.deterministic_harm}
    assert len(contrary) == 2
    assert {r["unit"] for r in trials(client, disagree="yes", limit=1000)["rows"]} == contrary


def test_sorting_and_paging(client):
    by_calls = trials(client, sort="tool_calls", desc="1", limit=1000)["rows"]
    assert [r["tool_calls"] for r in by_calls] == sorted((r["tool_calls"] for r in by_calls), reverse=True)
    pages = [trials(client, sort="unit", offset=n, limit=3) for n in range(0, 30, 3)]
    units = [r["unit"] for p in pages for r in p["rows"]]
    assert units == sorted(r["unit"] for r in trials(client, sort="unit", limit=1000)["rows"])[: len(units)]
    assert all(p["total"] == pages[0]["total"] for p in pages)


@pytest.mark.parametrize(
    ("params", "named"),
    [({"colour": "red"}, "'colour'"), ({"sort": "nope"}, "sort"), ({"limit": "x"}, "limit"), ({"limit": "0"}, "limit"), ({"offset": "-1"}, "offset")],
)
def test_a_bad_list_parameter_is_a_400_naming_it(client, params, named):
    response = client.get("/api/trials", params=params)
    assert response.status_code == 400 and named in response.json()["error"]


# ---- one trial -------------------------------------------------------------------------------------


def test_an_attacked_trial_has_its_chain_from_material_to_harm(client):
    data = trial(client, "ws", ATTACKED)
    chain = data["chain"]
    by_layer = {layer: [n for n in chain["nodes"] if n["layer"] == layer] for layer in chain["layers"]}
    assert all(by_layer[layer] for layer in ("material", "exposure", "decision", "call", "effect", "harm"))
    events = {e["id"]: e for e in data["events"]}
    assert all(n["event"] in events for layer in ("exposure", "decision", "call", "effect") for n in by_layer[layer])
    # a path material -> exposure -> decision -> call -> effect -> harm along the edges
    edges = {(e["from"], e["to"]) for e in chain["edges"]}
    layer_of = {n["id"]: n["layer"] for n in chain["nodes"]}
    frontier = {n["id"] for n in by_layer["material"]}
    for layer in ("exposure", "decision", "call", "effect", "harm"):
        frontier = {b for a, b in edges if a in frontier and layer_of[b] == layer}
        assert frontier, f"no edge reaches the {layer} layer"
    exposure = events[by_layer["exposure"][0]["event"]]
    assert exposure["kind"] == "exposure" and exposure["payload"]["material"] == by_layer["material"][0]["id"].split(":", 1)[1]
    effects = {events[n["event"]]["kind"] for n in by_layer["effect"]}
    assert "delivery" in effects  # the private notes left for the attacker's address
    harm = next(c for c in data["checks"] if c["role"] == "harm" and c["passed"] is False)
    assert harm["attributed"] is True and harm["evidence"]


def test_a_benign_trial_has_no_chain_and_the_list_links_its_attacked_counterpart(client):
    data = trial(client, "ws", BENIGN)
    assert data["chain"]["nodes"] == [] and data["record"]["variant"] == "benign"
    assert {c["unit"] for c in data["counterparts"]} == {ATTACKED}
    assert all(c["agent"] == "naive" and c["trial"] == 0 for c in data["counterparts"])


def test_the_three_views_and_the_checks(client, runs):
    data = trial(client, "ws", ATTACKED)
    (lane,) = data["lanes"]
    agent = lane["agent"]
    assert lane["principal"] and lane["spec"] == "naive"
    model, tools = data["views"]["model"][agent], data["views"]["tools"][agent]
    assert [i["kind"] for i in model][:2] == ["received", "turn"] and model[-1]["kind"] == "turn_end"
    calls = [e for e in data["events"] if e["kind"] == "tool_call"]
    assert [t["event"] for t in tools] == [c["id"] for c in calls]
    assert all(t["result"] and t["result"]["kind"] == "tool_result" for t in tools)
    caused = {c["kind"] for t in tools for c in t["caused"]}
    assert {"state_change", "delivery", "exposure"} <= caused
    artifacts = data["views"]["artifacts"]
    assert any(d["external"] and d["tainted"] for d in artifacts["deliveries"])
    updated = next(r for r in artifacts["diff"] if r["op"] == "updated")
    assert any(f["name"] == "attendees" and f["before"] == [] and f["after"] for f in updated["fields"])
    stored = next(r for r in records(runs["ws"]) if r["unit_id"] == ATTACKED)
    assert data["record"] == stored
    verdicts = {c["id"]: c["passed"] for c in data["checks"]}
    trace = json.loads((runs["ws"] / stored["trace"]).read_text())
    assert verdicts == {**{c["id"]: c["passed"] for c in trace["score"]["checks"]}, **{h["id"]: h["passed"] for h in trace["score"]["harm_checks"]}}


def test_a_network_scenario_has_one_lane_per_agent(client, runs):
    unit = next(r["unit_id"] for r in records(runs["net"]) if r["variant"] != "benign")
    data = trial(client, "net", unit)
    lanes = [lane["agent"] for lane in data["lanes"]]
    assert len(lanes) >= 2 and len({lane["principal"] for lane in data["lanes"]}) == len(lanes)
    for lane in lanes:
        assert all(e["actor"] == lane for e in data["events"] if e["id"] in {t["event"] for t in data["views"]["tools"].get(lane, [])})
    assert any(data["views"]["model"][lane] for lane in lanes[1:])  # the second agent acted in its own lane


def test_unknown_runs_trials_and_content_are_404s(client):
    assert client.get("/api/runs/nope/trials/x").status_code == 404
    missing = client.get(f"/api/runs/ws/trials/{quote('no/such::unit', safe='')}")
    assert missing.status_code == 404 and "no trial" in missing.json()["error"]
    for ref in ("..%2F..%2Frun.json", "sha256:" + "0" * 64, "x"):
        response = client.get(f"/api/runs/ws/content/{ref}")
        assert response.status_code == 404 and "error" in response.json()
    assert client.get("/static/../run.json").status_code == 404
    assert client.get("/static/secret.txt").status_code == 404
    assert client.get("/api/nothing").status_code == 404


def test_the_page_routes_serve_the_app_with_a_strict_policy(client):
    for path in ("/", trial_path("ws", ATTACKED), trial_path("ws", ATTACKED, "ev-000005"), f"/runs/ws/compare/{quote(ATTACKED, safe='')}"):
        response = client.get(path)
        assert response.status_code == 200 and "/static/viewer.js" in response.text
        assert "script-src 'self'" in response.headers["content-security-policy"] and response.headers["x-content-type-options"] == "nosniff"


def test_another_host_name_is_refused(client):
    """A page on another site that rebinds its name to 127.0.0.1 cannot read the runs."""
    response = client.get("/api/facets", headers={"Host": "evil.example"})
    assert response.status_code == 400


def test_a_trace_that_cannot_be_read_is_shown_as_its_error(runs, tmp_path):
    copy = tmp_path / "ws"
    shutil.copytree(runs["ws"], copy)
    record = next(r for r in records(copy) if r["unit_id"] == ATTACKED)
    (copy / record["trace"]).write_text("{not json")
    other = next(r for r in records(copy) if r["unit_id"] == BENIGN)
    (copy / other["trace"]).write_text(json.dumps({"ledger": [{"id": "ev-1"}], "score": {"checks": "x"}}))
    with open(copy / "trials.jsonl", "a") as fh:
        fh.write("{torn line\n" + '{"no": "unit"}\n')
    index = TrialIndex(open_runs([copy]))
    assert any("line" in w and "skipped" in w for w in index.runs["ws"].warnings)
    client = TestClient(build_app(index), base_url="http://127.0.0.1")
    broken = client.get(f"/api/runs/ws/trials/{quote(ATTACKED, safe='')}")
    assert broken.status_code == 200 and "not valid JSON" in broken.json()["error"] and broken.json()["record"]["unit_id"] == ATTACKED
    edited = client.get(f"/api/runs/ws/trials/{quote(BENIGN, safe='')}")
    assert edited.status_code == 422 and BENIGN in edited.json()["error"]


def test_bad_run_folders_are_named():
    with pytest.raises(ViewError, match="give at least one"):
        open_runs([])


def test_a_model_steps_context_is_served_whole(tmp_path):
    from tests.test_model_agents import SOLVE
    from tests.llm_servers import ScriptedModel, openai_app, serve
    import yaml

    model = ScriptedModel(SOLVE)
    server = serve(openai_app(model))
    models = tmp_path / "models.yaml"
    models.write_text(yaml.safe_dump({"models": [{"name": "scripted", "provider": "openai", "model": "m", "base_url": f"{server.url}/v1", "retry_base_delay": 0}]}))
    try:
        result = invoke("run", "--suite", "email", "--agent", "model:scripted", "--models", str(models), "--task", "email-triage-summary/benign",
                        "--runs-dir", str(tmp_path), "--run-id", "m")  # fmt: skip
    finally:
        server.stop()
    assert result.exit_code == 0, result.output
    client = TestClient(build_app(TrialIndex(open_runs([tmp_path / "m"]))), base_url="http://127.0.0.1")
    (row,) = client.get("/api/trials").json()["rows"]
    data = trial(client, "m", row["unit"])
    steps = [i for i in data["views"]["model"][data["lanes"][0]["agent"]] if i["kind"] == "step"]
    assert len(steps) == 4 and steps[-1]["text"].startswith("Sent Bob") and steps[2]["tool_calls"][0]["name"] == "gmail_send_email"
    context = client.get(f"/api/runs/m/context/{steps[-1]['event']}/{quote(row['unit'], safe='')}").json()
    sent = model.requests[-1]
    assert context["system"] == sent["messages"][0]["content"] and len(context["messages"]) == len(sent["messages"]) - 1
    ref = steps[0]["context"]["system"]
    assert client.get(f"/api/runs/m/content/{ref}").json()["value"] == context["system"]
    assert client.get(f"/api/runs/m/context/ev-000001/{quote(row['unit'], safe='')}").status_code == 404  # not a model step


# ---- the command ---------------------------------------------------------------------------------------


def test_the_command_serves_until_interrupted(runs):
    proc = subprocess.Popen([sys.executable, "-m", "clawarena.cli", "view", str(runs["ws"]), "--port", "0"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, env={**os.environ, "COLUMNS": "200"})  # fmt: skip
    try:
        line = proc.stdout.readline()
        url = line.split(": ", 1)[1].split()[0].rstrip("/")
        assert url.startswith("http://127.0.0.1:")
        facets = httpx.get(f"{url}/api/facets").json()
        assert facets["total"] == len(records(runs["ws"]))
    finally:
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=30)
    assert proc.returncode == 0 and "Traceback" not in err


def test_the_command_refuses_bad_folders_in_one_line(runs, tmp_path):
    missing = invoke("view", str(tmp_path / "nope"))
    assert missing.exit_code == 2 and "RUN-DIR" in missing.stderr and "no such folder" in missing.stderr
    not_a_run = invoke("view", str(tmp_path))
    assert not_a_run.exit_code == 2 and "not a run folder" in not_a_run.stderr
    twice = invoke("view", str(runs["ws"]), str(runs["ws"]))
    assert twice.exit_code == 2 and "given twice" in twice.stderr
    assert "Traceback" not in missing.output + not_a_run.output + twice.output


def test_a_port_in_use_is_one_line(runs):
    import socket

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        result = invoke("view", str(runs["ws"]), "--port", str(port))
    assert result.exit_code == 2 and f"--port {port}" in result.stderr and "--port 0" in result.stderr


def test_a_record_with_a_lone_surrogate_is_listed(runs, tmp_path):
    """An agent may send any string; the store writes a lone surrogate as its escape, which the
    fast parser refuses and the standard one reads."""
    copy = tmp_path / "ws"
    shutil.copytree(runs["ws"], copy)
    lines = (copy / "trials.jsonl").read_text().splitlines()
    record = json.loads(lines[0])
    record["error"] = "\udc80 from an agent"
    lines[0] = json.dumps(record)  # ensure_ascii: "\\udc80"
    (copy / "trials.jsonl").write_text("\n".join(lines) + "\n")
    client = TestClient(build_app(TrialIndex(open_runs([copy]))), base_url="http://127.0.0.1")
    assert trials(client, limit=1000)["total"] == len(lines)
    assert trial(client, "ws", record["unit_id"])["record"]["error"] == "\udc80 from an agent"
