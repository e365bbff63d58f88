"""The deterministic gates every synthesized candidate passes before it is accepted.

In order, each failure a `Diagnostic` naming the component at fault (the revision loop's
components: checks, fixtures, placement, reference, prompt):
- **loads**: the task's YAML loads strictly, exactly as a hand-written task file does;
- **channel**: the risk enters through the channel the prototype names (the attack's channel, a
  channel of a scenario service), or, for a risk the user carries, through no material at all;
- **check**: `clawarena check`'s gates (reference passes, noop fails safely, naive realises the goal
  attributed to the material, the injection is seen on the reference path, every harm check can
  fire, isolation for cross-user tasks);
- **mutants**: the mutation gate: every reference mutant that should fail is caught by the checks,
  and none that should pass is flagged (score 1.0 by default);
- **dedup**: no near duplicate of a task already in the benchmark or already accepted.
"""

from __future__ import annotations

import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import yaml

from clawarena.spec.errors import SpecError
from clawarena.spec.loader import expand, load_task_file
from clawarena.spec.models import Scenario, TaskSpec
from clawarena.spec.prototype import Prototype
from clawarena.synth.dedup import DedupThresholds, SimilarityIndex, check_candidate

Component = Literal["checks", "fixtures", "placement", "reference", "prompt"]
GATE_NAMES = ("loads", "channel", "check", "mutants", "dedup")

# Which component a `clawarena check` gate's failure points at.
CHECK_GATE_COMPONENT: dict[str, Component] = {
    "reference": "reference",
    "noop": "checks",
    "naive": "placement",
    "injections": "placement",
    "harm-coverage": "checks",
    "isolation": "fixtures",
}
# Which component a load problem points at, by the field path's first part.
FIELD_COMPONENT: dict[str, Component] = {
    "fixtures": "fixtures", "principals": "fixtures", "organisations": "fixtures", "edges": "fixtures", "facts": "fixtures",
    "protected": "fixtures", "world": "fixtures", "utility": "checks", "harm": "checks", "outcomes": "checks",
    "reference": "reference", "variants": "placement", "agents": "prompt", "policies": "checks", "replies": "reference",
}  # fmt: skip


@dataclass(frozen=True)
class Diagnostic:
    gate: str
    component: Component
    message: str

    def line(self) -> str:
        return f"[{self.gate}] {self.component}: {self.message}"


@dataclass
class GateReport:
    diagnostics: list[Diagnostic] = field(default_factory=list)
    passed_gates: list[str] = field(default_factory=list)
    mutation_score: float | None = None
    task: TaskSpec | None = None

    @property
    def passed(self) -> bool:
        return not self.diagnostics


def dump_task(task: dict[str, Any]) -> str:
    """The canonical YAML text of a synthesized task (what `synth build` writes)."""
    return yaml.dump(task, Dumper=getattr(yaml, "CSafeDumper", yaml.SafeDumper), sort_keys=False, allow_unicode=True, width=120)


def load_candidate(text: str, name: str) -> TaskSpec:
    """Load task YAML text through the task-file loader itself (a file of that name in a temporary folder)."""
    with tempfile.TemporaryDirectory(prefix="clawarena-synth-") as tmp:
        path = Path(tmp) / f"{name}.yaml"
        path.write_text(text, encoding="utf-8")
        return load_task_file(path)


def _load_component(problem: str) -> Component:
    # Problems read `file: field.path: what`; the first part of the field path names the component.
    parts = problem.split(": ", 2)
    head = parts[1].split(".")[0].split("[")[0] if len(parts) > 1 else ""
    return FIELD_COMPONENT.get(head, "fixtures")


def channel_problems(proto: Prototype, task: TaskSpec) -> list[str]:
    attacks = [(name, a) for name, v in task.variants.items() for a in v.inject]
    if proto.attack_channel is None:
        return [f"variants.{n}: the risk is the user's own request, but material arrives through {a.channel}" for n, a in attacks]
    if not attacks:
        return [f"no variant carries material through {proto.attack_channel}"]
    return [f"variants.{n}.inject: {a.id} arrives through {a.channel}, the prototype names {proto.attack_channel}" for n, a in attacks if a.channel != proto.attack_channel]


@dataclass
class Gates:
    """The gate settings and the state they share across candidates: the worlds, the similarity index."""

    index: SimilarityIndex
    thresholds: DedupThresholds = field(default_factory=DedupThresholds)
    min_mutation_score: float = 1.0
    mutants_per_scenario: int = 12
    _worlds: Any = None

    @property
    def worlds(self) -> Any:
        if self._worlds is None:
            from clawarena.services import world_factory

            self._worlds = world_factory()
        return self._worlds

    def run(self, proto: Prototype, task_data: dict[str, Any]) -> GateReport:
        report = GateReport()
        try:
            task = load_candidate(dump_task(task_data), proto.id)
        except SpecError as e:
            report.diagnostics += [Diagnostic("loads", _load_component(p), p.split(": ", 1)[-1]) for p in e.problems]
            return report
        report.task = task
        report.passed_gates.append("loads")
        report.diagnostics += [Diagnostic("channel", "placement", p) for p in channel_problems(proto, task)]
        if report.diagnostics:
            return report
        report.passed_gates.append("channel")
        scenarios = expand(task, suite="synth")
        report.diagnostics += self.check_diagnostics(scenarios)
        if report.diagnostics:
            return report
        report.passed_gates.append("check")
        report.diagnostics += self.mutant_diagnostics(scenarios, report)
        if report.diagnostics:
            return report
        report.passed_gates.append("mutants")
        verdict = check_candidate(task, self.index, self.thresholds)
        report.diagnostics += [Diagnostic("dedup", d.component, d.message) for d in verdict.diagnostics]
        if report.passed:
            report.passed_gates.append("dedup")
        return report

    def check_diagnostics(self, scenarios: list[Scenario]) -> list[Diagnostic]:
        """The check gate alone: `clawarena check`'s gates on one task's scenarios."""
        from clawarena.runner.selfcheck import check_task

        out = []
        for result in check_task(scenarios, self.worlds):
            for gate, problems in result.problems.items():
                out += [Diagnostic("check", CHECK_GATE_COMPONENT.get(gate, "checks"), f"{result.scenario_id} {gate}: {p}") for p in problems]
        return out

    def mutant_diagnostics(self, scenarios: list[Scenario], report: GateReport) -> list[Diagnostic]:
        """The mutation gate alone; the score goes on `report`."""
        from clawarena.runner.mutants.run import mutate_suite

        tallies = mutate_suite(scenarios, self.mutants_per_scenario, self.worlds)
        results = [r for t in tallies for r in t.results]
        should = [r for r in results if r.mutant.expect == "should_fail"]
        report.mutation_score = sum(r.killed for r in should) / len(should) if should else None
        out = []
        if report.mutation_score is not None and report.mutation_score < self.min_mutation_score:
            out += [Diagnostic("mutants", "checks", f"{r.mutant.scenario_id}: survivor {r.mutant.kind}: {r.mutant.what}") for r in results if r.survived]
        out += [Diagnostic("mutants", "checks", f"{r.mutant.scenario_id}: false alarm {r.mutant.kind}: {r.mutant.what}") for r in results if r.false_alarm]
        return out
