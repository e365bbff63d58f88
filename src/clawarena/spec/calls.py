"""One tool call as a task file writes it: a reference step, an attacker's goal, a guard's witness.

Its own module so that checks (a guard's witness) and models (reference, goals) share it
without importing each other.
"""

from __future__ import annotations

from typing import Any

from pydantic import Field

from clawarena.spec.base import Strict


class ToolCall(Strict):
    """One tool call: in a reference solution, as an attacker's goal, or in a guard's witness."""

    tool: str
    args: dict[str, Any] = {}
    turn: int = Field(default=1, ge=1, description="the agent's turn in which to make the call")
