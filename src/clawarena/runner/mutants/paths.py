"""Rewriting a call's arguments: their leaves, addressed by paths (dotted in the data tables)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

Path = tuple[Any, ...]
MISSING = object()


def leaves(value: Any, path: Path = ()) -> Iterator[tuple[Path, Any]]:
    if isinstance(value, dict):
        for k, v in value.items():
            yield from leaves(v, (*path, k))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from leaves(v, (*path, i))
    else:
        yield path, value


def set_leaf(value: Any, path: Path, new: Any) -> Any:
    """A copy of `value` with the leaf at `path` replaced."""
    if not path:
        return new
    head, rest = path[0], path[1:]
    if isinstance(value, dict):
        return {k: (set_leaf(v, rest, new) if k == head else v) for k, v in value.items()}
    return [(set_leaf(v, rest, new) if i == head else v) for i, v in enumerate(value)]


def put_leaf(value: Any, path: Path, new: Any) -> dict[str, Any]:
    """A copy of the dict `value` with `new` at `path`, making the dicts on the way."""
    if not path:
        return new
    out = dict(value) if isinstance(value, dict) else {}
    out[path[0]] = put_leaf(out.get(path[0], {}), path[1:], new)
    return out


def get_leaf(value: Any, path: Path) -> Any:
    for part in path:
        if not isinstance(value, dict) or part not in value:
            return MISSING
        value = value[part]
    return value


def dotted(path: str) -> Path:
    return tuple(path.split("."))


def path_matches(path: Path, pattern: Path) -> bool:
    """`pattern` names `path`; a `*` in it stands for any list index."""
    return len(path) == len(pattern) and all(p == q or (q == "*" and isinstance(p, int)) for p, q in zip(path, pattern))


def starts_with(path: Path, prefix: Path) -> bool:
    return len(path) >= len(prefix) and path_matches(path[: len(prefix)], prefix)


def where(path: Path) -> str:
    return "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in path).lstrip(".") or "args"
