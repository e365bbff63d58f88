"""Scripted model servers for tests: OpenAI chat completions, OpenAI Responses, Anthropic
Messages and the Gemini API.

Each plays a fixed list of steps, one per request: a reply (text and/or tool
calls) or an injected fault (429, 500), answered as that API's error JSON. The
tests start them on 127.0.0.1:0. Every app also streams when asked, the way its
real API does (the coding-agent harnesses only stream):
- chat completions (`stream: true`, as OpenClaw sends it): text and tool-call deltas, the
  finish reason, a usage chunk when `stream_options.include_usage` asks for it, then `[DONE]`;
- Responses (`stream: true`, as Codex CLI sends it): typed `event:` lines with sequence numbers;
- Anthropic (`stream: true`, as Claude Code sends it): message_start ... message_stop;
- Gemini (`:streamGenerateContent?alt=sse`, as Gemini CLI sends it): GenerateContentResponse chunks.
"""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse, StreamingResponse

from clawarena.server.serve import RunningServer, start_in_thread


@dataclass
class Step:
    text: str = ""
    tool_calls: list[tuple[str, Any]] = field(default_factory=list)  # (name, args dict or raw JSON text)
    fault: int | None = None
    usage: tuple[int, int] = (100, 20)
    reasoning: str = ""  # OpenAI-compatible servers: `reasoning_content`; Anthropic: a thinking block


def call(name: str, args: Any = None) -> tuple[str, Any]:
    return (name, {} if args is None else args)


@dataclass
class ScriptedModel:
    steps: list[Step]
    requests: list[dict[str, Any]] = field(default_factory=list)
    served: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock)
    # Answers from the request itself (a judge reading its prompt) instead of the fixed steps.
    responder: Callable[[dict[str, Any]], Step] | None = None

    def next(self, body: dict[str, Any]) -> Step:
        with self.lock:
            self.requests.append(body)
            if self.responder is not None:
                self.served += 1
                return self.responder(body)
            if self.served >= len(self.steps):
                return Step(text="(script exhausted)")
            step = self.steps[self.served]
            self.served += 1
            return step


def _args_text(args: Any) -> str:
    return args if isinstance(args, str) else json.dumps(args)


def openai_app(model: ScriptedModel) -> FastAPI:
    app = FastAPI()

    @app.post("/v1/chat/completions")
    async def completions(request: Request):
        body = await request.json()
        step = model.next(body)
        if step.fault:
            return JSONResponse({"error": {"message": f"injected {step.fault}", "type": "server_error", "code": None}}, status_code=step.fault)
        n = model.served
        if body.get("stream"):
            return StreamingResponse(_sse(_chunks(step, n, body)), media_type="text/event-stream")
        return _completion(step, n, body["model"])

    return app


def _completion(step: Step, n: int, model: str) -> dict[str, Any]:
    """One scripted reply as a chat.completion object."""
    message: dict[str, Any] = {"role": "assistant", "content": step.text or None}
    if step.reasoning:
        message["reasoning_content"] = step.reasoning  # as vLLM and DeepSeek return it
    if step.tool_calls:
        message["tool_calls"] = [
            {"id": f"call_{n}_{i}", "type": "function", "function": {"name": name, "arguments": _args_text(args)}}
            for i, (name, args) in enumerate(step.tool_calls)
        ]
    return {
        "id": f"chatcmpl-{n}", "object": "chat.completion", "created": 0, "model": model,
        "choices": [{"index": 0, "message": message, "finish_reason": "tool_calls" if step.tool_calls else "stop"}],
        "usage": {"prompt_tokens": step.usage[0], "completion_tokens": step.usage[1], "total_tokens": sum(step.usage)},
    }  # fmt: skip


def _chunks(step: Step, n: int, body: dict[str, Any]) -> list[dict[str, Any]]:
    """One scripted reply as chat.completion.chunk objects, the way OpenAI streams it."""
    head = {"id": f"chatcmpl-{n}", "object": "chat.completion.chunk", "created": 0, "model": body["model"]}

    def chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
        return {**head, "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}

    out = [chunk({"role": "assistant", "content": ""})]
    text = step.text
    for i in range(0, len(text), 16):  # a few content deltas
        out.append(chunk({"content": text[i : i + 16]}))
    for i, (name, args) in enumerate(step.tool_calls):
        raw = _args_text(args)
        out.append(chunk({"tool_calls": [{"index": i, "id": f"call_{n}_{i}", "type": "function", "function": {"name": name, "arguments": ""}}]}))
        for j in range(0, len(raw), 24):  # arguments arrive in pieces
            out.append(chunk({"tool_calls": [{"index": i, "function": {"arguments": raw[j : j + 24]}}]}))
    out.append(chunk({}, "tool_calls" if step.tool_calls else "stop"))
    if (body.get("stream_options") or {}).get("include_usage"):
        usage = {"prompt_tokens": step.usage[0], "completion_tokens": step.usage[1], "total_tokens": sum(step.usage)}
        out.append({**head, "choices": [], "usage": usage})
    return out


async def _sse(chunks: list[dict[str, Any]]):
    for c in chunks:
        yield f"data: {json.dumps(c)}\n\n"
    yield "data: [DONE]\n\n"


def _pieces(text: str, size: int) -> list[str]:
    return [text[i : i + size] for i in range(0, len(text), size)]


def _typed_sse(events: list[tuple[str, dict[str, Any]]]):
    """Server-sent events with an `event:` line naming each one (Anthropic and Responses style)."""

    async def gen():
        for name, data in events:
            yield f"event: {name}\ndata: {json.dumps(data)}\n\n"

    return StreamingResponse(gen(), media_type="text/event-stream")


# Anthropic error types by status, as the Messages API names them.
_ANTHROPIC_ERRORS = {
    400: "invalid_request_error", 401: "authentication_error", 403: "permission_error", 404: "not_found_error",
    413: "request_too_large", 429: "rate_limit_error", 500: "api_error", 529: "overloaded_error",
}  # fmt: skip


def anthropic_app(model: ScriptedModel) -> FastAPI:
    """Anthropic Messages. Claude Code posts `/v1/messages?beta=true` with `anthropic-beta`
    headers: the query string and the headers change nothing here."""
    app = FastAPI()

    @app.post("/v1/messages")
    async def messages(request: Request):
        body = await request.json()
        step = model.next(body)
        if step.fault:
            kind = _ANTHROPIC_ERRORS.get(step.fault, "api_error")
            return JSONResponse({"type": "error", "error": {"type": kind, "message": f"injected {step.fault}"}}, status_code=step.fault)
        n = model.served
        if body.get("stream"):
            return _typed_sse(_anthropic_events(step, n, body["model"]))
        content: list[dict[str, Any]] = [{"type": "thinking", "thinking": step.reasoning, "signature": "sig"}] if step.reasoning else []
        content += [{"type": "text", "text": step.text}] if step.text else []
        for i, (name, args) in enumerate(step.tool_calls):
            content.append({"type": "tool_use", "id": f"toolu_{n}_{i}", "name": name, "input": args if isinstance(args, dict) else {}})
        return {
            "id": f"msg_{n}", "type": "message", "role": "assistant", "model": body["model"], "content": content,
            "stop_reason": "tool_use" if step.tool_calls else "end_turn", "stop_sequence": None,
            "usage": {"input_tokens": step.usage[0], "output_tokens": step.usage[1]},
        }  # fmt: skip

    @app.post("/v1/messages/count_tokens")
    async def count_tokens(request: Request):
        return {"input_tokens": _token_estimate(await request.body())}

    return app


def _anthropic_events(step: Step, n: int, model: str) -> list[tuple[str, dict[str, Any]]]:
    """One scripted reply as the Messages stream: the start snapshot carries output_tokens 1,
    message_delta the real count (clients must not sum the two)."""
    start_usage = {"input_tokens": step.usage[0], "output_tokens": 1, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}
    message = {
        "id": f"msg_{n}", "type": "message", "role": "assistant", "model": model, "content": [],
        "stop_reason": None, "stop_sequence": None, "usage": start_usage,
    }  # fmt: skip
    out: list[tuple[str, dict[str, Any]]] = [("message_start", {"type": "message_start", "message": message}), ("ping", {"type": "ping"})]
    blocks: list[tuple[dict[str, Any], list[dict[str, Any]]]] = []  # (block start, its deltas)
    if step.text:
        blocks.append(({"type": "text", "text": ""}, [{"type": "text_delta", "text": p} for p in _pieces(step.text, 16)]))
    for i, (name, args) in enumerate(step.tool_calls):
        start = {"type": "tool_use", "id": f"toolu_{n}_{i}", "name": name, "input": {}}
        blocks.append((start, [{"type": "input_json_delta", "partial_json": p} for p in _pieces(_args_text(args), 24)]))
    for index, (start, deltas) in enumerate(blocks):
        out.append(("content_block_start", {"type": "content_block_start", "index": index, "content_block": start}))
        out += [("content_block_delta", {"type": "content_block_delta", "index": index, "delta": d}) for d in deltas]
        out.append(("content_block_stop", {"type": "content_block_stop", "index": index}))
    delta = {"stop_reason": "tool_use" if step.tool_calls else "end_turn", "stop_sequence": None}
    out.append(("message_delta", {"type": "message_delta", "delta": delta, "usage": {"output_tokens": step.usage[1]}}))
    out.append(("message_stop", {"type": "message_stop"}))
    return out


def _token_estimate(raw: bytes) -> int:
    """A deterministic stand-in for a tokenizer: about four bytes a token."""
    return max(1, len(raw) // 4)


# ---- OpenAI Responses API (Codex CLI) -------------------------------------------------------

_OPENAI_ERRORS = {400: "invalid_request_error", 401: "invalid_request_error", 404: "invalid_request_error", 429: "rate_limit_exceeded"}


def responses_app(model: ScriptedModel) -> FastAPI:
    app = FastAPI()

    @app.post("/v1/responses")
    async def responses(request: Request):
        body = await request.json()
        step = model.next(body)
        if step.fault:
            kind = _OPENAI_ERRORS.get(step.fault, "server_error")
            return JSONResponse({"error": {"message": f"injected {step.fault}", "type": kind, "param": None, "code": None}}, status_code=step.fault)
        n = model.served
        items = _response_items(step, n, _namespaces(body.get("tools") or []))
        if body.get("stream"):
            return _typed_sse(_response_events(step, n, body, items))
        return _response(step, n, body, "completed", items, with_usage=True)

    return app


def _namespaces(tools: list[dict[str, Any]]) -> list[str]:
    """The request's namespace tool names, longest first so the most specific prefix wins."""
    return sorted((t["name"] for t in tools if t.get("type") == "namespace" and t.get("name")), key=len, reverse=True)


def _split_namespace(name: str, namespaces: list[str]) -> tuple[str | None, str]:
    """`mcp__clawarena__gmail_read_email` -> (`mcp__clawarena`, `gmail_read_email`) when the
    request declared that namespace: Codex rejects a namespaced tool called by its full name."""
    for ns in namespaces:
        if name.startswith(ns + "__") and len(name) > len(ns) + 2:
            return ns, name[len(ns) + 2 :]
    return None, name


def _response_items(step: Step, n: int, namespaces: list[str]) -> list[dict[str, Any]]:
    """The completed output items of one scripted reply: a message, then one function_call per tool call."""
    items: list[dict[str, Any]] = []
    if step.text:
        part = {"type": "output_text", "text": step.text, "annotations": [], "logprobs": []}
        items.append({"id": f"msg_{n}", "type": "message", "status": "completed", "role": "assistant", "content": [part]})
    for i, (name, args) in enumerate(step.tool_calls):
        ns, bare = _split_namespace(name, namespaces)
        item = {"id": f"fc_{n}_{i}", "type": "function_call", "status": "completed", "call_id": f"call_{n}_{i}", "name": bare, "arguments": _args_text(args)}
        if ns is not None:
            item["namespace"] = ns
        items.append(item)
    return items


def _response(step: Step, n: int, body: dict[str, Any], status: str, output: list[dict[str, Any]], with_usage: bool) -> dict[str, Any]:
    usage = {
        "input_tokens": step.usage[0], "input_tokens_details": {"cached_tokens": 0, "cache_write_tokens": 0},
        "output_tokens": step.usage[1], "output_tokens_details": {"reasoning_tokens": 0}, "total_tokens": sum(step.usage),
    }  # fmt: skip
    return {
        "id": f"resp_{n}", "object": "response", "created_at": 0, "status": status, "error": None,
        "incomplete_details": None, "instructions": body.get("instructions"), "model": body.get("model", ""),
        "output": output, "parallel_tool_calls": body.get("parallel_tool_calls", True), "tool_choice": body.get("tool_choice", "auto"),
        "tools": body.get("tools") or [], "store": body.get("store", True), "metadata": {},
        "usage": usage if with_usage else None,
    }  # fmt: skip


def _response_events(step: Step, n: int, body: dict[str, Any], items: list[dict[str, Any]]) -> list[tuple[str, dict[str, Any]]]:
    """One scripted reply as the Responses stream, each event numbered in order."""
    raw: list[dict[str, Any]] = [
        {"type": "response.created", "response": _response(step, n, body, "in_progress", [], with_usage=False)},
        {"type": "response.in_progress", "response": _response(step, n, body, "in_progress", [], with_usage=False)},
    ]
    for index, item in enumerate(items):
        raw += _message_events(index, item) if item["type"] == "message" else _call_events(index, item)
    raw.append({"type": "response.completed", "response": _response(step, n, body, "completed", items, with_usage=True)})
    return [(e["type"], {**e, "sequence_number": seq}) for seq, e in enumerate(raw)]


def _message_events(index: int, item: dict[str, Any]) -> list[dict[str, Any]]:
    text, at = item["content"][0]["text"], {"item_id": item["id"], "output_index": index, "content_index": 0}
    empty = {"type": "output_text", "text": "", "annotations": [], "logprobs": []}
    return [
        {"type": "response.output_item.added", "output_index": index, "item": {**item, "status": "in_progress", "content": []}},
        {"type": "response.content_part.added", **at, "part": empty},
        *({"type": "response.output_text.delta", **at, "delta": p, "logprobs": []} for p in _pieces(text, 16)),
        {"type": "response.output_text.done", **at, "text": text, "logprobs": []},
        {"type": "response.content_part.done", **at, "part": item["content"][0]},
        {"type": "response.output_item.done", "output_index": index, "item": item},
    ]  # fmt: skip


def _call_events(index: int, item: dict[str, Any]) -> list[dict[str, Any]]:
    at = {"item_id": item["id"], "output_index": index}
    return [
        {"type": "response.output_item.added", "output_index": index, "item": {**item, "status": "in_progress", "arguments": ""}},
        *({"type": "response.function_call_arguments.delta", **at, "delta": p} for p in _pieces(item["arguments"], 24)),
        {"type": "response.function_call_arguments.done", **at, "name": item["name"], "arguments": item["arguments"]},
        {"type": "response.output_item.done", "output_index": index, "item": item},
    ]  # fmt: skip


# ---- Gemini API (Gemini CLI) ----------------------------------------------------------------

# Google RPC status names by HTTP status, as the Gemini API puts them in its error JSON.
_GOOGLE_STATUS = {
    400: "INVALID_ARGUMENT", 401: "UNAUTHENTICATED", 403: "PERMISSION_DENIED", 404: "NOT_FOUND",
    429: "RESOURCE_EXHAUSTED", 500: "INTERNAL", 503: "UNAVAILABLE", 504: "DEADLINE_EXCEEDED",
}  # fmt: skip


def gemini_app(model: ScriptedModel) -> FastAPI:
    """The Gemini API's `models/{MODEL}:{method}` routes under v1beta (Gemini CLI) and v1 (the
    google-genai SDK's default with a custom base_url). Auth (x-goog-api-key) is ignored;
    countTokens answers without using a step."""
    app = FastAPI()

    @app.post("/v1beta/models/{target}")
    @app.post("/v1/models/{target}")
    async def models(target: str, request: Request):
        name, _, method = target.rpartition(":")
        if method == "countTokens":
            return {"totalTokens": _token_estimate(await request.body())}
        if not name or method not in ("generateContent", "streamGenerateContent"):
            return _google_error(404, f"unknown method {target!r}")
        body = await request.json()
        step = model.next(body)
        if step.fault:
            return _google_error(step.fault, f"injected {step.fault}")
        chunks = _gemini_chunks(step, model.served, name)
        if method == "generateContent":
            return _gemini_merge(chunks)
        return StreamingResponse(_data_sse(chunks), media_type="text/event-stream")

    return app


def _google_error(status: int, message: str) -> JSONResponse:
    error = {"code": status, "message": message, "status": _GOOGLE_STATUS.get(status, "UNKNOWN")}
    return JSONResponse({"error": error}, status_code=status)


def _gemini_args(args: Any) -> dict[str, Any]:
    """functionCall.args must be an object: raw JSON text is parsed, anything else becomes {}."""
    if isinstance(args, str):
        try:
            args = json.loads(args)
        except ValueError:
            return {}
    return args if isinstance(args, dict) else {}


def _gemini_chunks(step: Step, n: int, model: str) -> list[dict[str, Any]]:
    """One scripted reply as streamed GenerateContentResponses: the text over a few chunks, the
    function calls, finish reason and usage in the last (so a client keeping the last usage is right)."""
    texts = _pieces(step.text, max(1, -(-len(step.text) // 3)))
    calls = [{"functionCall": {"name": name, "args": _gemini_args(args)}} for name, args in step.tool_calls]
    part_lists = [[{"text": t}] for t in texts[:-1]] + [([{"text": texts[-1]}] if texts else []) + calls]
    if not part_lists[-1]:
        part_lists[-1] = [{"text": ""}]
    usage = {"promptTokenCount": step.usage[0], "candidatesTokenCount": step.usage[1], "totalTokenCount": sum(step.usage)}
    out = []
    for k, parts in enumerate(part_lists):
        last = k == len(part_lists) - 1
        candidate: dict[str, Any] = {"content": {"role": "model", "parts": parts}, "index": 0}
        chunk: dict[str, Any] = {"candidates": [candidate], "modelVersion": model, "responseId": f"resp_{n}"}
        if last:
            candidate["finishReason"] = "STOP"
            chunk["usageMetadata"] = usage
        out.append(chunk)
    return out


def _gemini_merge(chunks: list[dict[str, Any]]) -> dict[str, Any]:
    """The unstreamed answer: the chunks' parts in one candidate, with the last chunk's metadata."""
    merged = json.loads(json.dumps(chunks[-1]))
    texts = "".join(p.get("text", "") for c in chunks for p in c["candidates"][0]["content"]["parts"])
    calls = [p for c in chunks for p in c["candidates"][0]["content"]["parts"] if "functionCall" in p]
    merged["candidates"][0]["content"]["parts"] = ([{"text": texts}] if texts or not calls else []) + calls
    return merged


async def _data_sse(chunks: list[dict[str, Any]]):
    for c in chunks:
        yield f"data: {json.dumps(c)}\r\n\r\n"


def serve(app: FastAPI) -> RunningServer:
    return start_in_thread(app)


@dataclass
class GatedModel:
    """Answers every request with one text reply after holding it, until `gate` requests are in
    flight at once (proof that they were concurrent) or `hold_s` passes (a model's latency).
    Records the most requests it held at once. With `steps`, each conversation plays them in
    order (picked by how many assistant turns the request carries), so every trial gets the same
    script however many run at once; past the steps it answers `text`."""

    gate: int | None = None
    hold_s: float = 5.0
    text: str = "Done."
    steps: list[Step] = field(default_factory=list)
    in_flight: int = 0
    peak: int = 0
    served: int = 0
    reached: bool = False


def gated_openai_app(model: GatedModel) -> FastAPI:
    app = FastAPI()
    opened = asyncio.Event()

    @app.post("/v1/chat/completions")
    async def completions(request: Request):
        body = await request.json()
        model.in_flight += 1
        model.peak = max(model.peak, model.in_flight)
        if model.gate is not None and model.in_flight >= model.gate:
            model.reached = True
            opened.set()
        try:
            await asyncio.wait_for(opened.wait(), model.hold_s)
        except TimeoutError:
            pass
        finally:
            model.in_flight -= 1
        model.served += 1
        done = sum(1 for m in body["messages"] if m["role"] == "assistant")
        step = model.steps[done] if done < len(model.steps) else Step(text=model.text)
        return _completion(step, model.served, body["model"])

    return app
