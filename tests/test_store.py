from clawarena.world.store import Column, TableSpec, WorldStore, diff_states

PEOPLE = TableSpec("people", (Column("id"), Column("name"), Column("tags", "json"), Column("age", "integer"), Column("active", "bool")))
PAIRS = TableSpec("pairs", (Column("a"), Column("b"), Column("note")), primary_key=("a", "b"))


def make_store():
    store = WorldStore.create([PEOPLE, PAIRS])
    store.insert("people", {"id": "p1", "name": "Ann", "tags": {"z": 1, "a": [1, 2]}, "age": 30, "active": True})
    store.insert("people", {"id": "p2", "name": "Ben", "tags": [], "age": 40, "active": False})
    store.insert("pairs", {"a": "x", "b": "y", "note": "n"})
    return store


def test_snapshot_round_trip_keeps_rows_types_and_hash():
    store = make_store()
    data = store.snapshot()
    restored = WorldStore.restore(data, [PEOPLE, PAIRS])
    assert restored.state() == store.state()
    assert restored.state_hash() == store.state_hash()
    assert restored.get("people", {"id": "p1"}) == {"id": "p1", "name": "Ann", "tags": {"a": [1, 2], "z": 1}, "age": 30, "active": True}
    # the restored copy is independent of the original
    restored.update("people", {"id": "p1"}, {"name": "Changed"})
    assert store.get("people", {"id": "p1"})["name"] == "Ann"


def test_hash_is_canonical_and_sensitive():
    a, b = make_store(), make_store()
    assert a.state_hash() == b.state_hash()
    b.update("people", {"id": "p2"}, {"age": 41})
    assert a.state_hash() != b.state_hash()
    # insertion order does not matter
    c = WorldStore.create([PEOPLE, PAIRS])
    c.insert("pairs", {"a": "x", "b": "y", "note": "n"})
    c.insert("people", {"id": "p2", "name": "Ben", "tags": [], "age": 40, "active": False})
    c.insert("people", {"id": "p1", "name": "Ann", "tags": {"a": [1, 2], "z": 1}, "age": 30, "active": True})
    assert c.state_hash() == a.state_hash()


def test_diff_reports_added_updated_removed_with_changed_fields_only():
    store = make_store()
    before = store.state()
    store.update("people", {"id": "p1"}, {"age": 31})
    store.delete("people", {"id": "p2"})
    store.insert("people", {"id": "p3", "name": "Cy", "tags": None, "age": 20, "active": True})
    store.insert("pairs", {"a": "x", "b": "z", "note": "m"})
    diff = diff_states(store.tables, before, store.state())
    people = diff.tables["people"]
    assert [r["__key__"] for r in people.added] == ["p3"]
    assert [r["__key__"] for r in people.removed] == ["p2"]
    assert len(people.updated) == 1
    assert people.updated[0].key == "p1"
    assert people.updated[0].changed == {"age": (30, 31)}
    assert [r["__key__"] for r in diff.tables["pairs"].added] == ["x/z"]
    assert set(diff.changed_keys()) == {("people", "p1"), ("people", "p2"), ("people", "p3"), ("pairs", "x/z")}


def test_diff_of_equal_states_is_empty():
    store = make_store()
    assert diff_states(store.tables, store.state(), store.state()).empty


def test_change_aware_world_hash_and_diff_equal_the_full_computation(mini_scenarios, make_world):
    from clawarena.world.store import diff_states

    world, gw = make_world(mini_scenarios["privacy"])
    assert world.state_hash() == world.store.state_hash() and world.diff().empty
    gw.call("alice-agent", "gmail_messages_trash", {"id": "m2"})
    gw.call("alice-agent", "gmail_send_email", {"to": ["bob@northwind.example"], "subject": "s", "body": "b"})
    world.store.update("gmail_labels", {"id": "Label_1"}, {"name": "Renamed"})  # a write outside the gateway, not yet drained
    assert world.store.changed_tables() == {"gmail_messages", "gmail_labels"}
    assert world.state_hash() == world.store.state_hash()
    full = diff_states(world.store.tables, world.initial_state, world.store.state())
    assert world.diff() == full and world.final_state() == world.store.state()
