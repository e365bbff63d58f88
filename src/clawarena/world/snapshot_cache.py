"""An on-disk cache of seeded world templates, so a second run (and every worker process) skips seeding.

An entry is keyed by (scenario content hash, code version, the plugins' tables) and holds the
template's snapshot bytes, initial state and table hashes. Writes are atomic (a temporary file
renamed into place); an entry that does not verify (truncated, foreign, stale format) is ignored
and rebuilt; the folder is bounded by a size cap with least-recently-used eviction (a hit touches
the file's mtime). `CLAWARENA_NO_WORLD_CACHE=1` turns it off.

Entries are pickles behind a SHA-256 check: the cache is the user's own folder, written only by
this module, so it is trusted as the code is.
"""

from __future__ import annotations

import hashlib
import os
import pickle
import tempfile
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

import clawarena
from clawarena.spec.suite_index import default_cache_dir

ENV_DISABLE = "CLAWARENA_NO_WORLD_CACHE"
ENV_MAX_MB = "CLAWARENA_WORLD_CACHE_MB"
DEFAULT_MAX_BYTES = 1024 * 1024 * 1024  # 1 GiB: a default-profile world is ~0.5 MB, a long one tens of MB
FORMAT = b"clawarena-world/1\n"
_DIGEST = 32
_PACKAGE = Path(clawarena.__file__).resolve().parent
_SOURCES = ("world", "services", "spec")  # what seeding depends on: tables, seeders, filler, fixture models


@lru_cache(maxsize=1)
def code_version() -> str:
    """clawarena's version plus a hash of the source the seeded worlds depend on (content, not mtimes)."""
    h = hashlib.sha256(f"clawarena {clawarena.__version__}\n".encode())
    for sub in _SOURCES:
        for path in sorted((_PACKAGE / sub).rglob("*.py")):
            h.update(str(path.relative_to(_PACKAGE)).encode() + b"\0" + path.read_bytes() + b"\0")
    return h.hexdigest()[:20]


def scenario_key(scenario: Any, parts: Iterable[str] = ()) -> str:
    """The cache key of a scenario's template: its full content, the code version and `parts`
    (the plugins and their tables, so a factory over other services never shares an entry)."""
    h = hashlib.sha256(code_version().encode())
    h.update(b"\0" + scenario.model_dump_json().encode())
    for p in parts:
        h.update(b"\0" + p.encode())
    return h.hexdigest()


@dataclass(frozen=True)
class CachedTemplate:
    snapshot: bytes
    initial_state: dict[str, dict[str, dict[str, Any]]]
    initial_hashes: dict[str, str]


class SnapshotCache:
    """A folder of template entries, one file per key."""

    def __init__(self, folder: Path, max_bytes: int = DEFAULT_MAX_BYTES):
        if max_bytes <= 0:
            raise ValueError(f"max_bytes: must be positive, got {max_bytes}")
        self.folder = Path(folder)
        self.max_bytes = max_bytes
        self.hits = 0
        self.misses = 0

    @classmethod
    def from_env(cls) -> SnapshotCache | None:
        """The user's cache (`$CLAWARENA_CACHE_DIR/worlds`, else ~/.cache/clawarena/worlds), or None when disabled."""
        if os.environ.get(ENV_DISABLE, "").strip() not in ("", "0"):
            return None
        raw = os.environ.get(ENV_MAX_MB, "").strip()
        try:
            max_bytes = int(float(raw) * 1024 * 1024) if raw else DEFAULT_MAX_BYTES
        except ValueError:
            raise ValueError(f"{ENV_MAX_MB}: not a number of megabytes: {raw!r}") from None
        return cls(default_cache_dir() / "worlds", max_bytes=max_bytes)

    def _path(self, key: str) -> Path:
        return self.folder / f"{key}.world"

    def get(self, key: str) -> CachedTemplate | None:
        path = self._path(key)
        try:
            data = path.read_bytes()
        except OSError:
            self.misses += 1
            return None
        entry = self._decode(data)
        if entry is None:  # corrupt or foreign: drop it, the caller rebuilds and rewrites
            self._unlink(path)
            self.misses += 1
            return None
        try:
            os.utime(path)  # recently used: last to be evicted
        except OSError:
            pass
        self.hits += 1
        return entry

    @staticmethod
    def _decode(data: bytes) -> CachedTemplate | None:
        head = len(FORMAT)
        if len(data) < head + _DIGEST or not data.startswith(FORMAT):
            return None
        digest, body = data[head : head + _DIGEST], data[head + _DIGEST :]
        if hashlib.sha256(body).digest() != digest:
            return None
        try:
            entry = pickle.loads(body)
        except Exception:  # a checksum collision is not expected; a stale class layout might be
            return None
        return entry if isinstance(entry, CachedTemplate) else None

    def put(self, key: str, entry: CachedTemplate) -> None:
        """Write atomically; a failure to write (read-only home, full disk) only costs the next run a rebuild."""
        body = pickle.dumps(entry, protocol=pickle.HIGHEST_PROTOCOL)
        data = FORMAT + hashlib.sha256(body).digest() + body
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=self.folder, prefix=".tmp-", suffix=".part")
            try:
                with os.fdopen(fd, "wb") as out:
                    out.write(data)
                os.replace(tmp, self._path(key))
            except BaseException:
                self._unlink(Path(tmp))
                raise
        except OSError:
            return
        self._evict()

    def _evict(self) -> None:
        """Remove least recently used entries until the folder fits the cap."""
        entries = []
        for p in self.folder.glob("*.world"):
            try:
                st = p.stat()
            except OSError:
                continue
            entries.append((st.st_mtime_ns, st.st_size, p))
        total = sum(size for _, size, _ in entries)
        for _, size, p in sorted(entries, key=lambda e: (e[0], e[2].name)):
            if total <= self.max_bytes:
                break
            self._unlink(p)
            total -= size

    @staticmethod
    def _unlink(path: Path) -> None:
        try:
            path.unlink()
        except OSError:
            pass
