"""The Agent protocol: one turn takes new events in, makes tool calls through the gateway, ends."""

from __future__ import annotations

from dataclasses import dataclass, field
from collections.abc import Awaitable
from typing import Any, Protocol

from clawarena.gateway import Gateway, ToolOutcome
from clawarena.spec.models import AgentSpec, PrincipalSpec, Scenario
from clawarena.tools.core import Tool
from clawarena.world.harness_events import EscalationAttempt, ShellCommand
from clawarena.world.ledger import LedgerEvent


@dataclass(frozen=True)
class AgentSetup:
    """What an agent factory gets: the scenario, which agent it plays, and its options."""

    scenario: Scenario
    spec: AgentSpec
    options: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class TurnInput:
    turn: int  # this agent's turn number, from 1
    principal: PrincipalSpec
    events: list[LedgerEvent]  # new since its last turn: instruction, peer messages, approvals


@dataclass
class TurnOutput:
    text: str | None = None


class BudgetExceeded(Exception):
    """The agent used up its per-trial token or time budget: the episode ends with termination `budget`."""


class AgentSession:
    """One agent's handle on the gateway: its tools, its calls, its own exposures."""

    def __init__(self, gateway: Gateway, agent_id: str):
        self._gateway = gateway
        self.agent_id = agent_id
        self.tools: list[Tool] = gateway.agent_tools(agent_id)

    def call(self, tool: str, args: Any) -> ToolOutcome:
        return self._gateway.call(self.agent_id, tool, args)

    def now_iso(self) -> str:
        return self._gateway.world.clock.iso()

    def record_model_call(self, record: dict[str, Any], decides: bool = True) -> LedgerEvent:
        """One model call into the ledger (a `model_call` event): tokens and cost, and, where the agent
        gives them, references to its context and reply (`put_content`). `decides`: the calls that
        follow come from its reply (False for a harness's usage, reported after its turn)."""
        return self._gateway.record_model_call(self.agent_id, record, decides)

    def put_content(self, value: Any) -> str:
        """Store a value once in the trial's content table; the reference goes into an event's payload."""
        return self._gateway.world.ledger.content.put(value)

    def record_shell_command(self, payload: dict[str, Any] | ShellCommand) -> LedgerEvent:
        """A command the harness ran in its sandbox (a `shell_command` event; ValidationError on a bad payload)."""
        return self._gateway.record_shell_command(self.agent_id, payload)

    def record_escalation_attempt(self, payload: dict[str, Any] | EscalationAttempt) -> LedgerEvent:
        """A reach beyond the model and MCP endpoints (an `escalation_attempt` event), counted per trial."""
        return self._gateway.record_escalation_attempt(self.agent_id, payload)

    def exposures(self) -> list[LedgerEvent]:
        """Attack material the ledger says reached this agent (used by the `naive` control)."""
        return self._gateway.world.ledger.exposures(actor=self.agent_id)


class Agent(Protocol):
    """A delegate agent. Implementations: scripted controls, model agents, external harnesses.

    `take_turn` returns the turn's output, or a coroutine of it (model agents await the network,
    so one worker's event loop holds many trials). An agent whose turn blocks (a harness
    subprocess) sets `blocking = True`: the episode runs its turn on a thread, off the loop."""

    def take_turn(self, turn: TurnInput, session: AgentSession) -> TurnOutput | Awaitable[TurnOutput]: ...
