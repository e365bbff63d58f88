"""Agents are found by kind: `oracle`, `noop`, `naive`, `openai:MODEL`, `anthropic:MODEL`, `model:NAME`, `openclaw:...`."""

from __future__ import annotations

from collections.abc import Callable

from clawarena.agents.base import Agent, AgentSetup
from clawarena.registry import Registry

AgentFactory = Callable[[AgentSetup], Agent]
_FACTORIES: Registry[AgentFactory] = Registry("agent kind")


def register_agent(name: str) -> Callable[[AgentFactory], AgentFactory]:
    return _FACTORIES.decorator(name)


def agent_names() -> list[str]:
    return _FACTORIES.names()


def split_agent_name(name: str) -> tuple[str, str]:
    """`openai:gpt-x` -> ('openai', 'gpt-x'); `oracle` -> ('oracle', '')."""
    kind, _, rest = name.partition(":")
    return kind, rest


def check_agent_name(name: str) -> None:
    kind, _ = split_agent_name(name)
    if kind not in _FACTORIES:
        raise KeyError(f"--agent: unknown agent {name!r} (known: {', '.join(agent_names())})")


def make_agent(name: str, setup: AgentSetup) -> Agent:
    check_agent_name(name)
    kind, rest = split_agent_name(name)
    options = dict(setup.options)
    if rest:
        options.setdefault("model", rest)
    return _FACTORIES[kind](AgentSetup(setup.scenario, setup.spec, options))
