"""The run store: runs/<run-id>/ with run.json, trials.jsonl (append-only) and traces/.

A line in trials.jsonl is written only after its trace file, and each line is
flushed and fsynced, so a killed run loses at most the trials in flight; a torn
last line is dropped on resume. A valid record is never dropped: a corrupt line
elsewhere is skipped with a warning, and on resume moved to trials.corrupt.jsonl
with its line number. Records and traces are written so that any string
survives (a lone surrogate from an agent is kept as its JSON escape).
"""

from __future__ import annotations

import json
import os
import platform
import threading
from collections.abc import Callable
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Literal

from pydantic import Field, ValidationError

from clawarena import __version__
from clawarena.records import TrialRecord
from clawarena.runner.content_store import ContentStore
from clawarena.runner.trace_file import expand_trace, pack_trace
from clawarena.runner.jsonl import JsonlScan, append_line, json_bytes, repair_jsonl, scan_jsonl, stderr_warning
from clawarena.spec.base import Strict


class RunConfig(Strict):
    suite: str
    agents: list[str]
    trials: int = 1
    seed: int = 0
    workers: int = 1
    max_concurrency: int = Field(default=1, ge=1)  # trials in flight per worker (model agents await the network)
    executor: str | None = None  # thread, process (or ray); None: chosen by the agents and --workers
    tasks: list[str] = []  # scenario id globs; empty = all
    conditions: list[str] = ["skills-off__meta-off"]  # scaffolding conditions, e.g. skills-on__meta-off
    base_url: str | None = None  # for openai:/anthropic: agents
    models_file: str | None = None  # named model configs (YAML)
    roles: dict[str, str] = {}  # role -> agent for the delegate agents that play it (`--agent ROLE=AGENT`)
    policy_mode: Literal["monitor", "enforce"] = "monitor"
    evidence_events: int = Field(default=200, ge=1)  # the evidence packet's bound (events kept per trial)
    detector: str | None = None  # the injection-detector defense's model (`--detector SPEC`)


class RunStoreError(Exception):
    pass


CORRUPT_FILE = "trials.corrupt.jsonl"


def _parse_line(line: bytes) -> TrialRecord:
    # json.loads, not pydantic's JSON parser: it reads the \\uXXXX escape of a lone surrogate
    return TrialRecord.model_validate(json.loads(line))


class RunStore:
    def __init__(self, root: Path, on_warning: Callable[[str], None] | None = None):
        self.root = Path(root)
        self.trials_path = self.root / "trials.jsonl"
        self.corrupt_path = self.root / CORRUPT_FILE
        self.traces = self.root / "traces"
        self.content = ContentStore(self.root)
        self.warnings: list[str] = []  # what reading trials.jsonl found wrong, for the caller
        self._on_warning = on_warning or stderr_warning
        self._lock = threading.Lock()

    # ---- lifecycle ----------------------------------------------------------
    @classmethod
    def create(cls, runs_dir: Path, config: RunConfig, run_id: str | None = None) -> "RunStore":
        stamp = datetime.now(timezone.utc).strftime("%Y%m%d-%H%M%S")
        run_id = run_id or f"{stamp}-{config.suite.replace('/', '_').strip('._') or 'suite'}"
        root = Path(runs_dir) / run_id
        n = 1
        while root.exists():
            n += 1
            root = Path(runs_dir) / f"{run_id}-{n}"
        root.mkdir(parents=True)
        store = cls(root)
        store.traces.mkdir()
        store.write_meta(config, created=stamp)
        return store

    def write_meta(self, config: RunConfig, created: str, **extra: Any) -> None:
        """run.json: the run's id, its config and the versions that made it (atomically replaced)."""
        meta = {
            "run_id": self.root.name,
            "created": created,
            "config": config.model_dump(),
            "versions": {"clawarena": __version__, "python": platform.python_version(), "trial_schema": 1},
            **extra,
        }
        tmp = self.root / "run.json.tmp"
        tmp.write_bytes(json_bytes(meta, indent=2) + b"\n")
        os.replace(tmp, self.root / "run.json")

    @classmethod
    def open(cls, path: Path, on_warning: Callable[[str], None] | None = None) -> "RunStore":
        store = cls(Path(path), on_warning)
        if not (store.root / "run.json").is_file():
            if store.trials_path.is_file():
                raise RunStoreError(f"{path}: run.json is missing; rebuild it from trials.jsonl with `clawarena runs recover {path} --suite SUITE`")
            raise RunStoreError(f"{path} is not a run folder (no run.json)")
        store.traces.mkdir(exist_ok=True)
        return store

    @property
    def run_id(self) -> str:
        return self.root.name

    def meta(self) -> dict[str, Any]:
        path = self.root / "run.json"
        try:
            meta = json.loads(path.read_bytes())
        except ValueError as exc:
            raise RunStoreError(f"{path}: not valid JSON ({exc}); rebuild it with `clawarena runs recover {self.root} --suite SUITE`") from None
        if not isinstance(meta, dict):
            raise RunStoreError(f"{path}: not a JSON object; rebuild it with `clawarena runs recover {self.root} --suite SUITE`")
        return meta

    def config(self) -> RunConfig:
        try:
            return RunConfig.model_validate(self.meta()["config"])
        except (KeyError, ValidationError) as exc:
            raise RunStoreError(f"{self.root / 'run.json'}: config: {exc}") from exc

    # ---- records --------------------------------------------------------------
    def scan(self) -> JsonlScan[TrialRecord]:
        """Read trials.jsonl without changing it."""
        return scan_jsonl(self.trials_path, _parse_line)

    def records(self, repair: bool = False) -> list[TrialRecord]:
        """Every valid record, the newest line of each unit. Corrupt lines are skipped with a warning;
        with `repair` (on resume) they move to trials.corrupt.jsonl and a torn last line is cut off."""
        scan = self.scan()
        for bad in scan.corrupt:
            kept = f"; moved to {self.corrupt_path.name}" if repair else ""
            self._warn(f"{self.trials_path}: line {bad.number} is not a trial record ({bad.problem}): skipped{kept}")
        if repair and scan.torn:
            self._warn(f"{self.trials_path}: the last line was torn (a write cut off when the run stopped): cut off, its trial runs again")
        if repair and scan.needs_repair:
            repair_jsonl(self.trials_path, self.corrupt_path, scan)
        latest: dict[str, TrialRecord] = {}
        for r in scan.items:  # a retried unit appends a newer line; the newest wins
            latest.pop(r.unit_id, None)
            latest[r.unit_id] = r
        return list(latest.values())

    def _warn(self, message: str) -> None:
        if message not in self.warnings:  # once per store, however often the records are read
            self.warnings.append(message)
            self._on_warning(message)

    def finished(self, repair: bool = False, retry_errors: bool = False) -> set[str]:
        return {r.unit_id for r in self.records(repair=repair) if not (retry_errors and r.outcome == "error")}

    @staticmethod
    def _line(record: TrialRecord) -> bytes:
        return json_bytes(record.model_dump()) + b"\n"

    def append(self, record: TrialRecord) -> None:
        append_line(self.trials_path, self._line(record), self._lock)

    def write_trace(self, stem: str, trace: dict[str, Any]) -> str:
        """Write a trial's trace (its content values first, into the content store: the trace
        references them), and return its path relative to the run folder."""
        stored, content = pack_trace(trace)
        self.content.write(content)
        path = self.traces / f"{stem}.json"
        tmp = path.with_suffix(".json.tmp")
        tmp.write_bytes(json_bytes(stored))
        os.replace(tmp, path)
        return str(path.relative_to(self.root))

    def read_trace(self, record: TrialRecord) -> dict[str, Any]:
        """A trial's trace as the trial made it (its evidence packet whole); RunStoreError when the
        record names none, or it cannot be read."""
        if not record.trace:
            raise RunStoreError(f"trial {record.unit_id}: its record names no trace file")
        path = self.root / record.trace
        try:
            trace = json.loads(path.read_bytes())
        except OSError as exc:
            raise RunStoreError(f"trace {record.trace}: cannot read ({exc.strerror or type(exc).__name__})") from None
        except ValueError as exc:
            raise RunStoreError(f"trace {record.trace}: not valid JSON ({exc})") from None
        if not isinstance(trace, dict):
            raise RunStoreError(f"trace {record.trace}: not a JSON object")
        return expand_trace(trace)
