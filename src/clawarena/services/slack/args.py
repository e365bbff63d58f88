"""Argument types that read Slack's wire forms: form strings, JSON numbers and booleans, CSV lists.

A form body carries `limit=10`, `inclusive=1`, `users=U1,U2`, `blocks=[...]` (a
JSON string); a JSON body carries 10, true, ["U1","U2"], [...]. Both must work.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Annotated, Any

from pydantic import BeforeValidator, Field, WithJsonSchema

from clawarena.tools.limits import argument_problem


def _empty_to_none(value: Any) -> Any:
    return None if isinstance(value, str) and value.strip() == "" else value


def _to_str(value: Any) -> Any:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return f"{value:.6f}"
    return value


def _csv(value: Any) -> Any:
    if value is None:
        return None
    if isinstance(value, str):
        text = value.strip()
        if text.startswith("["):
            try:
                value = _loads(text)
            except ValueError:
                pass
            else:
                return [str(v) for v in value] if isinstance(value, list) else [str(value)]
        return [part.strip() for part in text.split(",") if part.strip()]
    if isinstance(value, (list, tuple)):
        return [str(v).strip() for v in value if str(v).strip()]
    return value


def _json(value: Any) -> Any:
    if isinstance(value, str):
        text = value.strip()
        if not text:
            return None
        try:
            return _loads(text)
        except ValueError:
            return value  # the tool reports invalid_<field>
    return value


def _loads(text: str) -> Any:
    """JSON inside a form field, bounded like any argument: too deep, not text, or unparseable is a ValueError."""
    try:
        parsed = json.loads(text)
    except RecursionError:
        raise ValueError("nested too deeply") from None
    problem = argument_problem(parsed)
    if problem:
        raise ValueError(problem.message)
    return parsed


def chain(*fns: Callable[[Any], Any]) -> Callable[[Any], Any]:
    def run(value: Any) -> Any:
        for fn in fns:
            value = fn(value)
        return value

    return run


def _drop_null_default(schema: dict[str, Any]) -> None:
    if "default" in schema and schema["default"] is None:
        del schema["default"]


# Agents see an optional argument as its plain type, absent meaning unset: not `anyOf [type, null]`, `default: null`.
_STRING, _INTEGER = WithJsonSchema({"type": "string"}), WithJsonSchema({"type": "integer"})
_STRINGS = WithJsonSchema({"type": "array", "items": {"type": "string"}})
_UNSET = Field(json_schema_extra=_drop_null_default)

# A string that also accepts JSON numbers (ts values, ids sent as numbers). Required unless given a default.
Str = Annotated[str, BeforeValidator(_to_str)]
OptStr = Annotated[str | None, BeforeValidator(chain(_empty_to_none, _to_str)), _STRING, _UNSET]
# An integer that accepts "10"; OptInt also accepts "" (absent).
Int = int
OptInt = Annotated[int | None, BeforeValidator(_empty_to_none), _INTEGER, _UNSET]
# A boolean that accepts true/false, "true"/"false", "1"/"0".
Flag = Annotated[bool, BeforeValidator(lambda v: False if isinstance(v, str) and v.strip() == "" else v)]
# A list that accepts "a,b", '["a","b"]' and ["a","b"].
Csv = Annotated[list[str], BeforeValidator(_csv), _STRINGS]
CsvList = Annotated[list[str] | None, BeforeValidator(_csv), _STRINGS, _UNSET]
# JSON given as JSON or as a JSON-encoded string (blocks, attachments, profile, files).
JsonArg = Annotated[Any, BeforeValidator(_json), _UNSET]
