"""The policy engine: a task's Cedar policies decide every call and every flow (docs/policy.md).

One engine per scenario, built once and shared by its worlds (Cedar handles are immutable):
the schema and policy set pre-parsed, and the entities that do not change during an episode
(organisations, principals, facts) parsed once; a request adds only the resource it touches.
A decision names the statements that determined it (by their `@id`), which of them an approval
could lift (`@approval`), and whether any is enforced regardless of the run's mode.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from clawarena.spec.policy_schema import CompiledPolicies, Statement, build_schema, compile_policies, principal_attribute_types

if TYPE_CHECKING:
    from clawarena.spec.models import Scenario

PolicyMode = Literal["monitor", "enforce"]
POLICY_MODES: tuple[str, ...] = ("monitor", "enforce")
SENSITIVITY = {"public": 0, "internal": 1, "confidential": 2, "restricted": 3}


@dataclass(frozen=True)
class EntityRef:
    """The resource of a request: its Cedar type and id, and its attributes."""

    type: str
    id: str
    attrs: dict[str, Any] = field(default_factory=dict)

    def uid(self) -> dict[str, str]:
        return {"type": self.type, "id": self.id}


@dataclass(frozen=True)
class PolicyRequest:
    principal: str  # principal id of the actor
    action: str  # a tool name, or "disclose"
    resource: EntityRef
    context: dict[str, Any]


@dataclass(frozen=True)
class PolicyDecision:
    allowed: bool
    determining: tuple[Statement, ...]  # the forbids that denied it (or the permits that allowed it)
    errors: tuple[str, ...] = ()

    @property
    def liftable(self) -> tuple[Statement, ...]:
        """Denying statements an approval could lift."""
        return tuple(s for s in self.determining if s.approval)

    @property
    def needs_approval_only(self) -> bool:
        return not self.allowed and bool(self.determining) and all(s.approval for s in self.determining)

    @property
    def enforced(self) -> bool:
        return any(s.enforce for s in self.determining)

    def names(self) -> list[str]:
        return [s.name for s in self.determining]


def _fit(value: Any, declared: dict[str, Any]) -> Any:
    """A value as its declared Cedar type holds it: records keep their declared, set attributes;
    sets their elements; anything of another shape is dropped (None)."""
    kind = declared.get("type")
    if kind == "Record":
        if not isinstance(value, dict):
            return None
        attrs = declared.get("attributes", {})
        out = {k: _fit(v, attrs[k]) for k, v in value.items() if k in attrs and v is not None}
        out = {k: v for k, v in out.items() if v is not None}
        missing = [k for k, a in attrs.items() if a.get("required", True) and k not in out]
        return None if missing else out
    if kind == "Set":
        if not isinstance(value, (list, tuple, set, frozenset)):
            return None
        items = [_fit(v, declared.get("element", {})) for v in value]
        return [v for v in items if v is not None]
    if kind == "Long":
        return value if isinstance(value, int) and not isinstance(value, bool) else None
    if kind == "Boolean":
        return value if isinstance(value, bool) else None
    if kind == "String":
        return value if isinstance(value, str) else None
    return None


# A task's schema depends only on its principals' attribute types (the tools and resources are the
# catalog's): building and parsing it costs ~0.2 s and its parsed form ~8 MB, so engines share it.
_SCHEMAS: dict[str, tuple[Any, Any]] = {}


def _shared_schema(task: Any, cedarpy: Any) -> tuple[Any, Any]:
    key = json.dumps(principal_attribute_types(task)[0], sort_keys=True)
    hit = _SCHEMAS.get(key)
    if hit is None:
        built = build_schema(task)
        if len(_SCHEMAS) >= 32:
            _SCHEMAS.clear()
        hit = _SCHEMAS[key] = (built, cedarpy.Schema.from_json_str(built.text()))
    return hit


class PolicyEngine:
    """Cedar over one scenario's world."""

    def __init__(self, scenario: "Scenario"):
        import cedarpy

        task = scenario.task
        built, self._schema = _shared_schema(task, cedarpy)
        self.compiled: CompiledPolicies = compile_policies(task)
        self._statements = self.compiled.by_cedar_id()
        self._policies = cedarpy.PolicySet.from_str(self.compiled.text)
        self._context_attrs = {
            name: action.get("appliesTo", {}).get("context", {}).get("attributes", {}).get("args", {}).get("attributes", {})
            for name, action in built.schema[""]["actions"].items()
        }
        self._entities = cedarpy.Entities.from_json_str(json.dumps(self._base_entities(scenario)), self._schema)
        self._resource_entities: dict[str, Any] = {}
        self._cedarpy = cedarpy

    @staticmethod
    def _base_entities(scenario: "Scenario") -> list[dict[str, Any]]:
        task = scenario.task
        orgs = sorted({p.org for p in task.principals if p.org} | {o.id for o in task.organisations})
        out: list[dict[str, Any]] = [{"uid": {"type": "Organisation", "id": o}, "attrs": {}, "parents": []} for o in orgs]
        for p in task.principals:
            attrs = {"id": p.id, "name": p.name, "role": p.role, "kind": p.kind, "org": p.org, **p.attributes}
            parents = [{"type": "Organisation", "id": p.org}] if p.org else []
            out.append({"uid": {"type": "Principal", "id": p.id}, "attrs": attrs, "parents": parents})
        for f in scenario.facts:
            attrs = {"id": f.id, "owner": f.owner, "info_type": f.info_type or f.id, "sensitivity": SENSITIVITY[f.sensitivity]}
            out.append({"uid": {"type": "Fact", "id": f.id}, "attrs": attrs, "parents": []})
        return out

    @staticmethod
    def fact_entity(fact: Any) -> EntityRef:
        """A fact as the resource of a `disclose` request (the attributes the base entities give it)."""
        return EntityRef("Fact", fact.id, {"id": fact.id, "owner": fact.owner, "info_type": fact.info_type or fact.id, "sensitivity": SENSITIVITY[fact.sensitivity]})

    def context_args(self, action: str, args: dict[str, Any]) -> dict[str, Any]:
        """The call's (validated) arguments as policies see them: the declared, typed ones that are set."""
        declared = self._context_attrs.get(action, {})
        fitted = {k: _fit(v, declared[k]) for k, v in args.items() if k in declared and v is not None}
        return {k: v for k, v in fitted.items() if v is not None}

    def _with_resource(self, resource: EntityRef) -> Any:
        """The base entities plus the request's resource row. Handles are cached by the row's
        content (a row is decided again and again in an episode); the delta is not re-validated
        against the schema, which costs ~1 ms a call: its attributes come typed from the row's columns."""
        if resource.type == "Fact":
            return self._entities
        key = json.dumps([resource.type, resource.id, resource.attrs], sort_keys=True)
        found = self._resource_entities.get(key)
        if found is None:
            delta = [{"uid": resource.uid(), "attrs": resource.attrs, "parents": []}]
            found = self._entities.with_added_json_str(json.dumps(delta))
            if len(self._resource_entities) >= 1024:  # bounded: an engine lives as long as its scenario's template
                self._resource_entities.clear()
            self._resource_entities[key] = found
        return found

    def decide(self, request: PolicyRequest) -> PolicyDecision:
        try:
            entities = self._with_resource(request.resource)
        except ValueError as exc:
            return PolicyDecision(False, (), (f"resource {request.resource.type}::{request.resource.id}: {exc}",))
        cedar_request = {
            "principal": {"type": "Principal", "id": request.principal},
            "action": {"type": "Action", "id": request.action},
            "resource": request.resource.uid(),
            "context": request.context,
        }
        result = self._cedarpy.is_authorized(cedar_request, self._policies, entities, schema=self._schema)
        determining = tuple(self._statements[r] for r in result.diagnostics.reasons if r in self._statements)
        errors = tuple(str(e) for e in result.diagnostics.errors)
        return PolicyDecision(result.allowed, determining, errors)


def engine_for(scenario: "Scenario") -> PolicyEngine | None:
    """The scenario's engine, or None when its task has no policies (the world builder keeps one per template)."""
    return PolicyEngine(scenario) if scenario.task.policies else None
