"""Task-file problems: where (a field path, and the YAML line when known) and what.

Every problem is rendered as `file: field.path: what (line N)`; a pydantic error
is turned into the same shape, with union tags (which are not keys of the data)
dropped from its path.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from pydantic import ValidationError

Loc = tuple[str | int, ...]


class SpecError(Exception):
    """A task file is invalid; the message lists each problem as `file: field.path: what`."""

    def __init__(self, problems: list[str]):
        self.problems = problems
        super().__init__("\n".join(problems))


@dataclass(frozen=True)
class Problem:
    """One defect of a task file: the data path of the field at fault and what is wrong."""

    loc: Loc
    message: str


def display_path(loc: Iterable[str | int]) -> str:
    """`variants.privacy.inject[0].channel`; `<top>` for the file itself."""
    out = ""
    for seg in loc:
        out += f"[{seg}]" if isinstance(seg, int) else ("." if out else "") + str(seg)
    return out or "<top>"


def line_of(lines: Mapping[Loc, int], loc: Loc) -> int | None:
    """The YAML line of the field at `loc`, or of its nearest ancestor that has one."""
    for n in range(len(loc), 0, -1):
        line = lines.get(loc[:n])
        if line is not None:
            return line
    return None


def render(path: object, problems: Iterable[Problem], lines: Mapping[Loc, int] | None = None) -> list[str]:
    out = []
    for p in problems:
        line = line_of(lines, p.loc) if lines else None
        out.append(f"{path}: {display_path(p.loc)}: {p.message}" + (f" (line {line})" if line else ""))
    return out


# Field names that exist in the data only under an alias (a union tag is never one of them).
_ALIAS_ONLY = {"in"}


def _data_loc(loc: Iterable[Any], data: Any) -> Loc:
    """The pydantic error location as a path into the data: drops union tags that are not keys in it."""
    out: list[str | int] = []
    items = list(loc)
    node = data
    for i, seg in enumerate(items):
        last = i == len(items) - 1
        if isinstance(seg, int):
            out.append(seg)
            node = node[seg] if isinstance(node, list) and seg < len(node) else None
            continue
        if isinstance(node, dict) and seg not in node and not last and seg not in _ALIAS_ONLY:
            continue  # a discriminated-union tag, not a field
        out.append(seg)
        node = node.get(seg) if isinstance(node, dict) else None
    return tuple(out)


def _message(err: Mapping[str, Any]) -> str:
    kind = err["type"]
    value = err.get("input")
    ctx = err.get("ctx") or {}
    name = next((s for s in reversed(err["loc"]) if isinstance(s, str)), "value")
    if kind in {"literal_error", "enum"}:
        return f"unknown {name} {value!r} (expected {ctx.get('expected', '')})"
    if kind == "union_tag_invalid":
        return f"unknown {str(ctx.get('discriminator', 'kind')).strip(chr(39))} {ctx.get('tag')!r} (expected {ctx.get('expected_tags', '')})"
    if kind == "missing":
        return "required field is missing"
    if kind == "extra_forbidden":
        return "unknown field"
    msg = str(err["msg"])
    return msg[len("Value error, ") :] if msg.startswith("Value error, ") else msg


def pydantic_problems(exc: ValidationError, data: Any, prefix: Loc = ()) -> list[Problem]:
    """A pydantic error as Problems located in `data` (which sits at `prefix` in the file)."""
    return [Problem(prefix + _data_loc(err["loc"], data), _message(err)) for err in exc.errors()]
