"""Agent-facing tool schemas without noise: what every model call carries, still valid JSON Schema
for OpenAI and Anthropic function calling and for MCP."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from clawarena.gateway import GATEWAY_TOOLS
from clawarena.services import all_tools
from clawarena.spec.loader import load_suite

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))
from schemas import pydantic_schema, size  # noqa: E402  (the benchmark's "before" is the reference here)

TOOLS = [*all_tools(), *GATEWAY_TOOLS]


def schema_nodes(node: Any, in_properties: bool = False):
    """Every schema object in a JSON schema (not the name maps under `properties`)."""
    if isinstance(node, list):
        for v in node:
            yield from schema_nodes(v)
    elif isinstance(node, dict):
        if not in_properties:
            yield node
        for key, value in node.items():
            if in_properties:
                yield from schema_nodes(value)
            elif key == "properties":
                yield from schema_nodes(value, in_properties=True)
            elif key == "$defs":
                for d in value.values():
                    yield from schema_nodes(d)
            elif isinstance(value, (dict, list)):
                yield from schema_nodes(value)


@pytest.mark.parametrize("tool", TOOLS, ids=lambda t: t.name)
def test_schema_is_valid_and_has_no_noise(tool):
    schema = tool.json_schema()
    jsonschema.Draft202012Validator.check_schema(schema)
    # what function calling needs at the top: an object with named properties (no top-level combinators)
    assert schema["type"] == "object" and schema["additionalProperties"] is False
    assert not {"anyOf", "oneOf", "allOf", "$ref"} & set(schema)
    defs = schema.get("$defs", {})
    for node in schema_nodes(schema):
        assert "title" not in node, node
        assert not ("default" in node and node["default"] is None), node
        assert {"type": "null"} not in node.get("anyOf", []), node
        assert node.get("additionalProperties") is not True, node
        if "$ref" in node:
            assert node["$ref"].rsplit("/", 1)[-1] in defs, node["$ref"]
    assert json.loads(json.dumps(schema)) == schema
    assert tool.json_schema() is not tool.json_schema()  # a copy each time: callers may change theirs


def test_a_parameter_named_title_is_kept():
    titled = [t for t in TOOLS if "title" in t.json_schema()["properties"]]
    assert titled, "some tool has a parameter called title (e.g. slack_bookmarks_add)"
    for t in titled:
        assert "title" in t.json_schema()["properties"]


def test_the_cut_changes_no_verdict_on_real_calls():
    """Every reference call of the bundled suites is accepted or refused by the lean schema exactly
    as by pydantic's full schema: only noise went."""
    tools = {t.name: t for t in TOOLS}
    calls = [(tools[step.tool], step.args) for suite in ("email", "workspace") for s in load_suite(suite)
             for steps in s.task.reference.values() for step in steps if step.tool in tools]  # fmt: skip
    assert len(calls) > 100
    for tool, args in calls:
        lean = jsonschema.Draft202012Validator(tool.json_schema()).is_valid(args)
        full = jsonschema.Draft202012Validator(pydantic_schema(tool)).is_valid(args)
        assert lean == full, (tool.name, args)


def test_schemas_are_smaller_than_pydantics():
    before, after = size(TOOLS, pydantic_schema), size(TOOLS, lambda t: t.json_schema())
    assert after < 0.85 * before, (before, after)
