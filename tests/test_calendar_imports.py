"""The modules of the Calendar and Gmail packages import one way: no cycle, not even through an in-function import."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

SERVICES = Path(__file__).resolve().parents[1] / "src" / "clawarena" / "services"


def module_imports(package: str) -> dict[str, set[str]]:
    """For each module of `clawarena.services.<package>`, the sibling modules it imports (anywhere in the file)."""
    folder = SERVICES / package
    modules = {p.stem for p in folder.glob("*.py")}
    dotted = f"clawarena.services.{package}"
    graph: dict[str, set[str]] = {}
    for path in sorted(folder.glob("*.py")):
        found: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:  # relative: `from . import x` or `from .x import y`
                    base = f"{dotted}.{base}" if base else dotted
                if base == dotted:
                    found |= {a.name for a in node.names if a.name in modules}
                elif base.startswith(dotted + "."):
                    found.add(base[len(dotted) + 1 :].split(".")[0])
            elif isinstance(node, ast.Import):
                for a in node.names:
                    if a.name.startswith(dotted + "."):
                        found.add(a.name[len(dotted) + 1 :].split(".")[0])
        graph[path.stem] = found - {path.stem}
    return graph


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One import cycle as a path [a, b, ..., a], or None."""
    state: dict[str, str] = {}
    stack: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = "open"
        stack.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == "open":
                return stack[stack.index(nxt) :] + [nxt]
            if nxt not in state:
                found = visit(nxt)
                if found:
                    return found
        stack.pop()
        state[node] = "done"
        return None

    for start in sorted(graph):
        if start not in state:
            found = visit(start)
            if found:
                return found
    return None


def test_find_cycle_sees_an_in_function_import_cycle():
    assert find_cycle({"events": {"core", "resources"}, "resources": {"core", "events"}, "core": set()}) == [
        "events", "resources", "events"]  # fmt: skip
    assert find_cycle({"events": {"core"}, "resources": {"core"}, "core": set()}) is None


@pytest.mark.parametrize("package", ["calendar", "gmail"])
def test_package_modules_import_one_way(package):
    graph = module_imports(package)
    assert graph, f"no modules found for {package}"
    assert find_cycle(graph) is None, f"{package}: import cycle {' -> '.join(find_cycle(graph) or [])}"


def test_calendar_events_and_resources_share_only_lower_modules():
    graph = module_imports("calendar")
    assert "resources" not in graph["events"] and "events" not in graph["resources"]
    assert {"cancel", "channels"} <= graph["events"] & graph["resources"]
