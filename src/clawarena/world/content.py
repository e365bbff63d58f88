"""Content stored once and referenced: the text a model saw and said, by its hash.

A model call's context grows by a few messages per step, and every trial of a scenario shares its
system prompt and tool list. Ledger events therefore hold references (`sha256:<hex>`) into a
content table; the run store writes each distinct value once per run (`runs/<id>/content/`).
A reference is the SHA-256 of the value's canonical JSON, so equal values share one entry and the
ledger stays deterministic (no counters, no wall clock).
"""

from __future__ import annotations

import hashlib
import json
import re
from typing import Any

REF_PREFIX = "sha256:"
REF_PATTERN = re.compile(r"^sha256:[0-9a-f]{64}$")


def canonical_bytes(value: Any) -> bytes:
    """The value's canonical JSON (sorted keys, no spaces); a lone surrogate survives as its escape."""
    text = json.dumps(value, ensure_ascii=False, sort_keys=True, separators=(",", ":"), default=str)
    return text.encode("utf-8", "backslashreplace")


def content_ref(value: Any) -> str:
    return REF_PREFIX + hashlib.sha256(canonical_bytes(value)).hexdigest()


def is_ref(text: Any) -> bool:
    return isinstance(text, str) and REF_PATTERN.match(text) is not None


class ContentTable:
    """The values a trial's events reference, each once."""

    def __init__(self) -> None:
        self._values: dict[str, Any] = {}

    def put(self, value: Any) -> str:
        ref = content_ref(value)
        self._values.setdefault(ref, value)
        return ref

    def get(self, ref: str) -> Any:
        return self._values[ref]

    def __contains__(self, ref: object) -> bool:
        return ref in self._values

    def __len__(self) -> int:
        return len(self._values)

    def dump(self) -> dict[str, Any]:
        return dict(sorted(self._values.items()))
