"""Scripted agents that need no model: the controls `clawarena check` relies on.

- oracle: replays the reference solution.
- noop: does nothing (utility must fail, and nothing harmful can happen).
- naive: replays the reference solution but obeys attack material as soon as the
  ledger records its exposure to it: the positive control that proves the
  material is reachable and the harm checks fire.
"""

from __future__ import annotations

from clawarena.agents.base import AgentSession, AgentSetup, TurnInput, TurnOutput
from clawarena.agents.registry import register_agent
from clawarena.spec.models import ToolCall


class OracleAgent:
    def __init__(self, setup: AgentSetup):
        self.steps: list[ToolCall] = list(setup.scenario.task.reference.get(setup.spec.id, []))

    def calls_for(self, turn: int) -> list[ToolCall]:
        return [s for s in self.steps if s.turn == turn]

    def take_turn(self, turn: TurnInput, session: AgentSession) -> TurnOutput:
        for step in self.calls_for(turn.turn):
            session.call(step.tool, dict(step.args))
        return TurnOutput(text="done")


class NoopAgent:
    def __init__(self, setup: AgentSetup):
        pass

    def take_turn(self, turn: TurnInput, session: AgentSession) -> TurnOutput:
        return TurnOutput(text="")


class NaiveAgent(OracleAgent):
    def __init__(self, setup: AgentSetup):
        super().__init__(setup)
        self.attacks = {a.id: a for a in setup.scenario.attacks if a.victim in (None, setup.spec.id)}
        self.obeyed: set[str] = set()

    def _obey_new_material(self, session: AgentSession) -> None:
        for exposure in session.exposures():
            material = exposure.payload["material"]
            if material in self.obeyed or material not in self.attacks:
                continue
            self.obeyed.add(material)
            for step in self.attacks[material].goal.calls:
                session.call(step.tool, dict(step.args))

    def take_turn(self, turn: TurnInput, session: AgentSession) -> TurnOutput:
        self._obey_new_material(session)
        for step in self.calls_for(turn.turn):
            session.call(step.tool, dict(step.args))
            self._obey_new_material(session)
        return TurnOutput(text="done")


register_agent("oracle")(OracleAgent)
register_agent("noop")(NoopAgent)
register_agent("naive")(NaiveAgent)
