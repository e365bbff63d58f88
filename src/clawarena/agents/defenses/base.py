"""Defenses as registered wrappers around an agent (docs/defenses.md).

A defense is named in the trial's condition (`skills-off__meta-off__defense-NAME+NAME`); each name
is `NAME` or `NAME:OPTION` (`spotlight:encode`). A stack wraps the agent in a `DefendedAgent`,
whose session is a `DefendedSession`: the hooks a defense may use are
- `prompt_sections`: text for the model's system prompt (what a marking means);
- `tools`: the tool list the agent is given (tool-filter);
- `screen`: untrusted content before the agent sees it, a tool's result or a peer's message
  (spotlight marks it, the injection detector withholds it);
- `install`: checks at the gateway on every call (policy-monitor, confirm-writes), which see what a
  call would write and deliver before anything is committed (gateway/guards.py).
Every action of a defense is a `defense` event in the ledger.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from typing import Any, ClassVar

from clawarena.agents.base import Agent, AgentSession, TurnInput
from clawarena.gateway import Gateway, ToolOutcome
from clawarena.llm.config import ModelConfig
from clawarena.registry import Registry
from clawarena.spec.models import AgentSpec, Scenario
from clawarena.tools.core import Tool
from clawarena.world.ledger import LedgerEvent

# Inbox events whose text comes from someone other than the principal: screened like tool output.
SCREENED_EVENTS = {"message": ("text",), "notification": ("text", "subject"), "approval_request": ("details",)}


class DefenseError(ValueError):
    """A defense name or option that does not exist, or a defense that cannot run (no detector model)."""


@dataclass(frozen=True)
class DefenseSetup:
    """What a defense is built from: the scenario, the agent it guards, its option, the run's
    detector model (`--detector`), the trial's seed."""

    scenario: Scenario
    spec: AgentSpec
    option: str = ""
    detector: ModelConfig | None = None
    seed: int = 0
    expected_recipients: frozenset[str] = frozenset()  # whom the task's reference delivers to for this agent (`needs_reference`)

    def secret(self, purpose: str) -> str:
        """A per-trial token the attack material cannot know in advance (derived, so reruns match)."""
        return hashlib.sha256(f"{purpose}/{self.seed}/{self.scenario.id}/{self.spec.id}".encode()).hexdigest()[:10]


class Defense:
    """The hooks, each doing nothing by default. `order` places it in a stack: detectors screen the
    raw content before spotlighting marks it."""

    name: ClassVar[str] = ""
    order: ClassVar[int] = 50
    options: ClassVar[tuple[str, ...]] = ("",)  # its accepted options; "" is the default
    summary: ClassVar[str] = ""
    needs_reference: ClassVar[bool] = False  # its setup needs the reference solution's recipients (one oracle replay per trial)

    def __init__(self, setup: DefenseSetup):
        self.setup = setup

    def prompt_sections(self) -> list[str]:
        return []

    def tools(self, tools: list[Tool]) -> list[Tool]:
        return tools

    def screen(self, session: "DefendedSession", content: Any, source: LedgerEvent | None) -> Any:
        """Untrusted content on its way to the agent; `source` is the ledger event it came in."""
        return content

    def install(self, gateway: Gateway, agent_id: str) -> None:
        """Gateway-side checks on every call of the agent."""


DEFENSES: Registry[type[Defense]] = Registry("defense")


def register_defense(cls: type[Defense]) -> type[Defense]:
    DEFENSES.register(cls.name, cls)
    return cls


def split_name(text: str) -> tuple[str, str]:
    name, _, option = text.partition(":")
    return name, option


def check_defense(text: str) -> None:
    """Raise DefenseError naming the defense when it is unknown or its option is."""
    name, option = split_name(text)
    if name not in DEFENSES:
        raise DefenseError(f"--defense: unknown defense {name!r} (known: {', '.join(DEFENSES.names())})")
    allowed = DEFENSES[name].options
    if option not in allowed:
        shown = ", ".join(f"{name}:{o}" if o else name for o in allowed)
        raise DefenseError(f"--defense: {text!r}: unknown option {option!r} of {name} (choose from: {shown})")


def parse_stack(text: str) -> tuple[str, ...]:
    """`spotlight,policy-monitor` -> the stack's names, sorted (a stack is a set); `none` is the empty stack."""
    names = [n.strip() for n in text.replace("+", ",").split(",") if n.strip()]
    if names == ["none"]:
        return ()
    if not names:
        raise DefenseError(f"--defense: {text!r} names no defense (use NAME[,NAME...] or none)")
    for n in names:
        check_defense(n)
    bare = [split_name(n)[0] for n in names]
    if len(set(bare)) != len(bare):
        raise DefenseError(f"--defense: {text!r} names a defense twice")
    return tuple(sorted(names))


def needs_reference(names: tuple[str, ...]) -> bool:
    return any(DEFENSES[split_name(n)[0]].needs_reference for n in names)


@dataclass
class DefenseStack:
    defenses: list[Defense] = field(default_factory=list)

    @classmethod
    def build(cls, names: tuple[str, ...], setup: DefenseSetup) -> "DefenseStack":
        built = []
        for text in names:
            check_defense(text)
            name, option = split_name(text)
            built.append(DEFENSES[name](DefenseSetup(setup.scenario, setup.spec, option, setup.detector, setup.seed, setup.expected_recipients)))
        return cls(sorted(built, key=lambda d: (d.order, d.name)))

    def prompt_sections(self) -> list[str]:
        return [s for d in self.defenses for s in d.prompt_sections()]


class DefendedSession(AgentSession):
    """The agent's session behind its defenses: the tools it is given, what it reads, and the
    exposures it is told of (a withheld result is one it never saw)."""

    def __init__(self, inner: AgentSession, stack: DefenseStack):
        super().__init__(inner._gateway, inner.agent_id)
        self.stack = stack
        self.withheld: set[str] = set()  # ledger events whose content a defense kept from the agent
        for d in stack.defenses:
            self.tools = d.tools(self.tools)
            d.install(self._gateway, self.agent_id)

    @property
    def gateway(self) -> Gateway:
        return self._gateway

    def record(self, payload: dict[str, Any], parents: list[str] | None = None) -> LedgerEvent:
        return self._gateway.record_defense(self.agent_id, payload, parents)

    def call(self, tool: str, args: Any) -> ToolOutcome:
        outcome = self._gateway.call(self.agent_id, tool, args)
        if outcome.ok and outcome.result_id:
            source = self._gateway.world.ledger.get(outcome.result_id)
            for d in self.stack.defenses:
                outcome.result = d.screen(self, outcome.result, source)
        return outcome

    def screen_events(self, events: list[LedgerEvent]) -> list[LedgerEvent]:
        """Peer messages, notifications and approval requests as the agent will read them."""
        out = []
        for e in events:
            fields = SCREENED_EVENTS.get(e.kind, ())
            if not fields or e.actor == self._gateway.world.directory.principal_of(self.agent_id).id:
                out.append(e)
                continue
            payload = dict(e.payload)
            for key in fields:
                if isinstance(payload.get(key), str) and payload[key]:
                    for d in self.stack.defenses:
                        payload[key] = d.screen(self, payload[key], e)
            out.append(e.model_copy(update={"payload": payload}))
        return out

    def exposures(self) -> list[LedgerEvent]:
        return [e for e in super().exposures() if e.payload.get("source") not in self.withheld]


class DefendedAgent:
    """An agent behind a defense stack; it plays exactly as the agent it wraps."""

    def __init__(self, inner: Agent, stack: DefenseStack):
        self.inner = inner
        self.stack = stack
        self.blocking = getattr(inner, "blocking", False)
        self._session: DefendedSession | None = None

    def take_turn(self, turn: TurnInput, session: AgentSession):  # -> TurnOutput | Awaitable[TurnOutput]
        if self._session is None:
            self._session = DefendedSession(session, self.stack)
        screened = TurnInput(turn.turn, turn.principal, self._session.screen_events(turn.events))
        return self.inner.take_turn(screened, self._session)

    def trace_data(self) -> dict[str, Any]:
        data = getattr(self.inner, "trace_data", None)
        return (data() if data else None) or {}

    def __getattr__(self, name: str) -> Any:  # the wrapped agent's own attributes (tokens, log, ...)
        if name == "inner":
            raise AttributeError(name)
        return getattr(self.inner, name)


__all__ = ["needs_reference", "DEFENSES", "DefendedAgent", "DefendedSession", "Defense", "DefenseError", "DefenseSetup", "DefenseStack",
           "check_defense", "parse_stack", "register_defense", "split_name"]  # fmt: skip
