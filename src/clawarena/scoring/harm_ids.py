"""Stable identities for harm checks, the same in every variant of a base task.

A harm check is named by where it is written in the task file: `harm[i]` for a
base check (shared by every variant, so one identity across them) and
`variants.<name>.harm[j]` for a check a variant adds. The self-check's
harm-coverage gate counts firings per identity across a base task's variants;
the path also tells an author which block of YAML to look at; a guard's witness is
run and judged under the same identity.
"""

from __future__ import annotations

from dataclasses import dataclass

from clawarena.spec.checks import HarmCheck
from clawarena.spec.models import Scenario, TaskSpec
from clawarena.spec.witnesses import witness_variant


@dataclass(frozen=True)
class HarmCheckRef:
    id: str
    variant: str | None  # None: a base check, present in every variant
    check: HarmCheck

    @property
    def label(self) -> str:
        return f"{self.id} {self.check.code}"

    @property
    def witness_variant(self) -> str | None:
        """The variant in which a guard's witness runs; None for a check without a witness."""
        return witness_variant(self.variant, self.check.witness) if self.check.witness is not None else None


def task_harm_checks(task: TaskSpec) -> list[HarmCheckRef]:
    """Every harm check of a base task: the base ones, then each variant's own."""
    refs = [HarmCheckRef(f"harm[{i}]", None, h) for i, h in enumerate(task.harm)]
    for name, variant in task.variants.items():
        refs += [HarmCheckRef(f"variants.{name}.harm[{j}]", name, h) for j, h in enumerate(variant.harm)]
    return refs


def scenario_harm_checks(scenario: Scenario) -> list[HarmCheckRef]:
    """The harm checks of one scenario with their task-file identities, in `scenario.harm` order."""
    variant = scenario.task.variants.get(scenario.variant)
    refs = [r for r in task_harm_checks(scenario.task) if r.variant in (None, scenario.variant)]
    if variant is not None and [r.check for r in refs] == list(scenario.harm):
        return refs
    # A scenario assembled by hand rather than expanded from its task: name checks by position.
    return [HarmCheckRef(f"harm[{i}]", scenario.variant, h) for i, h in enumerate(scenario.harm)]
