"""Scripted OpenAI-compatible and Anthropic-compatible servers for tests.

Each plays a fixed list of steps, one per request: a reply (text and/or tool
calls) or an injected fault (429, 500). The tests start them on 127.0.0.1:0.
"""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass, field
from typing import Any

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse

from clawarena.services.server import RunningServer, start_in_thread


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

    def next(self, body: dict[str, Any]) -> Step:
        with self.lock:
            self.requests.append(body)
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
        message: dict[str, Any] = {"role": "assistant", "content": step.text or None}
        if step.tool_calls:
            message["tool_calls"] = [
                {"id": f"call_{n}_{i}", "type": "function", "function": {"name": name, "arguments": _args_text(args)}}
                for i, (name, args) in enumerate(step.tool_calls)
            ]
        return {
            "id": f"chatcmpl-{n}", "object": "chat.completion", "created": 0, "model": body["model"],
            "choices": [{"index": 0, "message": message, "finish_reason": "tool_calls" if step.tool_calls else "stop"}],
            "usage": {"prompt_tokens": step.usage[0], "completion_tokens": step.usage[1], "total_tokens": sum(step.usage)},
        }  # fmt: skip

    return app


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
