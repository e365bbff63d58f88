"""Free text inside a tool result or message: the part of untrusted content a defense marks,
reads or withholds. Identifiers, numbers and single words are left alone, so the agent can still
use what it reads in its next call. Text carried base64-encoded (a Gmail body's `data`, a raw
message) counts too: it is decoded, changed and encoded again the same way."""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Callable
from typing import Any

_SPACE = re.compile(r"\s")
_B64ISH = re.compile(r"^[A-Za-z0-9_\-+/=]{16,}$")


def _plain(value: str) -> bool:
    return bool(_SPACE.search(value.strip()))


def _decoded(value: str) -> str | None:
    """The text a base64 (or base64url) string carries, when it carries free text."""
    if not _B64ISH.match(value):
        return None
    try:
        text = base64.urlsafe_b64decode(value.replace("+", "-").replace("/", "_") + "=" * (-len(value) % 4)).decode("utf-8")
    except (binascii.Error, UnicodeDecodeError, ValueError):
        return None
    return text if _plain(text) else None


def _encoded_like(original: str, text: str) -> str:
    raw = text.encode("utf-8", "surrogatepass")
    out = base64.b64encode(raw).decode("ascii") if ("+" in original or "/" in original) else base64.urlsafe_b64encode(raw).decode("ascii")
    return out if original.endswith("=") else out.rstrip("=")


def is_free_text(value: Any) -> bool:
    return isinstance(value, str) and (_plain(value) or _decoded(value) is not None)


def _change(value: str, change: Callable[[str], str]) -> str:
    if _plain(value):
        return change(value)
    decoded = _decoded(value)
    return _encoded_like(value, change(decoded)) if decoded is not None else value


def map_free_text(value: Any, change: Callable[[str], str]) -> tuple[Any, int]:
    """`value` with every free-text string changed (encoded ones in their encoding); how many were."""
    if isinstance(value, str):
        return (_change(value, change), 1) if is_free_text(value) else (value, 0)
    if isinstance(value, dict):
        out, n = {}, 0
        for k, v in value.items():
            out[k], m = map_free_text(v, change)
            n += m
        return out, n
    if isinstance(value, list):
        items = [map_free_text(v, change) for v in value]
        return [v for v, _ in items], sum(m for _, m in items)
    return value, 0


def free_texts(value: Any) -> list[str]:
    """Every free-text string in `value` as it reads (encoded ones decoded), in order."""
    found: list[str] = []

    def keep(text: str) -> str:
        found.append(text)
        return text

    map_free_text(value, keep)
    return found
