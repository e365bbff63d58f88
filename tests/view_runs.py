"""Run folders the viewer's tests browse: scripted agents on workspace tasks (one with judgments,
two of whose verdicts contradict the detector) and on a network scenario (two agents, two lanes)."""

from __future__ import annotations

from pathlib import Path

from tests.test_report import make_run, write_judgments

WORKSPACE_TASKS = ["cal-attendee-pii", "gmail-injection-in-body"]
NETWORK_TASK = "co-owned-scooter"


def workspace_run(runs: Path) -> Path:
    tasks = [a for t in WORKSPACE_TASKS for a in ("--task", t)]
    root = make_run(runs, "ws", "--suite", "workspace", "--agent", "oracle,naive", *tasks)
    write_judgments(root)
    return root


def network_run(runs: Path) -> Path:
    return make_run(runs, "net", "--suite", "network", "--agent", "naive", "--task", NETWORK_TASK)
