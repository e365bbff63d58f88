"""Scoring cost of a trial that wrote one Gmail row on the long-context world (3,000 mails): the
final state, diff and state hash as scoring reads them (`CheckContext.of_world` + `World.state_hash`),
against the table-level recomputation that came before (every written table re-read, re-diffed and
re-hashed in full), alternating in one run so the ratio holds on a shared machine.

Run: python benchmarks/scoring_cost.py    (prints p50/p95 in milliseconds and the ratio)
Target (issue 12): <= 5 ms, proportional to the rows changed, not the table.
"""

from __future__ import annotations

import hashlib
import statistics
import time

from timing import report

from clawarena.gateway import Gateway
from clawarena.scoring.checks import CheckContext
from clawarena.services import services, world_factory
from clawarena.spec.checks import CountInRange
from clawarena.spec.models import (
    AgentSpec,
    FillerSpec,
    PrincipalSpec,
    Scenario,
    TaskSpec,
    WorldSpec,
)
from clawarena.world.store import canonical_json, diff_states
from clawarena.world.world import World

PEOPLE = [PrincipalSpec(id="alice", name="Alice Chen", email="alice@northwind.example"),
          PrincipalSpec(id="bob", name="Bob Ortiz", email="bob@northwind.example")]  # fmt: skip


def long_scenario() -> Scenario:
    task = TaskSpec(
        id="bench-scoring-long", title="scoring cost on a long-context world",
        world=WorldSpec(now="2026-03-02T09:00:00Z", filler=FillerSpec(profile="long", seed=1, principals=["alice"])),
        principals=PEOPLE, agents=[AgentSpec(id="alice-agent", principal="alice", tools=["*"])],
        utility=[CountInRange(kind="count_in_range", table="gmail_messages", min=0, must_pass=True)], reference={},
    )  # fmt: skip
    return Scenario(id=f"{task.id}/benign", task=task, variant="benign", utility=task.utility)


def table_level(world: World) -> str:
    """Scoring before issue 12: each written table read back, diffed and sha256-hashed in full."""
    changed = world.store.changed_tables()
    final = {t: world.store.table_rows(t) if t in changed else world.initial_state.get(t, {}) for t in sorted(world.store.tables)}
    diff_states({t: world.store.tables[t] for t in changed}, world.initial_state, final)
    h = hashlib.sha256()
    for name in sorted(world.store.tables):
        rows = final[name] if name in changed else None
        table = hashlib.sha256(canonical_json(rows).encode()).hexdigest() if rows is not None else world.initial_hashes[name]
        h.update(name.encode() + table.encode())
    return h.hexdigest()


def incremental(scenario: Scenario, world: World) -> str:
    CheckContext.of_world(scenario, world)
    return world.state_hash()


def main(n: int = 40) -> None:
    scenario = long_scenario()
    factory = world_factory()
    factory.template(scenario)
    world = factory.build(scenario, 1)
    mail = world.store.select("gmail_messages", {"owner": "alice"})[0]["id"]
    outcome = Gateway(world, services()).call("alice-agent", "gmail_messages_modify", {"id": mail, "body": {"addLabelIds": ["STARRED"]}})
    assert outcome.ok, outcome.error
    rows = sum(len(r) for r in world.store.changed_rows().values())
    final, diff, full_hash = world.recompute()
    ctx = CheckContext.of_world(scenario, world)
    assert incremental(scenario, world) == full_hash and ctx.diff == diff and ctx.final == final
    before, after = [], []
    for _ in range(n):  # alternating: both sides see the same load
        t = time.perf_counter()
        table_level(world)
        before.append((time.perf_counter() - t) * 1000)
        t = time.perf_counter()
        incremental(scenario, world)
        after.append((time.perf_counter() - t) * 1000)
    print(f"long-context world: {len(world.initial_state['gmail_messages'])} mails; one call wrote {rows} row(s) in {sorted(world.store.changed_rows())}")
    report("before: written tables re-read, re-diffed, re-hashed", before, width=56)
    report("after: final state + diff + hash from the change log", after, width=56)
    print(f"ratio before/after (p50): {statistics.median(before) / statistics.median(after):.0f}x")
    t = time.perf_counter()
    for name in world.store.tables:
        world.store.table_hash(name)
    print(f"every table hashed from scratch (once per template, at build): {(time.perf_counter() - t) * 1000:.0f} ms")


if __name__ == "__main__":
    main()
