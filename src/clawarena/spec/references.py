"""Cross-references inside one task that need no catalog: ids are unique, and every
principal, agent, approver, actor, victim, attack material, fact and protected resource a field
names exists; a capability task gates on at least one must-pass check.

`TaskSpec` runs these when it is built in Python (one ValueError); the loader runs
them with each problem at its own field path.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from clawarena.spec import checks as C
from clawarena.spec.errors import Loc, Problem
from clawarena.spec.witnesses import witness_problems

if TYPE_CHECKING:
    from clawarena.spec.models import TaskSpec


@dataclass(frozen=True)
class LocatedCheck:
    """A check, where it sits in the file, and the variants in which it is evaluated."""

    loc: Loc
    check: Any
    variants: tuple[str, ...]


def task_checks(task: "TaskSpec") -> Iterator[LocatedCheck]:
    """Every check of a task: base utility (where no variant replaces it), base harm, each
    variant's, and each attack's goal outcomes."""
    names = tuple(task.variants)
    base_utility = tuple(n for n, v in task.variants.items() if v.utility is None)
    for i, check in enumerate(task.utility):
        yield LocatedCheck(("utility", i), check, base_utility)
    for i, harm in enumerate(task.harm):
        yield LocatedCheck(("harm", i, "check"), harm.check, names)
    for pid, checks in task.outcomes.items():
        for i, check in enumerate(checks):
            yield LocatedCheck(("outcomes", pid, i), check, names)
    for name, variant in task.variants.items():
        for i, check in enumerate(variant.utility or []):
            yield LocatedCheck(("variants", name, "utility", i), check, (name,))
        for i, harm in enumerate(variant.harm):
            yield LocatedCheck(("variants", name, "harm", i, "check"), harm.check, (name,))
        for i, attack in enumerate(variant.inject):
            for j, outcome in enumerate(attack.goal.outcomes):
                yield LocatedCheck(("variants", name, "inject", i, "goal", "outcomes", j, "check"), outcome.check, (name,))


def _unique(items: Iterable[Any], attr: str, where: Loc, what: str) -> list[Problem]:
    seen: dict[str, int] = {}
    out = []
    for i, item in enumerate(items):
        value = getattr(item, attr)
        if value in seen:
            out.append(Problem(where + (i, attr), f"duplicate {what} {value!r} (also {where[-1]}[{seen[value]}])"))
        else:
            seen[value] = i
    return out


def _names(ids: Iterable[str]) -> str:
    return ", ".join(sorted(ids)) or "none"


def reference_problems(task: "TaskSpec") -> list[Problem]:
    principals = {p.id for p in task.principals}
    agents = {a.id for a in task.agents}
    problems = _unique(task.principals, "id", ("principals",), "principal id")
    problems += _unique(task.agents, "id", ("agents",), "agent id")
    problems += _unique(task.policies, "id", ("policies",), "policy id")

    def principal(loc: Loc, value: str | None, role: str = "principal") -> None:
        if value is not None and value not in principals:
            problems.append(Problem(loc, f"unknown {role} {value!r} (principals: {_names(principals)})"))

    def actor(loc: Loc, value: str | None) -> None:
        if value is not None and value not in principals and value not in agents:
            problems.append(Problem(loc, f"unknown actor {value!r} (agents: {_names(agents)}; principals: {_names(principals)})"))

    problems += _unique(task.organisations, "id", ("organisations",), "organisation id")
    orgs = {o.id for o in task.organisations} | {o.name for o in task.organisations if o.name}
    external = {p.id for p in task.principals if p.kind == "external"}
    for i, p in enumerate(task.principals):
        if task.organisations and p.org and p.org not in orgs:
            problems.append(Problem(("principals", i, "org"), f"unknown organisation {p.org!r} (organisations: {_names(o.id for o in task.organisations)})"))
    for i, a in enumerate(task.agents):
        principal(("agents", i, "principal"), a.principal)
        if a.principal in external:
            problems.append(Problem(("agents", i, "principal"), f"{a.principal!r} is an external actor (kind: external): its moves are scripted, it has no delegate agent"))
    for i, e in enumerate(task.edges):
        principal(("edges", i, "source"), e.source)
        principal(("edges", i, "target"), e.target)
        for action, who in e.approvers.items():
            principal(("edges", i, "approvers", action), who, "approver")
    for i, p in enumerate(task.policies):
        if p.kind == "require_approval":
            principal(("policies", i, "principal"), p.principal)
            principal(("policies", i, "approver"), p.approver, "approver")
    for i, r in enumerate(task.replies):
        principal(("replies", i, "approver"), r.approver, "approver")
        if r.requester != "*":
            principal(("replies", i, "requester"), r.requester, "requester")
    for pid in task.outcomes:
        principal(("outcomes", pid), pid)
    for pid in task.needs:
        principal(("needs", pid), pid)
    for i, f in enumerate(task.facts):
        if f.owner:
            principal(("facts", i, "owner"), f.owner, "owner")
    for i, pid in enumerate(task.world.filler.principals):
        principal(("world", "filler", "principals", i), pid)
    for agent_id in task.reference:
        if agent_id not in agents:
            problems.append(Problem(("reference", agent_id), f"unknown agent {agent_id!r} (agents: {_names(agents)})"))
    for name, variant in task.variants.items():
        problems += _unique(variant.inject, "id", ("variants", name, "inject"), "attack id")
        for i, attack in enumerate(variant.inject):
            if attack.victim is not None and attack.victim not in agents:
                problems.append(Problem(("variants", name, "inject", i, "victim"), f"unknown agent {attack.victim!r} (agents: {_names(agents)})"))
    materials = {name: {a.id for a in v.inject} for name, v in task.variants.items()}
    for located in task_checks(task):
        check, loc = located.check, located.loc
        if isinstance(check, C.ApprovalBefore):
            principal(loc + ("approver",), check.approver, "approver")
        if isinstance(check, (C.ToolMatch, C.ApprovalBefore, C.PolicyDecisionMatch)):
            actor(loc + ("actor",), check.actor)
        if isinstance(check, C.ReadMatch):
            for k, pid in enumerate(check.allow):
                principal(loc + ("allow", k), pid)
        if isinstance(check, C.Ordering):
            actor(loc + ("first", "actor"), check.first.actor)
            actor(loc + ("then", "actor"), check.then.actor)
        if isinstance(check, C.CanaryAbsent) and check.material is not None:
            missing = [v for v in located.variants if check.material not in materials[v]]
            if missing:
                problems.append(Problem(loc + ("material",), f"no attack material {check.material!r} in variant(s) {', '.join(missing)}, where this check is evaluated"))
    problems += _fact_problems(task)
    problems += _must_pass_problems(task)
    problems += witness_problems(task)
    return problems


def _fact_problems(task: "TaskSpec") -> list[Problem]:
    problems = _unique(task.facts, "id", ("facts",), "fact id") + _unique(task.protected, "id", ("protected",), "protected resource id")
    for name, variant in task.variants.items():
        for field, base, added in (("facts", task.facts, variant.facts), ("protected", task.protected, variant.protected)):
            problems += _unique(added, "id", ("variants", name, field), "id")
            taken = {item.id for item in base}
            problems += [Problem(("variants", name, field, i, "id"), f"id {item.id!r} is already declared by the task's {field}") for i, item in enumerate(added) if item.id in taken]
    facts = {name: {f.id for f in [*task.facts, *v.facts]} for name, v in task.variants.items()}
    protected = {name: {r.id for r in [*task.protected, *v.protected]} for name, v in task.variants.items()}
    for located in task_checks(task):
        if not isinstance(located.check, (C.DisclosureMatch, C.ReadMatch)):
            continue
        for field, names, known in (("facts", located.check.facts, facts), ("protected", located.check.protected, protected)):
            for k, ref in enumerate(names):
                missing = [v for v in located.variants if ref not in known[v]]
                if missing:
                    what = "fact" if field == "facts" else "protected resource"
                    problems.append(Problem(located.loc + (field, k), f"unknown {what} {ref!r} in variant(s) {', '.join(missing)} (declared: {_names(known[missing[0]])})"))
    return problems


def _must_pass_problems(task: "TaskSpec") -> list[Problem]:
    """Success is defined by must-pass checks: low-weight checks are for quality, never for
    'did what was asked' (so breaking a core instruction cannot still clear the pass mark)."""
    if task.category != "capability":
        return []
    problems = []
    if any(v.utility is None for v in task.variants.values()) and not any(c.must_pass for c in task.utility):
        problems.append(Problem(("utility",), "a capability task needs at least one must_pass check: each instruction clause that defines success is one"))
    for name, variant in task.variants.items():
        if variant.utility is not None and not any(c.must_pass for c in variant.utility):
            problems.append(Problem(("variants", name, "utility"), "a capability task needs at least one must_pass check in a variant's own utility"))
    return problems
