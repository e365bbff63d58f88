"""The SQLite world store: a schema registry, snapshots, a canonical hash and a typed diff.

Every service registers its tables here; one in-memory database holds the
whole world of a trial. Snapshots are `Connection.serialize()` bytes, so a new
trial restores a prebuilt world in well under a millisecond per table.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

from clawarena.world.hashing import canonical_json, combine, rows_digest, table_hex

_CHANGES_DDL = "CREATE TABLE _changes (seq INTEGER PRIMARY KEY AUTOINCREMENT, tbl TEXT, key TEXT, op TEXT, pk TEXT)"

ColumnType = Literal["text", "integer", "real", "json", "bool"]
_SQL_TYPES = {"text": "TEXT", "integer": "INTEGER", "real": "REAL", "json": "TEXT", "bool": "INTEGER"}


_SCAN = json.JSONDecoder().scan_once  # the C scanner, without `json.loads`' wrappers and whitespace regex


def loads_json(text: str) -> Any:
    """`json.loads` for the canonical JSON the store writes (same result, same errors, less overhead)."""
    try:
        value, end = _SCAN(text, 0)
    except StopIteration:  # not JSON at its start (say, leading whitespace): let json say what is wrong
        return json.loads(text)
    return value if end == len(text) else json.loads(text)


__all__ = ["Column", "RowUpdate", "StateDiff", "TableDiff", "TableSpec", "WorldStore", "canonical_json", "diff_states", "diff_table", "loads_json"]


@dataclass(frozen=True)
class Column:
    name: str
    type: ColumnType = "text"
    nullable: bool = True


@dataclass(frozen=True)
class TableSpec:
    """One table of a service: its columns and primary key (one or more columns)."""

    name: str
    columns: tuple[Column, ...]
    primary_key: tuple[str, ...] = ("id",)
    indexes: tuple[tuple[str, ...], ...] = ()

    @cached_property
    def _by_name(self) -> dict[str, Column]:
        return {c.name: c for c in self.columns}

    @cached_property
    def _decoded(self) -> tuple[tuple[str, str], ...]:
        """(name, type) of the columns whose SQLite value is decoded on read."""
        return tuple((c.name, c.type) for c in self.columns if c.type in ("json", "bool"))

    def column(self, name: str) -> Column:
        try:
            return self._by_name[name]
        except KeyError:
            raise KeyError(f"table {self.name!r} has no column {name!r}") from None

    @property
    def column_names(self) -> tuple[str, ...]:
        return tuple(c.name for c in self.columns)

    def ddl(self) -> list[str]:
        cols = ", ".join(
            f'"{c.name}" {_SQL_TYPES[c.type]}{"" if c.nullable else " NOT NULL"}' for c in self.columns
        )
        pk = ", ".join(f'"{k}"' for k in self.primary_key)
        stmts = [f'CREATE TABLE "{self.name}" ({cols}, PRIMARY KEY ({pk}))']
        for i, idx in enumerate(self.indexes):
            columns = ", ".join(f'"{c}"' for c in idx)  # quoted: a column may be a SQL keyword (`to`)
            stmts.append(f'CREATE INDEX "ix_{self.name}_{i}" ON "{self.name}" ({columns})')
        return stmts

    def key_of(self, row: Mapping[str, Any]) -> str:
        return "/".join(str(row[k]) for k in self.primary_key)

    def change_triggers(self) -> list[str]:
        """Triggers that log every row change to `_changes`, so each call's writes are known exactly.

        `pk` holds the primary key values as a JSON array: scoring reads the row back by key through
        the primary key index. An update that changes the key also logs the old key, as a delete.
        They are TEMP triggers, made on a table's first write through the store: kept out of the
        snapshot, a restored world's first statement does not parse four triggers per table."""
        out = []

        def log(ref: str, op: str) -> str:
            key = " || '/' || ".join(f'{ref}."{k}"' for k in self.primary_key)
            pk = ", ".join(f'{ref}."{k}"' for k in self.primary_key)
            return f"INSERT INTO _changes (tbl, key, op, pk) VALUES ('{self.name}', {key}, '{op}', json_array({pk}));"

        for op, ref in (("INSERT", "NEW"), ("UPDATE", "NEW"), ("DELETE", "OLD")):
            out.append(f'CREATE TEMP TRIGGER IF NOT EXISTS "log_{self.name}_{op.lower()}" AFTER {op} ON main."{self.name}" BEGIN {log(ref, op.lower())} END')
        moved = " OR ".join(f'OLD."{k}" IS NOT NEW."{k}"' for k in self.primary_key)
        out.append(f'CREATE TEMP TRIGGER IF NOT EXISTS "log_{self.name}_rekey" AFTER UPDATE ON main."{self.name}" WHEN {moved} BEGIN {log("OLD", "delete")} END')
        return out


class RowUpdate(BaseModel):
    model_config = ConfigDict(extra="forbid")
    key: str
    changed: dict[str, tuple[Any, Any]]
    before: dict[str, Any]
    after: dict[str, Any]


class TableDiff(BaseModel):
    model_config = ConfigDict(extra="forbid")
    added: list[dict[str, Any]] = []
    updated: list[RowUpdate] = []
    removed: list[dict[str, Any]] = []

    @property
    def empty(self) -> bool:
        return not (self.added or self.updated or self.removed)


class StateDiff(BaseModel):
    """Rows added, updated (changed fields only) and removed, per table."""

    model_config = ConfigDict(extra="forbid")
    tables: dict[str, TableDiff] = {}

    @property
    def empty(self) -> bool:
        return all(t.empty for t in self.tables.values())

    def changed_keys(self) -> Iterable[tuple[str, str]]:
        """(table, row key) for every changed row."""
        for name, td in self.tables.items():
            yield from ((name, r.key) for r in td.updated)
            yield from ((name, r["__key__"]) for r in td.added)
            yield from ((name, r["__key__"]) for r in td.removed)


@dataclass
class WorldStore:
    """One SQLite database holding every registered table of a world."""

    tables: dict[str, TableSpec]
    conn: sqlite3.Connection = field(default=None)  # type: ignore[assignment]
    # Tables written since this store was built or restored from its template (drained from `_changes`).
    touched: set[str] = field(default_factory=set)
    # Rows written since then, per table, as their `pk` JSON arrays (drained from `_changes`).
    dirty: dict[str, set[str]] = field(default_factory=dict)
    # Tables whose changes are unknown (restored from a snapshot that is not the template): compared in full.
    full: set[str] = field(default_factory=set)
    # Tables whose change triggers exist in this connection (see `TableSpec.change_triggers`);
    # `persisted`: those a snapshot made before triggers were TEMP still carries.
    logged: set[str] = field(default_factory=set)
    persisted: frozenset[str] = frozenset()

    @classmethod
    def create(cls, specs: Iterable[TableSpec]) -> WorldStore:
        tables = {s.name: s for s in specs}
        conn = sqlite3.connect(":memory:", check_same_thread=False)
        conn.execute(_CHANGES_DDL)
        for spec in sorted(tables.values(), key=lambda s: s.name):
            for stmt in spec.ddl():
                conn.execute(stmt)
        conn.commit()
        return cls(tables=tables, conn=conn)

    def _logging(self, table: str) -> None:
        """Make sure writes to `table` land in `_changes` (its triggers are made on first write)."""
        if table not in self.logged:
            for stmt in self.tables[table].change_triggers():
                self.conn.execute(stmt)
            self.logged.add(table)

    def rollback(self) -> None:
        """Roll back the open transaction; triggers made inside it went with it, so they are made again."""
        self.conn.rollback()
        self.logged = set(self.persisted)

    def drain_changes(self) -> list[tuple[str, str, str]]:
        """(table, row key, insert|update|delete) logged since the last drain, in order."""
        rows = self.conn.execute("SELECT tbl, key, op, pk FROM _changes ORDER BY seq").fetchall()
        if rows:
            self.conn.execute("DELETE FROM _changes")
            for t, _, _, pk in rows:
                self.touched.add(t)
                self.dirty.setdefault(t, set()).add(pk)
        return [(t, k, o) for t, k, o, _ in rows]

    def changed_tables(self) -> set[str]:
        """Every table written so far, including writes not yet drained."""
        pending = self.conn.execute("SELECT DISTINCT tbl FROM _changes").fetchall()
        return self.touched | self.full | {t for (t,) in pending}

    def changed_rows(self) -> dict[str, dict[str, str]]:
        """{table: {row key: pk JSON}} of every row written so far (drained or not), tables in `full` aside."""
        out: dict[str, dict[str, str]] = {}
        pending = self.conn.execute("SELECT DISTINCT tbl, pk FROM _changes").fetchall()
        for t, pks in [*self.dirty.items(), *((t, (pk,)) for t, pk in pending)]:
            if t in self.full or t not in self.tables:
                continue
            into = out.setdefault(t, {})
            for pk in pks:
                into.setdefault(self.key_of_pk(t, pk), pk)
        return out

    def key_of_pk(self, table: str, pk: str) -> str:
        """The row key (as `TableSpec.key_of` gives it) of a logged `pk` JSON array."""
        spec = self.tables[table]
        return spec.key_of(self._decode(spec, json.loads(pk), spec.primary_key))

    def row_by_pk(self, table: str, pk: str) -> dict[str, Any] | None:
        """The current row with these primary key values, through the primary key index."""
        spec = self.tables[table]
        names = spec.column_names
        cols = ", ".join(f'"{c}"' for c in names)
        clause = " AND ".join(f'"{k}" IS ?' for k in spec.primary_key)
        row = self.conn.execute(f'SELECT {cols} FROM "{table}" WHERE {clause}', tuple(json.loads(pk))).fetchone()
        return None if row is None else self._decode(spec, row, names)

    # ---- snapshots -------------------------------------------------------------
    def snapshot(self) -> bytes:
        self.conn.commit()
        return self.conn.serialize()

    @classmethod
    def restore(cls, data: bytes, specs: Iterable[TableSpec], pristine: bool = False) -> WorldStore:
        """Load a snapshot. `pristine`: it is the world's own template, so no table counts as changed;
        otherwise (an admin restore, a saved session) every table is compared in full."""
        conn = sqlite3.connect(":memory:", check_same_thread=False)
        conn.deserialize(data)
        tables = {s.name: s for s in specs}
        if "pk" not in {r[1] for r in conn.execute("PRAGMA table_info(_changes)")}:  # saved before `pk` was logged
            conn.execute("ALTER TABLE _changes ADD COLUMN pk TEXT")
        old = {n[4:-7] for (n,) in conn.execute("SELECT name FROM sqlite_master WHERE type = 'trigger' AND name LIKE 'log!_%!_insert' ESCAPE '!'")}
        persisted = frozenset(t for t in tables if t in old)
        return cls(tables=tables, conn=conn, full=set() if pristine else set(tables), logged=set(persisted), persisted=persisted)

    # ---- rows ---------------------------------------------------------------------
    def _encode(self, spec: TableSpec, row: Mapping[str, Any]) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for name, value in row.items():
            col = spec.column(name)
            if col.type == "json":
                out[name] = None if value is None else canonical_json(value)
            elif col.type == "bool":
                out[name] = None if value is None else int(bool(value))
            else:
                out[name] = value
        return out

    def _decode(self, spec: TableSpec, row: sqlite3.Row | tuple, names: Iterable[str]) -> dict[str, Any]:
        out = dict(zip(names, row))
        for name, kind in spec._decoded:  # only json and bool columns need work: most rows are mostly text
            value = out.get(name)
            if value is not None:
                out[name] = loads_json(value) if kind == "json" else bool(value)
        return out

    def insert(self, table: str, row: Mapping[str, Any]) -> None:
        spec = self.tables[table]
        self._logging(table)
        enc = self._encode(spec, row)
        cols = ", ".join(f'"{c}"' for c in enc)
        marks = ", ".join("?" for _ in enc)
        self.conn.execute(f'INSERT INTO "{table}" ({cols}) VALUES ({marks})', tuple(enc.values()))

    def _where(self, spec: TableSpec, where: Mapping[str, Any]) -> tuple[str, tuple[Any, ...]]:
        if not where:
            return "", ()
        enc = self._encode(spec, where)
        clause = " AND ".join(f'"{k}" IS ?' for k in enc)
        return f" WHERE {clause}", tuple(enc.values())

    def update(self, table: str, where: Mapping[str, Any], changes: Mapping[str, Any]) -> int:
        spec = self.tables[table]
        self._logging(table)
        enc = self._encode(spec, changes)
        sets = ", ".join(f'"{k}" = ?' for k in enc)
        clause, params = self._where(spec, where)
        cur = self.conn.execute(f'UPDATE "{table}" SET {sets}{clause}', tuple(enc.values()) + params)
        return cur.rowcount

    def delete(self, table: str, where: Mapping[str, Any]) -> int:
        spec = self.tables[table]
        self._logging(table)
        clause, params = self._where(spec, where)
        return self.conn.execute(f'DELETE FROM "{table}"{clause}', params).rowcount

    def select(self, table: str, where: Mapping[str, Any] | None = None, order_by: str | None = None) -> list[dict[str, Any]]:
        spec = self.tables[table]
        clause, params = self._where(spec, where or {})
        order = f" ORDER BY {order_by}" if order_by else " ORDER BY " + ", ".join(f'"{k}"' for k in spec.primary_key)
        names = spec.column_names
        cols = ", ".join(f'"{c}"' for c in names)
        rows = self.conn.execute(f'SELECT {cols} FROM "{table}"{clause}{order}', params).fetchall()
        return [self._decode(spec, r, names) for r in rows]

    def get(self, table: str, where: Mapping[str, Any]) -> dict[str, Any] | None:
        rows = self.select(table, where)
        return rows[0] if rows else None

    # ---- canonical state, hash, diff ------------------------------------------
    def table_rows(self, table: str) -> dict[str, dict[str, Any]]:
        spec = self.tables[table]
        return {spec.key_of(r): r for r in self.select(table)}

    def state(self) -> dict[str, dict[str, dict[str, Any]]]:
        """Every table as {row key: row}, in a canonical order."""
        return {name: self.table_rows(name) for name in sorted(self.tables)}

    def table_hash(self, table: str) -> str:
        """The sum of the table's row digests (see `hashing`), recomputed from every row."""
        return table_hex(rows_digest(self.table_rows(table)))

    def state_hash(self, known: Mapping[str, str] | None = None) -> str:
        """The canonical hash over every table; `known` supplies table hashes already computed."""
        return combine({name: known[name] if known and name in known else self.table_hash(name) for name in self.tables})


def diff_states(
    tables: Mapping[str, TableSpec],
    before: Mapping[str, Mapping[str, dict[str, Any]]],
    after: Mapping[str, Mapping[str, dict[str, Any]]],
) -> StateDiff:
    """Typed diff of two canonical states, comparing every row of every table."""
    out: dict[str, TableDiff] = {}
    for name in sorted(tables):
        b, a = before.get(name, {}), after.get(name, {})
        if canonical_json(b) == canonical_json(a):
            continue
        td = diff_table(b, a, b.keys() | a.keys())
        if not td.empty:
            out[name] = td
    return StateDiff(tables=out)


def diff_table(before: Mapping[str, dict[str, Any]], after: Mapping[str, dict[str, Any]], keys: Iterable[str]) -> TableDiff:
    """The diff of one table over the rows `keys` (every other row known equal), in key order."""
    td = TableDiff()
    for key in sorted(keys):
        b, a = before.get(key), after.get(key)
        if b is None and a is not None:
            td.added.append({"__key__": key, **a})
        elif a is None and b is not None:
            td.removed.append({"__key__": key, **b})
        elif a is not None and b is not None and canonical_json(a) != canonical_json(b):
            changed = {
                f: (b.get(f), a.get(f)) for f in sorted(set(a) | set(b)) if canonical_json(a.get(f)) != canonical_json(b.get(f))
            }
            td.updated.append(RowUpdate(key=key, changed=changed, before=b, after=a))
    return td
