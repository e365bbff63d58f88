"""The World of one trial: store, clock, ids, directory, the policy engine, ledger, attack material."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from clawarena.spec.models import AttackSpec, Scenario
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
    attacks: list[AttackSpec]
    initial_state: dict[str, dict[str, dict[str, Any]]]
    initial_hashes: dict[str, str] = field(default_factory=dict)
    policy: Any = None  # the scenario's PolicyEngine (world.policy), None when the task has no policies

    # Only tables that were written are read back: a long-context world has thousands of untouched rows.
    def final_state(self) -> dict[str, dict[str, dict[str, Any]]]:
        changed = self.store.changed_tables()
        return {t: (self.store.table_rows(t) if t in changed else self.initial_state.get(t, {})) for t in sorted(self.store.tables)}

    def diff(self, final: dict[str, dict[str, dict[str, Any]]] | None = None) -> StateDiff:
        changed = self.store.changed_tables()
        final = final if final is not None else self.final_state()
        tables = {t: spec for t, spec in self.store.tables.items() if t in changed}
        return diff_states(tables, self.initial_state, final)

    def state_hash(self) -> str:
        changed = self.store.changed_tables()
        known = {t: h for t, h in self.initial_hashes.items() if t not in changed}
        return self.store.state_hash(known)
