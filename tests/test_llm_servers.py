"""The scripted model servers the harness end-to-end tests talk to, checked through the official
SDKs: the OpenAI Responses API (Codex CLI), Anthropic Messages streaming (Claude Code) and the
Gemini API (Gemini CLI)."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator

import anthropic
import httpx
import openai
import pytest
from google import genai
from google.genai import errors as genai_errors
from google.genai import types as genai_types

from tests.llm_servers import (
    ScriptedModel,
    Step,
    anthropic_app,
    call,
    gemini_app,
    responses_app,
    serve,
)

NS = "mcp__clawarena"
READ_ARGS = {"message_id": "m-17", "format": "full", "note": "a long enough value to span several argument deltas"}
# Codex's view of the MCP tools: grouped under one namespace tool, plus its own shell tool.
CODEX_TOOLS = [
    {"type": "namespace", "name": NS, "description": "clawarena tools", "tools": [{"type": "function", "name": "gmail_read_email", "parameters": {"type": "object"}}]},
    {"type": "function", "name": "exec_command", "parameters": {"type": "object"}},
]  # fmt: skip
TEXT = "The inbox holds three messages; the second one needs a reply today."


@pytest.fixture
def served() -> Iterator[Callable[..., tuple[ScriptedModel, str]]]:
    servers = []

    def start(app_factory, steps: list[Step]) -> tuple[ScriptedModel, str]:
        model = ScriptedModel(steps)
        server = serve(app_factory(model))
        servers.append(server)
        return model, server.url

    yield start
    for s in servers:
        s.stop()


# ---- Responses API ----------------------------------------------------------------------


def _openai(url: str) -> openai.OpenAI:
    return openai.OpenAI(api_key="sk-local", base_url=f"{url}/v1", max_retries=0)


def test_responses_stream_carries_text_namespaced_and_plain_calls_and_usage(served):
    step = Step(text=TEXT, tool_calls=[call(f"{NS}__gmail_read_email", READ_ARGS), call("exec_command", {"cmd": "ls -la"})], usage=(111, 22))
    model, url = served(responses_app, [step])
    stream = _openai(url).responses.create(model="mock-model", input="triage", tools=CODEX_TOOLS, stream=True, store=False)
    events = list(stream)

    kinds = [e.type for e in events]
    assert kinds[:2] == ["response.created", "response.in_progress"] and kinds[-1] == "response.completed"
    assert [e.sequence_number for e in events] == list(range(len(events)))
    assert "".join(e.delta for e in events if e.type == "response.output_text.delta") == TEXT
    assert kinds.count("response.output_text.delta") > 1 and kinds.count("response.content_part.done") == 1
    # Each call is announced with empty arguments, which then arrive in several pieces.
    added = [e.item for e in events if e.type == "response.output_item.added"]
    assert [i.type for i in added] == ["message", "function_call", "function_call"]
    assert added[1].arguments == "" and added[1].namespace == NS and added[1].name == "gmail_read_email"
    pieces = [e.delta for e in events if e.type == "response.function_call_arguments.delta" and e.item_id == added[1].id]
    assert len(pieces) > 1 and json.loads("".join(pieces)) == READ_ARGS
    done = [e.item for e in events if e.type == "response.output_item.done" and e.item.type == "function_call"]
    assert [(c.namespace, c.name, json.loads(c.arguments)) for c in done] == [(NS, "gmail_read_email", READ_ARGS), (None, "exec_command", {"cmd": "ls -la"})]
    assert done[0].call_id != done[1].call_id
    final = events[-1].response
    assert final.status == "completed" and final.output_text == TEXT and [o.type for o in final.output] == ["message", "function_call", "function_call"]
    assert (final.usage.input_tokens, final.usage.output_tokens, final.usage.total_tokens) == (111, 22, 133)
    assert final.usage.input_tokens_details.cached_tokens == 0 and final.usage.output_tokens_details.reasoning_tokens == 0
    assert model.requests[0]["stream"] is True and model.requests[0]["store"] is False


def test_responses_unstreamed_and_a_name_outside_any_namespace(served):
    steps = [Step(tool_calls=[call(f"{NS}__gmail_read_email", READ_ARGS), call("mcp__other__x", {})]), Step(text="FINAL after-tool", usage=(7, 3))]
    model, url = served(responses_app, steps)
    client = _openai(url)
    first = client.responses.create(model="mock-model", input="triage", tools=CODEX_TOOLS)
    assert first.object == "response" and first.status == "completed" and first.model == "mock-model"
    calls = [(o.namespace, o.name, json.loads(o.arguments)) for o in first.output]
    # Only a declared namespace is split off; anything else passes through under its full name.
    assert calls == [(NS, "gmail_read_email", READ_ARGS), (None, "mcp__other__x", {})]
    second = client.responses.create(model="mock-model", input=[{"type": "function_call_output", "call_id": first.output[0].call_id, "output": "ok"}])
    assert second.output_text == "FINAL after-tool" and second.usage.total_tokens == 10
    assert model.requests[1]["input"][0]["call_id"] == first.output[0].call_id


def test_responses_fault_raises_the_sdk_error_streamed_or_not(served):
    model, url = served(responses_app, [Step(fault=429), Step(fault=500)])
    client = _openai(url)
    with pytest.raises(openai.RateLimitError) as rate:
        client.responses.create(model="m", input="x", stream=True)
    assert rate.value.status_code == 429 and "injected 429" in rate.value.message
    with pytest.raises(openai.InternalServerError):
        client.responses.create(model="m", input="x")
    assert model.served == 2


# ---- Anthropic Messages ------------------------------------------------------------------


def _anthropic(url: str) -> anthropic.Anthropic:
    return anthropic.Anthropic(api_key="sk-ant-local", base_url=url, max_retries=0)


def test_anthropic_stream_builds_text_and_tool_input_from_deltas(served):
    step = Step(text=TEXT, tool_calls=[call("mcp__clawarena__gmail_read_email", READ_ARGS), call("Bash", {"command": "id", "description": "who"})], usage=(111, 22))
    model, url = served(anthropic_app, [step])
    with _anthropic(url).messages.stream(model="claude-x", max_tokens=100, messages=[{"role": "user", "content": "go"}]) as stream:
        events = list(stream)
        final = stream.get_final_message()
    kinds = [e.type for e in events]
    assert kinds.count("text") > 1 and kinds.count("input_json") > 2  # pieces, not one blob
    assert [b.type for b in final.content] == ["text", "tool_use", "tool_use"]
    assert final.content[0].text == TEXT
    assert [(b.name, b.input) for b in final.content[1:]] == [("mcp__clawarena__gmail_read_email", READ_ARGS), ("Bash", {"command": "id", "description": "who"})]
    assert final.stop_reason == "tool_use" and final.usage.input_tokens == 111 and final.usage.output_tokens == 22
    assert model.requests[0]["stream"] is True


def test_anthropic_stream_wire_format_as_claude_code_reads_it(served):
    """Claude Code posts `/v1/messages?beta=true` with beta headers; the start snapshot says
    output_tokens 1 and message_delta carries the real count."""
    model, url = served(anthropic_app, [Step(text="FINAL after-tool", usage=(5, 9))])
    body = {"model": "claude-x", "max_tokens": 10, "stream": True, "messages": [{"role": "user", "content": "go"}]}
    headers = {"x-api-key": "k", "anthropic-version": "2023-06-01", "anthropic-beta": "claude-code-20250219,oauth-2025-04-20"}
    r = httpx.post(f"{url}/v1/messages?beta=true", json=body, headers=headers)
    assert r.status_code == 200 and r.headers["content-type"].startswith("text/event-stream")
    frames = [f.split("\n") for f in r.text.strip().split("\n\n")]
    names = [f[0].removeprefix("event: ") for f in frames]
    data = [json.loads(f[1].removeprefix("data: ")) for f in frames]
    assert names[0] == "message_start" and names[-2:] == ["message_delta", "message_stop"]
    assert all(d["type"] == n for n, d in zip(names, data, strict=True))
    assert data[0]["message"]["usage"]["input_tokens"] == 5 and data[0]["message"]["usage"]["output_tokens"] == 1
    assert data[-2]["delta"]["stop_reason"] == "end_turn" and data[-2]["usage"]["output_tokens"] == 9
    assert "".join(d["delta"]["text"] for d in data if d["type"] == "content_block_delta") == "FINAL after-tool"
    assert model.requests == [body]


def test_anthropic_beta_client_unstreamed_count_tokens_and_fault(served):
    model, url = served(anthropic_app, [Step(tool_calls=[call("Bash", {"command": "ls"})]), Step(fault=529)])
    client = _anthropic(url)
    msg = client.beta.messages.create(model="claude-x", max_tokens=10, betas=["claude-code-20250219"], messages=[{"role": "user", "content": "go"}])
    assert msg.content[0].name == "Bash" and msg.content[0].input == {"command": "ls"} and msg.usage.output_tokens == 20
    short = client.messages.count_tokens(model="claude-x", messages=[{"role": "user", "content": "hi"}])
    long = client.messages.count_tokens(model="claude-x", messages=[{"role": "user", "content": "hi " * 400}])
    assert 0 < short.input_tokens < long.input_tokens
    with pytest.raises(anthropic.APIStatusError) as err:
        client.messages.create(model="claude-x", max_tokens=10, messages=[{"role": "user", "content": "go"}], stream=True)
    assert err.value.status_code == 529 and err.value.body["error"]["type"] == "overloaded_error"
    assert model.served == 2  # count_tokens used no step


# ---- Gemini API --------------------------------------------------------------------------


def _gemini(url: str) -> genai.Client:
    return genai.Client(api_key="x", http_options=genai_types.HttpOptions(base_url=url))


GEMINI_TOOL = "mcp_clawarena_gmail_read_email"


def test_gemini_generate_content_text_function_call_and_usage(served):
    steps = [Step(text="Reading it.", tool_calls=[call(GEMINI_TOOL, READ_ARGS), call("run_shell_command", '{"command": "id"}')], usage=(111, 22))]
    model, url = served(gemini_app, steps)
    client = _gemini(url)  # held: a dropped genai client closes its connection pool mid-call
    resp = client.models.generate_content(model="gemini-test", contents="triage")
    assert resp.text == "Reading it." and resp.model_version == "gemini-test"
    assert [(f.name, f.args) for f in resp.function_calls] == [(GEMINI_TOOL, READ_ARGS), ("run_shell_command", {"command": "id"})]
    assert resp.candidates[0].finish_reason == genai_types.FinishReason.STOP and resp.candidates[0].content.role == "model"
    usage = resp.usage_metadata
    assert (usage.prompt_token_count, usage.candidates_token_count, usage.total_token_count) == (111, 22, 133)
    assert model.requests[0]["contents"][0]["parts"][0]["text"] == "triage"


def test_gemini_stream_splits_text_and_ends_with_calls_and_usage(served):
    model, url = served(gemini_app, [Step(text=TEXT, tool_calls=[call(GEMINI_TOOL, READ_ARGS)], usage=(40, 8)), Step(text="FINAL after-tool")])
    client = _gemini(url)
    chunks = list(client.models.generate_content_stream(model="gemini-test", contents="triage"))
    assert len(chunks) >= 3 and "".join(c.text or "" for c in chunks) == TEXT
    assert [(f.name, f.args) for f in chunks[-1].function_calls] == [(GEMINI_TOOL, READ_ARGS)]
    last = chunks[-1]
    assert last.candidates[0].finish_reason == genai_types.FinishReason.STOP and last.model_version == "gemini-test"
    assert (last.usage_metadata.prompt_token_count, last.usage_metadata.candidates_token_count, last.usage_metadata.total_token_count) == (40, 8, 48)
    again = "".join(c.text or "" for c in client.models.generate_content_stream(model="gemini-test", contents="next"))
    assert again == "FINAL after-tool" and model.served == 2


def test_gemini_stream_url_and_sse_lines_as_gemini_cli_sends(served):
    model, url = served(gemini_app, [Step(text="hello there, world")])
    r = httpx.post(f"{url}/v1beta/models/gemini-3-pro:streamGenerateContent?alt=sse", json={"contents": []}, headers={"x-goog-api-key": "k"})
    lines = [ln for ln in r.text.splitlines() if ln]
    assert r.status_code == 200 and lines and all(ln.startswith("data: ") for ln in lines)
    assert json.loads(lines[-1][6:])["modelVersion"] == "gemini-3-pro"
    assert "".join(json.loads(ln[6:])["candidates"][0]["content"]["parts"][0]["text"] for ln in lines) == "hello there, world"
    assert model.requests == [{"contents": []}]


def test_gemini_count_tokens_and_faults(served):
    model, url = served(gemini_app, [Step(fault=429), Step(fault=500)])
    client = _gemini(url)
    small = client.models.count_tokens(model="gemini-test", contents="hi")
    big = client.models.count_tokens(model="gemini-test", contents="hi " * 400)
    assert 0 < small.total_tokens < big.total_tokens
    with pytest.raises(genai_errors.ClientError) as rate:
        list(client.models.generate_content_stream(model="gemini-test", contents="x"))
    assert rate.value.code == 429 and rate.value.status == "RESOURCE_EXHAUSTED"
    with pytest.raises(genai_errors.ServerError) as internal:
        client.models.generate_content(model="gemini-test", contents="x")
    assert internal.value.code == 500
    assert model.served == 2  # countTokens used no step
