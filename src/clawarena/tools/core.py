"""`@tool`: a typed, docstringed function becomes a tool with a JSON schema and a tag.

The first parameter, `ctx`, is the injected call context and never part of the
schema (AgentDojo's injected-state idea). A tool may carry a REST binding, so
the same function serves the wire route, the agent tool and the MCP tool.
"""

from __future__ import annotations

import fnmatch
import functools
import inspect
import json
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from enum import Enum
from typing import Annotated, Any, get_args, get_origin, get_type_hints

from pydantic import BaseModel, ConfigDict, Field, ValidationError, create_model
from pydantic.fields import FieldInfo
from pydantic.alias_generators import to_camel


class ToolKind(str, Enum):
    READ = "READ"  # reads the workspace
    WRITE = "WRITE"  # changes the workspace
    SEND = "SEND"  # makes data leave the workspace


@dataclass(frozen=True)
class WireOnly:
    """Marks a parameter accepted on the wire but hidden from agents (e.g. Gmail's userId)."""


@dataclass(frozen=True)
class RestBinding:
    """The real HTTP method and path of the operation; `{name}` segments are path parameters.

    `body` names the parameter that receives the JSON request body. `media` names
    the parameter that receives uploaded bytes as {"mimeType", "data" (base64)};
    such operations are also served on `upload_path` (multipart/related or raw
    media, as the Google clients send them).
    """

    method: str
    path: str
    body: str | None = None
    status: int = 200  # success status (204 for deletes with no body)
    media: str | None = None
    upload_path: str | None = None
    methods: tuple[str, ...] = ()  # extra HTTP methods accepted on the same path (Slack: GET and POST)


@dataclass(frozen=True)
class ResourceArg:
    """Marks the parameter that names the row a call acts on: `listing_id: Annotated[str, ResourceArg("Listing")]`.

    `type` is a resource type a service declares (`Service.resources`); the gateway loads that
    row before the call, so policies see the resource with its owner, information type and
    sensitivity. A tool has at most one such parameter.
    """

    type: str


# A ResourceArg type for a tool whose resource is found from its arguments at call time (an
# attachment of a message): policies see the row it resolves to, of any resource type.
ANY_RESOURCE = "*"

# The policy action a tool belongs to when it does not say: what its tag means.
DEFAULT_ACTIONS = {"READ": "read", "WRITE": "modify", "SEND": "send"}


class ToolArgsError(ValueError):
    """The arguments do not fit the tool's schema; the message is for the caller to read."""


def _parse_docstring(doc: str) -> tuple[str, dict[str, str]]:
    """Summary and Google-style `Args:` descriptions."""
    doc = inspect.cleandoc(doc or "")
    summary_lines: list[str] = []
    params: dict[str, str] = {}
    section = "summary"
    current = None
    for line in doc.splitlines():
        stripped = line.strip()
        if stripped in {"Args:", "Arguments:", "Parameters:"}:
            section, current = "args", None
            continue
        if stripped in {"Returns:", "Raises:", "Example:", "Examples:"}:
            section = "other"
            continue
        if section == "summary":
            summary_lines.append(stripped)
        elif section == "args" and stripped:
            m = re.match(r"^(\w+)\s*(?:\([^)]*\))?:\s*(.*)$", stripped)
            if m and not line.startswith("        "):
                current = m.group(1)
                params[current] = m.group(2)
            elif current:
                params[current] += " " + stripped
    summary = " ".join(s for s in summary_lines if s).strip()
    return summary, params


@dataclass(frozen=True)
class Tool:
    """One operation: callable by agents, over REST, and over MCP."""

    name: str
    kind: ToolKind
    fn: Callable[..., Any]
    args_model: type[BaseModel]
    description: str
    rest: RestBinding | None = None
    hidden: frozenset[str] = field(default_factory=frozenset)
    service: str = ""
    action: str = ""  # the policy action group (read, modify, send, share, delete, approve, bid, pay, ...)
    resource: tuple[str, str] | None = None  # (parameter, resource type) of a ResourceArg parameter

    def wire_only_names(self) -> set[str]:
        """The hidden parameters under every name a caller could use (Python name and wire alias)."""
        fields = self.args_model.model_fields
        return {n for h in self.hidden for n in (h, fields[h].alias or h)}

    def __call__(self, ctx: Any, **kwargs: Any) -> Any:
        return self.invoke(ctx, kwargs)

    def validate(self, args: dict[str, Any]) -> BaseModel:
        try:
            return self.args_model.model_validate(args)
        except ValidationError as exc:
            lines = []
            for err in exc.errors():
                loc = ".".join(str(p) for p in err["loc"]) or "arguments"
                lines.append(f"{loc}: {err['msg']}")
            raise ToolArgsError(f"invalid arguments for {self.name}: " + "; ".join(lines)) from None

    def invoke(self, ctx: Any, args: dict[str, Any]) -> Any:
        parsed = self.validate(args)
        kwargs = {name: getattr(parsed, name) for name in self.args_model.model_fields}
        return self.fn(ctx, **kwargs)

    def json_schema(self) -> dict[str, Any]:
        """Parameters as JSON Schema with the Python (snake_case) names, wire-only ones hidden.

        Every model call carries these schemas, so what tells a model nothing is cut (`_lean`):
        titles, `default: null`, `additionalProperties: true`, the `null` branch of an optional
        parameter's `anyOf`, and a property's description where it repeats the description of
        the type it refers to. Validation is unchanged: calls are checked against `args_model`.
        """
        return _tool_schema(self.args_model, self.hidden)

    def spec(self) -> dict[str, Any]:
        """The tool as a provider-neutral function description."""
        return {"name": self.name, "description": self.description, "parameters": self.json_schema(), "kind": self.kind.value}


def _lean(node: Any, defs: dict[str, Any]) -> Any:
    """A pydantic JSON schema without what carries no information for a model (see json_schema)."""
    if isinstance(node, list):
        return [_lean(v, defs) for v in node]
    if not isinstance(node, dict):
        return node
    out: dict[str, Any] = {}
    for key, value in node.items():
        if key == "properties" and isinstance(value, dict):  # a map of names: a property may be called "title"
            out[key] = {name: _lean(prop, defs) for name, prop in value.items()}
        elif key == "title" or (key == "default" and value is None) or (key == "additionalProperties" and value is True):
            continue  # additionalProperties: true is JSON Schema's default
        else:
            out[key] = _lean(value, defs)
    branches = out.get("anyOf")
    if isinstance(branches, list) and {"type": "null"} in branches:
        rest = [b for b in branches if b != {"type": "null"}]
        if len(rest) == 1:  # Optional[X]: omitting the argument is how a model says null
            del out["anyOf"]
            out = {**rest[0], **out}
        else:
            out["anyOf"] = rest
    ref = out.get("$ref")
    if isinstance(ref, str) and "description" in out:
        target = defs.get(ref.rsplit("/", 1)[-1], {})
        if target.get("description") == out["description"]:
            del out["description"]
    return out


@functools.lru_cache(maxsize=None)
def _tool_schema_cached(args_model: type[BaseModel], hidden: frozenset[str]) -> str:
    schema = args_model.model_json_schema(by_alias=False)
    defs = schema.get("$defs", {})
    props = {k: _lean(v, defs) for k, v in schema.get("properties", {}).items() if k not in hidden}
    out: dict[str, Any] = {"type": "object", "properties": props, "additionalProperties": False}
    required = [r for r in schema.get("required", []) if r not in hidden]
    if required:
        out["required"] = required
    if defs:
        out["$defs"] = {name: _lean(d, defs) for name, d in defs.items()}
    return json.dumps(out)


def _tool_schema(args_model: type[BaseModel], hidden: frozenset[str]) -> dict[str, Any]:
    # Built once per tool (pydantic's schema generation is slow); each caller gets its own copy.
    return json.loads(_tool_schema_cached(args_model, hidden))


_ACTION = re.compile(r"^[a-z][a-z_]*$")


def tool(kind: ToolKind, *, name: str | None = None, rest: RestBinding | None = None, action: str | None = None) -> Callable[[Callable[..., Any]], Tool]:
    """Turn `fn(ctx, ...)` into a Tool whose schema comes from its type hints and docstring.

    `action` names the policy action group the tool belongs to (default: read, modify or send,
    from its tag); a parameter annotated with `ResourceArg` names the resource it acts on.
    """
    if action is not None and not _ACTION.match(action):
        raise ValueError(f"tool action {action!r} must be lower-case letters and '_'")

    def wrap(fn: Callable[..., Any]) -> Tool:
        hints = get_type_hints(fn, include_extras=True)
        summary, docs = _parse_docstring(fn.__doc__ or "")
        params = list(inspect.signature(fn).parameters.values())
        if not params or params[0].name != "ctx":
            raise TypeError(f"tool {fn.__name__}: the first parameter must be ctx")
        fields: dict[str, Any] = {}
        hidden = set()
        resource: tuple[str, str] | None = None
        for p in params[1:]:
            annotation = hints.get(p.name, Any)
            markers = get_args(annotation)[1:] if get_origin(annotation) is Annotated else ()
            if any(isinstance(m, WireOnly) for m in markers):
                hidden.add(p.name)
            for m in markers:
                if isinstance(m, ResourceArg):
                    if resource is not None:
                        raise TypeError(f"tool {fn.__name__}: more than one ResourceArg parameter ({resource[0]}, {p.name})")
                    resource = (p.name, m.type)
            default = ... if p.default is inspect.Parameter.empty else p.default
            if isinstance(default, FieldInfo):  # `x: int = Field(100, ge=1)`: keep its constraints
                info = default
                if info.description is None and docs.get(p.name):
                    info = FieldInfo.merge_field_infos(info, description=docs.get(p.name))
                fields[p.name] = (annotation, info)
            else:
                fields[p.name] = (annotation, Field(default, description=docs.get(p.name)))
        model_name = "".join(part.title() for part in (name or fn.__name__).split("_")) + "Args"
        config = ConfigDict(extra="forbid", alias_generator=to_camel, populate_by_name=True)
        args_model = create_model(model_name, __config__=config, **fields)
        return Tool(
            name=name or fn.__name__,
            kind=kind,
            fn=fn,
            args_model=args_model,
            description=summary,
            rest=rest,
            hidden=frozenset(hidden),
            action=action or DEFAULT_ACTIONS[kind.value],
            resource=resource,
        )

    return wrap


def select_tools(available: Iterable[Tool], patterns: Iterable[str], *, owner: str = "agent") -> list[Tool]:
    """Tools whose names match any of `patterns` (exact names or globs); an unmatched pattern is an error."""
    tools = list(available)
    chosen: dict[str, Tool] = {}
    for pattern in patterns:
        hits = [t for t in tools if fnmatch.fnmatchcase(t.name, pattern)]
        if not hits:
            raise KeyError(f"{owner}: no tool matches {pattern!r}")
        for t in hits:
            chosen.setdefault(t.name, t)
    return list(chosen.values())
