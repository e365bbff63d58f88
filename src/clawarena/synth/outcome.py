"""What instantiating one prototype came to, whichever path did it (the offline compiler or the
models): its rounds with their diagnostics and, when a round passed every gate, the task's YAML."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from clawarena.spec.prototype import Prototype
from clawarena.synth.gates import Diagnostic


@dataclass
class Round:
    attempt: int
    diagnostics: list[Diagnostic]
    passed_gates: list[str] = field(default_factory=list)
    stage: str = "task"  # the model path also has prototype rounds

    def to_json(self) -> dict[str, Any]:
        return {"stage": self.stage, "attempt": self.attempt, "passed_gates": self.passed_gates,
                "diagnostics": [{"gate": d.gate, "component": d.component, "message": d.message} for d in self.diagnostics]}  # fmt: skip


@dataclass
class Outcome:
    prototype: Prototype  # the model path's revised prototype, or the one given
    rounds: list[Round]
    text: str | None = None  # the accepted task's YAML
    file: str | None = None  # relative to the suite folder, once written
    sha256: str | None = None
    mutation_score: float | None = None
    usage: dict[str, float] | None = None  # the model path's calls, tokens and cost

    @property
    def accepted(self) -> bool:
        return self.text is not None
