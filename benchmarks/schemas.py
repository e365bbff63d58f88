"""Schema cost: how much of every model call is tool schemas, per tool set.

A model agent sends its whole tool list (name, description, JSON schema of the
arguments) with every model call, so this is paid per step, not per trial.
Sizes are the UTF-8 bytes of `json.dumps` of what the providers are sent
(`{"name", "description", "parameters"}` per tool); tokens are estimated as
bytes / 4 (tiktoken is not a dependency; real tokenizers land within about 20%
of this on JSON). "pydantic" is the schema as pydantic generates it with only
the top-level titles removed (what `Tool.json_schema()` returned before the
noise cut); "lean" is `Tool.json_schema()` now.

Run: python benchmarks/schemas.py
"""

from __future__ import annotations

import json
import statistics
from collections.abc import Callable, Iterable
from typing import Any

from clawarena.commands.tools import agent_tool_list
from clawarena.gateway import GATEWAY_TOOLS
from clawarena.services import services
from clawarena.spec.loader import load_suite
from clawarena.tools.core import Tool

BYTES_PER_TOKEN = 4


def pydantic_schema(t: Tool) -> dict[str, Any]:
    """The schema before the noise cut: pydantic's, wire-only parameters hidden, top-level titles dropped."""
    schema = t.args_model.model_json_schema(by_alias=False)
    props = {k: {kk: vv for kk, vv in v.items() if kk != "title"} for k, v in schema.get("properties", {}).items() if k not in t.hidden}
    out: dict[str, Any] = {"type": "object", "properties": props, "additionalProperties": False}
    required = [r for r in schema.get("required", []) if r not in t.hidden]
    if required:
        out["required"] = required
    if "$defs" in schema:
        out["$defs"] = schema["$defs"]
    return out


def lean_schema(t: Tool) -> dict[str, Any]:
    return t.json_schema()


def size(tools: Iterable[Tool], schema: Callable[[Tool], dict[str, Any]]) -> int:
    return sum(len(json.dumps({"name": t.name, "description": t.description, "parameters": schema(t)}).encode()) for t in tools)


def tokens(n_bytes: int) -> int:
    return round(n_bytes / BYTES_PER_TOKEN)


def row(name: str, tools: list[Tool]) -> tuple[str, int, int, int]:
    return name, len(tools), size(tools, pydantic_schema), size(tools, lean_schema)


def agent_tool_sets(suite: str = "workspace") -> dict[str, list[Tool]]:
    """Every delegate agent of a suite's tasks with the tools the gateway gives it (skills off)."""
    out: dict[str, list[Tool]] = {}
    for scenario in load_suite(suite):
        for agent in scenario.task.agents:
            out.setdefault(f"{scenario.task.id}/{agent.id}", agent_tool_list(agent))
    return out


def main() -> None:
    rows = [row(s.name, list(s.tools)) for s in services()]
    rows.append(row("gateway (peer, approvals, skills)", list(GATEWAY_TOOLS)))
    every = [t for s in services() for t in s.tools] + list(GATEWAY_TOOLS)
    print(f"{'tool set':<36}{'tools':>6}{'pydantic B':>12}{'lean B':>9}{'pydantic tok':>14}{'lean tok':>10}{'cut':>6}")
    for name, n, before, after in [*rows, row("all tools", every)]:
        print(f"{name:<36}{n:>6}{before:>12,}{after:>9,}{tokens(before):>14,}{tokens(after):>10,}{1 - after / before:>6.0%}")
    sets = agent_tool_sets()
    before = [size(tools, pydantic_schema) for tools in sets.values()]
    after = [size(tools, lean_schema) for tools in sets.values()]
    counts = [len(tools) for tools in sets.values()]
    print()
    print(f"workspace suite: {len(sets)} delegate agents, tools per agent median {statistics.median(counts):.0f} (max {max(counts)})")
    for label, values in (("pydantic", before), ("lean", after)):
        print(f"  {label:<9} tokens per model call: median {tokens(statistics.median(values)):,}  mean {tokens(statistics.mean(values)):,}  max {tokens(max(values)):,}")
    biggest = max(sets, key=lambda k: size(sets[k], lean_schema))
    print(f"  largest tool set: {biggest} ({len(sets[biggest])} tools, {tokens(size(sets[biggest], lean_schema)):,} tokens lean)")


if __name__ == "__main__":
    main()
