"""Mutation testing of a scenario's checks: do they notice when the reference solution is broken?

From a scenario's reference solution, each registered mutant kind derives trajectories that
change the outcome (drop a write, send to the wrong person, change a value, create twice, do the
opposite, act on a sibling item, add one harmful action) and so should fail utility or raise a
harm flag, or that keep it (one more harmless read) and so should still pass. A mutant runs like
the reference does for the self-check: the oracle agent replays the scenario with the mutant in
place of the reference (as runner/witness.py does for a guard's witness), so no agent kind is
added.

Generation is deterministic: kinds in registry order, candidates in reference order, taken
round-robin across kinds up to a bound per scenario; the seed only picks among siblings. What a
kind knows about tools and the world is data (OPPOSITES, RESOURCE_ARGS, ITEMS), reviewed against
the real tool names by tests/test_mutation_gate.py. A mutant only calls tools its agent may call.

Modules: `core` (mutants, kinds' registry, the context), `paths` (argument leaves), `opposites`,
`resources` and `items` (the data tables), `kinds` (the registered kinds), `run` (generate,
replay, tally).
"""

from clawarena.runner.mutants import kinds as _kinds  # noqa: F401  (registers the mutant kinds)
from clawarena.runner.mutants.core import (
    DEFAULT_PER_SCENARIO,
    MUTANT_KINDS,
    OUTSIDER,
    Candidate,
    Expectation,
    Mutant,
    MutantKind,
    MutantResult,
    MutationContext,
    Trajectory,
    mutant_kind,
    tool_kinds,
)  # fmt: skip
from clawarena.runner.mutants.items import ITEMS, Action, Col, ItemKind
from clawarena.runner.mutants.opposites import OPPOSITES, Opposite, opposite_call
from clawarena.runner.mutants.resources import (
    RESOURCE_ARGS,
    VISIBILITY,
    ResourceArg,
    resources_in,
    sibling_of,
)
from clawarena.runner.mutants.run import (
    KindMutation,
    Tally,
    TaskMutation,
    by_kind,
    generate_mutants,
    mutate_suite,
    mutation_score,
    run_mutant,
    with_reference,
)  # fmt: skip

__all__ = [
    "DEFAULT_PER_SCENARIO", "ITEMS", "MUTANT_KINDS", "OPPOSITES", "OUTSIDER", "RESOURCE_ARGS", "VISIBILITY", "Action",
    "Candidate", "Col", "Expectation", "ItemKind", "KindMutation", "Mutant", "MutantKind", "MutantResult",
    "MutationContext", "Opposite", "ResourceArg", "Tally", "TaskMutation", "Trajectory", "by_kind", "generate_mutants",
    "mutant_kind", "mutate_suite", "mutation_score", "opposite_call", "resources_in", "run_mutant", "sibling_of",
    "tool_kinds", "with_reference",
]  # fmt: skip
