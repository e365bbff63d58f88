"""The Cedar schema of a task's world, and its policies compiled to one checked Cedar text.

The schema is generated, never written by hand: entity types are the world's principals
(with the attributes the task gives them), organisations, facts, and every resource type the
installed services declare; actions are every tool (each a member of its action group: read,
modify, send, bid, ...) plus `disclose`, the flow of a fact or resource to a recipient. A
task's policies are validated against it at load, so a rule naming an attribute or action that
does not exist is an error in the task file, not a silent no-op at run time (docs/policy.md).
"""

from __future__ import annotations

import json
import re
import types
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, Union, get_args, get_origin

from pydantic import BaseModel

from clawarena.spec import catalog
from clawarena.spec.errors import Problem

if TYPE_CHECKING:
    from clawarena.spec.models import TaskSpec

BASELINE = '@id("baseline") permit (principal, action, resource);\n'
DISCLOSE = "disclose"
_STORE_TYPES = {"text": "String", "integer": "Long", "bool": "Boolean"}


def _cedar_type(annotation: Any, depth: int = 0) -> tuple[dict[str, Any] | None, bool]:
    """(Cedar type, optional) of a tool argument's annotation; None where policies cannot see it.
    A request body (a pydantic model) is a record of its own fields, a few levels deep."""
    origin = get_origin(annotation)
    if origin is not None and str(origin).endswith("Annotated"):
        return _cedar_type(get_args(annotation)[0], depth)
    if origin in (Union, types.UnionType):
        inner = [a for a in get_args(annotation) if a is not type(None)]
        if len(inner) == 1:
            found, _ = _cedar_type(inner[0], depth)
            return found, True
        return None, True
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return (_args_record(annotation, depth + 1) if depth < 3 else None), False
    if annotation is bool:
        return {"type": "Boolean"}, False
    if annotation is int:
        return {"type": "Long"}, False
    if annotation is str or origin is Literal:
        return {"type": "String"}, False
    if origin in (list, tuple, set, frozenset):
        args = get_args(annotation)
        element, _ = _cedar_type(args[0], depth) if args else (None, False)
        return ({"type": "Set", "element": element} if element else None), False
    return None, False


def _args_record(args_model: Any, depth: int = 0) -> dict[str, Any]:
    attributes = {}
    for name, info in args_model.model_fields.items():
        cedar, optional = _cedar_type(info.annotation, depth)
        if cedar is None:
            continue
        attributes[name] = {**cedar, "required": not optional and info.is_required()}
    return {"type": "Record", "attributes": attributes}


def _record(**attributes: Any) -> dict[str, Any]:
    return {"type": "Record", "attributes": attributes}


STRING, LONG, BOOL = {"type": "String"}, {"type": "Long"}, {"type": "Boolean"}


def _call_context(args: dict[str, Any]) -> dict[str, Any]:
    return _record(
        args=args,
        tool=STRING,
        relation={**STRING, "required": False},  # actor <-> the resource's owner: "self", an edge relation, or ""
        owner_role={**STRING, "required": False},  # the role the owner plays in that relation
        same_org=BOOL,
    )


def _flow_context() -> dict[str, Any]:
    return _record(
        recipient=STRING,  # a principal id, an address, "#channel" or "anyone"
        recipient_org={**STRING, "required": False},
        recipient_role={**STRING, "required": False},
        relation=STRING,  # the edge relation between actor and recipient, "self" or ""
        flows={"type": "Set", "element": STRING},  # information types edges allow toward the recipient
        external=BOOL,
        same_org=BOOL,
        channel=STRING,
        tool=STRING,
    )


@dataclass
class PolicySchema:
    """The generated schema (Cedar JSON) and the problems met building it."""

    schema: dict[str, Any]
    problems: list[tuple[tuple[Any, ...], str]] = field(default_factory=list)

    def text(self) -> str:
        return json.dumps(self.schema, sort_keys=True)


def principal_attribute_types(task: "TaskSpec") -> tuple[dict[str, dict[str, Any]], list[tuple[tuple[Any, ...], str]]]:
    """Cedar types of the task's principal attributes (required only where every principal has one)."""
    kinds: dict[str, str] = {}
    problems = []
    for i, p in enumerate(task.principals):
        for name, value in p.attributes.items():
            kind = "Boolean" if isinstance(value, bool) else "Long" if isinstance(value, int) else "String"
            if name in ("id", "name", "role", "kind", "org"):
                problems.append((("principals", i, "attributes", name), f"{name!r} is a built-in principal attribute"))
            elif kinds.setdefault(name, kind) != kind:
                problems.append((("principals", i, "attributes", name), f"type {kind} differs from another principal's {kinds[name]}"))
    counts = {n: sum(1 for p in task.principals if n in p.attributes) for n in kinds}
    return {n: {"type": k, "required": counts[n] == len(task.principals)} for n, k in sorted(kinds.items())}, problems


def build_schema(task: "TaskSpec") -> PolicySchema:
    attributes, problems = principal_attribute_types(task)
    entity_types: dict[str, Any] = {
        "Organisation": {},
        "Service": {},
        "Principal": {"memberOfTypes": ["Organisation"], "shape": _record(id=STRING, name=STRING, role=STRING, kind=STRING, org=STRING, **attributes)},
        "Fact": {"shape": _record(id=STRING, owner=STRING, info_type=STRING, sensitivity=LONG)},
    }
    for name, entry in sorted(catalog.resources().items()):
        extra = {}
        for column in entry.resource.attributes:
            cedar = _STORE_TYPES.get(entry.column_types[column])
            if cedar is not None:
                extra[column] = {"type": cedar, "required": False}
        entity_types[name] = {"shape": _record(id=STRING, owner=STRING, info_type=STRING, sensitivity=LONG, **extra)}
    groups = {DISCLOSE}
    actions: dict[str, Any] = {}
    for name, entry in sorted(catalog.tools().items()):
        tool = entry.tool
        group = getattr(tool, "action", "") or "read"
        groups.add(group)
        resource = getattr(tool, "resource", None)
        actions[name] = {
            "memberOf": [{"id": group}],
            "appliesTo": {
                "principalTypes": ["Principal"],
                "resourceTypes": (sorted(catalog.resources()) if resource[1] == "*" else [resource[1]]) if resource else ["Service"],
                "context": _call_context(_args_record(tool.args_model)),
            },
        }
    actions[DISCLOSE] = {
        "appliesTo": {"principalTypes": ["Principal"], "resourceTypes": sorted(["Fact", *catalog.resources()]), "context": _flow_context()}
    }
    for group in sorted(groups - {DISCLOSE}):
        if group in actions:
            problems.append((("policies",), f"action group {group!r} has the name of a tool"))
        else:
            actions[group] = {}
    return PolicySchema({"": {"entityTypes": entity_types, "actions": dict(sorted(actions.items()))}}, problems)


def _cedar_string(value: str) -> str:
    return json.dumps(value)


@dataclass(frozen=True)
class Statement:
    """One compiled Cedar statement: the id Cedar gives it, its `@id`, the task policy it came from."""

    cedar_id: str  # policy0, policy1, ... in the compiled text's order
    name: str  # its @id annotation, else "<policy id>#<n>"
    source: str  # the task policy's id ("baseline" for the built-in permit)
    effect: str
    approval: str = ""  # @approval: the principal (or "owner") whose approval lifts this forbid
    enforce: bool = False


@dataclass(frozen=True)
class CompiledPolicies:
    text: str
    statements: tuple[Statement, ...]

    def by_cedar_id(self) -> dict[str, Statement]:
        return {s.cedar_id: s for s in self.statements}


def _parts(task: "TaskSpec") -> list[tuple[str, str, bool]]:
    """(source policy id, Cedar text, enforce) in order, the baseline first."""
    parts = [("baseline", BASELINE, False)]
    for policy in task.policies:
        if policy.kind == "require_approval":
            tools = sorted({t for pattern in policy.tools for t in catalog.matching_tools(pattern, selectable_only=False)})
            if not tools:  # the loader names the pattern that matches nothing
                parts.append((policy.id, "", policy.enforce))
                continue
            actions = ", ".join(f"Action::{_cedar_string(t)}" for t in tools)
            enforce = '@enforce("true") ' if policy.enforce else ""
            parts.append((policy.id, (
                f"@id({_cedar_string(policy.id)}) @approval({_cedar_string(policy.approver)}) {enforce}\n"
                f"forbid (principal == Principal::{_cedar_string(policy.principal)}, action in [{actions}], resource);\n"
            ), policy.enforce))  # fmt: skip
        else:
            parts.append((policy.id, policy.text.strip() + "\n", policy.enforce))
    return parts


def _statements(text: str) -> list[dict[str, Any]]:
    import cedarpy

    if not text.strip():
        return []
    return list(json.loads(cedarpy.policies_to_json_str(text))["staticPolicies"].values())


def compile_policies(task: "TaskSpec") -> CompiledPolicies:
    """One Cedar text: the baseline permit, each `require_approval` rule as an approval-lifted
    forbid, and each `cedar` policy's text, in order; with every statement's annotations."""
    statements, texts, n = [], [], 0
    for source, text, enforce in _parts(task):
        for k, est in enumerate(_statements(text)):
            notes = est.get("annotations", {})
            statements.append(Statement(
                cedar_id=f"policy{n}", name=notes.get("id") or f"{source}#{k}", source=source, effect=est["effect"],
                approval=notes.get("approval", ""), enforce=enforce or notes.get("enforce") == "true",
            ))  # fmt: skip
            n += 1
        texts.append(text)
    return CompiledPolicies("\n".join(texts), tuple(statements))


def statement_names(task: "TaskSpec") -> set[str] | None:
    """The names governance events give the task's statements (None when a policy does not parse)."""
    try:
        return {s.name for s in compile_policies(task).statements}
    except ValueError:
        return None


def cedar_problems(task: "TaskSpec") -> list[Problem]:
    """Each policy parsed and validated against the generated schema, with its problems at
    `policies[i].text` (so a misspelt attribute or action is a load error)."""
    import cedarpy

    built = build_schema(task)
    problems = [Problem(loc, message) for loc, message in built.problems]
    schema = built.text()
    principals = {p.id for p in task.principals}
    names: dict[str, str] = {}
    for i, (source, text, _) in enumerate(_parts(task)[1:]):
        loc = ("policies", i, "text" if task.policies[i].kind == "cedar" else "tools")
        try:
            statements = _statements(text)
        except ValueError as exc:
            problems.append(Problem(loc, f"Cedar syntax: {str(exc).strip()}"))
            continue
        result = cedarpy.validate_policies(text, schema)
        for error in result.errors:  # Cedar numbers statements per text: say "statement k", not its internal id
            message = re.sub(r"^for policy `policy(\d+)`, ", lambda m: f"statement {m.group(1)}: ", error.error)
            problems.append(Problem(loc, f"Cedar validation: {message}"))
        for k, est in enumerate(statements):
            notes = est.get("annotations", {})
            approver = notes.get("approval")
            if approver is not None and approver not in principals and approver != "owner" and task.policies[i].kind == "cedar":  # require_approval's approver: checked at its own field
                problems.append(Problem(loc, f"statement {k}: @approval({approver!r}) names no principal (principals: {', '.join(sorted(principals))}; or \"owner\")"))
            if approver is not None and est["effect"] != "forbid":
                problems.append(Problem(loc, f"statement {k}: @approval belongs on a forbid (an approval lifts a prohibition)"))
            name = notes.get("id")
            if name:
                if name in names:
                    problems.append(Problem(loc, f"statement {k}: duplicate @id({name!r}) (also in policy {names[name]})"))
                names[name] = source
    return problems
