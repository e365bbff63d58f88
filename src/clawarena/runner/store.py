"""The run store: runs/<run-id>/ with run.json, trials.jsonl (append-only) and traces/.

A line in trials.jsonl is written only after its trace file, and each line is
flushed and fsynced, so a killed run loses at most the trials in flight; a torn
last line is dropped on resume.
"""

from __future__ import annotations

import json
import os
import platform
import threading
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from clawarena import __version__
from clawarena.runner.units import TrialRecord
from clawarena.spec.base import Strict


class RunConfig(Strict):
    suite: str
    agents: list[str]
    trials: int = 1
    seed: int = 0
    workers: int = 1
    tasks: list[str] = []  # scenario id globs; empty = all
    conditions: list[str] = ["skills-off__meta-off"]  # scaffolding conditions, e.g. skills-on__meta-off
    base_url: str | None = None  # for openai:/anthropic: agents
    models_file: str | None = None  # named model configs (YAML)


class RunStoreError(Exception):
    pass


class RunStore:
    def __init__(self, root: Path):
        self.root = Path(root)
        self.trials_path = self.root / "trials.jsonl"
        self.traces = self.root / "traces"
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
        meta = {
            "run_id": root.name,
            "created": stamp,
            "config": config.model_dump(),
            "versions": {"clawarena": __version__, "python": platform.python_version(), "trial_schema": 1},
        }
        (root / "run.json").write_text(json.dumps(meta, indent=2) + "\n")
        return store

    @classmethod
    def open(cls, path: Path) -> "RunStore":
        store = cls(Path(path))
        if not (store.root / "run.json").is_file():
            raise RunStoreError(f"--resume: {path} is not a run folder (no run.json)")
        store.traces.mkdir(exist_ok=True)
        return store

    @property
    def run_id(self) -> str:
        return self.root.name

    def meta(self) -> dict[str, Any]:
        return json.loads((self.root / "run.json").read_text())

    def config(self) -> RunConfig:
        try:
            return RunConfig.model_validate(self.meta()["config"])
        except (KeyError, ValidationError) as exc:
            raise RunStoreError(f"{self.root / 'run.json'}: config: {exc}") from exc

    # ---- records --------------------------------------------------------------
    def records(self, repair: bool = False) -> list[TrialRecord]:
        """Every complete line; with `repair`, a torn last line (a killed write) is cut off."""
        if not self.trials_path.exists():
            return []
        raw = self.trials_path.read_bytes()
        out: list[TrialRecord] = []
        good_end = 0
        for line in raw.splitlines(keepends=True):
            if not line.endswith(b"\n"):
                break
            try:
                out.append(TrialRecord.model_validate_json(line))
            except ValidationError:
                break
            good_end += len(line)
        if repair and good_end != len(raw):
            with open(self.trials_path, "r+b") as fh:
                fh.truncate(good_end)
        latest: dict[str, TrialRecord] = {}
        for r in out:  # a retried unit appends a newer line; the newest wins
            latest.pop(r.unit_id, None)
            latest[r.unit_id] = r
        return list(latest.values())

    def finished(self, repair: bool = False, retry_errors: bool = False) -> set[str]:
        return {r.unit_id for r in self.records(repair=repair) if not (retry_errors and r.outcome == "error")}

    def append(self, record: TrialRecord) -> None:
        line = record.model_dump_json() + "\n"
        with self._lock, open(self.trials_path, "a", encoding="utf-8") as fh:
            fh.write(line)
            fh.flush()
            os.fsync(fh.fileno())

    def write_trace(self, stem: str, trace: dict[str, Any]) -> str:
        path = self.traces / f"{stem}.json"
        tmp = path.with_suffix(".json.tmp")
        tmp.write_text(json.dumps(trace, ensure_ascii=False, default=str))
        os.replace(tmp, path)
        return str(path.relative_to(self.root))
