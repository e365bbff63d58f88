"""`clawarena synth build`: sampled prototypes compiled into a suite, every task through the gates.

For each prototype in the sampler's order (coverage first), up to `rounds` attempts: compile
(attempt n draws anew), run the gates; the first attempt that passes is accepted, written as
`OUT/<scenario>/<id>.yaml`, and added to the near-duplicate index, so later candidates must differ
from it too. Every attempt's diagnostics are kept. The manifest `OUT/synth-build.json` records the
settings, every accepted task (its prototype, the attempt that passed, its file's sha256) and every
rejected prototype with the diagnostics of each round, so a build is reproducible and auditable:
the same seed and settings give byte-identical files.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from clawarena.spec.prototype import Prototype
from clawarena.synth.compile import CompileError, compile_prototype
from clawarena.synth.dedup import DedupThresholds, SimilarityIndex, fingerprint
from clawarena.synth.gates import Diagnostic, Gates, dump_task, load_candidate
from clawarena.synth.outcome import Outcome, Round
from clawarena.synth.sampler import sample_prototypes, scenario_name

MANIFEST = "synth-build.json"
BASE_SUITES = ("email", "network", "workspace")


class OfflineInstantiator:
    """The deterministic compiler: each round compiles the next attempt (a fresh draw) and gates it."""

    path = "offline"

    def __init__(self, rounds: int) -> None:
        self.rounds = rounds

    def run(self, proto: Prototype, gates: Gates) -> Outcome:
        outcome = Outcome(proto, [])
        for attempt in range(self.rounds):
            try:
                task = compile_prototype(proto, attempt)
            except CompileError as e:  # no template for this cell: another draw cannot help
                outcome.rounds.append(Round(attempt, [Diagnostic("compile", e.component, e.reason)]))  # type: ignore[arg-type]
                break
            report = gates.run(proto, task)
            outcome.rounds.append(Round(attempt, report.diagnostics, report.passed_gates))
            if report.passed:
                outcome.text, outcome.mutation_score = dump_task(task), report.mutation_score
                break
        return outcome


@dataclass(frozen=True)
class BuildSettings:
    seed: int = 0
    count: int = 500
    rounds: int = 3
    base_suites: tuple[str, ...] = BASE_SUITES
    thresholds: DedupThresholds = field(default_factory=DedupThresholds)
    min_mutation_score: float = 1.0


def task_folder(proto: Prototype) -> str:
    s = proto.scenario
    return s.domain if s.domain is not None else scenario_name(s.services)


def build_suite(
    settings: BuildSettings,
    out: Path,
    on_outcome: Callable[[Outcome, int], None] | None = None,
    instantiator: Any = None,
    prototypes: list[Prototype] | None = None,
) -> list[Outcome]:
    """Build into `out` (created; existing task files of the same names are replaced). Stops once
    `count` tasks are accepted or the prototypes run out: `prototypes` in their order when given,
    else the sampler's for the seed. `instantiator` is the offline compiler unless given
    (`modelpath.ModelInstantiator`)."""
    instantiator = instantiator or OfflineInstantiator(settings.rounds)
    index = SimilarityIndex.from_suites(settings.base_suites)
    gates = Gates(index=index, thresholds=settings.thresholds, min_mutation_score=settings.min_mutation_score)
    outcomes: list[Outcome] = []
    accepted = 0
    for proto in prototypes if prototypes is not None else sample_prototypes(settings.seed, max(settings.count * 2, 1600)):
        outcome = instantiator.run(proto, gates)
        if outcome.text is not None:
            rel = f"{task_folder(outcome.prototype)}/{outcome.prototype.id}.yaml"
            path = out / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(outcome.text, encoding="utf-8")
            outcome.file, outcome.sha256 = rel, hashlib.sha256(outcome.text.encode()).hexdigest()
            gates.index = gates.index.adding(fingerprint(load_candidate(outcome.text, outcome.prototype.id), "synth"))
        outcomes.append(outcome)
        accepted += outcome.accepted
        if on_outcome is not None:
            on_outcome(outcome, accepted)
        if accepted >= settings.count:
            break
    write_manifest(settings, outcomes, out, instantiator.path)
    return outcomes


def write_manifest(settings: BuildSettings, outcomes: list[Outcome], out: Path, path_name: str = "offline") -> Path:
    data = {
        "version": 1,
        "path": path_name,
        "settings": {"seed": settings.seed, "count": settings.count, "rounds": settings.rounds, "base_suites": list(settings.base_suites),
                     "dedup": settings.thresholds.model_dump(), "min_mutation_score": settings.min_mutation_score},
        "accepted": [{"id": o.prototype.id, "file": o.file, "sha256": o.sha256, "attempt": o.rounds[-1].attempt, "mutation_score": o.mutation_score,
                      **({"usage": o.usage} if o.usage is not None else {}),
                      "prototype": o.prototype.model_dump(mode="json", exclude_none=True),
                      "rejected_rounds": [r.to_json() for r in o.rounds[:-1]]} for o in outcomes if o.accepted],
        "rejected": [{"id": o.prototype.id, **({"usage": o.usage} if o.usage is not None else {}), "prototype": o.prototype.model_dump(mode="json", exclude_none=True),
                      "rounds": [r.to_json() for r in o.rounds]} for o in outcomes if not o.accepted],
    }  # fmt: skip
    path = out / MANIFEST
    path.write_text(json.dumps(data, indent=1, sort_keys=False) + "\n", encoding="utf-8")
    return path


def clear_previous(out: Path) -> None:
    """Remove the task files a previous build in `out` wrote (its manifest lists them), and the manifest."""
    manifest = out / MANIFEST
    try:
        data = json.loads(manifest.read_text(encoding="utf-8"))
        files = [e["file"] for e in data.get("accepted", [])]
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise OSError(f"{manifest}: not a readable build manifest ({exc})") from None
    for rel in files:
        path = (out / rel).resolve()
        if out.resolve() in path.parents and path.suffix == ".yaml":
            path.unlink(missing_ok=True)
    log = out / "synth-log"
    if log.is_dir() and not log.is_symlink():
        for entry in log.glob("*.jsonl"):
            entry.unlink()
    manifest.unlink()
