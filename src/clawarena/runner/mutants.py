"""Mutation testing of a scenario's checks: do they notice when the reference solution is broken?

From a scenario's reference solution, each registered mutant kind derives trajectories that
change the outcome (drop a write, send to the wrong person, change a value, create twice) and
so should fail utility or raise a harm flag, or that keep it (one more harmless read) and so
should still pass. A mutant runs like the reference does for the self-check: the oracle agent
replays the scenario with the mutant in place of the reference (as runner/witness.py does for a
guard's witness), so no agent kind is added.

Generation is deterministic: kinds in registry order, candidates in reference order, taken
round-robin across kinds up to a bound per scenario.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any, Literal

from clawarena.gateway import GATEWAY_TOOLS
from clawarena.registry import Registry
from clawarena.runner.trial import run_trial
from clawarena.runner.units import WorkUnit
from clawarena.services import all_tools, services
from clawarena.spec.models import Scenario, ToolCall
from clawarena.tools.core import ToolKind
from clawarena.world.build import WorldFactory

DEFAULT_PER_SCENARIO = 12
OUTSIDER = "mutant@outsider.example"

Expectation = Literal["should_fail", "should_pass"]
Trajectory = dict[str, list[ToolCall]]  # agent id -> calls, like `task.reference`


@dataclass(frozen=True)
class Candidate:
    """One mutated trajectory as a kind proposes it; `what` says what was changed."""

    what: str
    reference: Trajectory


@dataclass(frozen=True)
class MutantKind:
    expect: Expectation
    generate: Callable[[MutationContext], Iterator[Candidate]]


@dataclass(frozen=True)
class Mutant:
    scenario_id: str
    kind: str
    expect: Expectation
    what: str
    reference: Trajectory


@dataclass(frozen=True)
class MutantResult:
    mutant: Mutant
    passed_clean: bool  # utility passed and no harm flag
    error: str | None = None  # the trial or a check errored: neither killed nor a clean pass

    @property
    def killed(self) -> bool:
        return self.mutant.expect == "should_fail" and self.error is None and not self.passed_clean

    @property
    def survived(self) -> bool:
        return self.mutant.expect == "should_fail" and not self.killed

    @property
    def false_alarm(self) -> bool:
        return self.mutant.expect == "should_pass" and not (self.error is None and self.passed_clean)


@dataclass
class MutationContext:
    """A scenario's reference and what generators need to know about it."""

    scenario: Scenario
    kinds: dict[str, ToolKind]
    calls: list[tuple[str, int, ToolCall]] = field(init=False)  # (agent, index, call) in reference order

    def __post_init__(self) -> None:
        self.calls = [(a, i, c) for a, cs in self.scenario.task.reference.items() for i, c in enumerate(cs)]

    def kind_of(self, call: ToolCall) -> ToolKind | None:
        return self.kinds.get(call.tool)

    def changes(self, call: ToolCall) -> bool:
        return self.kind_of(call) in (ToolKind.WRITE, ToolKind.SEND)

    def with_calls(self, agent: str, calls: list[ToolCall]) -> Trajectory:
        ref = {a: list(cs) for a, cs in self.scenario.task.reference.items()}
        ref[agent] = calls
        return ref

    def replaced(self, agent: str, index: int, call: ToolCall) -> Trajectory:
        calls = list(self.scenario.task.reference[agent])
        calls[index] = call
        return self.with_calls(agent, calls)


MUTANT_KINDS: Registry[MutantKind] = Registry("mutant kind")


def mutant_kind(name: str, expect: Expectation) -> Callable[[Callable[[MutationContext], Iterator[Candidate]]], Any]:
    def register(fn: Callable[[MutationContext], Iterator[Candidate]]) -> Callable[[MutationContext], Iterator[Candidate]]:
        MUTANT_KINDS.register(name, MutantKind(expect, fn))
        return fn

    return register


def _label(agent: str, index: int, call: ToolCall) -> str:
    return f"{agent} call {index + 1} ({call.tool})"


# ---- rewriting argument leaves -------------------------------------------------------------------

Path = tuple[Any, ...]


def _leaves(value: Any, path: Path = ()) -> Iterator[tuple[Path, Any]]:
    if isinstance(value, dict):
        for k, v in value.items():
            yield from _leaves(v, (*path, k))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from _leaves(v, (*path, i))
    else:
        yield path, value


def _set(value: Any, path: Path, new: Any) -> Any:
    """A copy of `value` with the leaf at `path` replaced."""
    if not path:
        return new
    head, rest = path[0], path[1:]
    if isinstance(value, dict):
        return {k: (_set(v, rest, new) if k == head else v) for k, v in value.items()}
    return [(_set(v, rest, new) if i == head else v) for i, v in enumerate(value)]


def _where(path: Path) -> str:
    return "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in path).lstrip(".") or "args"


_EMAIL = re.compile(r"^(?:[^<>@]*<)?([A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,})>?$")
_ISO_DATE = re.compile(r"^(\d{4}-\d{2}-\d{2})")


def _addresses(args: dict[str, Any]) -> list[tuple[Path, str, str]]:
    """(path, leaf, address) of every argument that is an email address (or `Name <address>`)."""
    out = []
    for path, leaf in _leaves(args):
        if isinstance(leaf, str) and (m := _EMAIL.match(leaf.strip())):
            out.append((path, leaf, m.group(1)))
    return out


def _swap_address(ctx: MutationContext, new_for: Callable[[str, str], str | None]) -> Iterator[Candidate]:
    agent_principal = {a.id: a.principal for a in ctx.scenario.task.agents}
    for agent, i, call in ctx.calls:
        if ctx.kind_of(call) != ToolKind.SEND:
            continue
        for path, leaf, address in _addresses(call.args):
            new = new_for(address, agent_principal.get(agent, ""))
            if new is None or new.lower() == address.lower():
                continue
            args = _set(call.args, path, leaf.replace(address, new))
            mutated = call.model_copy(update={"args": args})
            yield Candidate(f"{_label(agent, i, call)}: {_where(path)} {address} -> {new}", ctx.replaced(agent, i, mutated))


def _changed_value(leaf: Any) -> Any:
    """A different number or ISO date (one day later), or None when the leaf is neither."""
    if isinstance(leaf, bool):
        return None
    if isinstance(leaf, int):
        return leaf + 1
    if isinstance(leaf, float):
        return leaf * 2 if leaf else 1.0
    if isinstance(leaf, str) and (m := _ISO_DATE.match(leaf)):
        try:
            day = dt.date.fromisoformat(m.group(1))
        except ValueError:
            return None
        return (day + dt.timedelta(days=1)).isoformat() + leaf[len(m.group(1)) :]
    return None


# ---- the kinds -------------------------------------------------------------------------------------


@mutant_kind("drop-call", "should_fail")
def _drop_call(ctx: MutationContext) -> Iterator[Candidate]:
    for agent, i, call in ctx.calls:
        if ctx.changes(call):
            calls = list(ctx.scenario.task.reference[agent])
            del calls[i]
            yield Candidate(f"dropped {_label(agent, i, call)}", ctx.with_calls(agent, calls))


@mutant_kind("swap-recipient-outsider", "should_fail")
def _swap_outsider(ctx: MutationContext) -> Iterator[Candidate]:
    yield from _swap_address(ctx, lambda address, _principal: OUTSIDER)


@mutant_kind("swap-recipient-principal", "should_fail")
def _swap_principal(ctx: MutationContext) -> Iterator[Candidate]:
    principals = ctx.scenario.task.principals

    def other(address: str, sender: str) -> str | None:
        # another principal than the one addressed, preferably not the sender themself
        others = [p for p in principals if p.email.lower() != address.lower()]
        preferred = [p for p in others if p.id != sender] or others
        return preferred[0].email if preferred else None

    yield from _swap_address(ctx, other)


@mutant_kind("change-value", "should_fail")
def _change_value(ctx: MutationContext) -> Iterator[Candidate]:
    for agent, i, call in ctx.calls:
        if not ctx.changes(call):
            continue
        for path, leaf in _leaves(call.args):
            new = _changed_value(leaf)
            if new is None:
                continue
            mutated = call.model_copy(update={"args": _set(call.args, path, new)})
            yield Candidate(f"{_label(agent, i, call)}: {_where(path)} {leaf!r} -> {new!r}", ctx.replaced(agent, i, mutated))


_CREATES = ("create", "insert", "send", "post")


@mutant_kind("duplicate-create", "should_fail")
def _duplicate_create(ctx: MutationContext) -> Iterator[Candidate]:
    for agent, i, call in ctx.calls:
        if any(word in call.tool.lower() for word in _CREATES):
            calls = list(ctx.scenario.task.reference[agent])
            calls.insert(i + 1, call)
            yield Candidate(f"repeated {_label(agent, i, call)}", ctx.with_calls(agent, calls))


@mutant_kind("extra-read", "should_pass")
def _extra_read(ctx: MutationContext) -> Iterator[Candidate]:
    """The agent's first read repeated after its last call: an equivalent outcome."""
    seen: set[str] = set()
    for agent, i, call in ctx.calls:
        if agent in seen or ctx.kind_of(call) != ToolKind.READ:
            continue
        seen.add(agent)
        calls = list(ctx.scenario.task.reference[agent])
        last_turn = max(c.turn for c in calls)
        calls.append(call.model_copy(update={"turn": last_turn}))
        yield Candidate(f"repeated {_label(agent, i, call)} at the end", ctx.with_calls(agent, calls))


# ---- generating and running ------------------------------------------------------------------------


def tool_kinds() -> dict[str, ToolKind]:
    return {t.name: t.kind for t in [*all_tools(), *GATEWAY_TOOLS]}


def _dump(trajectory: Trajectory) -> dict[str, list[dict[str, Any]]]:
    return {a: [c.model_dump() for c in cs] for a, cs in trajectory.items() if cs}


def generate_mutants(scenario: Scenario, limit: int = DEFAULT_PER_SCENARIO, kinds: dict[str, ToolKind] | None = None) -> list[Mutant]:
    """At most `limit` distinct mutants of the scenario's reference, round-robin over the kinds."""
    ctx = MutationContext(scenario, kinds if kinds is not None else tool_kinds())
    per_kind = [[(name, c) for c in MUTANT_KINDS[name].generate(ctx)] for name in MUTANT_KINDS]
    seen = [_dump(scenario.task.reference)]  # a mutant identical to the reference (or another) is skipped
    mutants: list[Mutant] = []
    for rank in range(max((len(k) for k in per_kind), default=0)):
        for candidates in per_kind:
            if rank >= len(candidates) or len(mutants) >= limit:
                continue
            name, c = candidates[rank]
            dumped = _dump(c.reference)
            if dumped in seen:
                continue
            seen.append(dumped)
            mutants.append(Mutant(scenario.id, name, MUTANT_KINDS[name].expect, c.what, c.reference))
    return mutants


def with_reference(scenario: Scenario, reference: Trajectory) -> Scenario:
    return scenario.model_copy(update={"task": scenario.task.model_copy(update={"reference": reference})})


def run_mutant(scenario: Scenario, mutant: Mutant, worlds: WorldFactory) -> MutantResult:
    """Replay the mutant with the oracle; failing tool calls count by the outcome they leave."""
    unit = WorkUnit(scenario_id=scenario.id, agent="oracle", trial=0, seed=0)
    run = run_trial(unit, with_reference(scenario, mutant.reference), worlds, services())
    if run.score is None:
        return MutantResult(mutant, False, f"the trial errored: {run.record.error}")
    if run.score.check_errors:
        return MutantResult(mutant, False, run.score.error_text())
    return MutantResult(mutant, run.score.passed and not run.score.harmed)


@dataclass
class TaskMutation:
    """The mutation tally of one base task over its scenarios."""

    task_id: str
    results: list[MutantResult] = field(default_factory=list)

    @property
    def should_fail(self) -> int:
        return sum(r.mutant.expect == "should_fail" for r in self.results)

    @property
    def killed(self) -> int:
        return sum(r.killed for r in self.results)

    @property
    def survived(self) -> int:
        return sum(r.survived for r in self.results)

    @property
    def false_alarms(self) -> int:
        return sum(r.false_alarm for r in self.results)


def mutation_score(results: list[MutantResult]) -> float | None:
    """Killed / should-fail; None when no mutant should fail."""
    should = [r for r in results if r.mutant.expect == "should_fail"]
    return sum(r.killed for r in should) / len(should) if should else None


def mutate_suite(
    scenarios: list[Scenario],
    per_scenario: int = DEFAULT_PER_SCENARIO,
    worlds: WorldFactory | None = None,
    on_scenario: Callable[[Scenario], None] | None = None,
) -> list[TaskMutation]:
    """Run every scenario's mutants; one tally per base task, in suite order."""
    from clawarena.services import world_factory

    worlds = worlds or world_factory()
    kinds = tool_kinds()
    tasks: dict[str, TaskMutation] = {}
    for scenario in scenarios:
        tally = tasks.setdefault(scenario.task.id, TaskMutation(scenario.task.id))
        for mutant in generate_mutants(scenario, per_scenario, kinds):
            tally.results.append(run_mutant(scenario, mutant, worlds))
        if on_scenario is not None:
            on_scenario(scenario)
    return list(tasks.values())
