"""Google's `fields` partial-response selector: `files(id,name),nextPageToken`, `items/summary`, `*`.

Shared by the Google wire (a client's `fields`) and the services whose methods have a
default partial response (Drive), so agents and clients get the same shapes.
"""

from __future__ import annotations

from typing import Any

Selector = dict[str, "Selector | None"]  # None: keep the whole value


MAX_DEPTH = 32  # deeper selectors are refused, not recursed into


def parse_fields(expr: str) -> Selector:
    """Parse a selector; a malformed one raises ValueError with what is wrong (the wire answers 400)."""
    tokens = _tokens(expr)
    pos = 0

    def peek() -> str | None:
        return tokens[pos] if pos < len(tokens) else None

    def parse_list(depth: int, closing: bool) -> Selector:
        nonlocal pos
        if depth > MAX_DEPTH:
            raise ValueError(f"nested more than {MAX_DEPTH} levels deep")
        out: Selector = {}
        while True:
            tok = peek()
            if tok is None:
                if closing:
                    raise ValueError("unbalanced parentheses")
                return out
            if tok == ",":
                pos += 1
                continue
            if tok == ")":
                if not closing:
                    raise ValueError("unbalanced parentheses")
                pos += 1
                return out
            if tok in "(/":
                raise ValueError(f"a field name is missing before {tok!r}")
            for name, sub in parse_item(depth).items():
                out[name] = _merge(out[name], sub) if name in out else sub
            if peek() not in (None, ",", ")"):
                raise ValueError(f"a comma is missing before {peek()!r}")

    def parse_item(depth: int) -> Selector:
        nonlocal pos
        name = tokens[pos]
        pos += 1
        sub: Selector | None = None
        if peek() == "/":
            pos += 1
            if peek() in (None, ",", "(", ")", "/"):
                raise ValueError(f"a field name is missing after '{name}/'")
            if depth + 1 > MAX_DEPTH:
                raise ValueError(f"nested more than {MAX_DEPTH} levels deep")
            sub = parse_item(depth + 1)
        elif peek() == "(":
            pos += 1
            sub = parse_list(depth + 1, closing=True)
        return {name: sub}

    return parse_list(0, closing=False)


def _tokens(expr: str) -> list[str]:
    """Names and the punctuation , ( ) /; whitespace separates nothing and is dropped."""
    out: list[str] = []
    name: list[str] = []
    for ch in expr:
        if ch in ",()/" or ch.isspace():
            if name:
                out.append("".join(name))
                name = []
            if not ch.isspace():
                out.append(ch)
        else:
            name.append(ch)
    if name:
        out.append("".join(name))
    return out


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
