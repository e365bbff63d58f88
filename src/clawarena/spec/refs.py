"""A marker for model fields that name the task's principals, and a walk that finds them.

Services mark owner-ish fields of their fixture and placement models
(`owner: PrincipalId`), so the loader checks every such value against the
task's principals without a hand-kept list of field names:

    owner: PrincipalId = Field(description="principal id of the mailbox")
    author: Annotated[str, PrincipalRef(address_ok=True)]
    user: Annotated[str, PrincipalRef(declared_in="users.id")]   # or a user the same fixture block declares
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from functools import lru_cache
from typing import Annotated, Any, get_args, get_origin

from pydantic import BaseModel

from clawarena.spec.errors import Loc


@dataclass(frozen=True)
class PrincipalRef:
    """The field's value (a string, or each string of a list) is a principal id of the task.

    `address_ok`: a value with an '@' (an outside address, or 'Name <address>') is accepted too.
    `declared_in`: so is an id the same service's fixtures declare at this path (e.g. "users.id").
    """

    address_ok: bool = False
    declared_in: str = ""

    def accepts(self, value: str, principals: set[str], declared: set[str]) -> bool:
        return value in principals or (self.address_ok and "@" in value) or value in declared


PrincipalId = Annotated[str, PrincipalRef()]
PrincipalOrAddress = Annotated[str, PrincipalRef(address_ok=True)]


@dataclass(frozen=True)
class FoundRef:
    loc: Loc
    value: str
    marker: PrincipalRef


def _marker_in(annotation: Any) -> PrincipalRef | None:
    """The marker of `Annotated[str, PrincipalRef()]` anywhere inside a field's type (`list[...]`, `... | None`)."""
    stack = [annotation]
    while stack:
        tp = stack.pop()
        if get_origin(tp) is Annotated:
            found = next((m for m in get_args(tp)[1:] if isinstance(m, PrincipalRef)), None)
            if found is not None:
                return found
            stack.append(get_args(tp)[0])
        else:
            stack.extend(a for a in get_args(tp) if a is not Ellipsis)
    return None


@lru_cache(maxsize=None)
def _plan(model: type[BaseModel]) -> tuple[tuple[str, str, PrincipalRef | None], ...]:
    """(attribute, YAML key, marker) per field of a model: computed once per model class."""
    out = []
    for name, info in model.model_fields.items():
        marker = next((m for m in info.metadata if isinstance(m, PrincipalRef)), None) or _marker_in(info.annotation)
        out.append((name, info.alias or name, marker))
    return tuple(out)


def _strings(value: Any) -> Iterator[tuple[Loc, str]]:
    if isinstance(value, str):
        yield (), value
    elif isinstance(value, (list, tuple)):
        for i, v in enumerate(value):
            if isinstance(v, str):
                yield (i,), v


def principal_refs(value: Any, loc: Loc = ()) -> Iterator[FoundRef]:
    """Every marked value inside a validated model (nested models, lists and dicts of them)."""
    stack: list[tuple[Any, Loc]] = [(value, loc)]
    while stack:
        item, where = stack.pop()
        if isinstance(item, BaseModel):
            for name, key, marker in _plan(type(item)):
                field_value = getattr(item, name)
                if marker is not None:
                    for sub, text in _strings(field_value):
                        yield FoundRef(where + (key,) + sub, text, marker)
                elif isinstance(field_value, (BaseModel, list, tuple, dict)):
                    stack.append((field_value, where + (key,)))
        elif isinstance(item, (list, tuple)):
            stack.extend((v, where + (i,)) for i, v in enumerate(item) if isinstance(v, (BaseModel, list, tuple, dict)))
        elif isinstance(item, dict):
            stack.extend((v, where + (k,)) for k, v in item.items() if isinstance(v, (BaseModel, list, tuple, dict)))


def declared_ids(block: dict[str, Any], path: str) -> set[str]:
    """The strings at a dotted path through lists of mappings, e.g. "users.id" in a fixture block."""
    items: list[Any] = [block]
    for key in path.split("."):
        nxt: list[Any] = []
        for item in items:
            value = item.get(key) if isinstance(item, dict) else None
            nxt.extend(value if isinstance(value, list) else [value] if value is not None else [])
        items = nxt
    return {v for v in items if isinstance(v, str)}
