"""Untrusted request input, read before any wire style sees it.

Two jobs: a body size limit enforced while the body streams in (a declared
Content-Length past the limit is refused before a byte is read; a chunked body
is counted as it arrives), and strict JSON: valid UTF-8, no lone surrogates
(UTF-8 cannot store them, so SQLite and every trace writer would fail later),
bounded nesting, finite numbers that fit a 64-bit field. A request that breaks
these is the client's error (4xx in its API's shape), never a crash inside a
service.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any

from starlette.requests import Request
from starlette.types import Message

from clawarena.tools.limits import MAX_ARGS_DEPTH

# Gmail's messages.send takes 35 MiB (its discovery maxSize is 36700160 bytes), the largest body a real
# client sends to these APIs; sent as base64url in a JSON `raw` field it grows by 4/3 to ~46.7 MiB.
# Drive's 5 TiB is not something a world held in SQLite memory should take.
DEFAULT_MAX_BODY_BYTES = 48 * 1024 * 1024
# The gateway's bound on tool arguments (real bodies nest about 10 levels); refused here already,
# before Python's own JSON parser would overflow its stack (near 1000 levels).
MAX_JSON_DEPTH = MAX_ARGS_DEPTH
# The widest integer field in these APIs is (u)int64.
_INT_MIN, _INT_MAX = -(2**63), 2**64 - 1
_SURROGATE = re.compile("[\ud800-\udfff]")


class BodyTooLarge(Exception):
    def __init__(self, limit: int):
        super().__init__(f"Request payload size exceeds the limit: {limit} bytes.")
        self.limit = limit


class BadJSON(ValueError):
    """The body is not JSON this server accepts; the message says why, for the client to read."""


def has_lone_surrogate(text: str) -> bool:
    return _SURROGATE.search(text) is not None


async def read_body(request: Request, limit: int) -> bytes:
    """The whole body, refusing (BodyTooLarge) as soon as it is known to exceed `limit` bytes."""
    declared = request.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > limit:
        raise BodyTooLarge(limit)
    chunks: list[bytes] = []
    size = 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            raise BodyTooLarge(limit)
        chunks.append(chunk)
    return b"".join(chunks)


def with_body(request: Request, body: bytes) -> Request:
    """The same request over a receive channel that replays the already-read body once."""
    replayed = False

    async def receive() -> Message:
        nonlocal replayed
        if not replayed:
            replayed = True
            return {"type": "http.request", "body": body, "more_body": False}
        return await request.receive()  # after the body: the client's disconnect

    return Request(request.scope, receive)


def _finite_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise BadJSON(f"number {text[:40]} is out of range")
    return value


def _bounded_int(text: str) -> int:
    if len(text) > 21:  # wider than any 64-bit integer: refuse before converting
        raise BadJSON(f"number {text[:40]}... is out of range")
    value = int(text)
    if not _INT_MIN <= value <= _INT_MAX:
        raise BadJSON(f"number {text} is out of range")
    return value


def _no_constant(name: str) -> Any:
    raise BadJSON(f"{name} is not JSON")


def parse_json(raw: bytes | str) -> Any:
    """Parse a request body (or a JSON-encoded argument) strictly; BadJSON says what is wrong."""
    try:
        text = raw.decode("utf-8") if isinstance(raw, bytes) else raw
    except UnicodeDecodeError as exc:
        raise BadJSON(f"the body is not valid UTF-8 (byte {exc.start})") from None
    try:
        value = json.loads(text, parse_float=_finite_float, parse_int=_bounded_int, parse_constant=_no_constant)
    except BadJSON:
        raise
    except RecursionError:
        raise BadJSON(f"nesting deeper than {MAX_JSON_DEPTH} levels") from None
    except ValueError as exc:  # json.JSONDecodeError, int digit limits
        raise BadJSON(str(exc)) from None
    check_value(value)
    return value


def check_value(value: Any) -> None:
    """Refuse nesting past MAX_JSON_DEPTH and strings (keys too) holding lone surrogates; iterative,
    so the check itself cannot overflow the stack."""
    stack: list[tuple[Any, int]] = [(value, 0)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, str):
            if has_lone_surrogate(item):
                raise BadJSON("a string holds a lone surrogate (\\ud800-\\udfff), which is not Unicode text")
        elif isinstance(item, (dict, list)):
            if depth >= MAX_JSON_DEPTH:
                raise BadJSON(f"nesting deeper than {MAX_JSON_DEPTH} levels")
            if isinstance(item, dict):
                stack.extend((k, depth + 1) for k in item.keys())
                stack.extend((v, depth + 1) for v in item.values())
            else:
                stack.extend((v, depth + 1) for v in item)


def check_embedded_json(text: str) -> None:
    """A form or JSON string that a service may itself decode as JSON (Slack's `blocks`, `profile`):
    refuse what would break that decoding (nesting, lone surrogates); plain text passes untouched."""
    if text.lstrip()[:1] not in ("[", "{") and "\\u" not in text:
        return
    try:
        value = json.loads(text)
    except RecursionError:
        raise BadJSON(f"nesting deeper than {MAX_JSON_DEPTH} levels") from None
    except ValueError:
        return  # not JSON: plain text, which the service reads as such
    check_value(value)
