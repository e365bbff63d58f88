"""The prototype spec: the security meaning of a task before it is a task (SeClaw's first stage).

A prototype names a risk target (a taxonomy leaf), an application scenario (a service set, or a
network domain), the agent's role and user-facing task, where the risk enters (risk source and
attack channel), the unsafe behaviour to test, the safety constraints, how normal completion
exposes the agent to the risk, and the tools the task needs. Saved as YAML; loading a file reports
every problem as `file: field.path: what (line N)`, like the task loader, and a save is canonical
(sorted keys, sorted sets) so load and save round-trip byte for byte.
"""

from __future__ import annotations

import difflib
from pathlib import Path
from typing import Any

import yaml
from pydantic import (
    Field,
    ValidationError,
    ValidationInfo,
    field_validator,
    model_validator,
)

from clawarena.spec import catalog
from clawarena.spec.base import Strict
from clawarena.spec.errors import Problem, SpecError, pydantic_problems, render
from clawarena.spec.risks import RiskSource, risk
from clawarena.spec.yamlread import read_yaml_mapping

SLUG = r"^[a-z0-9]+(-[a-z0-9]+)*$"
GATEWAY = "gateway"  # the gateway's own tools (peer messages, approvals): every agent may have them

# The network domains (suites/network/<domain>) and the services their tasks run on: the domain's
# own service plus the agent network's peer messages.
NETWORK_DOMAINS: dict[str, tuple[str, ...]] = {
    "bargaining": ("market", "network"),
    "bidding": ("market", "network"),
    "clinical": ("clinical", "network"),
    "swe": ("network", "swe"),
    "trading": ("network", "trading"),
    "travel": ("network", "travel"),
}


def _distinct_sorted(values: list[str], what: str) -> list[str]:
    repeated = sorted({v for v in values if values.count(v) > 1})
    if repeated:
        raise ValueError(f"{what} listed twice: {', '.join(repeated)}")
    return sorted(values)


class ApplicationScenario(Strict):
    """Where the task happens: a set of services, or one network domain (never both)."""

    services: list[str] = Field(default_factory=list)
    domain: str | None = None

    @field_validator("services")
    @classmethod
    def _services_are_a_set(cls, services: list[str]) -> list[str]:
        return _distinct_sorted(services, "service")  # sorted: a set, saved canonically

    @field_validator("domain")
    @classmethod
    def _known_domain(cls, domain: str | None) -> str | None:
        if domain is not None and domain not in NETWORK_DOMAINS:
            raise ValueError(f"unknown network domain {domain!r} (expected one of {', '.join(NETWORK_DOMAINS)})")
        return domain

    @model_validator(mode="after")
    def _one_of_the_two(self) -> ApplicationScenario:
        if bool(self.services) == (self.domain is not None):
            raise ValueError("give either services (a service set) or domain (a network domain), not both or neither")
        return self

    def service_names(self) -> tuple[str, ...]:
        return NETWORK_DOMAINS[self.domain] if self.domain is not None else tuple(self.services)


class Prototype(Strict):
    id: str = Field(pattern=SLUG)
    risk_target: str  # a taxonomy leaf id (spec/risks.yaml)
    scenario: ApplicationScenario
    agent_role: str = Field(min_length=1)
    user_task: str = Field(min_length=1)  # what the principal asks, in their words
    risk_source: RiskSource
    # An attack channel a scenario service declares; none when the user's own request is the risk.
    attack_channel: str | None = Field(default=None, validate_default=True)
    unsafe_behaviour: str = Field(min_length=1)  # the observable unsafe act a check will look for
    safety_constraints: list[str] = Field(min_length=1)
    exposure: str = Field(min_length=1)  # how doing the task normally brings the agent to the risk
    required_tools: list[str] = Field(min_length=1)

    @field_validator("risk_target")
    @classmethod
    def _known_risk(cls, risk_id: str) -> str:
        risk(risk_id)  # UnknownRisk (a ValueError) names the near ids
        return risk_id

    @field_validator("required_tools")
    @classmethod
    def _tools_are_a_set(cls, tools: list[str]) -> list[str]:
        return _distinct_sorted(tools, "tool")

    @field_validator("safety_constraints")
    @classmethod
    def _constraints_are_text(cls, constraints: list[str]) -> list[str]:
        if any(not c.strip() for c in constraints):
            raise ValueError("a safety constraint is empty")
        return constraints  # in the author's order: the first is the main one

    # Field validators run in field order, so `info.data` holds the fields declared above: the
    # cross-field rules land on the field at fault (`risk_source`, `attack_channel`).
    @field_validator("risk_source")
    @classmethod
    def _source_carries_the_risk(cls, source: str, info: ValidationInfo) -> str:
        target = info.data.get("risk_target")
        if target is not None:
            leaf = risk(target)
            if source not in leaf.sources:
                raise ValueError(f"{source!r} cannot carry {leaf.id} (its risk sources: {', '.join(leaf.sources)})")
        return source

    @field_validator("attack_channel")
    @classmethod
    def _channel_fits_the_source(cls, channel: str | None, info: ValidationInfo) -> str | None:
        source = info.data.get("risk_source")
        if source == "user" and channel is not None:
            raise ValueError("a risk in the user's own request enters through no attack channel: drop the field")
        if source is not None and source != "user" and channel is None:
            raise ValueError(f"a risk from {source} needs the attack channel it enters through")
        return channel


# ---- checks against the installed services (the catalog) -------------------------------------


def catalog_problems(proto: Prototype, data: Any = None) -> list[Problem]:
    """What the model alone cannot know: the services, channels and tools exist and belong together.
    `data` is the file's data: the model sorts its sets, so a problem's index is looked up there."""
    problems: list[Problem] = []
    known = set(catalog.fixture_models())  # every service registers its fixture model
    services = proto.scenario.service_names()
    raw_scenario = data.get("scenario") if isinstance(data, dict) else None
    for i, name in enumerate(proto.scenario.services):
        if name not in known:
            loc = ("scenario", "services", _index_in(raw_scenario, "services", name, i))
            problems.append(Problem(loc, f"unknown service {name!r}{_near(name, known, 'services')}"))
    inside = set(services) & known
    if proto.attack_channel is not None:
        problems += _channel_problems(proto.attack_channel, inside)
    tools = catalog.tools()
    for i, name in enumerate(proto.required_tools):
        entry = tools.get(name)
        loc = ("required_tools", _index_in(data, "required_tools", name, i))
        if entry is None or not entry.selectable:
            problems.append(Problem(loc, f"unknown tool {name!r}{_near(name, set(tools), 'tools')}"))
        elif entry.owner != GATEWAY and entry.owner not in inside:
            problems.append(Problem(loc, f"tool {name!r} belongs to service {entry.owner!r}, not to the scenario's services ({', '.join(services)})"))
    return problems


def _index_in(data: Any, key: str, name: str, fallback: int) -> int:
    """Where `name` sits in the file's list `data[key]` (the model's copy is sorted)."""
    values = data.get(key) if isinstance(data, dict) else None
    return values.index(name) if isinstance(values, list) and name in values else fallback


def _channel_problems(channel: str, services: set[str]) -> list[Problem]:
    declared = {name: e.owner for name, e in catalog.channels().items()}
    own = sorted(name for name, owner in declared.items() if owner in services)
    served = f"the scenario's services declare: {', '.join(own) or 'none'}"
    if channel not in declared:
        return [Problem(("attack_channel",), f"unknown channel {channel!r} ({served})")]
    if declared[channel] not in services:
        return [Problem(("attack_channel",), f"channel {channel!r} is declared by {declared[channel]!r}, not by the scenario's services ({served})")]
    return []


def _near(name: str, names: set[str], what: str) -> str:
    near = difflib.get_close_matches(name, sorted(names), n=3, cutoff=0.6)
    return f": did you mean {', '.join(near)}?" if near else f" (see `clawarena tools list` for the {what})"


# ---- files ----------------------------------------------------------------------------------


def load_prototype_file(path: Path | str) -> Prototype:
    """Parse and check one prototype file; SpecError lists each problem as `file: field.path: what`."""
    path = Path(path)
    parsed = read_yaml_mapping(path, "prototype file")
    data = parsed.data
    try:
        proto = Prototype.model_validate(data)
    except ValidationError as exc:
        raise SpecError(render(path, pydantic_problems(exc, data), parsed.lines)) from None
    problems = catalog_problems(proto, data)
    if problems:
        raise SpecError(render(path, problems, parsed.lines))
    return proto


def dump_prototype(proto: Prototype) -> str:
    """The canonical YAML of a prototype: sorted keys, sets sorted, no unset optional fields."""
    data = proto.model_dump(mode="json", exclude_defaults=True)
    return yaml.safe_dump(data, sort_keys=True, allow_unicode=True, default_flow_style=False, width=1_000_000)


def save_prototype(proto: Prototype, path: Path | str) -> Path:
    path = Path(path)
    path.write_text(dump_prototype(proto), encoding="utf-8")
    return path
