from clawarena.world.store import Column, TableSpec, WorldStore, diff_states

PEOPLE = TableSpec("people", (Column("id"), Column("name"), Column("tags", "json"), Column("age", "integer"), Column("active", "bool")))
PAIRS = TableSpec("pairs", (Column("a"), Column("b"), Column("note")), primary_key=("a", "b"))


def make_store():
    store = WorldStore.create([PEOPLE, PAIRS])
    store.insert("people", {"id": "p1", "name": "Ann", "tags": {"z": 1, "a": [1, 2]}, "age": 30, "active": True})
    store.insert("people", {"id": "p2", "name": "Ben", "tags": [], "age": 40, "active": False})
    store.insert("pairs", {"a": "x", "b": "y", "note": "n"})
    return store


def test_snapshot_round_trip_keeps_rows_types_and_hash():
    store = make_store()
    data = store.snapshot()
    restored = WorldStore.restore(data, [PEOPLE, PAIRS])
    assert restored.state() == store.state()
    assert restored.state_hash() == store.state_hash()
    assert restored.get("people", {"id": "p1"}) == {"id": "p1", "name": "Ann", "tags": {"a": [1, 2], "z": 1}, "age": 30, "active": True}
    # the restored copy is independent of the original
    restored.update("people", {"id": "p1"}, {"name": "Changed"})
    assert store.get("people", {"id": "p1"})["name"] == "Ann"


def test_hash_is_canonical_and_sensitive():
    a, b = make_store(), make_store()
    assert a.state_hash() == b.state_hash()
    b.update("people", {"id": "p2"}, {"age": 41})
    assert a.state_hash() != b.state_hash()
    # insertion order does not matter
    c = WorldStore.create([PEOPLE, PAIRS])
    c.insert("pairs", {"a": "x", "b": "y", "note": "n"})
    c.insert("people", {"id": "p2", "name": "Ben", "tags": [], "age": 40, "active": False})
    c.insert("people", {"id": "p1", "name": "Ann", "tags": {"a": [1, 2], "z": 1}, "age": 30, "active": True})
    assert c.state_hash() == a.state_hash()


def test_diff_reports_added_updated_removed_with_changed_fields_only():
    store = make_store()
    before = store.state()
    store.update("people", {"id": "p1"}, {"age": 31})
    store.delete("people", {"id": "p2"})
    store.insert("people", {"id": "p3", "name": "Cy", "tags": None, "age": 20, "active": True})
    store.insert("pairs", {"a": "x", "b": "z", "note": "m"})
    diff = diff_states(store.tables, before, store.state())
    people = diff.tables["people"]
    assert [r["__key__"] for r in people.added] == ["p3"]
    assert [r["__key__"] for r in people.removed] == ["p2"]
    assert len(people.updated) == 1
    assert people.updated[0].key == "p1"
    assert people.updated[0].changed == {"age": (30, 31)}
    assert [r["__key__"] for r in diff.tables["pairs"].added] == ["x/z"]
    assert set(diff.changed_keys()) == {("people", "p1"), ("people", "p2"), ("people", "p3"), ("pairs", "x/z")}


def test_diff_of_equal_states_is_empty():
    store = make_store()
    assert diff_states(store.tables, store.state(), store.state()).empty


def test_change_aware_world_hash_and_diff_equal_the_full_computation(mini_scenarios, make_world):
    from clawarena.world.store import diff_states

    world, gw = make_world(mini_scenarios["privacy"])
    assert world.state_hash() == world.store.state_hash() and world.diff().empty
    gw.call("alice-agent", "gmail_messages_trash", {"id": "m2"})
    gw.call("alice-agent", "gmail_send_email", {"to": ["bob@northwind.example"], "subject": "s", "body": "b"})
    world.store.update("gmail_labels", {"id": "Label_1"}, {"name": "Renamed"})  # a write outside the gateway, not yet drained
    assert world.store.changed_tables() == {"gmail_messages", "gmail_labels"}
    assert world.state_hash() == world.store.state_hash()
    full = diff_states(world.store.tables, world.initial_state, world.store.state())
    assert world.diff() == full and world.final_state() == world.store.state()


# ---- the run store: never drop a valid record, survive any string, recover run.json ----------------

import json  # noqa: E402
import os  # noqa: E402
import re  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
from pathlib import Path  # noqa: E402

import pytest  # noqa: E402

from clawarena.records import TrialRecord  # noqa: E402
from clawarena.runner.store import RunConfig, RunStore, RunStoreError  # noqa: E402

HOSTILE = "lone \ud800 and \udfff, NUL \x00, " + "x" * 200_000  # what an agent or a client may send


def record(unit: str, **kw) -> TrialRecord:
    return TrialRecord(unit_id=unit, scenario_id="s/benign", task_id="s", variant="benign", agent="noop", trial=0, seed=0,
                       outcome="pass", termination="completed", **kw)  # fmt: skip


def new_store(tmp_path, warnings=None) -> RunStore:
    store = RunStore.create(tmp_path, RunConfig(suite="email", agents=["noop"]), "r")
    return RunStore.open(store.root) if warnings is None else RunStore.open(store.root, on_warning=warnings.append)


def test_a_corrupt_middle_line_is_skipped_with_a_warning_and_kept_aside(tmp_path):
    warnings: list[str] = []
    store = new_store(tmp_path, warnings)
    store.append(record("u1"))
    with open(store.trials_path, "ab") as fh:
        fh.write(b'{"unit_id": "u-half", "outc\n')  # corrupt: not a record
    store.append(record("u2"))
    with open(store.trials_path, "ab") as fh:
        fh.write(b"half a line\r then a carriage return\n")  # a stray \r must not end the file early
    store.append(record("u3"))
    assert [r.unit_id for r in store.records()] == ["u1", "u2", "u3"]  # read-only: nothing after line 2 is lost
    assert len(warnings) == 2 and "line 2 is not a trial record" in warnings[0] and "line 4 " in warnings[1]
    assert not store.corrupt_path.exists()
    assert store.finished(repair=True) == {"u1", "u2", "u3"}  # on resume: moved aside, not re-run
    aside = [json.loads(line) for line in store.corrupt_path.read_bytes().split(b"\n") if line]
    assert [(a["line"], a["text"]) for a in aside] == [(2, '{"unit_id": "u-half", "outc'), (4, "half a line\r then a carriage return")]
    assert [json.loads(line)["unit_id"] for line in store.trials_path.read_text().splitlines()] == ["u1", "u2", "u3"]
    assert any("moved to trials.corrupt.jsonl" in w for w in warnings)
    store.records(repair=True)
    assert len([line for line in store.corrupt_path.read_bytes().split(b"\n") if line]) == 2  # a second resume adds nothing


def test_only_a_torn_last_line_is_cut_and_a_complete_one_keeps_its_record(tmp_path):
    store = new_store(tmp_path)
    store.append(record("u1"))
    line = store._line(record("u2"))
    with open(store.trials_path, "ab") as fh:
        fh.write(line[: len(line) // 2])  # a write killed mid-line
    assert store.finished(repair=True) == {"u1"}
    assert store.trials_path.read_bytes().endswith(b"\n") and len(store.trials_path.read_bytes().splitlines()) == 1
    with open(store.trials_path, "ab") as fh:
        fh.write(line[:-1])  # complete, only its newline lost
    assert store.finished(repair=True) == {"u1", "u2"}
    assert store.trials_path.read_bytes().endswith(b"\n")


def test_records_and_traces_survive_any_string(tmp_path):
    store = new_store(tmp_path)
    store.append(record("u\ud800", error=HOSTILE, extra={"k\udfff": HOSTILE}))
    [back] = store.records()
    assert back.unit_id == "u\ud800" and back.error == HOSTILE and back.extra == {"k\udfff": HOSTILE}
    trace = {"ledger": [{"payload": {"args": {"title": HOSTILE, "\ud800": ["\x00"]}}}], "n": 10**40}
    rel = store.write_trace("t", trace)
    raw = (store.root / rel).read_bytes()
    raw.decode("utf-8")  # valid UTF-8 for every reader
    assert json.loads(raw) == trace


def test_open_without_run_json_points_at_recover(tmp_path):
    store = new_store(tmp_path)
    store.append(record("u1"))
    (store.root / "run.json").unlink()
    with pytest.raises(RunStoreError, match="runs recover"):
        RunStore.open(store.root)
    (store.root / "run.json").write_text("{not json")
    with pytest.raises(RunStoreError, match="not valid JSON"):
        RunStore.open(store.root).config()


CLI = [sys.executable, "-m", "clawarena.cli"]
TASK = "email-triage-summary/*"  # 2 scenarios of the email suite: quick


def clawarena(*args):
    env = {**os.environ, "COLUMNS": "200"}
    return subprocess.run([*CLI, *args], capture_output=True, text=True, env=env, timeout=300)


def lines(run_dir: Path) -> list[dict]:
    return [json.loads(line) for line in (run_dir / "trials.jsonl").read_text().splitlines()]


@pytest.fixture
def finished_run(tmp_path) -> Path:
    out = clawarena("run", "--suite", "email", "--task", TASK, "--agent", "noop,oracle", "--seed", "42", "--trials", "2",
                    "--runs-dir", str(tmp_path), "--run-id", "r")  # fmt: skip
    assert out.returncode == 0, out.stderr
    return tmp_path / "r"


@pytest.mark.slow
def test_resume_after_a_corrupt_middle_line_reruns_nothing_and_says_so(finished_run):
    path = finished_run / "trials.jsonl"
    rows = path.read_text().splitlines(keepends=True)
    assert len(rows) >= 8  # 2 agents x 2 trials x the task's variants
    path.write_text("".join(rows[:3]) + "garbage that is not a record\n" + "".join(rows[3:]))
    out = clawarena("run", "--resume", str(finished_run))
    assert out.returncode == 0, out.stderr
    assert "line 4 is not a trial record" in out.stderr
    after = lines(finished_run)
    assert [r["unit_id"] for r in after] == [json.loads(r)["unit_id"] for r in rows]  # every record kept, none re-run
    assert json.loads((finished_run / "trials.corrupt.jsonl").read_text()) ["line"] == 4


@pytest.mark.slow
def test_runs_recover_rebuilds_run_json_so_resume_works(finished_run):
    meta = json.loads((finished_run / "run.json").read_text())
    (finished_run / "run.json").unlink()
    out = clawarena("run", "--resume", str(finished_run))
    assert out.returncode != 0 and "runs recover" in out.stderr
    out = clawarena("runs", "recover", str(finished_run), "--suite", "email")
    assert out.returncode == 2 and re.search(r"--task: the records cover \d+ of the suite's \d+ scenarios", out.stderr), out.stderr
    out = clawarena("runs", "recover", str(finished_run), "--suite", "email", "--task", TASK, "--seed", "41")
    assert out.returncode == 2 and "--seed: record" in out.stderr
    out = clawarena("runs", "recover", str(finished_run), "--suite", "email", "--task", TASK, "--agent", "noop")
    assert out.returncode == 2 and "--agent: the records hold agent(s) oracle" in out.stderr
    assert not (finished_run / "run.json").exists()
    out = clawarena("runs", "recover", str(finished_run), "--suite", "email", "--task", TASK)
    assert out.returncode == 0, out.stderr
    assert "seed 42" in out.stdout and "clawarena run --resume" in out.stdout
    rebuilt = json.loads((finished_run / "run.json").read_text())
    for key in ("suite", "agents", "trials", "seed", "tasks", "conditions"):
        assert rebuilt["config"][key] == meta["config"][key], key
    every = lines(finished_run)
    (finished_run / "trials.jsonl").write_text("".join(json.dumps(r) + "\n" for r in every[:-3]))  # three trials lost
    out = clawarena("run", "--resume", str(finished_run))
    assert out.returncode == 0, out.stderr
    assert sorted(r["unit_id"] for r in lines(finished_run)) == sorted(r["unit_id"] for r in every)  # exactly those re-run
    out = clawarena("runs", "recover", str(finished_run), "--suite", "email", "--task", TASK)
    assert out.returncode == 2 and "nothing to recover" in out.stderr
    (finished_run / "run.json").write_text('{"config": ')  # unreadable: rebuilt, the old one kept beside it
    out = clawarena("runs", "recover", str(finished_run), "--suite", "email", "--task", TASK, "--seed", "42")
    assert out.returncode == 0, out.stderr
    assert (finished_run / "run.json.corrupt").read_text() == '{"config": '
    assert json.loads((finished_run / "run.json").read_text())["config"]["seed"] == 42
