"""Model agents: an LLM with native function calling, taking turns like any other agent.

`--agent openai:MODEL [--base-url URL]`, `--agent anthropic:MODEL`, or
`--agent model:NAME` for a named config of the models file.
"""

from __future__ import annotations

import json
import time
from typing import Any

from clawarena.agents.base import AgentSession, AgentSetup, BudgetExceeded, TurnInput, TurnOutput
from clawarena.agents.conversation import ConversationLog
from clawarena.agents.prompt import render_events, system_prompt
from clawarena.agents.registry import DIRECT_HARNESS, register_agent
from clawarena.llm.config import ModelConfig, ModelConfigError, resolve
from clawarena.llm.providers import make_provider
from clawarena.llm.retry import RetryPolicy
from clawarena.llm.types import Message, ToolSpec

MAX_RESULT_CHARS = 20_000
DIRECT_PROVIDERS = ("openai", "anthropic")  # the providers clawarena's own loop speaks (llm.providers)


class ModelAgent:
    def __init__(self, setup: AgentSetup, config: ModelConfig, policy: RetryPolicy | None = None):
        self.setup = setup
        self.config = config
        self.provider = make_provider(config, policy, setup.options.get("endpoint_workers", 1))
        self.messages: list[Message] = []
        self.tokens = 0
        self.started: float | None = None  # wall clock of the agent's first turn (outside the world)
        self.extra_sections: list[str] = list(setup.options.get("prompt_sections", []))
        self.log = ConversationLog()  # each step's context and reply, for the trace

    def _tools(self, session: AgentSession) -> list[ToolSpec]:
        return [ToolSpec(t.name, t.description, t.json_schema()) for t in session.tools]

    def _spend(self, session: AgentSession, record) -> None:
        self.tokens += record.input_tokens + record.output_tokens
        elapsed = time.monotonic() - (self.started or time.monotonic())
        budget = self.config.budget
        if budget.max_tokens is not None and self.tokens > budget.max_tokens:
            raise BudgetExceeded(f"token budget of {budget.max_tokens} exceeded ({self.tokens})")
        if budget.max_seconds is not None and elapsed > budget.max_seconds:
            raise BudgetExceeded(f"time budget of {budget.max_seconds}s exceeded ({elapsed:.1f}s)")

    async def take_turn(self, turn: TurnInput, session: AgentSession) -> TurnOutput:
        """Awaits the model, so the worker's other trials run meanwhile; tool calls run inline
        (they touch only this trial's world and take well under a millisecond)."""
        if self.started is None:
            self.started = time.monotonic()
        system = system_prompt(turn.principal, self.setup.spec, session.now_iso(), self.extra_sections)
        self.messages.append(Message("user", render_events(turn.events)))
        tools = self._tools(session)
        for _ in range(self.config.budget.max_steps_per_turn):
            reply = await self.provider.acomplete(system, self.messages, tools)
            self.log.record(session, system, tools, self.messages, reply)
            self.messages.append(Message("assistant", reply.text, list(reply.tool_calls)))
            self._spend(session, reply.record)
            if not reply.tool_calls:
                return TurnOutput(text=reply.text)
            for call in reply.tool_calls:
                self.messages.append(self._run_call(session, call))
        return TurnOutput(text=f"(stopped after {self.config.budget.max_steps_per_turn} model calls this turn)")

    @staticmethod
    def _run_call(session: AgentSession, call) -> Message:
        try:
            args: Any = json.loads(call.arguments) if call.arguments.strip() else {}
        except ValueError:
            args = call.arguments  # the gateway answers a readable error and counts it as malformed
        outcome = session.call(call.name, args)
        if outcome.ok:
            text = json.dumps(outcome.result, ensure_ascii=False, default=str)
            if len(text) > MAX_RESULT_CHARS:
                text = text[:MAX_RESULT_CHARS] + f"... [truncated {len(text) - MAX_RESULT_CHARS} characters]"
            return Message("tool", text, tool_call_id=call.id)
        return Message("tool", f"ERROR {outcome.status}: {outcome.error}", tool_call_id=call.id, is_error=True)


def _factory(kind: str):
    def make(setup: AgentSetup) -> ModelAgent:
        config = _resolver(kind)(str(setup.options.get("model", "")), setup.options.get("models"), setup.options.get("base_url"))
        return ModelAgent(setup, config, setup.options.get("retry_policy"))

    return make


def _resolver(kind: str):
    def model(rest: str, models: dict[str, ModelConfig] | None, base_url: str | None) -> ModelConfig:
        config = resolve(f"{kind}:{rest}", models, base_url)
        if config.provider not in DIRECT_PROVIDERS:
            raise ModelConfigError(f"--agent {kind}:{rest}: a {config.provider} model runs through its harness (gemini-cli:model/{rest}); model agents speak {' and '.join(DIRECT_PROVIDERS)}")
        return config

    return model


for _kind in ("openai", "anthropic", "model"):
    register_agent(_kind, harness=DIRECT_HARNESS, model=_resolver(_kind))(_factory(_kind))
