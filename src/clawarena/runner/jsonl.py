"""Append-only JSON-lines files (trials.jsonl, judgments.jsonl): read without loss, repair, append.

Lines end at b"\\n" only: a stray b"\\r" inside a corrupt line must not make the lines after it
look like a torn tail. A last line with no newline is kept when it parses (a complete line that
lost its newline) and is *torn* otherwise (a write killed midway). Corrupt lines elsewhere are
never silently dropped: a repair moves them to a side file with their line numbers.
"""

from __future__ import annotations

import json
import os
import sys
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Generic, TypeVar

from pydantic import ValidationError

T = TypeVar("T")


def json_bytes(value: Any, **dumps: Any) -> bytes:
    """JSON as UTF-8 that survives any string: UTF-8 cannot encode a lone surrogate (an agent can
    send one), so it is written as its \\uXXXX escape, which every JSON reader decodes back to it."""
    return json.dumps(value, ensure_ascii=False, default=str, **dumps).encode("utf-8", "backslashreplace")


def stderr_warning(message: str) -> None:
    print(f"warning: {message}", file=sys.stderr, flush=True)


@dataclass
class CorruptLine:
    """A line that is not an item of the file: kept aside, never silently dropped."""

    number: int  # 1-based line number
    text: str
    problem: str


@dataclass
class JsonlScan(Generic[T]):
    """What a file holds: every valid item in file order, the corrupt lines, and a torn tail."""

    items: list[T] = field(default_factory=list)
    lines: list[bytes] = field(default_factory=list)  # each item's line as stored (fields a newer version added survive)
    corrupt: list[CorruptLine] = field(default_factory=list)
    torn: bytes = b""
    unterminated: bool = False  # the file does not end with a newline

    @property
    def needs_repair(self) -> bool:
        return bool(self.corrupt) or self.unterminated


def scan_jsonl(path: Path, parse: Callable[[bytes], T]) -> JsonlScan[T]:
    """Read a JSON-lines file without changing it; `parse` raises ValueError/ValidationError on a bad line."""
    out: JsonlScan[T] = JsonlScan()
    if not path.exists():
        return out
    *complete, tail = path.read_bytes().split(b"\n")
    for number, body in enumerate(complete, start=1):
        if not body.strip():
            continue
        try:
            out.items.append(parse(body))
            out.lines.append(body + b"\n")
        except (ValueError, ValidationError) as exc:
            problem = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
            out.corrupt.append(CorruptLine(number, body.decode("utf-8", "backslashreplace"), problem))
    if tail:
        try:
            out.items.append(parse(tail))
            out.lines.append(tail + b"\n")
        except (ValueError, ValidationError):
            out.torn = tail
        out.unterminated = True
    return out


def repair_jsonl(path: Path, corrupt_path: Path, scan: JsonlScan[Any]) -> None:
    """Corrupt lines aside (appended, with line numbers), then the file replaced atomically by its
    valid lines in their order; a torn tail is dropped (the write in flight is redone)."""
    if scan.corrupt:
        with open(corrupt_path, "ab") as fh:
            for bad in scan.corrupt:
                fh.write(json_bytes({"line": bad.number, "problem": bad.problem, "text": bad.text}) + b"\n")
            fh.flush()
            os.fsync(fh.fileno())
    tmp = path.with_suffix(".jsonl.tmp")
    with open(tmp, "wb") as fh:
        fh.writelines(scan.lines)
        fh.flush()
        os.fsync(fh.fileno())
    os.replace(tmp, path)


def append_line(path: Path, line: bytes, lock: threading.Lock) -> None:
    """One whole line, flushed and fsynced: a killed writer loses at most the line in flight."""
    with lock, open(path, "ab") as fh:
        fh.write(line)
        fh.flush()
        os.fsync(fh.fileno())
