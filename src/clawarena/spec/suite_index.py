"""The suite index cache: what `clawarena tasks list` prints, kept on disk so a second listing of an
unchanged suite needs no YAML parse, no plugin import and no validation.

Standard library only, on purpose: a cache hit must not pay for pydantic or the services. The key is
the content hash of every task file (path and bytes), the clawarena version, a fingerprint of the
installed clawarena code (size and mtime of each module: an editable install changes without a new
version), the entry-point file of every installed distribution (where the catalog finds plugins), and the mtimes of the
site-packages folders on `sys.path` (installing or removing any package touches them). Anything that
does not read back as exactly the expected shape is ignored, so a broken or foreign cache file means a
full load, never a wrong listing.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
import tempfile
from pathlib import Path
from typing import Any

import clawarena

PACKAGE_DIR = Path(clawarena.__file__).resolve().parent
BUNDLED_SUITES = PACKAGE_DIR / "suites"
ENV_CACHE_DIR = "CLAWARENA_CACHE_DIR"
ENTRY_POINT_GROUP = "clawarena.plugins"  # spec.catalog's group (not imported from there: it needs pydantic)
FORMAT = 1  # bump when the row shape changes
ROW_KEYS = {"id": str, "task": str, "variant": str, "agents": list, "attacks": list, "harm_codes": list}


def find_suite_folder(suite: str | Path) -> Path | None:
    """A suite's folder (a folder path, else a bundled name), or None: the loader words the error."""
    candidate = Path(suite)
    if candidate.is_dir():
        return candidate
    bundled = BUNDLED_SUITES / str(suite)
    return bundled if bundled.is_dir() else None


def bundled_suite_names() -> list[str]:
    return sorted(p.name for p in BUNDLED_SUITES.iterdir() if p.is_dir() and not p.name.startswith("_") and any(p.rglob("*.yaml")))


def default_cache_dir() -> Path:
    """`$CLAWARENA_CACHE_DIR`, else the user cache dir (`$XDG_CACHE_HOME` or ~/.cache) /clawarena."""
    explicit = os.environ.get(ENV_CACHE_DIR)
    if explicit:
        return Path(explicit)
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "clawarena"


def _code_fingerprint(h: Any) -> None:
    for folder, subdirs, files in os.walk(PACKAGE_DIR):
        subdirs[:] = sorted(d for d in subdirs if d not in ("__pycache__", "suites"))
        for name in sorted(files):
            if name.endswith(".py"):
                st = os.stat(os.path.join(folder, name))
                h.update(f"{folder}/{name}:{st.st_size}:{st.st_mtime_ns}\n".encode())
    for entry in sys.path:
        if os.path.basename(entry.rstrip(os.sep)) not in ("site-packages", "dist-packages"):
            continue  # the script's folder or the cwd: changes often, and holds no installed plugin
        try:
            h.update(f"path {entry}:{os.stat(entry or '.').st_mtime_ns}\n".encode())
        except OSError:
            h.update(f"path {entry}: missing\n".encode())


def _plugins_fingerprint(h: Any) -> None:
    """Every installed distribution that declares entry points, as the stat of its entry_points.txt:
    a plugin of the catalog's group added, removed, upgraded (the dist-info folder is named with its
    version) or re-declared changes it. Stats of the same files importlib.metadata would read, without
    importing and running it (50 ms of a cached listing)."""
    for entry in sys.path:
        folder = entry or "."
        try:
            names = sorted(e.name for e in os.scandir(folder) if e.name.endswith((".dist-info", ".egg-info")))
        except OSError:
            continue  # a zip or a missing folder: no plugin of ours lives there
        for name in names:
            try:
                st = os.stat(os.path.join(folder, name, "entry_points.txt"))
            except OSError:
                continue  # no entry points: not a plugin
            h.update(f"dist {folder}/{name}:{st.st_size}:{st.st_mtime_ns}\n".encode())


def suite_key(folder: Path) -> str:
    """The content hash a listing of `folder` is valid for (see the module docstring)."""
    h = hashlib.sha256(f"clawarena {clawarena.__version__} index {FORMAT}\n".encode())
    for path in sorted(folder.rglob("*.yaml")):
        data = path.read_bytes()
        h.update(f"file {path.relative_to(folder).as_posix()} {len(data)}\n".encode())
        h.update(hashlib.sha256(data).digest())
    _code_fingerprint(h)
    _plugins_fingerprint(h)
    return h.hexdigest()


def _index_file(cache_dir: Path, folder: Path) -> Path:
    name = hashlib.sha256(str(folder.resolve()).encode()).hexdigest()[:32]
    return cache_dir / "suite-index" / f"{name}.json"


def _valid_rows(rows: Any) -> bool:
    if not isinstance(rows, list) or not rows:
        return False
    for row in rows:
        if not isinstance(row, dict) or set(row) != set(ROW_KEYS):
            return False
        if not all(isinstance(row[k], t) for k, t in ROW_KEYS.items()):
            return False
        if not all(isinstance(a, str) for a in (*row["agents"], *row["harm_codes"])):
            return False
        if not all(isinstance(a, dict) and set(a) == {"id", "channel"} and all(isinstance(v, str) for v in a.values()) for a in row["attacks"]):
            return False
    return True


def lookup(folder: Path, cache_dir: Path, key: str) -> list[dict] | None:
    """The cached rows for `folder` under `key`, or None (missing, stale, or unreadable)."""
    try:
        doc = json.loads(_index_file(cache_dir, folder).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(doc, dict) or doc.get("format") != FORMAT or doc.get("key") != key:
        return None
    rows = doc.get("rows")
    return rows if _valid_rows(rows) else None


def store(folder: Path, cache_dir: Path, key: str, rows: list[dict]) -> None:
    """Write the rows atomically; a cache that cannot be written is only a slower next listing."""
    target = _index_file(cache_dir, folder)
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=".tmp-", suffix=".json")
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as out:
                json.dump({"format": FORMAT, "key": key, "folder": str(folder.resolve()), "rows": rows}, out)
            os.replace(tmp, target)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
    except OSError:
        pass
