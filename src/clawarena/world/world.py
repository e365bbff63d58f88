"""The World of one trial: store, clock, ids, directory, the policy engine, ledger, attack material."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from clawarena.spec.models import AttackSpec, Scenario
from clawarena.world.clock import IdGenerator, WorldClock
from clawarena.world.hashing import combine, rows_digest, table_hex, updated_digest
from clawarena.world.ledger import Ledger
from clawarena.world.principals import Directory
from clawarena.world.store import StateDiff, WorldStore, diff_states, diff_table


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

    # Scoring costs the rows a trial wrote, not the tables: the change log names them, they are read
    # back by key over the initial state, and the hash moves by their digests (see `hashing`).
    def _written(self) -> dict[str, dict[str, dict[str, Any] | None]]:
        """{table: {row key: final row, or None when gone}} for every row written, `store.full` tables aside."""
        return {
            t: {key: self.store.row_by_pk(t, pk) for key, pk in sorted(rows.items())}
            for t, rows in sorted(self.store.changed_rows().items())
        }

    def final_state(self) -> dict[str, dict[str, dict[str, Any]]]:
        """The initial state with every written row read back; rows new to a table come last, in key order."""
        written, full = self._written(), self.store.full
        out: dict[str, dict[str, dict[str, Any]]] = {}
        for t in sorted(self.store.tables):
            if t in full:
                out[t] = self.store.table_rows(t)
            elif t in written:
                rows = dict(self.initial_state.get(t, {}))
                for key, row in written[t].items():
                    if row is None:
                        rows.pop(key, None)
                    else:
                        rows[key] = row
                out[t] = rows
            else:
                out[t] = self.initial_state.get(t, {})
        return out

    def diff(self, final: dict[str, dict[str, dict[str, Any]]] | None = None) -> StateDiff:
        final = final if final is not None else self.final_state()
        full = {t: spec for t, spec in self.store.tables.items() if t in self.store.full}
        out = diff_states(full, self.initial_state, final).tables
        for t, rows in self.store.changed_rows().items():
            td = diff_table(self.initial_state.get(t, {}), final.get(t, {}), rows)
            if not td.empty:
                out[t] = td
        return StateDiff(tables=dict(sorted(out.items())))

    def state_hash(self) -> str:
        written, full = self._written(), self.store.full
        hashes: dict[str, str] = {}
        for t in self.store.tables:
            if t in full or (t not in self.initial_hashes and t not in written):
                hashes[t] = self.store.table_hash(t)
                continue
            initial = self.initial_state.get(t, {})
            base = int(self.initial_hashes[t], 16) if t in self.initial_hashes else rows_digest(initial)
            hashes[t] = table_hex(updated_digest(base, initial, written.get(t, {}).items()))
        return combine(hashes)

    def recompute(self) -> tuple[dict[str, dict[str, dict[str, Any]]], StateDiff, str]:
        """Final state, diff and hash from every row of every table: the reference the incremental path must equal."""
        final = self.store.state()
        return final, diff_states(self.store.tables, self.initial_state, final), self.store.state_hash()
