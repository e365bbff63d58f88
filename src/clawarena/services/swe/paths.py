"""Confinement of file paths to a repository: the one place that decides what a path names.

A path is repository-relative ('src/app.py'). An absolute path or one with a
`..` segment is refused before anything is looked up (400, recorded as a
refusal). Symlinks inside the tree are followed the way a filesystem would
follow them; a resolution that leaves the repository (an absolute target, or
`..` past the root) is refused (403, recorded as a refusal), whichever tool
asked: read, write, delete, list or search.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from clawarena.services.base import ServiceError

MAX_PATH = 1024
MAX_LINK_HOPS = 40


def traversal(message: str) -> ServiceError:
    return ServiceError(400, message, reason="pathTraversal", denied=True)


def escape(message: str) -> ServiceError:
    return ServiceError(403, message, reason="symlinkEscape", denied=True)


def clean_path(path: str, *, allow_root: bool = False) -> str:
    """The canonical form of a repository-relative path ('./a/b/' -> 'a/b'), or a refusal."""
    if not isinstance(path, str):
        raise ServiceError(400, "path must be a string")
    if "\x00" in path:
        raise ServiceError(400, "path contains a NUL character")
    if len(path) > MAX_PATH:
        raise ServiceError(400, f"path is longer than {MAX_PATH} characters")
    if path.startswith(("/", "\\")) or (len(path) > 1 and path[1] == ":" and path[0].isalpha()):
        raise traversal(f"path {path!r} is absolute: paths are relative to the repository root, e.g. 'src/app.py'")
    if "\\" in path:
        raise ServiceError(400, f"path {path!r} contains a backslash: use '/' between folders")
    parts = path.split("/")
    if ".." in parts:
        raise traversal(f"path {path!r} contains '..': a path may not leave the repository")
    if parts and parts[-1] == "":
        parts = parts[:-1]  # a trailing slash names the folder
    kept = [p for p in parts if p != "."]
    if any(p == "" for p in kept):
        raise ServiceError(400, f"path {path!r} has an empty segment ('//')")
    long = next((p for p in kept if len(p.encode("utf-8")) > 255), None)
    if long is not None:
        raise ServiceError(400, f"path {path!r}: the name {long[:40]!r}... is longer than 255 bytes")
    if not kept and not allow_root:
        raise ServiceError(400, "path is empty: name a file, e.g. 'README.md'")
    return "/".join(kept)


def resolve(tree: Mapping[str, Mapping[str, Any]], path: str, *, follow_last: bool = True) -> str:
    """The path inside the repository that `path` (already clean) names, following symlinks.

    `tree` maps paths to rows with `kind` and `target`. `follow_last=False` keeps a final symlink
    itself (deleting or replacing a link). Raises a 403 refusal when a link leads outside.
    """
    resolved: list[str] = []
    queue = [p for p in path.split("/") if p]
    hops = 0
    via: list[str] = []  # the links followed, for the message
    while queue:
        part = queue.pop(0)
        if part in ("", "."):
            continue
        if part == "..":  # only a link's target brings these
            if not resolved:
                raise escape(f"path {path!r} resolves through symlink {_chain(via)} to a place outside the repository")
            resolved.pop()
            continue
        candidate = "/".join([*resolved, part])
        row = tree.get(candidate)
        if row is not None and row["kind"] == "symlink" and (queue or follow_last):
            hops += 1
            if hops > MAX_LINK_HOPS:
                raise ServiceError(400, f"path {path!r}: too many levels of symbolic links")
            target = str(row.get("target") or "")
            via.append(f"{candidate} -> {target}")
            if target.startswith(("/", "\\")) or (len(target) > 1 and target[1] == ":"):
                raise escape(f"path {path!r} resolves through symlink {_chain(via)}, which points outside the repository")
            queue = target.split("/") + queue  # relative to the link's own folder, which is `resolved`
            continue
        resolved.append(part)
    return "/".join(resolved)


def _chain(via: list[str]) -> str:
    return " then ".join(via) if via else "(none)"


def link_escapes(tree: Mapping[str, Mapping[str, Any]], path: str) -> bool:
    """Whether the symlink at `path` leads outside the repository (it is listed, never followed there)."""
    try:
        resolve(tree, path)
    except ServiceError as exc:
        return exc.code == 403
    return False
