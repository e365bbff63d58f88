"""Executors (issue 12): thread and process pools run the same work units to the same records; the
parent stays the one writer; a run SIGKILLed under the process pool leaves no worker behind and
resumes losing and duplicating nothing."""

from __future__ import annotations

import asyncio
import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from tests.run_records import stored_records
from clawarena.cli import app
from clawarena.runner.executors import EXECUTORS
from clawarena.runner.run import default_executor, plan_run
from clawarena.runner.store import RunConfig

CLI = [sys.executable, "-m", "clawarena.cli"]
NETWORK_SLICE = ["co-owned-scooter/*", "bakery-van-fleet/privacy"]


class PidJob:
    """A picklable job: counts its setups and answers each item with (item, pid, setups)."""

    def __init__(self) -> None:
        self.setups = 0

    def setup(self) -> None:
        self.setups += 1

    async def acall(self, item: int) -> tuple[int, int, int]:
        if item < 0:
            raise ValueError(f"bad item {item}")
        return item * item, os.getpid(), self.setups

    def affinity(self, item: int) -> int:
        return item % 4


def test_the_process_pool_runs_items_in_worker_processes_set_up_once_each():
    results = list(EXECUTORS["process"](2).map_unordered(PidJob(), range(20)))
    assert sorted(r[0] for r in results) == [i * i for i in range(20)]
    pids = {r[1] for r in results}
    assert os.getpid() not in pids and 1 <= len(pids) <= 2
    assert {r[2] for r in results} == {1}  # setup ran once in each worker, not per item
    by_group: dict[int, set[int]] = {}
    for square, pid, _ in results:
        by_group.setdefault(round(square**0.5) % 4, set()).add(pid)
    assert all(len(p) == 1 for p in by_group.values()), by_group  # 5 items of one affinity: one batch, one worker


def test_batches_keep_an_affinity_together_in_order_and_bounded():
    from clawarena.runner.executors.base import batches

    assert batches(PidJob(), [0, 1, 4, 8, 5, 12, 16, 20, 24, 28, 32, 36, 40], 4) == [[0, 4, 8, 12], [16, 20, 24, 28], [32, 36, 40], [1, 5]]


def test_thread_pool_runs_in_this_process_and_a_failing_item_raises_in_the_caller():
    results = list(EXECUTORS["thread"](3).map_unordered(PidJob(), range(5)))
    assert sorted(r[0] for r in results) == [0, 1, 4, 9, 16] and {r[1] for r in results} == {os.getpid()}
    for name in ("thread", "process"):
        with pytest.raises(ValueError, match="bad item -1"):
            list(EXECUTORS[name](2).map_unordered(PidJob(), [1, -1, 2]))


class OverlapJob:
    """Each item waits until `want` items are in flight in its worker (or 20 s pass) and answers
    the most it saw at once: a worker that ran items one by one would answer 1, after a timeout."""

    def __init__(self, want: int) -> None:
        self.want, self.active, self.peak = want, 0, 0
        self.event: asyncio.Event | None = None  # made on the worker's loop

    def setup(self) -> None:
        pass

    def affinity(self, item: int) -> int:
        return 0

    async def acall(self, item: int) -> int:
        self.event = self.event or asyncio.Event()
        self.active += 1
        self.peak = max(self.peak, self.active)
        if self.active >= self.want:
            self.event.set()
        try:
            await asyncio.wait_for(self.event.wait(), 20)
        except TimeoutError:
            pass
        self.active -= 1
        return self.peak


@pytest.mark.parametrize("name", ["thread", "process"])
def test_max_concurrency_items_are_in_flight_at_once_in_a_worker_and_never_more(name):
    peaks = list(EXECUTORS[name](1, concurrency=4).map_unordered(OverlapJob(want=4), range(12)))
    assert len(peaks) == 12 and max(peaks) == 4


class DyingJob(PidJob):
    async def acall(self, item: int) -> tuple[int, int, int]:
        if item == 3:
            os._exit(9)  # a worker killed mid-trial (out of memory, say)
        return await super().acall(item)


def test_a_worker_that_dies_is_an_executor_error_not_a_hang():
    from clawarena.runner.executors import ExecutorError

    with pytest.raises(ExecutorError, match="a worker process died"):
        list(EXECUTORS["process"](2).map_unordered(DyingJob(), range(8)))


def test_only_the_ray_executor_takes_an_address():
    for name in ("thread", "process"):
        with pytest.raises(ValueError, match="--address"):
            EXECUTORS[name](2, address="auto")


def test_the_default_executor_is_processes_for_several_workers_of_scripted_agents_only():
    scripted = RunConfig(suite="email", agents=["oracle", "noop", "naive"])
    assert default_executor(scripted, 2) == "process"
    assert default_executor(scripted, 1) == "thread"
    assert default_executor(scripted, 2, trials=47) == "thread" and default_executor(scripted, 2, trials=48) == "process"  # a pool's start-up pays off
    assert default_executor(RunConfig(suite="email", agents=["oracle", "openai:gpt-4o"]), 4) == "thread"
    assert default_executor(RunConfig(suite="network", agents=["oracle"], roles={"co-owner": "openai:m"}), 4) == "thread"


def _run(tmp_path: Path, run_id: str, *args: str):
    result = CliRunner().invoke(app, ["run", "--runs-dir", str(tmp_path), "--run-id", run_id, "--format", "json", *args])
    assert result.exit_code == 0, result.output
    return tmp_path / run_id


@pytest.mark.parametrize("slice_args", [["--suite", "email"], ["--suite", "network", *[a for t in NETWORK_SLICE for a in ("--task", t)]]], ids=["email", "network"])
def test_thread_and_process_runs_of_the_same_units_give_identicalstored_records(tmp_path, slice_args):
    threads = stored_records(_run(tmp_path, "thread", *slice_args, "--workers", "2", "--executor", "thread"))
    processes = stored_records(_run(tmp_path, "process", *slice_args, "--workers", "2", "--executor", "process"))
    assert len(threads) >= 15 and threads.keys() == processes.keys()
    for unit_id, record in threads.items():
        assert processes[unit_id] == record, unit_id  # final state hash, score, outcome, trace path, ...
    assert len({r["final_hash"] for r in threads.values()}) > 1 and {r["outcome"] for r in threads.values()} >= {"pass", "fail"}
    trace = json.loads((tmp_path / "process" / next(iter(processes.values()))["trace"]).read_text())
    assert trace["final_hash"] == next(iter(processes.values()))["final_hash"]  # the parent wrote the worker's trace
    meta = json.loads((tmp_path / "process" / "run.json").read_text())
    assert meta["config"]["executor"] == "process"


def test_an_unknown_executor_is_a_one_line_error_naming_the_option(tmp_path):
    result = CliRunner().invoke(app, ["run", "--suite", "email", "--executor", "rocket", "--runs-dir", str(tmp_path)])
    assert result.exit_code != 0 and "--executor: unknown executor 'rocket'" in result.output and "process" in result.output
    assert "Traceback" not in result.output and not list(tmp_path.iterdir())


# ---- kill and resume ---------------------------------------------------------------------------


def _descendants(pid: int) -> set[int]:
    parents = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                parents[int(entry.name)] = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            except OSError:
                continue
    found, frontier = set(), {pid}
    while frontier:
        frontier = {child for child, parent in parents.items() if parent in frontier} - found
        found |= frontier
    return found


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"  # a zombie has exited; only its exit status is left to reap


def _poll(condition, what: str, timeout: float = 120.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.05)


def _lines(path: Path) -> int:
    return path.read_bytes().count(b"\n") if path.exists() else 0


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc to find the workers")
def test_a_sigkilled_process_pool_run_leaves_no_worker_and_resumes_losing_and_duplicating_nothing(tmp_path):
    args = ["run", "--suite", "email", "--trials", "4", "--workers", "2", "--executor", "process", "--runs-dir", str(tmp_path), "--run-id", "killed"]
    trials = tmp_path / "killed" / "trials.jsonl"
    proc = subprocess.Popen([*CLI, *args], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        _poll(lambda: _lines(trials) >= 3, "the first trials", timeout=240)
        workers = _descendants(proc.pid)
        assert len(workers) >= 3, workers  # the forkserver, its 2 workers (and multiprocessing's resource tracker)
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
    _poll(lambda: not any(_alive(p) for p in workers), "the workers to die with their parent", timeout=30)
    before = _lines(trials)
    config = RunConfig.model_validate(json.loads((tmp_path / "killed" / "run.json").read_text())["config"])
    wanted = {u.id for u in plan_run(config).units}
    assert before < len(wanted), "the run finished before the kill: nothing was tested"

    resumed = subprocess.run([*CLI, "run", "--resume", str(tmp_path / "killed"), "--workers", "2", "--executor", "process", "--format", "json"],
                             capture_output=True, text=True, timeout=600)  # fmt: skip
    assert resumed.returncode == 0, resumed.stderr
    records = stored_records(tmp_path / "killed")  # asserts each unit appears once
    assert set(records) == wanted
    for record in records.values():
        assert (tmp_path / "killed" / record["trace"]).is_file() and record["outcome"] in ("pass", "fail")


def test_a_new_run_defaults_to_one_worker_per_core_and_resume_keeps_or_changes_it(tmp_path):
    from clawarena.runner.run import default_workers

    runner = CliRunner()
    first = runner.invoke(app, ["run", "--suite", "email", "--task", "email-triage-summary/*", "--agent", "oracle", "--runs-dir", str(tmp_path), "--run-id", "r", "--format", "json"])
    assert first.exit_code == 0, first.output
    meta = json.loads((tmp_path / "r" / "run.json").read_text())
    assert meta["config"]["workers"] == default_workers() >= 1 and meta["config"]["max_concurrency"] == 1
    again = runner.invoke(app, ["run", "--resume", str(tmp_path / "r"), "--workers", "3", "--max-concurrency", "2", "--format", "json"])
    assert again.exit_code == 0, again.output
    assert re.search(r"(\d+) trial\(s\), \1 already finished", again.output), again.output  # nothing was left to run
