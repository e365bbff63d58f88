"""Re-score a run folder from what it saved: the final state snapshot and the ledger.

A session folder (`clawarena serve --agent-port`, `clawarena mcp`) keeps the
world's final SQLite snapshot under states/; the scenario's initial state is
rebuilt from the suite and seed, the ledger comes from the trace, and the
world is scored again with the same function as every trial. Trials without a
saved state are reported as stored.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from clawarena.records import TrialRecord
from clawarena.runner.episode import EpisodeResult
from clawarena.runner.store import RunStore, RunStoreError
from clawarena.runner.trial import TrialRun, score_world
from clawarena.runner.units import WorkUnit
from clawarena.services import world_factory
from clawarena.spec.loader import load_suite
from clawarena.world.ledger import Ledger
from clawarena.world.store import WorldStore


@dataclass
class Rescored:
    stored: TrialRecord
    rescored: TrialRun | None  # None: nothing saved to rebuild from

    @property
    def matches(self) -> bool | None:
        if self.rescored is None:
            return None
        a, b = self.stored, self.rescored.record
        return (a.outcome, a.utility, a.harmed, a.violations, a.final_hash) == (b.outcome, b.utility, b.harmed, b.violations, b.final_hash)


def rescore_run(store: RunStore) -> list[Rescored]:
    records = store.records()
    if not records:
        raise RunStoreError(f"{store.root}: no finished trials in trials.jsonl")
    config = store.config()
    scenarios = {s.id: s for s in load_suite(config.suite)}
    worlds = world_factory()
    out = []
    for record in records:
        trace = json.loads((store.root / record.trace).read_text()) if record.trace else {}
        state_path = trace.get("state")
        if not state_path or not (store.root / state_path).is_file():
            out.append(Rescored(record, None))
            continue
        scenario = scenarios.get(record.scenario_id)
        if scenario is None:
            raise RunStoreError(f"{store.root}: scenario {record.scenario_id!r} is not in suite {config.suite!r}")
        world = worlds.build(scenario, record.seed)  # the initial state, directory and attack material
        world.store = WorldStore.restore((store.root / state_path).read_bytes(), world.store.tables.values())
        world.ledger = Ledger.load(trace.get("ledger", []))
        unit = WorkUnit(scenario_id=record.scenario_id, agent=record.agent, condition=record.condition, trial=record.trial, seed=record.seed)
        episode = EpisodeResult(trace.get("termination", record.termination), record.turns, record.error, trace.get("final_texts"))  # type: ignore[arg-type]
        run = score_world(unit, scenario, world, episode, malformed_calls=record.malformed_calls, extra=record.extra)
        out.append(Rescored(record, run))
    return out
