"""`clawarena tools list|show`: every tool an agent can be given, with its kind, REST binding and
argument schema, exactly as agents see it (`Tool.json_schema()`). `render_markdown` is docs/tools.md
(`python scripts/tools_docs.py`)."""

from __future__ import annotations

import difflib
import json
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Optional

import typer
from clawarena.commands.base import DEFAULT_SUITE, FORMAT_HELP, SUITE_HELP, OutputFormat, console, fail, find_scenario, indented, make_typer, quoted, split

if TYPE_CHECKING:
    from clawarena.tools.core import Tool

app = make_typer("The tools agents can be given: kind, REST binding, arguments.")
GATEWAY = "gateway"  # the gateway's own tools (peer messages, approvals, skills), in no service


def catalogue() -> dict[str, list[Tool]]:
    """Every tool by service, in a stable order; the gateway's own tools last."""
    from clawarena.gateway import GATEWAY_TOOLS
    from clawarena.services.toolhub import tool_catalogue

    out = tool_catalogue()
    out[GATEWAY] = list(GATEWAY_TOOLS)
    return out


def service_of(tool: Tool, by_service: dict[str, list[Tool]]) -> str:
    return next(name for name, tools in by_service.items() if any(t is tool for t in tools))


def rest_text(tool: Tool) -> str:
    if tool.rest is None:
        return "-"
    methods = "|".join(dict.fromkeys([tool.rest.method, *tool.rest.methods]))
    return f"{methods} {tool.rest.path}" + (f" (upload: {tool.rest.upload_path})" if tool.rest.upload_path else "")


# ---- argument schemas as text ------------------------------------------------------------------


def type_text(prop: dict[str, Any]) -> str:
    """A JSON schema as a short type: `string`, `integer (1-500)`, `array of string`, `Event`, `'a' | 'b'`."""
    if "$ref" in prop:
        return prop["$ref"].rsplit("/", 1)[-1]
    if "enum" in prop:
        return " | ".join(json.dumps(v) for v in prop["enum"])
    if "const" in prop:
        return json.dumps(prop["const"])
    for key in ("anyOf", "oneOf"):
        if key in prop:
            return " or ".join(type_text(p) for p in prop[key])
    kind = prop.get("type", "any")
    if isinstance(kind, list):
        return " or ".join(kind)
    if kind == "array":
        return f"array of {type_text(prop.get('items', {}))}"
    if kind == "object" and isinstance(prop.get("additionalProperties"), dict):
        return f"object of {type_text(prop['additionalProperties'])}"
    low, high = prop.get("minimum"), prop.get("maximum")
    if low is not None and high is not None:
        return f"{kind} ({low}-{high})"
    if low is not None or high is not None:
        return f"{kind} ({'>= ' + str(low) if low is not None else '<= ' + str(high)})"
    return kind


@dataclass(frozen=True)
class Argument:
    name: str
    type: str
    required: bool
    default: str
    description: str


def arguments(tool: Tool) -> list[Argument]:
    schema = tool.json_schema()
    required = set(schema.get("required", []))
    return [
        Argument(name, type_text(prop), name in required, json.dumps(prop["default"]) if "default" in prop else "", prop.get("description", ""))
        for name, prop in schema["properties"].items()
    ]


def tool_json(tool: Tool, service: str) -> dict[str, Any]:
    rest = None
    if tool.rest is not None:
        rest = {"method": tool.rest.method, "path": tool.rest.path, **({"upload_path": tool.rest.upload_path} if tool.rest.upload_path else {})}
    return {"name": tool.name, "service": service, "kind": tool.kind.value, "description": tool.description, "rest": rest, "parameters": tool.json_schema()}


# ---- selection ---------------------------------------------------------------------------------


def agent_tool_list(agent: Any) -> list[Tool]:
    """The tools the gateway gives an agent of a task (`Gateway.agent_tools` with skills off): its
    task's names and globs resolved over every service's tools and the gateway's peer tools."""
    from clawarena.gateway import GATEWAY_TOOLS, read_skill
    from clawarena.services import services
    from clawarena.tools.core import select_tools

    pool = [t for s in services() for t in s.tools] + [t for t in GATEWAY_TOOLS if t is not read_skill]
    return select_tools(pool, agent.tools, owner=f"agent {agent.id}")


def agent_tools(suite: str, scenario_id: str, agent: str | None) -> tuple[str, list[Tool]]:
    """The tools one agent of a scenario is given."""
    scenario = find_scenario(suite, scenario_id, what="--scenario")
    agents = {a.id: a for a in scenario.task.agents}
    if agent is None:
        if len(agents) != 1:
            fail(f"--agent: {scenario_id} has agents {', '.join(agents)}; name one")
        agent = next(iter(agents))
    if agent not in agents:
        fail(f"--agent: no agent {agent!r} in {scenario_id}; agents: {', '.join(agents)}")
    try:
        return agent, agent_tool_list(agents[agent])
    except KeyError as exc:
        fail(quoted(exc))


def select(service: str | None, suite: str, scenario: str | None, agent: str | None) -> list[tuple[str, Tool]]:
    by_service = catalogue()
    if agent is not None and scenario is None:
        fail("--agent: needs --scenario (the agent's tools come from its task)")
    if service is not None and service not in by_service:
        fail(f"--service: unknown service {service!r}; services: {', '.join(by_service)}")
    if scenario is not None:
        _, chosen = agent_tools(suite, scenario, agent)
        pairs = [(service_of(t, by_service), t) for t in chosen]
    else:
        pairs = [(name, t) for name, tools in by_service.items() for t in tools]
    return [(s, t) for s, t in pairs if service is None or s == service]


def find_tool(name: str) -> tuple[str, Tool]:
    pairs = {t.name: (s, t) for s, tools in catalogue().items() for t in tools}
    if name not in pairs:
        near = difflib.get_close_matches(name, list(pairs), n=3, cutoff=0.5)
        hint = f"; did you mean {', '.join(near)}?" if near else "; see `clawarena tools list`"
        fail(f"NAME: unknown tool {name!r}{hint}")
    return pairs[name]


# ---- commands ----------------------------------------------------------------------------------


@app.command("list")
def tools_list(
    service: Optional[str] = typer.Option(None, "--service", metavar="SERVICE", help="only this service's tools (gmail, calendar, drive, docs, slack, gateway)"),
    scenario: Optional[str] = typer.Option(None, "--scenario", metavar="SCENARIO", help="only the tools an agent of this scenario is given"),
    agent: Optional[str] = typer.Option(None, "--agent", metavar="AGENT", help="with --scenario: the agent (needed when the scenario has several)"),
    suite: str = typer.Option(DEFAULT_SUITE, "--suite", metavar="SUITE", help=f"with --scenario: {SUITE_HELP}"),
    output: OutputFormat = typer.Option("table", "--format", help=FORMAT_HELP + " (json includes every argument schema)"),
) -> None:
    """Every tool with its kind (READ, WRITE, SEND), REST binding and description."""
    pairs = select(service, suite, scenario, agent)
    if output == "json":
        print(json.dumps([tool_json(t, s) for s, t in pairs], indent=2, ensure_ascii=False))
        return
    current = None
    for s, t in pairs:
        if s != current:
            console.print(f"[bold]{s}[/]", highlight=False)
            current = s
        console.print(f"  [bold]{t.name}[/]  {t.kind.value}  {rest_text(t)}", highlight=False)
        console.print(indented(t.description))
    console.print(f"{len(pairs)} tool(s); `clawarena tools show NAME` for a tool's arguments", highlight=False)


@app.command("show")
def tools_show(
    name: str = typer.Argument(..., metavar="NAME", help="a tool name such as gmail_messages_list"),
    output: OutputFormat = typer.Option("table", "--format", help=FORMAT_HELP),
) -> None:
    """One tool: its description, kind, REST binding, and every argument with its type and default."""
    service, tool = find_tool(name)
    if output == "json":
        print(json.dumps(tool_json(tool, service), indent=2, ensure_ascii=False))
        return
    say = lambda text: console.print(text, highlight=False, markup=False, soft_wrap=True)  # noqa: E731
    say(f"{tool.name}  ({service}, {tool.kind.value})")
    say(tool.description)
    say(f"REST: {rest_text(tool)}")
    args = arguments(tool)
    if not args:
        say("no arguments")
        return
    say("arguments:")
    for a in args:
        facts = ", ".join([a.type, *(["required"] if a.required else []), *([f"default {a.default}"] if a.default else [])])
        console.print(f"  [bold]{a.name}[/]  ", end="", highlight=False)
        console.out(facts, highlight=False)
        if a.description:
            console.print(indented(a.description))
    defs = tool.json_schema().get("$defs")
    if defs:
        say("types used above (JSON schema):")
        say(json.dumps(defs, indent=2, ensure_ascii=False))


# The hub's argument names as the options a user typed.
SEARCH_OPTIONS = {"query": "QUERY", "services": "--service", "kinds": "--kind", "k": "-k", "distractors": "--distractors", "seed": "--seed"}


def matched_text(matched: dict[str, list[str]]) -> str:
    return "; ".join(f"{field}: {', '.join(terms)}" for field, terms in matched.items()) or "-"


@app.command("search")
def tools_search(
    query: str = typer.Argument(..., metavar="QUERY", help="what the tool should do, e.g. 'share a file with someone'"),
    service: Optional[list[str]] = typer.Option(None, "--service", metavar="SERVICE", help="only these services' tools (repeat or comma-separate; see `clawarena tools list`)"),
    kind: Optional[list[str]] = typer.Option(None, "--kind", metavar="[READ|WRITE|SEND]", help="only tools of these kinds (repeat or comma-separate)"),
    k: int = typer.Option(10, "-k", min=1, metavar="N", help="at most this many tools"),
    distractors: int = typer.Option(0, "--distractors", min=0, metavar="N", help="also N tools of the same services unrelated to the query, as task synthesis draws them"),
    seed: int = typer.Option(0, "--seed", metavar="SEED", help="with --distractors: which ones (same seed, same distractors)"),
    output: OutputFormat = typer.Option("table", "--format", help=FORMAT_HELP),
) -> None:
    """The tools that best match a request (BM25 over names, descriptions, kinds and parameters), with
    their scores and which fields matched; ties by name."""
    from clawarena.services.toolhub import ToolHubError, hub

    services, kinds = split(service) or None, split(kind) or None
    try:
        found = hub(catalogue()).retrieve(query, services=services, kinds=kinds, k=k, distractors=distractors, seed=seed)
    except ToolHubError as exc:
        fail(f"{SEARCH_OPTIONS.get(exc.argument, exc.argument)}: {exc.reason}")
    if output == "json":
        print(json.dumps(found.model_dump(mode="json"), indent=2, ensure_ascii=False))
        return
    say = lambda text: console.print(text, highlight=False, markup=False, soft_wrap=True)  # noqa: E731
    for rank, hit in enumerate(found.hits, 1):
        say(f"{rank:>3}  {hit.score:7.2f}  {hit.name}  ({hit.service}, {hit.kind})")
        say(f"              matched {matched_text(hit.matched)}")
    if found.distractors:
        say(f"distractors (seed {found.seed}):")
        for hit in found.distractors:
            say(f"       {hit.score:7.2f}  {hit.name}  ({hit.service}, {hit.kind})")
    say(f"{len(found.hits)} tool(s) for {' '.join(found.terms)}; `clawarena tools show NAME` for a tool's arguments")


# ---- docs/tools.md -------------------------------------------------------------------------------


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def render_markdown(by_service: dict[str, list[Tool]] | None = None) -> str:
    """docs/tools.md: every tool, by service, with what `clawarena tools show` prints."""
    by_service = by_service or catalogue()
    total = sum(len(v) for v in by_service.values())
    lines = [
        "# Tools",
        "",
        "Generated by `python scripts/tools_docs.py` from the tools themselves; do not edit by hand.",
        "`clawarena tools list` and `clawarena tools show NAME` print the same, and",
        "`clawarena tools list --scenario ID --agent A` the tools one agent of a task is given.",
        "",
        "Kinds: READ reads the workspace, WRITE changes it, SEND makes data leave it. The REST binding is",
        "the real API's method and path, served by `clawarena serve`; argument names are the agent-facing",
        "(snake_case) ones, and wire-only parameters (such as Gmail's `userId`) are not shown. Below a",
        "tool's arguments, the object types they use; `*` marks a required field.",
        "",
        f"{total} tools: " + ", ".join(f"[{s}](#{s}) ({len(v)})" for s, v in by_service.items()) + ".",
        "",
    ]
    for service, tools in by_service.items():
        lines += [f"## {service}", ""]
        for t in tools:
            lines += [f"### `{t.name}`", "", f"{t.kind.value}. {t.description}", ""]
            if t.rest is not None:
                lines += [f"REST: `{rest_text(t)}`", ""]
            args = arguments(t)
            if args:
                lines += ["| argument | type | required | default | description |", "|---|---|---|---|---|"]
                lines += [f"| `{a.name}` | {_cell(a.type)} | {'yes' if a.required else ''} | {_cell(a.default)} | {_cell(a.description)} |" for a in args]
                lines.append("")
            for def_name, definition in (t.json_schema().get("$defs") or {}).items():
                props = definition.get("properties", {})
                if props:
                    need = set(definition.get("required", []))
                    fields = ", ".join(f"`{k}`{'*' if k in need else ''}: {_cell(type_text(v))}" for k, v in props.items())
                    lines += [f"`{def_name}`: {fields}", ""]
    return "\n".join(lines).rstrip() + "\n"

