"""Scripted OpenAI-compatible and Anthropic-compatible servers for tests.

Each plays a fixed list of steps, one per request: a reply (text and/or tool
calls) or an injected fault (429, 500). The tests start them on 127.0.0.1:0.
The OpenAI server also answers `stream: true` requests (as OpenClaw sends them)
with server-sent chunks: text and tool-call deltas, the finish reason, a usage
chunk when `stream_options.include_usage` asks for it, then `[DONE]`.
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


def anthropic_app(model: ScriptedModel) -> FastAPI:
    app = FastAPI()

    @app.post("/v1/messages")
    async def messages(request: Request):
        body = await request.json()
        step = model.next(body)
        if step.fault:
            kind = "rate_limit_error" if step.fault == 429 else "api_error"
            return JSONResponse({"type": "error", "error": {"type": kind, "message": f"injected {step.fault}"}}, status_code=step.fault)
        n = model.served
        content: list[dict[str, Any]] = [{"type": "text", "text": step.text}] if step.text else []
        for i, (name, args) in enumerate(step.tool_calls):
            content.append({"type": "tool_use", "id": f"toolu_{n}_{i}", "name": name, "input": args if isinstance(args, dict) else {}})
        return {
            "id": f"msg_{n}", "type": "message", "role": "assistant", "model": body["model"], "content": content,
            "stop_reason": "tool_use" if step.tool_calls else "end_turn", "stop_sequence": None,
            "usage": {"input_tokens": step.usage[0], "output_tokens": step.usage[1]},
        }  # fmt: skip

    return app


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
