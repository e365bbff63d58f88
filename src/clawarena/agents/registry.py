"""Agents are found by name: `oracle`, `noop`, `naive`, and `provider:model` forms later."""

from __future__ import annotations

from collections.abc import Callable

from clawarena.agents.base import Agent, AgentSetup

AgentFactory = Callable[[AgentSetup], Agent]
_FACTORIES: dict[str, AgentFactory] = {}


def register_agent(name: str) -> Callable[[AgentFactory], AgentFactory]:
    def wrap(factory: AgentFactory) -> AgentFactory:
        _FACTORIES[name] = factory
        return factory

    return wrap


def agent_names() -> list[str]:
    return sorted(_FACTORIES)


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
