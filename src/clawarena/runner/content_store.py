"""The run's content store: `runs/<id>/content/<2 hex>/<64 hex>.json`, one file per distinct value.

Written by the run's one writer (the caller of every executor) as each trace is written; a value
already there is not written again, so a resumed or repeated trial costs nothing. Files are
written whole (temporary file, then rename), so a killed run leaves none half-written. A reference
is checked against its pattern before it touches a path.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from clawarena.world.content import canonical_bytes, is_ref

CONTENT_DIR = "content"


class ContentStoreError(Exception):
    pass


class ContentStore:
    def __init__(self, run_root: Path):
        self.root = Path(run_root) / CONTENT_DIR

    def path(self, ref: str) -> Path:
        if not is_ref(ref):
            raise ContentStoreError(f"not a content reference: {ref!r} (sha256:<64 hex digits>)")
        digest = ref.split(":", 1)[1]
        return self.root / digest[:2] / f"{digest}.json"

    def write(self, values: dict[str, Any]) -> int:
        """Store the values not yet stored; how many files were new."""
        new = 0
        for ref, value in values.items():
            path = self.path(ref)
            if path.exists():
                continue
            path.parent.mkdir(parents=True, exist_ok=True)
            tmp = path.with_suffix(f".tmp{os.getpid()}")
            tmp.write_bytes(canonical_bytes(value))
            os.replace(tmp, path)
            new += 1
        return new

    def read(self, ref: str) -> Any:
        path = self.path(ref)
        try:
            return json.loads(path.read_bytes())
        except FileNotFoundError:
            raise ContentStoreError(f"{ref}: not in {self.root}") from None
        except ValueError as exc:
            raise ContentStoreError(f"{path}: not valid JSON ({exc})") from None

    def __contains__(self, ref: str) -> bool:
        return is_ref(ref) and self.path(ref).exists()
