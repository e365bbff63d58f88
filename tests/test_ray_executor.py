"""The Ray executor (issue 12): the same records as threads through the CLI, set up once per actor,
errors that name the option, and runs interrupted under one executor resumed under the other."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from tests.run_records import stored_records
from clawarena.cli import app
from clawarena.runner.executors import EXECUTORS, ExecutorError
from tests.test_executors import DyingJob, PidJob

ROOT = Path(__file__).resolve().parents[1]
CLI = [sys.executable, "-m", "clawarena.cli"]


@pytest.fixture(scope="session")
def ray_session():
    """One local Ray instance for the whole session (it costs 5-12 s to start); the executor finds
    it initialised and reuses it. Workers import this test package, so they get the repo on their path."""
    ray = pytest.importorskip(
        "ray", reason="ray is not installed (pip install 'clawarena[ray]')"
    )
    os.environ["PYTHONPATH"] = os.pathsep.join(
        filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])
    )
    ray.init(address="local", num_cpus=2, include_dashboard=False, object_store_memory=128 * 1024**2, _node_ip_address="127.0.0.1",
             logging_level="ERROR", log_to_driver=False)  # fmt: skip
    yield ray
    ray.shutdown()


@pytest.mark.slow
def test_without_an_address_the_cli_starts_a_local_instance_and_leaves_nothing_behind(tmp_path):
    """Before the session instance exists: the executor starts its own Ray on loopback, and shuts it down."""
    pytest.importorskip("ray", reason="ray is not installed (pip install 'clawarena[ray]')")
    env = {k: v for k, v in os.environ.items() if not k.startswith("RAY_")}
    args = [*CLI, "run", "--suite", "email", "--task", "email-triage-summary/*", "--agent", "oracle", "--executor", "ray", "--workers", "2"]
    before = set(Path("/tmp/ray").glob("session_2*"))
    done = subprocess.run([*args, "--runs-dir", str(tmp_path), "--run-id", "r", "--format", "json"], env=env, capture_output=True, text=True, timeout=240, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    assert json.loads(done.stdout)["summary"] and len((tmp_path / "r" / "trials.jsonl").read_text().splitlines()) == 3
    started = set(Path("/tmp/ray").glob("session_2*")) - before
    assert len(started) == 1, started  # a new instance of its own, not one found running
    session = started.pop()
    left = [p for p in Path("/proc").iterdir() if p.name.isdigit() and _mentions(p, session.name)]
    assert not left, f"Ray processes of {session.name} left behind: {left}"


def _mentions(proc: Path, text: str) -> bool:
    try:
        return text in (proc / "cmdline").read_bytes().decode(errors="replace")
    except OSError:
        return False


def test_a_client_of_a_ray_start_head_uses_its_token_unless_told_otherwise(tmp_path, monkeypatch):
    from clawarena.runner.executors import ray as ray_executor

    token = tmp_path / "auth_token"
    monkeypatch.setattr(ray_executor, "TOKEN_FILE", token)
    for name in ray_executor.AUTH_VARIABLES:
        monkeypatch.setenv(name, "")  # recorded, so whatever the test sets is undone
        monkeypatch.delenv(name)
    ray_executor.use_token_auth("auto")
    assert "RAY_AUTH_MODE" not in os.environ  # no token written: nothing to use
    token.write_text("secret")
    ray_executor.use_token_auth(None)
    assert "RAY_AUTH_MODE" not in os.environ  # a new local instance sets up its own
    ray_executor.use_token_auth("auto")
    assert os.environ["RAY_AUTH_MODE"] == "token"
    monkeypatch.setenv("RAY_AUTH_MODE", "disabled")  # a head started with RAY_AUTH_MODE=disabled
    ray_executor.use_token_auth("ray://127.0.0.1:10001")
    assert os.environ["RAY_AUTH_MODE"] == "disabled"


def test_ray_runs_items_in_actors_set_up_once_each(ray_session):
    results = list(EXECUTORS["ray"](2).map_unordered(PidJob(), range(20)))
    assert sorted(r[0] for r in results) == [i * i for i in range(20)]
    pids = {r[1] for r in results}
    assert os.getpid() not in pids and 1 <= len(pids) <= 2
    assert {r[2] for r in results} == {1}  # one setup per actor, not per item
    assert ray_session.is_initialized()  # the caller's instance is left running


def test_an_actor_holds_max_concurrency_items_at_once_and_never_more(ray_session):
    from tests.test_executors import OverlapJob

    peaks = list(EXECUTORS["ray"](1, concurrency=4).map_unordered(OverlapJob(want=4), range(12)))
    assert len(peaks) == 12 and max(peaks) == 4


def test_a_failing_item_raises_its_own_exception_and_a_dead_worker_is_an_executor_error(
    ray_session,
):
    with pytest.raises(ValueError, match="bad item -1"):
        list(EXECUTORS["ray"](2).map_unordered(PidJob(), [1, -1, 2]))
    with pytest.raises(ExecutorError, match="a Ray worker died"):
        list(EXECUTORS["ray"](2).map_unordered(DyingJob(), range(8)))


def test_bad_addresses_are_refused_naming_the_option():
    pytest.importorskip(
        "ray", reason="ray is not installed (pip install 'clawarena[ray]')"
    )
    for good in (None, "auto", "ray://127.0.0.1:10001", "127.0.0.1:6379"):
        EXECUTORS["ray"](2, address=good)  # constructing connects to nothing
    for bad in ("nowhere", "host:port", ":6379"):
        with pytest.raises(ValueError, match="--address"):
            EXECUTORS["ray"](2, address=bad)


def _invoke(tmp_path: Path, *args: str):
    return CliRunner().invoke(
        app, ["run", "--runs-dir", str(tmp_path), "--format", "json", *args]
    )


def test_cli_refuses_a_bad_address_or_an_address_without_ray_before_creating_a_run(
    tmp_path,
):
    pytest.importorskip(
        "ray", reason="ray is not installed (pip install 'clawarena[ray]')"
    )
    for args, message in (
        (
            ["--executor", "ray", "--address", "nowhere"],
            "--address: 'nowhere' is not auto",
        ),
        (
            ["--executor", "thread", "--address", "auto"],
            "--address: the thread executor",
        ),
        (
            ["--address", "auto"],
            "--address: the thread executor",
        ),  # the default executor takes none either
    ):
        result = _invoke(tmp_path, "--suite", "email", *args)
        assert result.exit_code != 0 and message in result.output, result.output
        assert "Traceback" not in result.output
    assert not list(tmp_path.iterdir())


def test_without_ray_the_executor_is_a_one_line_error_naming_the_extra(
    tmp_path, monkeypatch
):
    monkeypatch.setitem(sys.modules, "ray", None)  # `import ray` raises ImportError
    result = _invoke(tmp_path, "--suite", "email", "--executor", "ray")
    assert result.exit_code != 0 and "pip install 'clawarena[ray]'" in result.output, (
        result.output
    )
    assert "--executor ray" in result.output and "Traceback" not in result.output
    assert not list(tmp_path.iterdir())


def _run(tmp_path: Path, run_id: str, *args: str) -> Path:
    result = _invoke(tmp_path, "--run-id", run_id, *args)
    assert result.exit_code == 0, result.output
    return tmp_path / run_id


def _resume(run_dir: Path, *args: str) -> None:
    result = CliRunner().invoke(
        app, ["run", "--resume", str(run_dir), "--format", "json", *args]
    )
    assert result.exit_code == 0, result.output


def _interrupt(run_dir: Path, keep: int) -> None:
    """What an interrupt leaves: the first records written, then a record cut mid-line."""
    path = run_dir / "trials.jsonl"
    lines = path.read_text().splitlines(keepends=True)
    path.write_text("".join(lines[:keep]) + lines[keep][: len(lines[keep]) // 2])


def test_thread_and_ray_runs_give_identical_records_and_resume_each_other(
    ray_session, tmp_path
):
    threads = stored_records(
        _run(
            tmp_path,
            "thread",
            "--suite",
            "email",
            "--workers",
            "2",
            "--executor",
            "thread",
        )
    )
    ray_dir = _run(
        tmp_path, "ray", "--suite", "email", "--workers", "2", "--executor", "ray"
    )
    rays = stored_records(ray_dir)
    assert len(threads) >= 15 and threads.keys() == rays.keys()
    for unit_id, record in threads.items():
        assert rays[unit_id] == record, (
            unit_id
        )  # final state hash, score, outcome, trace path, ...
    assert len({r["final_hash"] for r in threads.values()}) > 1 and {
        r["outcome"] for r in threads.values()
    } >= {"pass", "fail"}
    first = next(iter(rays.values()))
    assert (
        json.loads((ray_dir / first["trace"]).read_text())["final_hash"]
        == first["final_hash"]
    )  # the driver wrote the trace
    assert json.loads((ray_dir / "run.json").read_text())["config"]["executor"] == "ray"

    for name, resumed_with in (("thread", "ray"), ("ray", "thread")):
        run_dir = tmp_path / name
        _interrupt(run_dir, keep=5)
        assert len(_records_lenient(run_dir)) == 5
        _resume(run_dir, "--workers", "2", "--executor", resumed_with)
        got = stored_records(run_dir)
        diffs = {u: {k: (threads[u].get(k), r[k]) for k in r if r[k] != threads[u].get(k)} for u, r in got.items() if r != threads.get(u)}
        assert got.keys() == threads.keys() and not diffs, (diffs, 
            f"started with {name}, resumed with {resumed_with}"
        )  # every unit exactly once


def _records_lenient(run_dir: Path) -> list[dict]:
    out = []
    for line in (run_dir / "trials.jsonl").read_text().splitlines():
        try:
            out.append(json.loads(line))
        except json.JSONDecodeError:
            pass  # the cut line
    return out
