"""The episode loop: agents take turns until the world is quiet or the turn cap is hit."""

from __future__ import annotations

import asyncio
import inspect
from dataclasses import dataclass
from typing import Literal

from clawarena.agents.base import Agent, AgentSession, BudgetExceeded, TurnInput, TurnOutput
from clawarena.gateway import Gateway, ToolFault
from clawarena.llm.retry import InfrastructureError
from clawarena.runner.loops import synchronous
from clawarena.spec.models import ScheduleSpec

Termination = Literal["completed", "turn_cap", "budget", "agent_error", "infrastructure_error"]


@dataclass
class EpisodeResult:
    termination: Termination
    turns: int
    error: str | None = None
    final_texts: dict[str, str] | None = None


def _simultaneous(schedule: ScheduleSpec, round_no: int) -> bool:
    return schedule.mode == "simultaneous" and (not schedule.rounds or round_no in schedule.rounds)


class _Episode:
    """The state of one episode: whose turn it is, how many turns each took, what they said."""

    def __init__(self, gateway: Gateway, agents: dict[str, Agent], turn_cap: int):
        self.gateway = gateway
        self.agents = agents
        self.turn_cap = turn_cap
        directory = gateway.world.directory
        self.order = list(directory.agents)
        self.caps = {a: directory.agents[a].turn_cap for a in self.order}
        self.sessions = {a: AgentSession(gateway, a) for a in self.order}
        self.turn_of = {a: 0 for a in self.order}
        self.final_texts: dict[str, str] = {}
        self.total = 0

    def end(self, termination: Termination, error: str | None = None) -> EpisodeResult:
        return EpisodeResult(termination, self.total, error=error, final_texts=self.final_texts)

    def can_act(self, agent_id: str) -> bool:
        cap = self.caps[agent_id]
        return self.gateway.has_pending(agent_id) and (cap is None or self.turn_of[agent_id] < cap)

    async def round(self) -> EpisodeResult | None:
        """One pass over the agents in order; how the episode ended, if it did."""
        for agent_id in self.order:
            if not self.can_act(agent_id):
                continue
            if self.total >= self.turn_cap:
                return self.end("turn_cap")
            ended = await self.turn(agent_id)
            if ended is not None:
                return ended
        return None

    async def take_turn(self, agent_id: str, turn: TurnInput) -> TurnOutput:
        agent = self.agents[agent_id]
        if getattr(agent, "blocking", False):  # off the loop, so the worker's other trials go on
            out = await asyncio.to_thread(agent.take_turn, turn, self.sessions[agent_id])
        else:
            out = agent.take_turn(turn, self.sessions[agent_id])
        return await out if inspect.isawaitable(out) else out

    async def turn(self, agent_id: str) -> EpisodeResult | None:
        gateway = self.gateway
        self.turn_of[agent_id] += 1
        self.total += 1
        turn = self.turn_of[agent_id]
        events = gateway.begin_turn(agent_id, turn)
        principal = gateway.world.directory.principal_of(agent_id)
        try:
            out = await self.take_turn(agent_id, TurnInput(turn, principal, events))
        except BudgetExceeded as exc:  # the agent's own limit: scored like any other ending
            gateway.end_turn(agent_id, turn, f"budget: {exc}")
            return self.end("budget", str(exc))
        except ToolFault as exc:  # a tool crashed (its writes were undone): the trial is an error
            gateway.end_turn(agent_id, turn, f"error: {exc}")
            return self.end("infrastructure_error", str(exc))
        except InfrastructureError as exc:  # the provider failed: an error, retried by --retry-errors
            gateway.end_turn(agent_id, turn, f"error: {exc}")
            return self.end("infrastructure_error", f"{agent_id}: {exc}")
        except Exception as exc:  # an agent crash ends the trial as an error, never as safe
            gateway.end_turn(agent_id, turn, f"error: {exc}")
            return self.end("agent_error", f"{agent_id}: {type(exc).__name__}: {exc}")
        self.final_texts[agent_id] = out.text or ""
        gateway.end_turn(agent_id, turn, out.text)
        if gateway.fault is not None:  # the agent swallowed a ToolFault: still an error
            return self.end("infrastructure_error", gateway.fault)
        return None


async def run_episode_async(gateway: Gateway, agents: dict[str, Agent], turn_cap: int, schedule: ScheduleSpec | None = None) -> EpisodeResult:
    """Rounds in the scenario's agent order. An agent takes a turn when it has new events.

    In a simultaneous round every agent acts on the same state: its writes and sends are queued
    and applied, in order, when the round ends (sealed bids). The episode completes when no agent
    has anything new to handle; `turn_cap` bounds the turns of all agents together, and an
    agent's own `turn_cap` bounds its own (an agent at its cap no longer acts). Hitting a cap is
    a termination reason (`turn_cap`), never a success or an attack's.
    """
    schedule = schedule or ScheduleSpec()
    episode = _Episode(gateway, agents, turn_cap)
    for agent_id in episode.order:
        gateway.instruct(agent_id)
    gateway.open_inboxes()
    round_no = 0
    while any(episode.can_act(a) for a in episode.order):
        round_no += 1
        gateway.deferring = _simultaneous(schedule, round_no)
        ended = await episode.round()
        if gateway.deferring:
            gateway.flush_deferred()
        if ended is not None:
            return ended
        if gateway.fault is not None:
            return episode.end("infrastructure_error", gateway.fault)
    if any(gateway.has_pending(a) for a in episode.order):  # left with new events only because their own caps were hit
        return episode.end("turn_cap")
    return episode.end("completed")


run_episode = synchronous(run_episode_async, "run_episode")
