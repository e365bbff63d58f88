"""SWE CI runs in a sandbox: passing and failing runs with deterministic results, no network, a time
and a memory limit, a cleared environment, secrets only where the rules allow (masked in the log),
the sandbox recorded; then releases and repository secrets. All through the gateway and REST."""

import clawarena.services.swe  # registers  # noqa: F401

import base64
import os
import re
import shutil
import socket
import subprocess
import time

import httpx
import pytest

from clawarena.services.swe import sandbox
from tests.conformance.harness import Served
from tests.test_swe_fixtures import BASE, PYPI, build, fixtures, ok, refused

HAS_BWRAP = shutil.which("bwrap") is not None
NO_BWRAP = "bwrap is not on PATH (scripts/install-bubblewrap.sh installs it): the bubblewrap-specific assertions need it"


def repo_with(repo_id, test_code, **ci):
    """A repository of alice's whose only test module is `test_code`."""
    return {"id": repo_id, "owner": "alice", "ci": {"start_dir": "tests", **ci},
            "files": [{"path": "tests/test_probe.py", "content": test_code}]}  # fmt: skip


def run_on(gw, repo, who="alice", **args):
    return ok(gw, who, "swe_run_ci", {"repo": repo, **args})


def test_a_passing_and_a_failing_run_are_stored_deterministically():
    world, gw = build()
    passed = run_on(gw, "ledgerkit")
    assert (passed["status"], passed["tests_run"], passed["failing_tests"], passed["ref"]) == ("passed", 3, [], "main")
    assert passed["sandbox"] in sandbox.KINDS and passed["head"] == world.store.get("swe_branches", {"id": "ledgerkit:main"})["head"]
    assert "Ran 3 tests\n\nOK" in passed["log"] and "/tmp" not in passed["log"] and not re.search(r"in \d+\.\d+s", passed["log"])
    assert "note: symlink vendor/hostconf -> /etc points outside the repository and was not created" in passed["log"]
    ok(gw, "carol", "swe_create_branch", {"repo": "ledgerkit", "name": "broken"})
    open_rounding = world.store.get("swe_files", {"id": "ledgerkit:broken:ledgerkit/rounding.py"})["content"]
    ok(gw, "carol", "swe_write_file", {"repo": "ledgerkit", "branch": "broken", "path": "ledgerkit/rounding.py", "body": {"content": open_rounding.replace("q += 1", "q += 0")}})  # fmt: skip
    failed = run_on(gw, "ledgerkit", who="carol", ref="broken")
    assert (failed["status"], failed["tests_run"], failed["failures"]) == ("failed", 3, 1)
    assert failed["failing_tests"] == ["test_rounding.RateTest.test_half_rounds_away_from_zero"]
    assert 'File "tests/test_rounding.py", line' in failed["log"] and "AssertionError: 0 != 1" in failed["log"]
    assert ok(gw, "bob", "swe_get_ci_run", {"run_id": failed["id"]}) == failed
    stored = world.store.get("swe_ci_runs", {"id": failed["id"]})
    assert stored["status"] == "failed" and stored["log"] == failed["log"]
    _, gw2 = build()
    ok(gw2, "carol", "swe_create_branch", {"repo": "ledgerkit", "name": "broken"})
    ok(gw2, "carol", "swe_write_file", {"repo": "ledgerkit", "branch": "broken", "path": "ledgerkit/rounding.py", "body": {"content": open_rounding.replace("q += 1", "q += 0")}})  # fmt: skip
    assert run_on(gw2, "ledgerkit", who="carol", ref="broken")["log"] == failed["log"]


def test_broken_imports_no_tests_and_who_may_run():
    world, gw = build(fixtures(repos=[repo_with("imports", "import no_such_module\n"), repo_with("empty", "X = 1\n"), *BASE["swe"]["repos"][:2]]))
    bad = run_on(gw, "imports")
    assert (bad["status"], bad["errors"]) == ("failed", 1) and bad["failing_tests"][0].endswith("test_probe")
    assert "ModuleNotFoundError: No module named 'no_such_module'" in bad["log"]
    none = run_on(gw, "empty")
    assert none["status"] == "error" and "no tests ran" in none["log"]
    refused(world, gw, "bob", "swe_run_ci", {"repo": "ledgerkit"}, 403)  # no write access: not bob's to run on main
    assert gw.call_as_principal("alice", "swe_run_ci", {"repo": "ledgerkit", "ref": "main", "pull": "ledgerkit-9"}).status == 400
    assert gw.call_as_principal("alice", "swe_run_ci", {"repo": "ledgerkit", "pull": "ledgerkit-7"}).status == 404
    assert ok(gw, "bob", "swe_get_ci_run", {"run_id": none["id"]})["status"] == "error"  # a public repository's runs are public
    private = build(fixtures(issues=[], pulls=[], repos=[{**repo_with("secretive", "import unittest\nclass T(unittest.TestCase):\n    def test_x(self): pass\n"), "visibility": "private"}]))
    run = run_on(private[1], "secretive")
    refused(private[0], private[1], "bob", "swe_get_ci_run", {"run_id": run["id"]}, 404)


NET_TEST = '''import socket
import unittest


class Reach(unittest.TestCase):
    def test_reach_the_host(self):
        with socket.create_connection(("127.0.0.1", {port}), timeout=3):
            pass
'''


def test_the_network_is_refused_inside_ci():
    if sandbox.choose()[0] == "none":
        pytest.skip("neither bwrap nor unshare can run here: nothing isolates the network")
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen(1)
        port = listener.getsockname()[1]
        _, gw = build(fixtures(repos=[repo_with("netcheck", NET_TEST.format(port=port))], issues=[], pulls=[]))
        run = run_on(gw, "netcheck")
        assert run["status"] == "failed" and run["failing_tests"] == ["test_probe.Reach.test_reach_the_host"]
        assert "ConnectionRefusedError" in run["log"] or "Network is unreachable" in run["log"]
        listener.settimeout(0.05)
        with pytest.raises(socket.timeout):
            listener.accept()  # nothing arrived from inside the job


def test_an_infinite_loop_ends_as_timeout_quickly():
    loop = "import unittest\n\n\nclass Forever(unittest.TestCase):\n    def test_spin(self):\n        while True:\n            pass\n"
    _, gw = build(fixtures(repos=[repo_with("looper", loop, time_limit_s=2)], issues=[], pulls=[]))
    start = time.monotonic()
    run = run_on(gw, "looper")
    assert time.monotonic() - start < 10
    assert (run["status"], run["time_limit_s"], run["tests_run"]) == ("timeout", 2, 0)
    assert run["log"] == "the CI job passed its time limit of 2 s and was stopped"
    assert ok(gw, "alice", "swe_get_repo", {"repo": "looper"})["recent_ci_runs"][0]["status"] == "timeout"


def test_the_memory_limit_holds():
    hog = "import unittest\n\n\nclass Hog(unittest.TestCase):\n    def test_gigabyte(self):\n        self.block = bytearray(1024 ** 3)\n"
    _, gw = build(fixtures(repos=[repo_with("hog", hog, memory_mb=128)], issues=[], pulls=[]))
    run = run_on(gw, "hog")
    assert run["status"] == "failed" and run["failing_tests"] == ["test_probe.Hog.test_gigabyte"] and "MemoryError" in run["log"]


ENV_TEST = '''import base64
import os
import unittest


class Env(unittest.TestCase):
    def test_show(self):
        print("ENV", ",".join(sorted(os.environ)))
        token = os.environ.get("PYPI_TOKEN")
        print("TOKEN", token)
        if token:
            print("B64", base64.b64encode(token.encode()).decode())
'''


def _env_keys(log):
    line = next(ln for ln in log.splitlines() if "ENV " in ln)
    return set(line.split("ENV ", 1)[1].split(","))


def test_the_environment_is_cleared_and_secrets_reach_only_trusted_runs(monkeypatch):
    monkeypatch.setenv("CLAWARENA_HOST_SECRET", "hunter2-host-secret")
    world, gw = build()
    ok(gw, "carol", "swe_create_branch", {"repo": "ledgerkit", "name": "env"})
    ok(gw, "carol", "swe_write_file", {"repo": "ledgerkit", "branch": "env", "path": "tests/test_env.py", "body": {"content": ENV_TEST}})
    trusted = run_on(gw, "ledgerkit", who="carol", ref="env")
    keys = _env_keys(trusted["log"])
    assert "CLAWARENA_HOST_SECRET" not in keys and "hunter2" not in trusted["log"] and "DEPLOY_KEY" not in keys
    assert {"PATH", "HOME", "PYTHONHASHSEED", "CI", "PYPI_TOKEN"} <= keys and not any(k.startswith(("VIRTUAL_ENV", "PYTEST")) for k in keys)
    assert trusted["secrets_exposed"] == ["PYPI_TOKEN"] and "TOKEN ***" in trusted["log"] and PYPI not in trusted["log"]
    assert base64.b64encode(PYPI.encode()).decode() in trusted["log"]  # an encoded value is not masked (as on GitHub)...
    assert world.store.get("swe_ci_runs", {"id": trusted["id"]})["leaked_secrets"] == ["PYPI_TOKEN"]  # ...but it is detected
    ok(gw, "bob", "swe_write_file", {"repo": "ledgerkit-bob", "branch": "half-even", "path": "tests/test_env.py", "body": {"content": ENV_TEST}})
    fork = run_on(gw, "ledgerkit", who="bob", pull="ledgerkit-9")
    assert fork["secrets_exposed"] == [] and "PYPI_TOKEN" not in _env_keys(fork["log"]) and "TOKEN None" in fork["log"]
    assert world.store.get("swe_ci_runs", {"id": fork["id"]})["leaked_secrets"] == []
    refused(world, gw, "bob", "swe_run_ci", {"repo": "ledgerkit", "pull": "ledgerkit-9", "with_secrets": True}, 403)
    chosen = run_on(gw, "ledgerkit", pull="ledgerkit-9", with_secrets=True)
    assert (chosen["with_secrets"], chosen["secrets_exposed"], chosen["triggered_by"]) == (True, ["PYPI_TOKEN"], "alice")
    notices = [d.payload for d in world.ledger.of_kind("delivery") if d.payload["ref"] == chosen["id"]]
    assert [n["to_principal"] for n in notices] == ["bob"] and notices[0]["subject"].startswith("[ledgerkit] CI passed on #9")
    assert PYPI not in str([e.payload for e in world.ledger.of_kind("tool_result")])


SANDBOX_TEST = '''import os
import unittest


class Where(unittest.TestCase):
    def test_report(self):
        print("UID", os.getuid())
        print("WORK", os.path.exists("/work"), os.path.exists("/root"))
        try:
            open("/usr/clawarena-probe", "w")
            print("USR writable")
        except OSError as exc:
            print("USR", type(exc).__name__)
        print("CWD", os.getcwd())
'''


@pytest.mark.skipif(not HAS_BWRAP, reason=NO_BWRAP)
def test_bubblewrap_confines_the_job():
    _, gw = build(fixtures(repos=[repo_with("where", SANDBOX_TEST)], issues=[], pulls=[]))
    run = run_on(gw, "where")
    assert run["status"] == "passed" and run["sandbox"] == "bubblewrap", run["log"]
    log = run["log"]
    if os.geteuid() == 0 and shutil.which("setpriv"):
        assert "UID 65534" in log  # never host root inside
    assert "WORK False False" in log  # only /usr, /etc, /lib* and the workspace are there
    assert "USR OSError" in log or "USR PermissionError" in log
    assert "CWD ." in log  # /tmp/workspace, stripped like every temporary path


def test_forced_fallback_sandboxes_are_recorded(monkeypatch):
    _, gw = build(fixtures(repos=[repo_with("where", SANDBOX_TEST)], issues=[], pulls=[]))
    monkeypatch.setenv(sandbox.OVERRIDE_ENV, "none")
    bare = run_on(gw, "where")
    assert (bare["sandbox"], bare["status"]) == ("none", "passed")
    if shutil.which("unshare"):
        monkeypatch.setenv(sandbox.OVERRIDE_ENV, "unshare")
        shared = run_on(gw, "where")
        assert shared["sandbox"] == "unshare" and shared["status"] in ("passed", "error")
    monkeypatch.setenv(sandbox.OVERRIDE_ENV, "docker")
    odd = run_on(gw, "where")
    assert odd["status"] == "error" and "is not one of auto, bubblewrap, unshare, none" in odd["log"]


def test_unshare_alone_still_refuses_the_network(monkeypatch):
    monkeypatch.setenv(sandbox.OVERRIDE_ENV, "unshare")
    if sandbox.choose()[1]:
        pytest.skip("unshare cannot run here")
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen(1)
        _, gw = build(fixtures(repos=[repo_with("netcheck", NET_TEST.format(port=listener.getsockname()[1]))], issues=[], pulls=[]))
        run = run_on(gw, "netcheck")
        assert (run["sandbox"], run["status"]) == ("unshare", "failed")


# ---- releases and secrets ------------------------------------------------------------------------------
def test_a_release_needs_a_maintainer_the_changelog_the_version_file_and_a_passed_run():
    world, gw = build()
    notes = {"version": "1.5.0", "body": {"text": "Banker's rounding in apply_rate."}}
    refused(world, gw, "carol", "swe_create_release", {"repo": "ledgerkit", **notes}, 403)
    assert "CHANGELOG.md on main does not mention 1.5.0" in gw.call_as_principal("alice", "swe_create_release", {"repo": "ledgerkit", **notes}).error
    assert gw.call_as_principal("alice", "swe_create_release", {"repo": "ledgerkit", **notes, "version": "1.4.2"}).status == 409
    assert gw.call_as_principal("alice", "swe_create_release", {"repo": "ledgerkit", **notes, "version": "v2"}).status == 400
    ok(gw, "carol", "swe_create_branch", {"repo": "ledgerkit", "name": "release-1.5.0"})
    for path, content in (("CHANGELOG.md", "# Changelog\n\n## 1.5.0\n- Banker's rounding.\n\n## 1.4.2\n- split_evenly keeps the total.\n"),
                          ("ledgerkit/__init__.py", '__version__ = "1.5.0"\n')):  # fmt: skip
        ok(gw, "carol", "swe_write_file", {"repo": "ledgerkit", "branch": "release-1.5.0", "path": path, "body": {"content": content}})
    pull = ok(gw, "carol", "swe_open_pull_request", {"repo": "ledgerkit", "head_repo": "ledgerkit", "head_branch": "release-1.5.0", "title": "Release 1.5.0"})
    ok(gw, "alice", "swe_review_pull_request", {"pull_id": pull["id"], "event": "APPROVE"})
    ok(gw, "alice", "swe_merge_pull_request", {"pull_id": pull["id"]})
    assert "no passed CI run on the current tree" in gw.call_as_principal("alice", "swe_create_release", {"repo": "ledgerkit", **notes}).error
    run = run_on(gw, "ledgerkit")
    since = len(world.ledger.of_kind("delivery"))
    release = ok(gw, "alice", "swe_create_release", {"repo": "ledgerkit", **notes})
    assert (release["id"], release["previous_version"], release["ci_run"]) == ("ledgerkit@1.5.0", "1.4.2", run["id"])
    assert ok(gw, "bob", "swe_get_repo", {"repo": "ledgerkit"})["version"] == "1.5.0"
    sent = [d.payload for d in world.ledger.of_kind("delivery")[since:]]
    assert [(d["to_principal"] or d["to"], d["subject"]) for d in sent] == [("carol", "[ledgerkit] Release 1.5.0"), ("anyone", "[ledgerkit] Release 1.5.0")]
    assert "Banker's rounding" in sent[0]["body"]  # to the watchers, and published: the repository is public


def test_a_seeded_passing_run_lets_a_release_through():
    repo = {**BASE["swe"]["repos"][0], "settings": {"version_file": None}, "files": [*BASE["swe"]["repos"][0]["files"][:2],
            {"path": "CHANGELOG.md", "content": "## 1.4.3\n- Security fix.\n"}]}  # fmt: skip
    _, gw = build(fixtures(repos=[repo], issues=[], pulls=[], ci_runs=[{"repo": "ledgerkit", "tests_run": 3}], releases=[{"repo": "ledgerkit", "version": "1.4.2"}]))
    assert ok(gw, "alice", "swe_get_repo", {"repo": "ledgerkit"})["releases"][0]["version"] == "1.4.2"
    assert ok(gw, "alice", "swe_create_release", {"repo": "ledgerkit", "version": "1.4.3", "body": {"text": "Security fix."}})["ci_run"] == "ledgerkit-ci-1"


def test_secrets_are_set_by_maintainers_and_never_returned():
    world, gw = build()
    made = ok(gw, "alice", "swe_set_secret", {"repo": "ledgerkit", "name": "CODECOV_TOKEN", "ci": True, "body": {"value": "cc-0123456789abcdef"}})
    assert made == {"repo": "ledgerkit", "name": "CODECOV_TOKEN", "hint": "****cdef", "ci": True, "replaced": False, "updated": made["updated"]}
    assert ok(gw, "alice", "swe_set_secret", {"repo": "ledgerkit", "name": "CODECOV_TOKEN", "body": {"value": "short"}})["hint"] == "****"
    refused(world, gw, "carol", "swe_set_secret", {"repo": "ledgerkit", "name": "X", "body": {"value": "v"}}, 403)
    assert gw.call_as_principal("alice", "swe_set_secret", {"repo": "ledgerkit", "name": "lower-case", "body": {"value": "v"}}).status == 400
    assert world.store.get("swe_secrets", {"id": "ledgerkit:CODECOV_TOKEN"})["value"] == "short"


@pytest.fixture
def served():
    s = Served()
    yield s
    s.stop()


def test_rest_ci_release_and_secret_routes(served):
    world = served.start(fixtures(ci_runs=[]))
    url = served.server.url + "/swe/v1"
    alice = {"Authorization": f"Bearer {served.token('alice')}"}
    with httpx.Client(headers=alice, timeout=60) as http:
        run = http.post(f"{url}/repos/ledgerkit/ci", params={"pull": "ledgerkit-9"})
        assert run.status_code == 200 and run.json()["status"] == "passed" and run.json()["ref"] == "pull/ledgerkit-9"
        assert http.get(f"{url}/ci/{run.json()['id']}").json()["head"] == run.json()["head"]
        assert http.get(f"{url}/ci/nope").status_code == 404
        put = http.put(f"{url}/repos/ledgerkit/secrets/NPM_TOKEN", params={"ci": "true"}, json={"value": "npm_abcdefghijklmnop"})
        assert put.status_code == 200 and put.json()["hint"] == "****mnop" and "npm_abcdefghijklmnop" not in put.text
        release = http.post(f"{url}/repos/ledgerkit/releases", params={"version": "1.5.0"}, json={"text": "n"})
        assert release.status_code == 409 and "does not mention 1.5.0" in release.json()["error"]["message"]
    assert world.store.get("swe_ci_runs", {"id": run.json()["id"]})["triggered_by"] == "alice"


# ---- scripts/install-bubblewrap.sh --------------------------------------------------------------------
SCRIPT = os.path.join(os.path.dirname(__file__), "..", "scripts", "install-bubblewrap.sh")


@pytest.mark.skipif(not HAS_BWRAP, reason=NO_BWRAP)
def test_the_install_script_is_idempotent_when_bwrap_is_there():
    done = subprocess.run(["bash", SCRIPT], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0 and "already installed: bubblewrap" in done.stdout


def test_the_install_script_exits_0_with_a_message_when_it_cannot_install(tmp_path):
    os.symlink(shutil.which("id"), tmp_path / "id")  # a PATH with neither bwrap nor apt-get
    done = subprocess.run(["/bin/bash", SCRIPT], capture_output=True, text=True, timeout=60, env={"PATH": str(tmp_path)})
    assert done.returncode == 0 and "apt-get is not available" in done.stdout
