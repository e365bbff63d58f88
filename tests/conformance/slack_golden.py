"""Golden response shapes for the Slack Web API and a small validator.

Slack publishes no machine-readable response schema, so `slack_shapes/<method>.json`
lists, from the method reference pages, the keys a response must carry and their
types. `assert_shape("chat.postMessage", resp.data)` fails with the first paths
that do not fit. Spec forms: a type name ("string", "integer", "number",
"boolean", "object", "array", "null", "any", or "a|b"); a dict of keys (a key
ending in "?" is optional); a one-item list (an array of that spec);
{"$oneOf": [specs]}; "$ref:name" (a definition in `_defs.json`).
"""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path
from typing import Any

SHAPES = Path(__file__).parent / "slack_shapes"

_TYPES = {
    "string": lambda v: isinstance(v, str),
    "integer": lambda v: isinstance(v, int) and not isinstance(v, bool),
    "number": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool),
    "boolean": lambda v: isinstance(v, bool),
    "object": lambda v: isinstance(v, dict),
    "array": lambda v: isinstance(v, list),
    "null": lambda v: v is None,
    "any": lambda v: True,
}


@lru_cache(maxsize=None)
def _defs() -> dict[str, Any]:
    return json.loads((SHAPES / "_defs.json").read_text())["defs"]


@lru_cache(maxsize=None)
def shape(method: str) -> dict[str, Any]:
    return json.loads((SHAPES / f"{method}.json").read_text())["required"]


def methods() -> list[str]:
    return sorted(p.stem for p in SHAPES.glob("*.json") if not p.stem.startswith("_") and p.stem != "error")


def check(spec: Any, value: Any, path: str = "$") -> list[str]:
    """Problems with `value` against `spec` (empty when it fits)."""
    if isinstance(spec, str) and spec.startswith("$ref:"):
        return check(_defs()[spec[5:]], value, path)
    if isinstance(spec, str):
        kinds = spec.split("|")
        unknown = [k for k in kinds if k not in _TYPES]
        assert not unknown, f"bad shape type {unknown} at {path}"
        return [] if any(_TYPES[k](value) for k in kinds) else [f"{path}: expected {spec}, got {type(value).__name__} {value!r:.60}"]
    if isinstance(spec, list):
        if not isinstance(value, list):
            return [f"{path}: expected an array, got {type(value).__name__}"]
        out: list[str] = []
        for i, item in enumerate(value):
            out += check(spec[0], item, f"{path}[{i}]")
        return out
    if isinstance(spec, dict) and "$oneOf" in spec:
        tries = [check(s, value, path) for s in spec["$oneOf"]]
        return [] if any(not t for t in tries) else min(tries, key=len)
    if isinstance(spec, dict):
        if not isinstance(value, dict):
            return [f"{path}: expected an object, got {type(value).__name__}"]
        out = []
        for key, sub in spec.items():
            optional = key.endswith("?")
            name = key[:-1] if optional else key
            if name not in value:
                if not optional:
                    out.append(f"{path}: missing required key {name!r}")
                continue
            out += check(sub, value[name], f"{path}.{name}")
        return out
    raise AssertionError(f"bad shape spec at {path}: {spec!r}")


def assert_shape(method: str, response: Any) -> None:
    data = getattr(response, "data", response)
    problems = check(shape(method), data)
    assert not problems, f"{method}: " + "; ".join(problems[:6])
