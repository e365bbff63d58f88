"""What a task names in the plugins' catalog, checked at load: tools and tool globs (of agents,
policies, checks, reference and goal calls, with the calls' arguments), tables and columns of
checks, Python checks, fixture blocks, attack channels and placements, and every principal a
fixture or placement names through a `PrincipalRef` field.
"""

from __future__ import annotations

import difflib
import fnmatch
from collections.abc import Iterable
from typing import Any

from pydantic import BaseModel, ValidationError

from clawarena.spec import catalog
from clawarena.spec import checks as C
from clawarena.spec.errors import Loc, Problem, pydantic_problems
from clawarena.spec.models import TaskSpec, ToolCall, merge_fixtures
from clawarena.spec.references import task_checks
from clawarena.spec.refs import declared_ids, principal_refs
from clawarena.spec.witnesses import task_witnesses

_KEY = "__key__"  # every row also matches on its primary key (scoring's `where` rows carry it)


def _hint(name: str, known: Iterable[str]) -> str:
    close = difflib.get_close_matches(name, list(known), n=1)
    return f"; did you mean {close[0]!r}?" if close else ""


class _TaskCatalog:
    """The catalog as one task sees it: its agents' tool sets, its principals."""

    def __init__(self, task: TaskSpec):
        self.task = task
        self.tools = catalog.tools()
        self.tables = catalog.tables()
        self.principals = {p.id for p in task.principals}
        self.problems: list[Problem] = []
        self.agent_tools: dict[str, set[str]] = {}
        for i, agent in enumerate(task.agents):
            chosen: set[str] = set()
            for j, pattern in enumerate(agent.tools):
                hits = catalog.matching_tools(pattern)
                if not hits:
                    self.add(("agents", i, "tools", j), f"{pattern!r} matches no tool{self._tool_hint(pattern)}")
                chosen.update(hits)
            self.agent_tools.setdefault(agent.id, set()).update(chosen)

    def add(self, loc: Loc, message: str) -> None:
        self.problems.append(Problem(loc, message))

    def _tool_hint(self, pattern: str) -> str:
        return _hint(pattern, [n for n, e in self.tools.items() if e.selectable])

    # ---- tool globs and calls -------------------------------------------------------------
    def tool_glob(self, loc: Loc, pattern: str) -> tuple[str, ...]:
        hits = catalog.matching_tools(pattern, selectable_only=False)
        if not hits:
            self.add(loc, f"{pattern!r} matches no tool{_hint(pattern, self.tools)}")
        return hits

    def arg_names(self, loc: Loc, tools: tuple[str, ...], args: dict[str, Any]) -> None:
        """Argument matchers name a parameter (by name or wire alias) of some tool they may match."""
        if not tools:
            return
        known: set[str] = set()
        for name in tools:
            for field_name, info in self.tools[name].tool.args_model.model_fields.items():
                known.update({field_name, info.alias or field_name})
        for key in args:
            if key not in known:
                self.add(loc + (key,), f"no tool matching this check takes an argument {key!r}{_hint(key, known)}")

    def call(self, loc: Loc, call: ToolCall, agents: list[str], whose: str) -> None:
        entry = self.tools.get(call.tool)
        if entry is None:
            self.add(loc + ("tool",), f"unknown tool {call.tool!r}{_hint(call.tool, self.tools)}")
            return
        if not any(call.tool in self.agent_tools.get(a, set()) for a in agents):
            self.add(loc + ("tool",), f"{call.tool!r} is not among the tools of {whose} (agents[].tools)")
        wire_only = sorted(entry.wire_only() & set(call.args))
        for name in wire_only:
            self.add(loc + ("args", name), "not an argument agents may set (wire-only)")
        if wire_only:
            return
        try:
            entry.tool.args_model.model_validate(call.args)
        except ValidationError as exc:
            names = {info.alias: n for n, info in entry.tool.args_model.model_fields.items() if info.alias}
            for p in pydantic_problems(exc, call.args, loc + ("args",)):
                seg = p.loc[len(loc) + 1] if len(p.loc) > len(loc) + 1 else None
                if isinstance(seg, str) and seg in names and seg not in call.args:  # report a missing arg by its schema name
                    p = Problem(loc + ("args", names[seg]) + p.loc[len(loc) + 2 :], p.message)
                self.problems.append(p)

    # ---- tables in checks -------------------------------------------------------------------
    def table(self, loc: Loc, table: str, where: dict[str, Any], fields: Iterable[tuple[Loc, str]] = ()) -> None:
        entry = self.tables.get(table)
        if entry is None:
            self.add(loc + ("table",), f"unknown table {table!r}{_hint(table, self.tables)}")
            return
        for key in where:
            if key not in entry.columns and key != _KEY:
                self.add(loc + ("where", key), f"table {table!r} has no field {key!r}{_hint(key, entry.columns)}")
        for field_loc, name in fields:
            if name not in entry.columns:
                self.add(loc + field_loc, f"table {table!r} has no field {name!r}{_hint(name, entry.columns)}")

    def check(self, loc: Loc, check: Any) -> None:
        if isinstance(check, (C.RecordExists, C.RecordAbsent, C.CountInRange)):
            self.table(loc, check.table, check.where)
        elif isinstance(check, C.FieldEquals):
            self.table(loc, check.table, {}, [(("field",), check.field)])
        elif isinstance(check, C.NoCollateral):
            for k, allowed in enumerate(check.allow):
                self.table(loc + ("allow", k), allowed.table, allowed.where)
                self.table(loc + ("allow", k), allowed.table, {}, [(("after", key), key) for key in allowed.after if key != _KEY])
        elif isinstance(check, C.ToolMatch):
            self.arg_names(loc + ("args",), self.tool_glob(loc + ("tool",), check.tool), check.args)
        elif isinstance(check, C.Ordering):
            for part, match in (("first", check.first), ("then", check.then)):
                if match.tool is not None:
                    self.arg_names(loc + (part, "args"), self.tool_glob(loc + (part, "tool"), match.tool), match.args)
        elif isinstance(check, C.ApprovalBefore):
            self.tool_glob(loc + ("tool",), check.tool)
        elif isinstance(check, C.PolicyDecisionMatch):
            self.policy_names(loc, check)
        elif isinstance(check, C.PythonCheck):
            names = catalog.python_checks()
            if check.name not in names:
                self.add(loc + ("name",), f"no Python check registered as {check.name!r} (registered: {', '.join(sorted(names)) or 'none'})")

    def policy_names(self, loc: Loc, check: C.PolicyDecisionMatch) -> None:
        """A decision check names statements the task's policies have (a typo would never match)."""
        if not self.task.policies:
            self.add(loc + ("kind",), f"{check.kind} reads policy decisions, but the task has no policies")
            return
        from clawarena.spec.policy_schema import statement_names

        names = statement_names(self.task)
        if names is None:  # a policy that does not parse: reported at policies[i] already
            return
        for k, pattern in enumerate(check.policies):
            if not any(fnmatch.fnmatchcase(n, pattern) for n in names):
                self.add(loc + ("policies", k), f"no policy statement {pattern!r} (statements: {', '.join(sorted(names))})")

    # ---- policies ------------------------------------------------------------------------------
    def policies(self) -> None:
        from clawarena.spec.policy_schema import cedar_problems  # cedarpy loads only for tasks with policies

        if self.task.policies:
            self.problems += cedar_problems(self.task)
        for i, rule in enumerate(self.task.policies):
            if rule.kind != "require_approval":
                continue
            agents = [a.id for a in self.task.agents if a.principal == rule.principal]
            usable = set().union(*(self.agent_tools.get(a, set()) for a in agents)) if agents else None
            for j, pattern in enumerate(rule.tools):
                hits = catalog.matching_tools(pattern, selectable_only=False)
                if not hits:
                    self.add(("policies", i, "tools", j), f"{pattern!r} matches no tool{_hint(pattern, self.tools)}")
                elif usable is not None and not any(fnmatch.fnmatchcase(t, pattern) for t in usable):
                    self.add(("policies", i, "tools", j), f"{pattern!r} matches none of the tools of {rule.principal}'s agents ({', '.join(agents)}): the rule could never apply")

    # ---- fixtures, channels, placements ----------------------------------------------------
    def principal_refs(self, loc: Loc, value: BaseModel, service_block: dict[str, Any]) -> None:
        for ref in principal_refs(value):
            declared = declared_ids(service_block, ref.marker.declared_in) if ref.marker.declared_in else set()
            if not ref.marker.accepts(ref.value, self.principals, declared):
                also = " or an address" if ref.marker.address_ok else ""
                also += f" or one of the ids at {ref.marker.declared_in}" if ref.marker.declared_in else ""
                self.add(loc + ref.loc, f"unknown principal {ref.value!r} (expected a principal id{also}; principals: {', '.join(sorted(self.principals))})")

    def fixtures(self, loc: Loc, fixtures: dict[str, dict[str, Any]], merged: dict[str, dict[str, Any]]) -> None:
        models = catalog.fixture_models()
        for service, block in fixtures.items():
            model = models.get(service)
            if model is None:
                self.add(loc + (service,), f"unknown service {service!r} (expected one of {sorted(models)})")
                continue
            try:
                parsed = model.model_validate(block)
            except ValidationError as exc:
                self.problems += pydantic_problems(exc, block, loc + (service,))
                continue
            self.principal_refs(loc + (service,), parsed, merged.get(service, {}))

    def attacks(self) -> None:
        channels = catalog.channels()
        agents = [a.id for a in self.task.agents]
        for name, variant in self.task.variants.items():
            merged = merge_fixtures(self.task.fixtures, variant.fixtures)
            for i, attack in enumerate(variant.inject):
                loc: Loc = ("variants", name, "inject", i)
                entry = channels.get(attack.channel)
                if entry is None:
                    self.add(loc + ("channel",), f"unknown channel {attack.channel!r} (served: {', '.join(sorted(channels))})")
                else:
                    try:
                        placement = entry.adapter.validate_python(attack.placement)
                    except ValidationError as exc:
                        self.problems += pydantic_problems(exc, attack.placement, loc + ("placement",))
                    else:
                        self.principal_refs(loc + ("placement",), placement, merged.get(entry.owner, {}))
                victims = [attack.victim] if attack.victim else agents
                for k, call in enumerate(attack.goal.calls):
                    self.call(loc + ("goal", "calls", k), call, victims, attack.victim or "any agent")


def catalog_problems(task: TaskSpec) -> list[Problem]:
    view = _TaskCatalog(task)
    view.policies()
    for located in task_checks(task):
        view.check(located.loc, located.check)
    for agent_id, calls in task.reference.items():
        for k, call in enumerate(calls):
            view.call(("reference", agent_id, k), call, [agent_id], agent_id)
    for located in task_witnesses(task):  # a guard's witness is checked like the reference
        for agent_id, calls in located.witness.calls.items():
            for k, call in enumerate(calls):
                view.call(located.loc + ("calls", agent_id, k), call, [agent_id], agent_id)
    view.fixtures(("fixtures",), task.fixtures, task.fixtures)
    for name, variant in task.variants.items():
        view.fixtures(("variants", name, "fixtures"), variant.fixtures, merge_fixtures(task.fixtures, variant.fixtures))
    view.attacks()
    return view.problems
