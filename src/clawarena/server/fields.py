"""Google's `fields` partial-response selector: `files(id,name),nextPageToken`, `items/summary`."""

from __future__ import annotations

from typing import Any

Selector = dict[str, "Selector | None"]  # None: keep the whole value


def parse_fields(expr: str) -> Selector:
    pos = 0

    def parse_list(stop: str | None) -> Selector:
        nonlocal pos
        out: Selector = {}
        while pos < len(expr):
            if stop and expr[pos] == stop:
                pos += 1
                return out
            if expr[pos] in ", ":
                pos += 1
                continue
            start = pos
            while pos < len(expr) and expr[pos] not in ",()/ " and not (stop and expr[pos] == stop):
                pos += 1
            name = expr[start:pos]
            sub: Selector | None = None
            if pos < len(expr) and expr[pos] == "(":
                pos += 1
                sub = parse_list(")")
            elif pos < len(expr) and expr[pos] == "/":
                pos += 1
                sub = parse_path()
            if name:
                prev = out.get(name)
                out[name] = _merge(prev, sub) if name in out else sub
        if stop:
            raise ValueError("unbalanced parentheses in fields")
        return out

    def parse_path() -> Selector:
        nonlocal pos
        start = pos
        while pos < len(expr) and expr[pos] not in ",()/":
            pos += 1
        name = expr[start:pos]
        sub: Selector | None = None
        if pos < len(expr) and expr[pos] == "/":
            pos += 1
            sub = parse_path()
        elif pos < len(expr) and expr[pos] == "(":
            pos += 1
            sub = parse_list(")")
        return {name: sub}

    return parse_list(None)


def _merge(a: Selector | None, b: Selector | None) -> Selector | None:
    if a is None or b is None:
        return None
    out = dict(a)
    for k, v in b.items():
        out[k] = _merge(out[k], v) if k in out else v
    return out


def apply_fields(value: Any, selector: Selector | None) -> Any:
    if selector is None or "*" in selector:
        return value
    if isinstance(value, list):
        return [apply_fields(v, selector) for v in value]
    if not isinstance(value, dict):
        return value
    return {k: apply_fields(value[k], sub) for k, sub in selector.items() if k in value}
