"""Bounds on what a caller may send as tool arguments, checked without recursion."""

from __future__ import annotations

from typing import Any

# JSON nested deeper than this is refused before anything parses or records it: real API
# bodies nest a handful of levels, and recursive code (validation, hashing, json.dumps)
# would otherwise hit Python's recursion limit on hostile input.
MAX_ARGS_DEPTH = 64


def nesting_depth_exceeds(value: Any, limit: int = MAX_ARGS_DEPTH) -> bool:
    """Whether lists/dicts inside `value` nest deeper than `limit` (iterative walk)."""
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        node, depth = stack.pop()
        if isinstance(node, dict):
            children = node.values()
        elif isinstance(node, (list, tuple)):
            children = node
        else:
            continue
        if depth > limit:
            return True
        stack.extend((child, depth + 1) for child in children)
    return False
