"""The records of a run folder as stored, for comparing runs across executors."""

from __future__ import annotations

import json
from pathlib import Path


def stored_records(run_dir: Path) -> dict[str, dict]:
    """unit id -> its trials.jsonl line without `timings` (the one field allowed to differ);
    a unit written twice fails the test."""
    out = {}
    for line in (run_dir / "trials.jsonl").read_text().splitlines():
        record = json.loads(line)
        record.pop("timings")
        assert record["unit_id"] not in out, "a unit was written twice"
        out[record["unit_id"]] = record
    return out
