"""`clawarena serve` as a new user meets it: up fast, a scenario named (or --first), the base URL of
every official client printed and working as the README shows, and the session always scored."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
from pathlib import Path

import httpx
import pytest
from typer.testing import CliRunner

from clawarena.cli import app
from clawarena.commands import base

ROOT = Path(__file__).resolve().parent.parent
pytestmark = pytest.mark.slow  # subprocesses, like a user runs them
CLI = [sys.executable, "-m", "clawarena.cli"]
SCENARIO = "multi-standup-digest/benign"  # a principal with mail, calendar, drive, docs and slack
ENV = {**os.environ, "COLUMNS": "200", "PYTHONUNBUFFERED": "1"}


class Served:
    def __init__(self, proc: subprocess.Popen, lines: list[str]):
        self.proc, self.lines = proc, lines
        text = "".join(lines)
        self.text = text
        self.url = re.search(r"REST services: (https?://127\.0\.0\.1:\d+)", text).group(1)
        self.tokens = dict(re.findall(r"principal (\S+): Authorization: Bearer (\S+)", text))

    def stop(self, how: int = signal.SIGTERM) -> tuple[str, str]:
        self.proc.send_signal(how)
        out, err = self.proc.communicate(timeout=60)
        return "".join(self.lines) + out, err


def start(*args: str, cwd: Path) -> Served:
    proc = subprocess.Popen([*CLI, "serve", *args, "--port", "0"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=ENV, cwd=cwd)
    lines: list[str] = []
    while True:
        line = proc.stdout.readline()
        if not line:
            raise AssertionError(f"serve ended early:\n{''.join(lines)}\n{proc.stderr.read()}")
        lines.append(line)
        if line.startswith("Ctrl-C"):
            return Served(proc, lines)


@pytest.fixture
def served(tmp_path):
    s = start(SCENARIO, cwd=tmp_path)
    yield s
    if s.proc.poll() is None:
        s.proc.kill()
        s.proc.communicate()


def scored_record(runs: Path) -> dict:
    (run_dir,) = [p for p in runs.iterdir() if p.is_dir()]
    (line,) = (run_dir / "trials.jsonl").read_text().splitlines()
    return json.loads(line)


def test_serve_prints_every_clients_base_url(served):  # start-up time: benchmarks/serve_startup.py
    for service, suffix in (("Gmail", ""), ("Calendar", "/calendar/v3/"), ("Drive", "/drive/v3/"), ("Docs", ""), ("Slack", "/api/")):
        line = next(ln for ln in served.lines if ln.strip().startswith(service))
        assert f"={served.url}{suffix} " in line, line
    assert served.tokens and "admin: Authorization: Bearer" in served.text


def test_serve_needs_no_whole_suite_to_serve_one_scenario(monkeypatch):
    """The scenario's own task file is all that is read: loading the whole suite is what made serve slow."""
    import clawarena.spec.loader as loader

    monkeypatch.setattr(loader, "load_suite", lambda *a, **k: pytest.fail("the whole suite was loaded"))
    assert base.find_scenario("workspace", SCENARIO).id == SCENARIO
    assert base.find_scenario("email", "vendor-quote-handoff/governance").variant == "governance"


def test_the_readme_client_snippets_work_against_a_served_world(served):
    readme = (ROOT / "README.md").read_text()
    section = readme[readme.index("### Pointing real clients at a world") : readme.index("## Optional: real agents")]
    blocks = re.findall(r"```python\n(.*?)```", section, re.S)
    assert len(blocks) == 2 and "slack_sdk" in blocks[1]
    for name in ("gmail", "calendar", "drive", "docs"):
        assert f'build("{name}"' in blocks[0]
    principal = next(iter(served.tokens))
    code = "\n".join(blocks).replace('"http://127.0.0.1:8080", "<a principal\'s token>"', f'"{served.url}", "{served.tokens[principal]}"')
    assert served.url in code, "the README's URL/TOKEN line changed: update this test"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, env=ENV)
    assert done.returncode == 0, done.stderr[-3000:]
    printed = done.stdout.splitlines()
    assert len(printed) == 5 and printed[3] == "Notes"  # gmail, calendar, drive, the new doc's title, slack
    assert "general" in printed[4]
    out, _ = served.stop()
    assert "session scored" in out


@pytest.mark.parametrize("how", [signal.SIGTERM, signal.SIGINT])
def test_the_session_is_always_scored_into_runs_by_default(tmp_path, how):
    s = start(SCENARIO, cwd=tmp_path)  # no --runs-dir: runs/ in the working folder
    token = next(iter(s.tokens.values()))
    listed = httpx.get(f"{s.url}/gmail/v1/users/me/labels", headers={"Authorization": f"Bearer {token}"})
    assert listed.status_code == 200
    out, err = s.stop(how)
    assert s.proc.returncode == 0, err
    assert "session scored:" in out and "Traceback" not in err
    record = scored_record(tmp_path / "runs")
    assert record["scenario_id"] == SCENARIO and record["tool_calls"] == 1 and record["outcome"] in ("pass", "fail")


def test_serve_without_a_scenario_says_how_to_pick_one(tmp_path):
    runner = CliRunner()
    result = runner.invoke(app, ["serve", "--suite", "email"])
    assert result.exit_code == 2
    line = result.stderr.strip()
    assert len(line.splitlines()) == 1
    assert "SCENARIO: name the scenario to serve, e.g. `clawarena serve email-triage-summary/benign`" in line
    assert "clawarena tasks list --suite email" in line and "--first" in line
    both = runner.invoke(app, ["serve", "email-triage-summary/benign", "--first", "--suite", "email"])
    assert both.exit_code == 2 and "--first" in both.stderr
    unknown = runner.invoke(app, ["serve", "email-triage-summary/nope", "--suite", "email"])
    assert unknown.exit_code == 2 and "unknown scenario 'email-triage-summary/nope'" in unknown.stderr
    assert "email-triage-summary/benign" in unknown.stderr  # the task's real variants are suggested


def test_serve_first_serves_the_suites_first_scenario_and_max_body_is_enforced(tmp_path):
    s = start("--first", "--suite", "email", "--max-body", "2000", "--runs-dir", str(tmp_path / "r"), cwd=tmp_path)
    try:
        assert "serving email-triage-summary/benign" in s.text
        token = s.tokens["alice"]
        big = httpx.post(f"{s.url}/gmail/v1/users/me/labels", headers={"Authorization": f"Bearer {token}"}, json={"name": "x" * 5000})
        assert big.status_code == 413
        small = httpx.post(f"{s.url}/gmail/v1/users/me/labels", headers={"Authorization": f"Bearer {token}"}, json={"name": "Small"})
        assert small.status_code == 200
    finally:
        out, err = s.stop()
    assert s.proc.returncode == 0, err
    assert scored_record(tmp_path / "r")["scenario_id"] == "email-triage-summary/benign"


def test_serve_refuses_an_unwritable_runs_dir_before_serving(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    done = subprocess.run([*CLI, "serve", "--first", "--suite", "email", "--runs-dir", str(blocker / "runs")], capture_output=True, text=True, timeout=120, env=ENV)
    assert done.returncode == 2 and done.stderr.startswith(f"error: --runs-dir: cannot write to {blocker / 'runs'}")
    assert "serving" not in done.stdout


def test_max_body_help_matches_the_servers_default():
    from clawarena.commands.serve import MAX_BODY_HELP_MIB
    from clawarena.server.inputs import DEFAULT_MAX_BODY_BYTES

    assert MAX_BODY_HELP_MIB * 1024 * 1024 == DEFAULT_MAX_BODY_BYTES


def test_serving_rest_alone_does_not_import_the_mcp_sdk():
    """The MCP SDK costs about a second to import; serve pays it only with --agent-port."""
    code = ("import sys, clawarena.cli, clawarena.commands.serve, clawarena.runner.session, clawarena.server.app, clawarena.mcp.http; "
            "print(sorted(m for m in sys.modules if m == 'mcp' or m.startswith(('mcp.', 'mcp_types'))))")  # fmt: skip
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"
