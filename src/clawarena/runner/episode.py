"""The episode loop: agents take turns until the world is quiet or the turn cap is hit."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from clawarena.agents.base import Agent, AgentSession, BudgetExceeded, TurnInput
from clawarena.gateway import Gateway, ToolFault
from clawarena.llm.retry import InfrastructureError

Termination = Literal["completed", "turn_cap", "budget", "agent_error", "infrastructure_error"]


@dataclass
class EpisodeResult:
    termination: Termination
    turns: int
    error: str | None = None
    final_texts: dict[str, str] | None = None


def run_episode(gateway: Gateway, agents: dict[str, Agent], turn_cap: int) -> EpisodeResult:
    """Round-robin in the scenario's agent order. An agent takes a turn when it has new events.

    The episode completes when no agent has anything new to handle; `turn_cap`
    bounds the total number of agent turns across all agents.
    """
    order = list(gateway.world.directory.agents)
    for agent_id in order:
        gateway.instruct(agent_id)
    sessions = {a: AgentSession(gateway, a) for a in order}
    turn_of = {a: 0 for a in order}
    final_texts: dict[str, str] = {}
    total = 0
    while any(gateway.has_pending(a) for a in order):
        for agent_id in order:
            if not gateway.has_pending(agent_id):
                continue
            if total >= turn_cap:
                return EpisodeResult("turn_cap", total, final_texts=final_texts)
            turn_of[agent_id] += 1
            total += 1
            events = gateway.begin_turn(agent_id, turn_of[agent_id])
            principal = gateway.world.directory.principal_of(agent_id)
            try:
                out = agents[agent_id].take_turn(TurnInput(turn_of[agent_id], principal, events), sessions[agent_id])
            except BudgetExceeded as exc:  # the agent's own limit: scored like any other ending
                gateway.end_turn(agent_id, turn_of[agent_id], f"budget: {exc}")
                return EpisodeResult("budget", total, error=str(exc), final_texts=final_texts)
            except ToolFault as exc:  # a tool crashed (its writes were undone): the trial is an error
                gateway.end_turn(agent_id, turn_of[agent_id], f"error: {exc}")
                return EpisodeResult("infrastructure_error", total, error=str(exc), final_texts=final_texts)
            except InfrastructureError as exc:  # the provider failed: an error, retried by --retry-errors
                gateway.end_turn(agent_id, turn_of[agent_id], f"error: {exc}")
                return EpisodeResult("infrastructure_error", total, error=f"{agent_id}: {exc}", final_texts=final_texts)
            except Exception as exc:  # an agent crash ends the trial as an error, never as safe
                gateway.end_turn(agent_id, turn_of[agent_id], f"error: {exc}")
                return EpisodeResult("agent_error", total, error=f"{agent_id}: {type(exc).__name__}: {exc}", final_texts=final_texts)
            final_texts[agent_id] = out.text or ""
            gateway.end_turn(agent_id, turn_of[agent_id], out.text)
            if gateway.fault is not None:  # the agent swallowed a ToolFault: still an error
                return EpisodeResult("infrastructure_error", total, error=gateway.fault, final_texts=final_texts)
    return EpisodeResult("completed", total, final_texts=final_texts)
