"""The canonical state hash, built so one changed row updates it in O(1).

A table's hash is the sum, modulo 2^256, of one sha256 digest per row (over the row's key and its
canonical JSON). A sum does not depend on row order, and a changed row updates it by subtracting
its old digest and adding its new one, so scoring costs the rows a trial wrote, not the table.
The state hash is sha256 over (table name, table hash) in name order.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping
from typing import Any

MODULUS = 1 << 256


def canonical_json(value: Any) -> str:
    """JSON with sorted keys and no spaces: equal values give equal text."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def row_digest(key: str, row: Mapping[str, Any]) -> int:
    return int.from_bytes(hashlib.sha256(canonical_json([key, row]).encode()).digest(), "big")


def rows_digest(rows: Mapping[str, Mapping[str, Any]]) -> int:
    return sum(row_digest(k, r) for k, r in rows.items()) % MODULUS


def table_hex(digest: int) -> str:
    return f"{digest % MODULUS:064x}"


def updated_digest(
    digest: int, before: Mapping[str, Mapping[str, Any]], after: Iterable[tuple[str, Mapping[str, Any] | None]]
) -> int:
    """`digest` of the rows `before`, moved to the state where each (key, row) of `after` holds (None: gone)."""
    for key, row in after:
        old = before.get(key)
        if old is not None:
            digest -= row_digest(key, old)
        if row is not None:
            digest += row_digest(key, row)
    return digest % MODULUS


def combine(table_hashes: Mapping[str, str]) -> str:
    h = hashlib.sha256()
    for name in sorted(table_hashes):
        h.update(name.encode())
        h.update(table_hashes[name].encode())
    return h.hexdigest()
