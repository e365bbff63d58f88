"""Provider clients on the official SDKs: OpenAI-compatible chat completions and Anthropic messages."""

from __future__ import annotations

import asyncio
import importlib.util
import json
import threading
import time
import weakref
from collections.abc import Callable
from typing import Any, Protocol

from clawarena.llm.config import ModelConfig
from clawarena.registry import Registry
from clawarena.llm.retry import RetryPolicy, acall_with_retries, async_endpoint_limit, call_with_retries, endpoint_limit, worker_share
from clawarena.llm.types import AssistantTurn, Message, ModelCallRecord, ToolCallRequest, ToolSpec


class Provider(Protocol):
    """`complete` blocks (judges, scripts); `acomplete` awaits, so one worker holds many trials' calls."""

    def complete(self, system: str, messages: list[Message], tools: list[ToolSpec]) -> AssistantTurn: ...

    async def acomplete(self, system: str, messages: list[Message], tools: list[ToolSpec]) -> AssistantTurn: ...


# SDK clients are shared by every trial that calls the same endpoint: making one costs more than a
# trial (an SSL context each), and a shared one pools its connections. Blocking clients are
# thread-safe and live per process; async ones belong to the loop that uses them.
_SYNC_CLIENTS: dict[tuple[Any, ...], Any] = {}
_ASYNC_CLIENTS: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, dict[tuple[Any, ...], Any]] = weakref.WeakKeyDictionary()
_CLIENTS_LOCK = threading.Lock()


async def close_clients() -> None:
    """Close the async clients of the running loop (before the loop itself closes)."""
    with _CLIENTS_LOCK:
        clients = list(_ASYNC_CLIENTS.pop(asyncio.get_running_loop(), {}).values())
    for client in clients:
        await client.close()


def _transport(sdk: Any, is_async: bool) -> dict[str, Any]:
    """The SDK's aiohttp transport for async clients where aiohttp is installed (the SDKs' own
    `DefaultAioHttpClient`, the `aiohttp` extra): it spends less CPU per call than httpx's, which
    is most of the harness's own time once many trials share a loop. Else the SDK's default."""
    if not is_async or importlib.util.find_spec("aiohttp") is None or not hasattr(sdk, "DefaultAioHttpClient"):
        return {}
    return {"http_client": sdk.DefaultAioHttpClient()}


class _Endpoint:
    """What both providers share: the config, the retry policy, this worker's part of the
    endpoint's concurrency limit, and the shared blocking and async SDK clients."""

    name = ""

    def __init__(self, config: ModelConfig, policy: RetryPolicy | None = None, workers: int = 1):
        self.config = config
        self.policy = policy or RetryPolicy(max_retries=config.max_retries, base_delay=config.retry_base_delay)
        self.key = f"{self.name}|{config.base_url}"
        self.share = worker_share(config.max_concurrency, workers)
        self.limit = endpoint_limit(self.key, self.share)

    def client(self, is_async: bool) -> Any:
        ident = (self.name, self.config.base_url, self.config.api_key(), self.config.timeout_s)
        with _CLIENTS_LOCK:
            pool = _ASYNC_CLIENTS.setdefault(asyncio.get_running_loop(), {}) if is_async else _SYNC_CLIENTS
            if ident not in pool:
                pool[ident] = self.make_client(is_async)
            return pool[ident]

    def make_client(self, is_async: bool) -> Any:
        raise NotImplementedError

    def send(self, client: Any, kwargs: dict[str, Any]) -> Any:
        raise NotImplementedError

    def parse(self, resp: Any, retries: int, start: float) -> AssistantTurn:
        raise NotImplementedError

    def request(self, system: str, messages: list[Message], tools: list[ToolSpec]) -> dict[str, Any]:
        raise NotImplementedError

    def complete(self, system: str, messages: list[Message], tools: list[ToolSpec]) -> AssistantTurn:
        kwargs = self.request(system, messages, tools)
        start = time.perf_counter()
        client = self.client(False)
        with self.limit:
            resp, retries = call_with_retries(lambda: self.send(client, kwargs), _retryable(self.sdk), self.policy, f"{self.name} {self.config.model}")
        return self.parse(resp, retries, start)

    async def acomplete(self, system: str, messages: list[Message], tools: list[ToolSpec]) -> AssistantTurn:
        kwargs = self.request(system, messages, tools)
        start = time.perf_counter()
        client = self.client(True)
        async with async_endpoint_limit(self.key, self.share):
            resp, retries = await acall_with_retries(lambda: self.send(client, kwargs), _retryable(self.sdk), self.policy, f"{self.name} {self.config.model}")
        return self.parse(resp, retries, start)


def _retryable(sdk: Any) -> Any:
    def check(exc: Exception) -> bool:
        if isinstance(exc, (sdk.RateLimitError, sdk.APIConnectionError, sdk.APITimeoutError, sdk.InternalServerError)):
            return True
        return isinstance(exc, sdk.APIStatusError) and (exc.status_code == 429 or exc.status_code >= 500)

    return check


class OpenAIProvider(_Endpoint):
    """Any OpenAI-compatible `/v1/chat/completions` endpoint (OpenAI, vLLM, Ollama, llama.cpp, ...)."""

    name = "openai"

    def __init__(self, config: ModelConfig, policy: RetryPolicy | None = None, workers: int = 1):
        import openai

        self.sdk = openai
        super().__init__(config, policy, workers)

    def make_client(self, is_async: bool) -> Any:
        cls = self.sdk.AsyncOpenAI if is_async else self.sdk.OpenAI
        return cls(api_key=self.config.api_key() or None, base_url=self.config.base_url, max_retries=0, timeout=self.config.timeout_s, **_transport(self.sdk, is_async))

    def send(self, client: Any, kwargs: dict[str, Any]) -> Any:
        # The SDK's documented raw `post`: our body is plain JSON already, and `create` would walk
        # it against its typed params (tens of ms per call with a workspace's tool schemas).
        return client.post("/chat/completions", body=kwargs, cast_to=self.sdk.types.chat.ChatCompletion)

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

    def request(self, system: str, messages: list[Message], tools: list[ToolSpec]) -> dict[str, Any]:
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
        return kwargs

    def parse(self, resp: Any, retries: int, start: float) -> AssistantTurn:
        choice = resp.choices[0]
        calls = [ToolCallRequest(c.id, c.function.name, c.function.arguments or "") for c in (choice.message.tool_calls or [])]
        usage = resp.usage
        tin, tout = (usage.prompt_tokens, usage.completion_tokens) if usage else (0, 0)
        record = ModelCallRecord(
            provider="openai", model=self.config.model, input_tokens=tin, output_tokens=tout,
            cost_usd=self.config.price.cost(tin, tout), retries=retries, finish_reason=choice.finish_reason or "",
            latency_ms=round((time.perf_counter() - start) * 1000, 1),
        )  # fmt: skip
        return AssistantTurn(choice.message.content or "", calls, record, reasoning=_openai_reasoning(choice.message))


class AnthropicProvider(_Endpoint):
    """Anthropic's Messages API through the official `anthropic` SDK."""

    name = "anthropic"

    def __init__(self, config: ModelConfig, policy: RetryPolicy | None = None, workers: int = 1):
        import anthropic

        self.sdk = anthropic
        super().__init__(config, policy, workers)

    def make_client(self, is_async: bool) -> Any:
        cls = self.sdk.AsyncAnthropic if is_async else self.sdk.Anthropic
        return cls(api_key=self.config.api_key() or None, base_url=self.config.base_url, max_retries=0, timeout=self.config.timeout_s, **_transport(self.sdk, is_async))

    def send(self, client: Any, kwargs: dict[str, Any]) -> Any:
        return client.post("/v1/messages", body=kwargs, cast_to=self.sdk.types.Message)  # as the OpenAI provider's

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

    def request(self, system: str, messages: list[Message], tools: list[ToolSpec]) -> dict[str, Any]:
        kwargs: dict[str, Any] = {"model": self.config.model, "max_tokens": self.config.max_tokens, "messages": self._messages(messages)}
        if system:
            kwargs["system"] = system
        if tools:
            kwargs["tools"] = [{"name": t.name, "description": t.description, "input_schema": t.parameters} for t in tools]
        if self.config.temperature is not None:
            kwargs["temperature"] = self.config.temperature
        if self.config.reasoning:
            kwargs.update(self.config.reasoning)
        return kwargs

    def parse(self, resp: Any, retries: int, start: float) -> AssistantTurn:
        text = "".join(b.text for b in resp.content if b.type == "text")
        reasoning = "\n".join(b.thinking for b in resp.content if b.type == "thinking" and getattr(b, "thinking", ""))
        calls = [ToolCallRequest(b.id, b.name, json.dumps(b.input)) for b in resp.content if b.type == "tool_use"]
        tin, tout = resp.usage.input_tokens, resp.usage.output_tokens
        record = ModelCallRecord(
            provider="anthropic", model=self.config.model, input_tokens=tin, output_tokens=tout,
            cost_usd=self.config.price.cost(tin, tout), retries=retries, finish_reason=resp.stop_reason or "",
            latency_ms=round((time.perf_counter() - start) * 1000, 1),
        )  # fmt: skip
        return AssistantTurn(text, calls, record, reasoning=reasoning)


def _openai_reasoning(message: Any) -> str:
    """Reasoning text of an OpenAI-compatible reply: servers that return it put it in
    `reasoning_content` (vLLM, DeepSeek) or `reasoning` (OpenRouter, Ollama), outside the SDK's model."""
    extra = getattr(message, "model_extra", None) or {}
    for key in ("reasoning_content", "reasoning"):
        value = extra.get(key)
        if isinstance(value, str) and value:
            return value
    return ""


PROVIDERS: Registry[Callable[..., Provider]] = Registry("model provider")  # (config, policy, workers) -> Provider
PROVIDERS.register("openai", OpenAIProvider)
PROVIDERS.register("anthropic", AnthropicProvider)


def make_provider(config: ModelConfig, policy: RetryPolicy | None = None, workers: int = 1) -> Provider:
    """`workers`: how many processes share the endpoint's limit (each gets its part)."""
    return PROVIDERS[config.provider](config, policy, workers)
