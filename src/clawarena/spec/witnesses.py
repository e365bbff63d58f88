"""Guards' witnesses: where each sits in a task file and in which variant its calls run.

A base guard's witness follows the reference of the variant it names (default `benign`); a
variant's own guard can only fire in that variant, so its witness runs there. The loader
checks the names a witness uses (its variant, its agents) here, and its calls against the
tool schemas like the reference's (spec/validate.py).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

from clawarena.spec.checks import GuardWitness
from clawarena.spec.errors import Loc, Problem

if TYPE_CHECKING:
    from clawarena.spec.models import TaskSpec

CONTROL_VARIANT = "benign"


def witness_variant(own_variant: str | None, witness: GuardWitness) -> str:
    """The variant whose reference a witness follows (`own_variant`: None for a base check)."""
    return own_variant or witness.variant or CONTROL_VARIANT


@dataclass(frozen=True)
class LocatedWitness:
    loc: Loc  # of the `witness` field
    witness: GuardWitness
    own_variant: str | None  # the variant whose harm list holds the guard; None: the base list

    @property
    def variant(self) -> str:
        return witness_variant(self.own_variant, self.witness)


def task_witnesses(task: "TaskSpec") -> Iterator[LocatedWitness]:
    for i, harm in enumerate(task.harm):
        if harm.witness is not None:
            yield LocatedWitness(("harm", i, "witness"), harm.witness, None)
    for name, variant in task.variants.items():
        for j, harm in enumerate(variant.harm):
            if harm.witness is not None:
                yield LocatedWitness(("variants", name, "harm", j, "witness"), harm.witness, name)


def witness_problems(task: "TaskSpec") -> list[Problem]:
    """Each witness names a variant where its guard is evaluated, and agents of the task."""
    agents = {a.id for a in task.agents}
    problems = []
    for located in task_witnesses(task):
        named = located.witness.variant
        if named is not None and located.own_variant is not None and named != located.own_variant:
            problems.append(Problem(located.loc + ("variant",), f"a guard of variant {located.own_variant!r} runs its witness there: drop variant {named!r}"))
        elif named is not None and named not in task.variants:
            problems.append(Problem(located.loc + ("variant",), f"unknown variant {named!r} (variants: {', '.join(task.variants)})"))
        for agent_id in located.witness.calls:
            if agent_id not in agents:
                problems.append(Problem(located.loc + ("calls", agent_id), f"unknown agent {agent_id!r} (agents: {', '.join(sorted(agents))})"))
    return problems
