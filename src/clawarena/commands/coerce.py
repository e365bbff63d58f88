"""Option values without pydantic, where pydantic would only hand them back.

typer 0.29 coerces every option through a pydantic TypeAdapter, and building the first one
imports pydantic (about half of a cached `tasks list`). For the plain cases clawarena's options
use (a str, a choice, a whole number in range, a path, lists of those) the result is computed
here with typer's own pure-Python helpers; anything else, and every value that would be refused,
goes through typer's adapter, so results and error messages stay typer's own.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from enum import Enum
from pathlib import Path
from typing import Any, Literal, get_args, get_origin

try:  # typer 0.29's coercion layer; an older typer parses with click and never imports pydantic
    from typer._coercion import RuntimeParam, build_runtime_param
    from typer._param_types import coerce_cli_choice, coerce_cli_path, lenient_issubclass
except ImportError:  # pragma: no cover - exercised only under another typer
    RuntimeParam = None  # type: ignore[assignment,misc]

_DECLINE = object()  # "not a plain case": typer's adapter decides
_INT = re.compile(r"0|-?[1-9][0-9]{0,17}")  # what int() and pydantic read alike
_FLOAT = re.compile(r"-?(0|[1-9][0-9]{0,14})(\.[0-9]{1,15})?")


def _in_range(number: float, info: Any) -> bool:
    return (info.min is None or number >= info.min) and (info.max is None or number <= info.max)


def _number(annotation: type, value: Any, info: Any, ctx: Any, param: Any) -> Any:
    if info.clamp:
        return _DECLINE
    if type(value) is annotation:
        number = value
    elif isinstance(value, str) and (_INT if annotation is int else _FLOAT).fullmatch(value):
        number = annotation(value)
    else:
        return _DECLINE
    return number if _in_range(number, info) else _DECLINE


def _text(annotation: type, value: Any, info: Any, ctx: Any, param: Any) -> Any:
    return value if type(value) is str else _DECLINE


def _path(annotation: type, value: Any, info: Any, ctx: Any, param: Any) -> Any:
    if info.path_type is not None or info.allow_dash or not lenient_issubclass(annotation, Path):
        return _DECLINE
    if isinstance(value, annotation):
        given = value
    elif type(value) is str and value:
        given = annotation(value)  # what pydantic's Path validator returns for a non-empty str
    else:
        return _DECLINE
    try:
        return coerce_cli_path(given, info, path_type=annotation, param=param, ctx=ctx)
    except Exception:  # refused: typer's adapter words it
        return _DECLINE


def _choice(choices: tuple[Any, ...]) -> Callable[..., Any]:
    def coerce(annotation: Any, value: Any, info: Any, ctx: Any, param: Any) -> Any:
        if not isinstance(value, (str, Enum)):
            return _DECLINE
        try:
            return coerce_cli_choice(value, choices=choices, case_sensitive=info.case_sensitive, ctx=ctx)
        except ValueError:
            return _DECLINE

    return coerce


def _flag(annotation: type, value: Any, info: Any, ctx: Any, param: Any) -> Any:
    return value if type(value) is bool else _DECLINE  # "yes", "0", ...: typer's own rules


# One leaf coercer per annotation kind: a registry, looked up once per parameter.
_LEAVES: dict[Any, Callable[..., Any]] = {str: _text, int: _number, float: _number, bool: _flag}


def leaf_coercer(annotation: Any, info: Any) -> Callable[..., Any] | None:
    """The pure-Python coercer of one value of `annotation`, or None (typer's adapter only)."""
    if info.parser is not None:
        return None
    if get_origin(annotation) is Literal:
        return _choice(get_args(annotation))
    if lenient_issubclass(annotation, Enum):
        return _choice(tuple(annotation))
    if lenient_issubclass(annotation, Path):
        return _path
    return _LEAVES.get(annotation)


@dataclass(frozen=True)
class LightRuntimeParam(RuntimeParam or object):  # type: ignore[misc]
    """typer's RuntimeParam contract (its `coerce` handles missing and multiple values); the
    plain cases computed here, the rest by the adapter typer would have built."""

    leaf: Callable[..., Any]
    is_list: bool
    slow: Callable[[], RuntimeParam]

    def _coerce_value(self, value: Any, param: Any, ctx: Any) -> Any:
        leaf_type = get_args(self.annotation)[0] if self.is_list else self.annotation
        items = value if self.is_list and isinstance(value, (list, tuple)) else None
        if self.is_list and items is None:
            return self.slow()._coerce_value(value, param=param, ctx=ctx)
        results = [self.leaf(leaf_type, v, self.parameter_info, ctx, param) for v in (items if items is not None else [value])]
        if any(r is _DECLINE for r in results):
            return self.slow()._coerce_value(value, param=param, ctx=ctx)
        return results if self.is_list else results[0]


def lighten(param: Any) -> None:
    """Give one parameter the light coercion (idempotent; a kind left to typer is left alone)."""
    if "get_runtime_param" not in vars(param):
        light = light_runtime_param(param)
        if light is not None:
            param.get_runtime_param = light  # an instance attribute: this parameter only


def lighten_help_option(command: Any) -> None:
    """The `--help` option is made on first use and cached by the command: lighten it then."""
    if RuntimeParam is None or "get_help_option" in vars(command):
        return
    made = command.get_help_option

    def get_help_option(ctx: Any) -> Any:
        option = made(ctx)
        if option is not None:
            lighten(option)
        return option

    command.get_help_option = get_help_option


def light_runtime_param(param: Any) -> Callable[[], RuntimeParam] | None:
    """A replacement for `param.get_runtime_param` that builds no adapter for plain values, or
    None when the parameter is of a kind this module leaves to typer."""
    descriptor = getattr(param, "type_descriptor", None)
    if RuntimeParam is None or descriptor is None or descriptor.file_annotation is not None or descriptor.is_tuple:
        return None
    annotation = descriptor.annotation
    is_list = get_origin(annotation) is list
    leaf_type = get_args(annotation)[0] if is_list and len(get_args(annotation)) == 1 else annotation
    if is_list and leaf_type is annotation:
        return None
    leaf = leaf_coercer(leaf_type, descriptor.parameter_info)
    if leaf is None:
        return None
    slow_cache: list[RuntimeParam] = []

    def slow() -> RuntimeParam:
        if not slow_cache:
            slow_cache.append(build_runtime_param(descriptor))
        return slow_cache[0]

    light = LightRuntimeParam(parameter_info=descriptor.parameter_info, annotation=annotation, leaf=leaf, is_list=is_list, slow=slow)
    return lambda: light
