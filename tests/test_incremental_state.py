"""Scoring from the change log: the final state, diff and hash a World computes from the rows a trial
wrote equal a full recomputation over every row, on randomised inserts, updates and deletes."""

from __future__ import annotations

import dataclasses
from typing import Any

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from clawarena.gateway import Gateway
from clawarena.scoring.checks import CheckContext
from clawarena.services import services, world_factory
from clawarena.world import hashing
from clawarena.world.store import TableSpec, WorldStore
from clawarena.world.world import World
from tests.conformance.harness import world_scenario

# Tables with a text key, a two-column key with an integer part, json and bool columns, nullable ones.
TABLES = ("gmail_labels", "drive_changes", "trading_venues", "slack_reactions")
KEYS = 3  # a small key pool per table, so writes collide: re-inserts, changed-back rows, moved keys
VALUES = {"text": ["a", "b"], "integer": [0, 7], "real": [0.5, 2.0], "json": [["x"], {"k": 1}], "bool": [False, True]}


def _base_world() -> World:
    return world_factory().build(world_scenario({}), 0)


BASE = _base_world()
SPECS = {t: BASE.store.tables[t] for t in TABLES}


def _key_values(spec: TableSpec, i: int) -> dict[str, Any]:
    return {k: (i if spec.column(k).type == "integer" else f"k{i}") for k in spec.primary_key}


def _row(spec: TableSpec, i: int, v: int) -> dict[str, Any]:
    row = _key_values(spec, i)
    for c in spec.columns:
        if c.name not in row:
            row[c.name] = None if (c.nullable and v == 2) else VALUES[c.type][v % 2]
    return row


def _world(seed_rows: list[tuple[str, int, int]]) -> World:
    """A World whose template holds `seed_rows` (table, key index, value index) in the tables above."""
    store = WorldStore.create(SPECS.values())
    for t, i, v in seed_rows:
        if store.get(t, _key_values(SPECS[t], i)) is None:
            store.insert(t, _row(SPECS[t], i, v))
    store.drain_changes()  # seeding is nobody's action
    hashes = {t: store.table_hash(t) for t in store.tables}
    fresh = WorldStore.restore(store.snapshot(), SPECS.values(), pristine=True)
    return dataclasses.replace(BASE, store=fresh, initial_state=store.state(), initial_hashes=hashes)


def _apply(store: WorldStore, op: tuple) -> None:
    kind, t = op[0], op[1] if len(op) > 1 else None
    if kind == "drain":  # as the gateway does after every call: drained and pending changes both count
        store.drain_changes()
        return
    spec = SPECS[t]
    if kind == "insert":
        _, _, i, v = op
        if store.get(t, _key_values(spec, i)) is None:
            store.insert(t, _row(spec, i, v))
    elif kind == "update":
        _, _, i, v = op
        row = _row(spec, i, v)
        store.update(t, _key_values(spec, i), {c: x for c, x in row.items() if c not in spec.primary_key})
    elif kind == "delete":
        store.delete(t, _key_values(spec, op[2]))
    elif kind == "rekey":  # an update of the primary key itself: the old key vanishes
        _, _, i, j = op
        if store.get(t, _key_values(spec, j)) is None:
            store.update(t, _key_values(spec, i), _key_values(spec, j))


def _assert_matches_full(world: World) -> None:
    final, diff, full_hash = world.recompute()
    assert world.final_state() == final
    assert world.diff() == diff
    assert world.diff(world.final_state()) == diff
    assert world.state_hash() == full_hash


tables = st.sampled_from(TABLES)
keys = st.integers(0, KEYS - 1)
values = st.integers(0, 2)
ops = st.one_of(
    st.tuples(st.just("insert"), tables, keys, values),
    st.tuples(st.just("update"), tables, keys, values),
    st.tuples(st.just("delete"), tables, keys),
    st.tuples(st.just("rekey"), tables, keys, keys),
    st.tuples(st.just("drain")),
)
seeds = st.lists(st.tuples(tables, keys, values), max_size=8)


@settings(derandomize=True, max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seeds, st.lists(ops, max_size=14))
@example([("gmail_labels", 0, 0)], [("update", "gmail_labels", 0, 1), ("drain",), ("update", "gmail_labels", 0, 0)])  # changed back
@example([("drive_changes", 1, 0)], [("delete", "drive_changes", 1), ("drain",), ("insert", "drive_changes", 1, 1)])  # delete, re-insert
@example([("trading_venues", 0, 0)], [("rekey", "trading_venues", 0, 2), ("insert", "slack_reactions", 1, 1)])  # moved key, two tables
def test_incremental_state_equals_full_recomputation(seed_rows, writes):
    world = _world(seed_rows)
    for op in writes:
        _apply(world.store, op)
    _assert_matches_full(world)


def test_changed_back_row_leaves_no_diff_and_the_initial_hash():
    world = _world([("gmail_labels", 0, 0), ("drive_changes", 1, 1)])
    initial_hash = world.state_hash()
    for op in [("update", "gmail_labels", 0, 1), ("drain",), ("update", "gmail_labels", 0, 0),
               ("delete", "drive_changes", 1), ("insert", "drive_changes", 1, 1)]:  # fmt: skip
        _apply(world.store, op)
    assert world.store.changed_rows().keys() == {"gmail_labels", "drive_changes"}  # written, though back as they were
    assert world.diff().empty and world.state_hash() == initial_hash == world.recompute()[2]


def test_hash_is_independent_of_write_order():
    a, b = _world([]), _world([])
    rows = [("gmail_labels", i, i % 2) for i in range(KEYS)] + [("trading_venues", i, 1) for i in range(KEYS)]
    for t, i, v in rows:
        a.store.insert(t, _row(SPECS[t], i, v))
    for t, i, v in reversed(rows):
        b.store.insert(t, _row(SPECS[t], i, v))
    assert a.state_hash() == b.state_hash() == a.recompute()[2]
    assert a.state_hash() != _world([]).state_hash()


def test_table_hash_is_a_sum_of_row_digests():
    rows = {"a": {"id": "a", "n": 1}, "b": {"id": "b", "n": 2}}
    whole = hashing.rows_digest(rows)
    assert whole == hashing.rows_digest(dict(reversed(rows.items())))
    moved = hashing.updated_digest(whole, rows, [("a", {"id": "a", "n": 3}), ("b", None), ("c", {"id": "c", "n": 0})])
    assert moved == hashing.rows_digest({"a": {"id": "a", "n": 3}, "c": {"id": "c", "n": 0}})


def test_a_restore_from_another_snapshot_compares_every_table():
    world = _world([("gmail_labels", 0, 0)])
    other = WorldStore.create(SPECS.values())
    other.insert("trading_venues", _row(SPECS["trading_venues"], 2, 1))
    world.store = WorldStore.restore(other.snapshot(), SPECS.values())  # an admin restore, a rescored session
    assert world.store.full == set(SPECS)
    diff = world.diff()
    assert set(diff.tables) == {"gmail_labels", "trading_venues"}
    _assert_matches_full(world)


def test_scoring_a_gmail_write_through_the_gateway_matches_full_recomputation():
    scenario = world_scenario({"gmail": {"messages": [{"id": f"m{i}", "owner": "alice", "from": "x@y.example", "subject": f"s{i}"} for i in range(5)]}})
    world = world_factory().build(scenario, 0)
    gw = Gateway(world, services())
    assert gw.call("alice-agent", "gmail_messages_modify", {"id": "m3", "body": {"addLabelIds": ["STARRED"]}}).ok
    ctx = CheckContext.of_world(scenario, world)
    final, diff, full_hash = world.recompute()
    assert ctx.final == final and ctx.diff == diff and world.state_hash() == full_hash
    assert [u.key for u in diff.tables["gmail_messages"].updated] == ["m3"]
    assert world.store.changed_rows()["gmail_messages"] == {"m3": '["m3"]'}
