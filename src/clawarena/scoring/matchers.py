"""Field matchers: a bare value means equality (membership when the field is a list)."""

from __future__ import annotations

import re
from typing import Any

from clawarena.world.normalise import mentions
from clawarena.spec.checks import MatchOp


class CheckError(Exception):
    """A check names a table or field that does not exist: the task file is wrong."""


def _contains(value: Any, needle: Any, fold: bool = False) -> bool:
    if isinstance(value, str):
        return (str(needle).lower() in value.lower()) if fold else (str(needle) in value)
    if isinstance(value, (list, tuple)):
        return any(_contains(v, needle, fold) if isinstance(v, str) else v == needle for v in value)
    if isinstance(value, dict):
        return needle in value
    return False


def _num(value: Any) -> float | None:
    try:
        return float(value)
    except (TypeError, ValueError):
        return None


def match_op(value: Any, op: MatchOp) -> bool:
    s = op.model_fields_set
    checks = []
    if "eq" in s:
        checks.append(value == op.eq)
    if "ne" in s:
        checks.append(value != op.ne)
    if "contains" in s:
        checks.append(_contains(value, op.contains))
    if "not_contains" in s:
        checks.append(not _contains(value, op.not_contains))
    if "icontains" in s:
        checks.append(_contains(value, op.icontains, fold=True))
    if "regex" in s:
        checks.append(isinstance(value, str) and re.search(op.regex or "", value) is not None)
    if "in_" in s:
        checks.append(value in (op.in_ or []))
    if "not_in" in s:
        checks.append(value not in (op.not_in or []))
    if "length" in s:
        checks.append(isinstance(value, (list, tuple, dict, str)) and matches(len(value), op.length))
    for name, cmp in (("gt", float.__gt__), ("gte", float.__ge__), ("lt", float.__lt__), ("lte", float.__le__)):
        if name in s:
            n = _num(value)
            checks.append(n is not None and cmp(n, float(getattr(op, name))))
    if "exists" in s:
        checks.append((value is not None) == op.exists)
    if "any" in s:
        items = value if isinstance(value, (list, tuple)) else []
        checks.append(any(isinstance(v, dict) and _fields_match(v, op.any or {}) for v in items))
    if "has" in s:
        checks.append(isinstance(value, dict) and _fields_match(value, op.has or {}))
    if "any_of" in s:
        checks.append(any(matches(value, m) for m in op.any_of or []))
    if "mentions" in s and op.mentions is not None:
        checks.append(mentions(_text(value), op.mentions, affirmed=True))
    if "not_mentions" in s and op.not_mentions is not None:
        checks.append(not mentions(_text(value), op.not_mentions))
    if "mentions_anywhere" in s and op.mentions_anywhere is not None:
        checks.append(mentions(_text(value), op.mentions_anywhere))
    return all(checks)


def _text(value: Any) -> str:
    """A field as text for typed matching: strings as they are, lists joined by lines."""
    if isinstance(value, str):
        return value
    if isinstance(value, (list, tuple)):
        return "\n".join(_text(v) for v in value)
    return "" if value is None else str(value)


def _fields_match(obj: dict[str, Any], matchers: dict[str, Any]) -> bool:
    # A key the object does not have is null, so `{exists: false}` (or `ne`) can say "absent".
    return all(matches(obj.get(key), m) for key, m in matchers.items())


def matches(value: Any, matcher: Any) -> bool:
    if isinstance(matcher, MatchOp):
        return match_op(value, matcher)
    if isinstance(value, (list, tuple)) and not isinstance(matcher, (list, tuple)):
        return matcher in value
    return value == matcher


def row_matches(row: dict[str, Any], where: dict[str, Any], table: str = "") -> bool:
    for field, matcher in where.items():
        if field not in row:
            raise CheckError(f"table {table!r} has no field {field!r} (fields: {sorted(k for k in row if k != '__key__')})")
        if not matches(row[field], matcher):
            return False
    return True
