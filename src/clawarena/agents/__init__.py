"""Agents: the protocol, the registry, and the built-in scripted agents."""

from clawarena.agents.base import Agent, AgentSession, AgentSetup, TurnInput, TurnOutput
from clawarena.agents.registry import agent_names, make_agent, register_agent
from clawarena.agents import harness, model, openclaw, scripted  # noqa: F401  (registers oracle, noop, naive, the model agents and the harnesses)

__all__ = ["Agent", "AgentSession", "AgentSetup", "TurnInput", "TurnOutput", "agent_names", "make_agent", "register_agent"]
