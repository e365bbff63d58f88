"""Bounds on what a caller may send as tool arguments, checked without recursion."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

# JSON nested deeper than this is refused before anything parses or records it: real API
# bodies nest a handful of levels, and recursive code (validation, hashing, json.dumps)
# would otherwise hit Python's recursion limit on hostile input.
MAX_ARGS_DEPTH = 64


@dataclass(frozen=True)
class ArgumentProblem:
    """Why a value cannot be taken as tool arguments."""

    message: str
    recordable: bool  # safe to keep in the ledger as sent (a lone surrogate is; a 20,000-deep list is not)


def argument_problem(value: Any, limit: int = MAX_ARGS_DEPTH) -> ArgumentProblem | None:
    """Why `value` cannot be taken as JSON arguments, or None: nesting deeper than `limit`, or a
    string (or key) that is not valid Unicode text (a lone surrogate cannot be stored or sent)."""
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        node, depth = stack.pop()
        if isinstance(node, str):
            if not _is_text(node):
                return ArgumentProblem("hold a string that is not valid Unicode (a lone surrogate)", recordable=True)
            continue
        if isinstance(node, dict):
            children = [*node.keys(), *node.values()]
        elif isinstance(node, (list, tuple)):
            children = list(node)
        else:
            continue
        if depth > limit:
            return ArgumentProblem(f"nested deeper than {limit} levels", recordable=False)
        stack.extend((child, depth + 1) for child in children)
    return None


def _is_text(s: str) -> bool:
    try:
        s.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True
