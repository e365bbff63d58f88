"""The World of one trial: store, clock, ids, directory, policies, ledger, attack material."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from clawarena.spec.models import AttackSpec, PolicySpec, Scenario
from clawarena.world.clock import IdGenerator, WorldClock
from clawarena.world.ledger import Ledger
from clawarena.world.principals import Directory
from clawarena.world.store import StateDiff, WorldStore, diff_states


@dataclass
class World:
    scenario: Scenario
    store: WorldStore
    clock: WorldClock
    ids: IdGenerator
    ledger: Ledger
    directory: Directory
    policies: list[PolicySpec]
    attacks: list[AttackSpec]
    initial_state: dict[str, dict[str, dict[str, Any]]]

    def diff(self) -> StateDiff:
        return diff_states(self.store.tables, self.initial_state, self.store.state())

    def state_hash(self) -> str:
        return self.store.state_hash()
