"""Agents are found by kind: `oracle`, `noop`, `naive`, `openai:MODEL`, `anthropic:MODEL`, `model:NAME`,
and the harnesses `openclaw:...`, `claude-code:MODEL`, `codex:MODEL`, `gemini-cli:MODEL`.

Each kind says what drives its model (its *harness*) and, for the kinds that call a model, how
its spec resolves to a model config, so the runner can check, probe and record every kind
the same way: harness and model are separate axes of a trial record.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from clawarena.agents.base import Agent, AgentSetup
from clawarena.llm.config import ModelConfig
from clawarena.registry import Registry

AgentFactory = Callable[[AgentSetup], Agent]
# (the part of the spec after `kind:`, the models file, --base-url) -> the model endpoint
ModelResolver = Callable[[str, "dict[str, ModelConfig] | None", "str | None"], ModelConfig]

SCRIPTED_HARNESS = "scripted"  # the built-in controls: no model
DIRECT_HARNESS = "direct"  # clawarena's own tool-calling loop over the provider SDKs


@dataclass(frozen=True)
class AgentKind:
    factory: AgentFactory
    harness: str = SCRIPTED_HARNESS
    model: ModelResolver | None = None  # None: the kind calls no model
    check: Callable[[], None] | None = None  # raises ModelConfigError when the kind cannot run here


@dataclass(frozen=True)
class AgentIdentity:
    """What a trial record says about its agent: the harness, and the model as `provider:model`."""

    harness: str
    model: str = ""


_KINDS: Registry[AgentKind] = Registry("agent kind")


def register_agent(
    name: str, *, harness: str = SCRIPTED_HARNESS, model: ModelResolver | None = None, check: Callable[[], None] | None = None
) -> Callable[[AgentFactory], AgentFactory]:
    def register(factory: AgentFactory) -> AgentFactory:
        _KINDS.register(name, AgentKind(factory, harness, model, check))
        return factory

    return register


def agent_names() -> list[str]:
    return _KINDS.names()


def split_agent_name(name: str) -> tuple[str, str]:
    """`openai:gpt-x` -> ('openai', 'gpt-x'); `oracle` -> ('oracle', '')."""
    kind, _, rest = name.partition(":")
    return kind, rest


def check_agent_name(name: str) -> None:
    kind, _ = split_agent_name(name)
    if kind not in _KINDS:
        raise KeyError(f"--agent: unknown agent {name!r} (known: {', '.join(agent_names())})")


def agent_kind(name: str) -> AgentKind:
    check_agent_name(name)
    return _KINDS[split_agent_name(name)[0]]


def agent_model(name: str, models: dict[str, ModelConfig] | None = None, base_url: str | None = None) -> ModelConfig | None:
    """The model endpoint behind an agent spec (None for the scripted agents); a malformed spec
    raises ModelConfigError or ValueError naming `--agent`."""
    kind = agent_kind(name)
    return kind.model(split_agent_name(name)[1], models, base_url) if kind.model else None


def agent_identity(name: str, models: dict[str, ModelConfig] | None = None) -> AgentIdentity:
    """Harness and model of an agent spec, for the trial record. A spec that does not resolve
    (no models file at hand) keeps its own text as the model."""
    kind = agent_kind(name)
    if kind.model is None:
        return AgentIdentity(kind.harness)
    try:
        config = kind.model(split_agent_name(name)[1], models, None)
    except ValueError:
        return AgentIdentity(kind.harness, split_agent_name(name)[1])
    return AgentIdentity(kind.harness, f"{config.provider}:{config.model}")


def make_agent(name: str, setup: AgentSetup) -> Agent:
    kind = agent_kind(name)
    rest = split_agent_name(name)[1]
    options = dict(setup.options)
    if rest:
        options.setdefault("model", rest)
    return kind.factory(AgentSetup(setup.scenario, setup.spec, options))
