"""What every docs generator under scripts/ does with its rendered text: write it, or with
`--check` exit 1 when the committed file differs (the tests run the check)."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def write_or_check(argv: list[str], doc: str, render: Callable[[], str], script: str) -> int:
    path = ROOT / doc
    text = render()
    if "--check" in argv:
        if not path.exists() or path.read_text() != text:
            print(f"{path} is out of date: run python scripts/{script}", file=sys.stderr)
            return 1
        return 0
    path.write_text(text)
    print(f"wrote {path}")
    return 0
