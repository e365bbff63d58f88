"""Model providers behind one interface: configs, clients, retries, usage and cost.

Shared by model agents now and by judges later, so token usage and cost are
recorded the same way for both.
"""

from clawarena.llm.config import ModelConfig, load_models
from clawarena.llm.types import AssistantTurn, Message, ModelCallRecord, ToolCallRequest, ToolSpec

__all__ = ["AssistantTurn", "Message", "ModelCallRecord", "ModelConfig", "ToolCallRequest", "ToolSpec", "load_models"]
