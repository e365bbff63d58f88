"""What a model agent saw and said at each step, for the trace, with nothing stored twice.

A step's context is the previous step's context plus the messages added since (`prior` names that
step's `model_call` event); the system prompt, the tool list and each message are references into
the trial's content table, so a 30-step conversation stores each message once and a run stores its
system prompt once.
"""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

from clawarena.agents.base import AgentSession
from clawarena.llm.types import AssistantTurn, Message, ToolSpec
from clawarena.world.ledger import LedgerEvent


def message_value(message: Message) -> dict[str, Any]:
    """A message as stored: its role and only the fields it uses."""
    out: dict[str, Any] = {"role": message.role, "content": message.content}
    if message.tool_calls:
        out["tool_calls"] = [{"id": c.id, "name": c.name, "arguments": c.arguments} for c in message.tool_calls]
    if message.tool_call_id:
        out["tool_call_id"] = message.tool_call_id
    if message.is_error:
        out["is_error"] = True
    return out


class ConversationLog:
    """One agent's steps: which messages the previous step already referenced."""

    def __init__(self) -> None:
        self.prior: str | None = None  # the last step's model_call event id
        self.seen = 0  # how many of the conversation's messages that step's context held

    def record(self, session: AgentSession, system: str, tools: list[ToolSpec], context: list[Message], reply: AssistantTurn) -> LedgerEvent:
        """Record one model call: its usage, its context as a delta on the prior step, and its reply."""
        added = context[self.seen :] if self.seen <= len(context) else list(context)
        prior = self.prior if self.seen <= len(context) else None
        step: dict[str, Any] = {
            "context": {
                "system": session.put_content(system),
                "tools": session.put_content([asdict(t) for t in tools]),
                "prior": prior,
                "messages": [session.put_content(message_value(m)) for m in added],
            },
            "response": session.put_content(message_value(Message("assistant", reply.text, list(reply.tool_calls)))),
        }
        if reply.reasoning:
            step["reasoning"] = session.put_content(reply.reasoning)
        event = session.record_model_call({**reply.record.model_dump(), **step})
        self.prior, self.seen = event.id, len(context)
        return event
