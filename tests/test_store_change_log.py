"""The change log's triggers are TEMP, made on a table's first write (kept out of snapshots so a
restored world does not parse four triggers per table), and the JSON fast path reads like json.loads."""

import json
import sqlite3

import pytest

from clawarena.world.store import Column, TableSpec, WorldStore, loads_json

PEOPLE = TableSpec("people", (Column("id"), Column("tags", "json"), Column("active", "bool")))
PAIRS = TableSpec("pairs", (Column("a"), Column("b"), Column("note")), primary_key=("a", "b"))


def restored() -> WorldStore:
    store = WorldStore.create([PEOPLE, PAIRS])
    store.insert("people", {"id": "p1", "tags": ["x"], "active": True})
    store.drain_changes()
    return WorldStore.restore(store.snapshot(), [PEOPLE, PAIRS], pristine=True)


def test_snapshots_carry_no_triggers_and_every_write_is_logged_once():
    store = restored()
    assert store.conn.execute("SELECT count(*) FROM sqlite_master WHERE type = 'trigger'").fetchone() == (0,)
    store.insert("people", {"id": "p2", "tags": [], "active": False})
    store.update("people", {"id": "p1"}, {"tags": ["y"]})
    store.insert("pairs", {"a": "x", "b": "y", "note": "n"})
    store.update("pairs", {"a": "x", "b": "y"}, {"b": "z"})  # a re-key logs the old key as a delete
    store.delete("people", {"id": "p2"})
    assert store.drain_changes() == [
        ("people", "p2", "insert"), ("people", "p1", "update"), ("pairs", "x/y", "insert"),
        ("pairs", "x/z", "update"), ("pairs", "x/y", "delete"), ("people", "p2", "delete"),
    ]  # fmt: skip
    assert store.changed_rows() == {"people": {"p1": '["p1"]', "p2": '["p2"]'}, "pairs": {"x/y": '["x","y"]', "x/z": '["x","z"]'}}


def test_triggers_made_inside_a_rolled_back_transaction_are_made_again():
    store = restored()
    store.insert("pairs", {"a": "x", "b": "y", "note": "n"})  # opens a transaction, makes the triggers in it
    store.rollback()
    assert store.conn.execute("SELECT count(*) FROM pairs").fetchone() == (0,)
    store.insert("pairs", {"a": "q", "b": "r", "note": "n"})
    assert store.drain_changes() == [("pairs", "q/r", "insert")]


def test_a_snapshot_saved_with_persistent_triggers_is_not_logged_twice():
    conn = sqlite3.connect(":memory:")
    conn.execute("CREATE TABLE _changes (seq INTEGER PRIMARY KEY AUTOINCREMENT, tbl TEXT, key TEXT, op TEXT, pk TEXT)")
    for spec in (PEOPLE, PAIRS):  # the format before TEMP triggers: triggers inside the database
        for stmt in spec.ddl() + [t.replace("CREATE TEMP TRIGGER", "CREATE TRIGGER").replace(' ON main."', ' ON "') for t in spec.change_triggers()]:
            conn.execute(stmt)
    conn.commit()
    store = WorldStore.restore(conn.serialize(), [PEOPLE, PAIRS], pristine=True)
    assert store.persisted == {"people", "pairs"}
    store.insert("people", {"id": "p9", "tags": None, "active": True})
    assert store.drain_changes() == [("people", "p9", "insert")]


@pytest.mark.parametrize("text", ['{"a":[1,2.5,null,true],"b":"\\u00e9"}', "[]", '"s"', "3", "null", ' {"a": 1}', "[1] "])
def test_loads_json_reads_like_json_loads(text):
    assert loads_json(text) == json.loads(text)


@pytest.mark.parametrize("text", ["", "[1] x", "{", "nul"])
def test_loads_json_fails_like_json_loads(text):
    with pytest.raises(json.JSONDecodeError) as ours:
        loads_json(text)
    with pytest.raises(json.JSONDecodeError) as theirs:
        json.loads(text)
    assert str(ours.value) == str(theirs.value)


def test_rows_decode_json_and_bool_columns_only():
    store = restored()
    assert store.get("people", {"id": "p1"}) == {"id": "p1", "tags": ["x"], "active": True}
    store.insert("people", {"id": "p3", "tags": None, "active": None})
    assert store.get("people", {"id": "p3"}) == {"id": "p3", "tags": None, "active": None}


def test_a_docs_fingerprint_is_the_canonical_dump_and_follows_edits():
    from clawarena.services.docs.structure import Document
    from clawarena.world.hashing import canonical_json

    doc = Document.from_text("Hello world\nSecond line")
    before = doc.fingerprint()
    assert before == canonical_json(doc.dump())
    doc.insert_text("", 1, "X", ids=None)
    assert doc.fingerprint() != before and doc.fingerprint() == canonical_json(doc.dump())
