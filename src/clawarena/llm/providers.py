"""Provider clients on the official SDKs: OpenAI-compatible chat completions and Anthropic messages."""

from __future__ import annotations

import json
from collections.abc import Callable
import time
from typing import Any, Protocol

from clawarena.llm.config import ModelConfig
from clawarena.registry import Registry
from clawarena.llm.retry import RetryPolicy, call_with_retries, endpoint_limit
from clawarena.llm.types import AssistantTurn, Message, ModelCallRecord, ToolCallRequest, ToolSpec


class Provider(Protocol):
    def complete(self, system: str, messages: list[Message], tools: list[ToolSpec]) -> AssistantTurn: ...


def _retryable(sdk: Any) -> Any:
    def check(exc: Exception) -> bool:
        if isinstance(exc, (sdk.RateLimitError, sdk.APIConnectionError, sdk.APITimeoutError, sdk.InternalServerError)):
            return True
        return isinstance(exc, sdk.APIStatusError) and (exc.status_code == 429 or exc.status_code >= 500)

    return check


class OpenAIProvider:
    """Any OpenAI-compatible `/v1/chat/completions` endpoint (OpenAI, vLLM, Ollama, llama.cpp, ...)."""

    def __init__(self, config: ModelConfig, policy: RetryPolicy | None = None):
        import openai

        self.sdk = openai
        self.config = config
        self.client = openai.OpenAI(api_key=config.api_key() or None, base_url=config.base_url, max_retries=0, timeout=config.timeout_s)
        self.policy = policy or RetryPolicy(max_retries=config.max_retries, base_delay=config.retry_base_delay)
        self.limit = endpoint_limit(f"openai|{config.base_url}", config.max_concurrency)

    def _messages(self, system: str, messages: list[Message]) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = [{"role": "system", "content": system}] if system else []
        for m in messages:
            if m.role == "assistant":
                entry: dict[str, Any] = {"role": "assistant", "content": m.content or None}
                if m.tool_calls:
                    entry["tool_calls"] = [
                        {"id": c.id, "type": "function", "function": {"name": c.name, "arguments": c.arguments}} for c in m.tool_calls
                    ]
                out.append(entry)
            elif m.role == "tool":
                out.append({"role": "tool", "tool_call_id": m.tool_call_id, "content": m.content})
            else:
                out.append({"role": "user", "content": m.content})
        return out

    def complete(self, system: str, messages: list[Message], tools: list[ToolSpec]) -> AssistantTurn:
        kwargs: dict[str, Any] = {
            "model": self.config.model,
            "messages": self._messages(system, messages),
            "max_tokens": self.config.max_tokens,
        }
        if tools:
            kwargs["tools"] = [{"type": "function", "function": {"name": t.name, "description": t.description, "parameters": t.parameters}} for t in tools]
        if self.config.temperature is not None:
            kwargs["temperature"] = self.config.temperature
        if self.config.reasoning:
            kwargs["extra_body"] = dict(self.config.reasoning)
        start = time.perf_counter()
        with self.limit:
            resp, retries = call_with_retries(
                lambda: self.client.chat.completions.create(**kwargs), _retryable(self.sdk), self.policy, f"openai {self.config.model}"
            )
        choice = resp.choices[0]
        calls = [ToolCallRequest(c.id, c.function.name, c.function.arguments or "") for c in (choice.message.tool_calls or [])]
        usage = resp.usage
        tin, tout = (usage.prompt_tokens, usage.completion_tokens) if usage else (0, 0)
        record = ModelCallRecord(
            provider="openai", model=self.config.model, input_tokens=tin, output_tokens=tout,
            cost_usd=self.config.price.cost(tin, tout), retries=retries, finish_reason=choice.finish_reason or "",
            latency_ms=round((time.perf_counter() - start) * 1000, 1),
        )  # fmt: skip
        return AssistantTurn(choice.message.content or "", calls, record)


class AnthropicProvider:
    """Anthropic's Messages API through the official `anthropic` SDK."""

    def __init__(self, config: ModelConfig, policy: RetryPolicy | None = None):
        import anthropic

        self.sdk = anthropic
        self.config = config
        self.client = anthropic.Anthropic(api_key=config.api_key() or None, base_url=config.base_url, max_retries=0, timeout=config.timeout_s)
        self.policy = policy or RetryPolicy(max_retries=config.max_retries, base_delay=config.retry_base_delay)
        self.limit = endpoint_limit(f"anthropic|{config.base_url}", config.max_concurrency)

    def _messages(self, messages: list[Message]) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        for m in messages:
            if m.role == "assistant":
                blocks: list[dict[str, Any]] = [{"type": "text", "text": m.content}] if m.content else []
                for c in m.tool_calls:
                    try:
                        parsed = json.loads(c.arguments) if c.arguments else {}
                    except ValueError:
                        parsed = {"_unparsed": c.arguments}
                    blocks.append({"type": "tool_use", "id": c.id, "name": c.name, "input": parsed})
                out.append({"role": "assistant", "content": blocks})
            elif m.role == "tool":
                block = {"type": "tool_result", "tool_use_id": m.tool_call_id, "content": m.content, "is_error": m.is_error}
                if out and out[-1]["role"] == "user" and isinstance(out[-1]["content"], list):
                    out[-1]["content"].append(block)  # results of one assistant turn travel together
                else:
                    out.append({"role": "user", "content": [block]})
            else:
                out.append({"role": "user", "content": m.content})
        return out

    def complete(self, system: str, messages: list[Message], tools: list[ToolSpec]) -> AssistantTurn:
        kwargs: dict[str, Any] = {"model": self.config.model, "max_tokens": self.config.max_tokens, "messages": self._messages(messages)}
        if system:
            kwargs["system"] = system
        if tools:
            kwargs["tools"] = [{"name": t.name, "description": t.description, "input_schema": t.parameters} for t in tools]
        if self.config.temperature is not None:
            kwargs["temperature"] = self.config.temperature
        if self.config.reasoning:
            kwargs.update(self.config.reasoning)
        start = time.perf_counter()
        with self.limit:
            resp, retries = call_with_retries(
                lambda: self.client.messages.create(**kwargs), _retryable(self.sdk), self.policy, f"anthropic {self.config.model}"
            )
        text = "".join(b.text for b in resp.content if b.type == "text")
        calls = [ToolCallRequest(b.id, b.name, json.dumps(b.input)) for b in resp.content if b.type == "tool_use"]
        tin, tout = resp.usage.input_tokens, resp.usage.output_tokens
        record = ModelCallRecord(
            provider="anthropic", model=self.config.model, input_tokens=tin, output_tokens=tout,
            cost_usd=self.config.price.cost(tin, tout), retries=retries, finish_reason=resp.stop_reason or "",
            latency_ms=round((time.perf_counter() - start) * 1000, 1),
        )  # fmt: skip
        return AssistantTurn(text, calls, record)


PROVIDERS: Registry[Callable[[ModelConfig, RetryPolicy], Provider]] = Registry("model provider")
PROVIDERS.register("openai", OpenAIProvider)
PROVIDERS.register("anthropic", AnthropicProvider)


def make_provider(config: ModelConfig, policy: RetryPolicy | None = None) -> Provider:
    return PROVIDERS[config.provider](config, policy)
