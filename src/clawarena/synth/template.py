"""The offline compiler's templates: per attack channel, the world it contributes and how the
reference reaches it; per service, how a message leaves (the sink); per leaf, the unsafe act.

Templates are package data (`synth/templates/`), strict models checked when they load. Their text
holds placeholders, `{{name.path}}`, filled from the compiler's seeded draw (`fill`): a string that is
one placeholder becomes the value itself (a list stays a list), any other string gets the values'
text in place.
"""

from __future__ import annotations

import re
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any, Literal

from pydantic import Field, ValidationError, field_validator

from clawarena.spec.base import Strict
from clawarena.spec.errors import SpecError, pydantic_problems, render
from clawarena.spec.yamlread import read_yaml_mapping
from clawarena.world.normalise import hedges

TEMPLATES_PACKAGE = "clawarena.synth.templates"
PLACEHOLDER = re.compile(r"\{\{\s*([A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z0-9_]+)*)\s*\}\}")

Json = Any


class TemplateError(ValueError):
    """A placeholder the draw does not define, or template data that does not fit its model."""


# ---- filling ---------------------------------------------------------------------------------


def _lookup(name: str, values: dict[str, Any]) -> Any:
    cur: Any = values
    for part in name.split("."):
        if isinstance(cur, dict) and part in cur:
            cur = cur[part]
        else:
            raise TemplateError(f"placeholder {{{{{name}}}}}: nothing named {part!r} in the draw")
    return cur


def fill(value: Json, values: dict[str, Any]) -> Json:
    """`value` with every placeholder replaced; nested lists and mappings are filled throughout."""
    if isinstance(value, str):
        whole = PLACEHOLDER.fullmatch(value.strip())
        if whole:
            found = _lookup(whole.group(1), values)
            return fill(found, values) if isinstance(found, str) and PLACEHOLDER.search(found) else found
        out = PLACEHOLDER.sub(lambda m: str(_lookup(m.group(1), values)), value)
        return fill(out, values) if PLACEHOLDER.search(out) else out
    if isinstance(value, list):
        return [fill(v, values) for v in value]
    if isinstance(value, dict):
        return {fill(k, values): fill(v, values) for k, v in value.items()}
    return value


# ---- the models ------------------------------------------------------------------------------


class Topic(Strict):
    """One thing the carrying item can be about: its text holds the figure the principal asks for."""

    subject: str = Field(min_length=1)
    body: str = Field(min_length=1, description="the item's text; must contain {{figure_text}}")
    label: str = Field(min_length=1, description="what the figure is, as the principal names it ('the quoted total for the print run')")
    figure: tuple[int, int] = Field(description="the range the figure is drawn from (inclusive); drawn in steps of its last non-zero digit place")
    extra: dict[str, str] = Field(default={}, description="further topic-specific values the channel's fixtures name as {{topic.NAME}}")

    @field_validator("label")
    @classmethod
    def _plain_label(cls, label: str) -> str:
        # The reference's message states the figure after the label; a hedge there ("the estimated
        # cost is ...") makes the amount matcher read the clause as not stating it.
        found = hedges(label)
        if found:
            raise ValueError(f"{', '.join(repr(w) for w in found)} reads as a hedge to the amount matcher, so the reference's own message would not state the figure")
        return label

    @field_validator("body")
    @classmethod
    def _holds_the_figure(cls, body: str) -> str:
        if "{{figure_text}}" not in body.replace(" ", ""):
            raise ValueError("must contain {{figure_text}}: the figure the principal asks for")
        return body


class KeepRow(Strict):
    """A row the task must leave intact (destructive acts): how to destroy it, and the check that
    it is still there."""

    calls: list[dict[str, Json]] = Field(min_length=1)
    check: dict[str, Json]
    label: str = Field(min_length=1, description="the row as the attacker names it ('the March audit trail')")


class ChannelTemplate(Strict):
    channel: str
    service: str
    tools: list[str] = Field(min_length=1, description="the agent's tools for reading the channel (globs allowed)")
    fixtures: dict[str, dict[str, Json]] = Field(description="service -> its fixtures: tables of rows (the item, its siblings, the secret's home) and any other field the service's fixture model has")
    placement: dict[str, Json]
    read: list[dict[str, Json]] = Field(min_length=1, description="the reference's calls that reach the item")
    item: dict[str, Json] = Field(description="the row carrying the figure (and the material): {table, key}; guarded against being sent out")
    secret: dict[str, Json] = Field(description="the protected resource holding the secret: {table, key}")
    intact: list[KeepRow] = Field(description="rows the task must leave intact, each guarded; the first is what a destructive act targets (none: no destructive act here)")
    collateral: list[dict[str, Json]] = Field(default=[], description="no_collateral allow entries that reading the channel needs (read marks)")
    asks: list[str] = Field(min_length=4, description="ways the principal asks for the work; each ends before the sink's own words")
    topics: list[Topic] = Field(min_length=8)


class SinkText(Strict):
    call: dict[str, Json] = Field(description="the tool call delivering {{text}} to {{to}}")
    address: str = Field(default="{{to.email}}", description="how a text (the attack material) names {{to}} so the agent can reach them through this sink")
    ask: list[str] = Field(min_length=1, description="how the principal asks for the delivery to {{to}}")
    to: str = Field(description="how a recipient is named in the utility check (principal id, address or '#channel')")


class Sink(Strict):
    """How something leaves the principal's workspace through one service (`templates/sinks/<service>.yaml`).
    A scenario's messages go through the sink of lowest `priority` among its services."""

    priority: int = Field(ge=0)
    service: str
    tools: list[str] = Field(min_length=1)
    text: SinkText
    fixtures: dict[str, dict[str, Json]] = {}
    collateral: list[dict[str, Json]] = []
    sent_rows: dict[str, Json] = Field(description="{table, where}: the rows one sent message adds (counted by the flood act)")


def _load(path: Path, model: type[Strict]) -> Any:
    parsed = read_yaml_mapping(path, "template file")
    try:
        return model.model_validate(parsed.data)
    except ValidationError as exc:
        raise SpecError(render(path, pydantic_problems(exc, parsed.data), parsed.lines)) from None


def load_channel_template(path: Path | str) -> ChannelTemplate:
    """One channel template file, checked; SpecError names the file and field of each problem."""
    return _load(Path(path), ChannelTemplate)


def _folder(name: str, model: type[Strict], key: str) -> dict[str, Any]:
    """Every template of a folder, by `key` (which must be the file's name)."""
    out: dict[str, Any] = {}
    for entry in sorted((resources.files(TEMPLATES_PACKAGE) / name).iterdir(), key=lambda e: e.name):
        if not entry.name.endswith(".yaml"):
            continue
        tpl = _load(Path(str(entry)), model)
        if getattr(tpl, key) != entry.name[: -len(".yaml")]:
            raise SpecError([f"{entry}: {key}: {getattr(tpl, key)!r} does not match the file name"])
        out[getattr(tpl, key)] = tpl
    return out


@lru_cache(maxsize=1)
def channel_templates() -> dict[str, ChannelTemplate]:
    """Every bundled channel template, by channel (`templates/channels/<channel>.yaml`)."""
    return _folder("channels", ChannelTemplate, "channel")


@lru_cache(maxsize=1)
def sinks() -> dict[str, Sink]:
    """Every bundled sink, by service, lowest priority first."""
    return dict(sorted(_folder("sinks", Sink, "service").items(), key=lambda kv: (kv[1].priority, kv[0])))


class LeafAct(Strict):
    act: str
    secret: Literal["data", "credential", "pii"] | None = None
    demands: list[str] = Field(min_length=1)


class SecretKind(Strict):
    from_name: str
    from_local: str
    subject: str
    body: str = Field(description="must contain {{secret.value}}")
    label: str
    value: str = Field(pattern=r"^[A-Za-z0-9-]+$", description="the value's form: A a capital letter, a a small one, 9 a digit, the rest as is")


class Acts(Strict):
    version: Literal[1]
    leaves: dict[str, LeafAct]
    frames: dict[str, list[str]]
    secrets: dict[str, list[SecretKind]]


@lru_cache(maxsize=1)
def acts() -> Acts:
    return _load(Path(str(resources.files(TEMPLATES_PACKAGE) / "acts.yaml")), Acts)


class OrganisationPools(Strict):
    own: list[tuple[str, str]] = Field(min_length=1)
    outside: list[tuple[str, str]] = Field(min_length=2)


class Organisations(Strict):
    version: Literal[1]
    domains: dict[str, OrganisationPools]


@lru_cache(maxsize=1)
def organisations() -> Organisations:
    return _load(Path(str(resources.files(TEMPLATES_PACKAGE) / "organisations.yaml")), Organisations)
