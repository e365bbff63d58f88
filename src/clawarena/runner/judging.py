"""Judge a saved run: every attack-variant trial and every safety-task trial that did not error,
one question per harm surface (the attacked one, and each surface a declared harm check names),
asked of every judge. Verdicts go to runs/<id>/judgments.jsonl, beside trials.jsonl and never in it.

Resumable like `run`: a (unit, surface, judge, prompt version) already in judgments.jsonl is not
asked again unless `force`. Each line is written whole, flushed and fsynced; a torn last line (a
write cut off) is cut before appending, and a corrupt line elsewhere moves to
judgments.corrupt.jsonl with its line number, as the run store does with trials.jsonl. The run's
run.json and trials.jsonl are only read.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any


from clawarena.records import TrialRecord
from clawarena.runner.jsonl import append_line, json_bytes, repair_jsonl, scan_jsonl, stderr_warning
from clawarena.runner.store import RunStore, RunStoreError
from clawarena.scoring.judges.judge import Judge, JudgeResult
from clawarena.scoring.judges.prompt import PROMPT_VERSION
from clawarena.scoring.judges.verdict import Judgment
from clawarena.spec.taxonomy import SURFACES

JUDGMENTS_FILE = "judgments.jsonl"
CORRUPT_JUDGMENTS_FILE = "judgments.corrupt.jsonl"


def _parse(line: bytes) -> Judgment:
    return Judgment.model_validate(json.loads(line))


def _newest(judgments: list[Judgment]) -> list[Judgment]:
    latest: dict[tuple[str, str, str, str], Judgment] = {}
    for j in judgments:  # a re-judged question appends a newer line; the newest wins
        latest.pop(j.key, None)
        latest[j.key] = j
    return list(latest.values())


def load_judgments(root: Path, on_warning: Callable[[str], None] | None = None) -> list[Judgment]:
    """Every judgment of a run folder, the newest line of each question; [] without judgments.jsonl.
    Corrupt lines are skipped and a torn last line is ignored, each with a warning."""
    path = Path(root) / JUDGMENTS_FILE
    scan = scan_jsonl(path, _parse)
    warn = on_warning or stderr_warning
    for bad in scan.corrupt:
        warn(f"{path}: line {bad.number} is not a judgment ({bad.problem}): skipped")
    if scan.torn:
        warn(f"{path}: the last line was torn (a write cut off): ignored")
    return _newest(scan.items)


class JudgmentsFile:
    """judgments.jsonl for appending: repaired first (torn tail cut, corrupt lines moved aside)."""

    def __init__(self, root: Path, on_warning: Callable[[str], None]):
        self.path = Path(root) / JUDGMENTS_FILE
        self.corrupt_path = Path(root) / CORRUPT_JUDGMENTS_FILE
        self._lock = threading.Lock()
        scan = scan_jsonl(self.path, _parse)
        for bad in scan.corrupt:
            on_warning(f"{self.path}: line {bad.number} is not a judgment ({bad.problem}): moved to {self.corrupt_path.name}")
        if scan.torn:
            on_warning(f"{self.path}: the last line was torn (a write cut off when judging stopped): cut off, its question is asked again")
        if scan.needs_repair:
            repair_jsonl(self.path, self.corrupt_path, scan)
        self.stored = _newest(scan.items)

    def append(self, judgment: Judgment) -> None:
        append_line(self.path, json_bytes(judgment.model_dump(mode="json")) + b"\n", self._lock)


# ---- what to judge ----------------------------------------------------------------------------


def judged_trial(record: TrialRecord) -> bool:
    """Attack-variant trials and safety-task trials are judged; errored trials never are."""
    return record.outcome != "error" and (record.variant != "benign" or record.category == "safety")


@dataclass
class TrialEvidence:
    """What a trial's trace offers the judges: the packet and the declared harm checks, or why not."""

    packet: dict[str, Any] | None
    declared: list[dict[str, Any]]  # harm checks with id, surface, judged (never their outcome)
    problem: str | None = None


def read_evidence(store: RunStore, record: TrialRecord) -> TrialEvidence:
    try:
        trace = store.read_trace(record)
    except RunStoreError as exc:
        return TrialEvidence(None, [], str(exc))
    packet = trace.get("evidence")
    if not isinstance(packet, dict):
        return TrialEvidence(None, [], f"trace {record.trace}: holds no evidence packet (a run older than packets)")
    declared = packet.get("harm_checks")
    if declared is None:  # packets before version 2: the trace's score lists them (goal outcomes are not declared checks)
        declared = [h for h in (trace.get("score") or {}).get("harm_checks", []) if h.get("kind") != "goal_outcome"]
    return TrialEvidence(packet, list(declared))


def surfaces_to_judge(record: TrialRecord, evidence: TrialEvidence) -> list[str]:
    """The attacked surface (when the variant is one) and each surface a declared harm check names,
    in SURFACES order. Without a readable trace the declared checks are unknown: an attack trial is
    asked about its attacked surface, a benign safety trial about every surface (each comes out
    unscorable), so no trial is silently left out."""
    named = {record.variant} | {h.get("surface") for h in evidence.declared}
    if evidence.packet is None and record.variant not in SURFACES:
        named = set(SURFACES)
    return [s for s in SURFACES if s in named]


# ---- judging ----------------------------------------------------------------------------------


@dataclass
class JudgeRunResult:
    judgments: list[Judgment]  # the run's current judgments by these judges and this prompt version (stored, then new)
    new: list[Judgment]  # the questions asked now: trial by trial, surfaces in SURFACES order, judges as given
    skipped: int  # questions already in judgments.jsonl
    trials: int  # trials judged (attack-variant or safety, not errored)
    warnings: list[str] = field(default_factory=list)

    @property
    def asked(self) -> int:
        return len(self.new)


def _judgment(record: TrialRecord, surface: str, judge: Judge, result: JudgeResult, declared: list[dict[str, Any]]) -> Judgment:
    return Judgment(
        unit_id=record.unit_id, scenario_id=record.scenario_id, task_id=record.task_id, variant=record.variant,
        agent=record.agent, condition=record.condition, trial=record.trial, seed=record.seed, surface=surface,
        judge=judge.label, provider=judge.config.provider, model=judge.config.model, prompt_version=PROMPT_VERSION,
        status=result.status, verdict=result.verdict, attempts=result.attempts, problems=result.problems, usage=result.usage,
        deterministic_harm=bool(record.harm.get(surface, False)),
        deterministic_attack=bool(record.attack_caused and surface == record.variant),
        judged_checks=[str(h.get("id")) for h in declared if h.get("surface") == surface and h.get("judged")],
    )  # fmt: skip


def _ask(judge: Judge, evidence: TrialEvidence, surface: str) -> JudgeResult:
    if evidence.packet is None:
        return JudgeResult("unscorable", None, 0, [evidence.problem or "no evidence packet"], {})
    return judge.judge(evidence.packet, surface)


def judge_run(
    store: RunStore,
    judges: Sequence[Judge],
    *,
    force: bool = False,
    on_judgment: Callable[[Judgment], None] | None = None,
    workers: int = 1,
) -> JudgeRunResult:
    """Judge every judged trial of `store` with every judge; `workers` questions are asked at once."""
    labels = [j.label for j in judges]
    if len(set(labels)) != len(labels):
        twice = sorted({label for label in labels if labels.count(label) > 1})
        raise ValueError(f"judge {', '.join(twice)} is given twice; each judge needs its own label")
    warnings: list[str] = []

    def warn(message: str) -> None:
        warnings.append(message)
        stderr_warning(message)

    out = JudgmentsFile(store.root, warn)
    records = [r for r in store.records() if judged_trial(r)]
    warnings.extend(store.warnings)
    by_label = set(labels)
    stored = {j.key: j for j in out.stored if j.judge in by_label and j.prompt_version == PROMPT_VERSION}
    new: list[Judgment] = []
    skipped = 0

    def one(record: TrialRecord, evidence: TrialEvidence, surface: str, judge: Judge) -> Judgment:
        judgment = _judgment(record, surface, judge, _ask(judge, evidence, surface), evidence.declared)
        out.append(judgment)  # in the order answers arrive; `new` keeps the order questions were put
        if on_judgment is not None:
            on_judgment(judgment)
        return judgment

    with ThreadPoolExecutor(max_workers=max(1, workers)) as pool:
        for record in records:  # one trace in memory at a time; its questions run together
            evidence = read_evidence(store, record)
            todo = []
            for surface in surfaces_to_judge(record, evidence):
                for judge in judges:
                    if not force and (record.unit_id, surface, judge.label, PROMPT_VERSION) in stored:
                        skipped += 1
                    else:
                        todo.append((surface, judge))
            new.extend(f.result() for f in [pool.submit(one, record, evidence, s, j) for s, j in todo])
    asked = {j.key for j in new}
    kept = [j for key, j in stored.items() if key not in asked]
    return JudgeRunResult(judgments=kept + new, new=new, skipped=skipped, trials=len(records), warnings=warnings)
