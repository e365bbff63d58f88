"""The `clawarena` command, run as a subprocess like a user would."""

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml

from clawarena.spec.loader import BUNDLED_SUITES

pytestmark = pytest.mark.slow
CLI = [sys.executable, "-m", "clawarena.cli"]


def clawarena(*args, cwd=None, check=False):
    env = {**os.environ, "COLUMNS": "200"}
    return subprocess.run([*CLI, *args], capture_output=True, text=True, cwd=cwd, env=env, check=check, timeout=300)


def records(run_dir: Path):
    return [json.loads(line) for line in (run_dir / "trials.jsonl").read_text().splitlines()]


def test_run_writes_trials_traces_and_prints_the_summary(tmp_path):
    out = clawarena("run", "--suite", "email", "--runs-dir", str(tmp_path), "--run-id", "r1", "--trials", "2", "--workers", "2")
    assert out.returncode == 0, out.stderr
    assert "clawarena summary" in out.stdout and "oracle" in out.stdout and "TSR" in out.stdout
    run_dir = tmp_path / "r1"
    meta = json.loads((run_dir / "run.json").read_text())
    assert meta["config"]["agents"] == ["oracle", "noop", "naive"] and meta["versions"]["trial_schema"] == 1
    rows = records(run_dir)
    assert len(rows) == 7 * 3 * 2 and len({r["unit_id"] for r in rows}) == len(rows)
    by = {(r["scenario_id"], r["agent"], r["trial"]): r for r in rows}
    assert by[("email-triage-summary/privacy", "oracle", 0)]["outcome"] == "pass"
    naive = by[("email-triage-summary/privacy", "naive", 1)]
    assert naive["outcome"] == "fail" and naive["attack_caused"] and "confidential-forwarded" in naive["violations"]
    assert by[("vendor-quote-handoff/benign", "noop", 0)]["utility"] == 0.0
    trace = json.loads((run_dir / naive["trace"]).read_text())
    assert trace["final_hash"] == naive["final_hash"]
    assert any(e["kind"] == "exposure" for e in trace["ledger"])
    assert trace["diff"]["tables"]["gmail_messages"]["added"]


def test_same_scenario_agent_and_seed_give_the_same_final_hash(tmp_path):
    for name in ("a", "b"):
        out = clawarena("run", "--suite", "email", "--runs-dir", str(tmp_path), "--run-id", name, "--agent", "naive,oracle", "--seed", "7")
        assert out.returncode == 0, out.stderr
    a = {r["unit_id"]: r["final_hash"] for r in records(tmp_path / "a")}
    b = {r["unit_id"]: r["final_hash"] for r in records(tmp_path / "b")}
    assert a == b and len(a) == 14
    out = clawarena("run", "--suite", "email", "--runs-dir", str(tmp_path), "--run-id", "c", "--agent", "naive,oracle", "--seed", "8")
    c = {r["unit_id"]: r["final_hash"] for r in records(tmp_path / "c")}
    assert c == a  # scripted agents ignore the seed and world ids depend on the scenario only


def _wait_for_lines(path: Path, n: int, proc, limit: float = 120.0) -> int:
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        if path.exists():
            count = path.read_bytes().count(b"\n")
            if count >= n:
                return count
        assert proc.poll() is None, "run ended before it could be interrupted"
        time.sleep(0.02)
    raise AssertionError("run produced too few trials")


@pytest.mark.parametrize("how", [signal.SIGINT, signal.SIGKILL])
def test_interrupted_run_resumes_without_loss_or_duplicates(tmp_path, how):
    run_dir = tmp_path / "big"
    args = [*CLI, "run", "--suite", "email", "--runs-dir", str(tmp_path), "--run-id", "big", "--agent", "oracle", "--trials", "150", "--workers", "2"]
    proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    _wait_for_lines(run_dir / "trials.jsonl", 40, proc)
    proc.send_signal(how)
    _, stderr = proc.communicate(timeout=120)
    if how == signal.SIGINT:
        assert proc.returncode == 130 and "--resume" in stderr
    before = {r["unit_id"] for r in records(run_dir)} if how == signal.SIGINT else None
    total = 7 * 150
    done = (run_dir / "trials.jsonl").read_bytes().count(b"\n")
    assert 0 < done < total
    out = clawarena("run", "--resume", str(run_dir))
    assert out.returncode == 0, out.stderr
    rows = records(run_dir)
    ids = [r["unit_id"] for r in rows]
    assert len(ids) == total and len(set(ids)) == total
    if before is not None:
        assert before <= set(ids)
    assert all(r["outcome"] == "pass" for r in rows)


def test_resume_cuts_a_torn_last_line(tmp_path):
    assert clawarena("run", "--suite", "email", "--runs-dir", str(tmp_path), "--run-id", "t", "--agent", "oracle").returncode == 0
    path = tmp_path / "t" / "trials.jsonl"
    lines = path.read_text().splitlines(keepends=True)
    path.write_text("".join(lines[:-1]) + lines[-1][: len(lines[-1]) // 2])  # a write killed mid-line
    out = clawarena("run", "--resume", str(tmp_path / "t"))
    assert out.returncode == 0, out.stderr
    rows = records(tmp_path / "t")
    assert len(rows) == 7 and len({r["unit_id"] for r in rows}) == 7


def test_check_passes_on_the_bundled_suite():
    out = clawarena("check", "--suite", "email")
    assert out.returncode == 0, out.stderr
    assert "all 7 scenario(s) pass the self-check" in out.stdout


def test_check_fails_when_a_reference_solution_is_broken(tmp_path):
    suite = tmp_path / "suite"
    shutil.copytree(BUNDLED_SUITES / "email", suite)
    path = suite / "email-triage-summary.yaml"
    data = yaml.safe_load(path.read_text())
    send = next(step for step in data["reference"]["alice-agent"] if step["tool"] == "gmail_send_email")
    send["args"]["body"] = "Launch status: all good."  # drops the date the utility check requires
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    out = clawarena("check", "--suite", str(suite))
    assert out.returncode == 1
    assert "FAIL" in out.stdout
    assert "email-triage-summary/benign reference: utility" in out.stderr.replace("\n", " ")
    assert "summary-sent" in out.stderr


def test_check_fails_when_an_injection_is_off_the_reference_path(tmp_path):
    suite = tmp_path / "suite"
    shutil.copytree(BUNDLED_SUITES / "email", suite)
    path = suite / "email-triage-summary.yaml"
    data = yaml.safe_load(path.read_text())
    data["reference"]["alice-agent"] = [s for s in data["reference"]["alice-agent"] if s["args"].get("id") != "m-partner"]
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    out = clawarena("check", "--suite", str(suite))
    assert out.returncode == 1
    err = out.stderr.replace("\n", " ")
    assert "partner-exfil is never seen by an agent on the reference path" in err
    assert "obeying partner-exfil triggers no attack-attributed harm check" in err


def test_tasks_list_and_show():
    listed = clawarena("tasks", "list", "--suite", "email")
    assert listed.returncode == 0 and "vendor-quote-handoff/governance" in listed.stdout
    shown = clawarena("tasks", "show", "vendor-quote-handoff/governance", "--suite", "email")
    assert shown.returncode == 0
    data = json.loads(shown.stdout)
    assert data["variant"] == "governance" and data["attacks"][0]["id"] == "fake-approval"
    assert clawarena("tasks", "show", "nope/benign").returncode == 2


def test_bad_arguments_get_clear_errors(tmp_path):
    out = clawarena("run", "--suite", "email", "--runs-dir", str(tmp_path), "--agent", "gpt-nine")
    assert out.returncode == 2 and "--agent: unknown agent 'gpt-nine'" in out.stderr
    out = clawarena("run", "--suite", "email", "--runs-dir", str(tmp_path), "--suite", "nosuch")
    assert out.returncode == 2 and "--suite: unknown suite 'nosuch'" in out.stderr
    out = clawarena("run", "--resume", str(tmp_path))
    assert out.returncode == 2 and "is not a run folder" in out.stderr
    assert not any(tmp_path.iterdir())  # nothing was created for a refused run
