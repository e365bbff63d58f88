"""Provider-neutral conversation types: what agents build and providers translate."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict


@dataclass(frozen=True)
class ToolSpec:
    name: str
    description: str
    parameters: dict[str, Any]


@dataclass(frozen=True)
class ToolCallRequest:
    id: str
    name: str
    arguments: str  # raw JSON text as the model produced it (may be malformed)


@dataclass
class Message:
    role: Literal["user", "assistant", "tool"]
    content: str = ""
    tool_calls: list[ToolCallRequest] = field(default_factory=list)  # assistant only
    tool_call_id: str = ""  # tool only
    is_error: bool = False  # tool only


class ModelCallRecord(BaseModel):
    """One provider call: tokens, cost and retries; agents and judges record the same shape."""

    model_config = ConfigDict(extra="forbid")
    provider: str
    model: str
    input_tokens: int = 0
    output_tokens: int = 0
    cost_usd: float = 0.0
    retries: int = 0
    finish_reason: str = ""
    latency_ms: float = 0.0


@dataclass
class AssistantTurn:
    text: str
    tool_calls: list[ToolCallRequest]
    record: ModelCallRecord
    reasoning: str = ""  # the model's reasoning text, where the provider returns it
