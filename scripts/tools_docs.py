"""Generate docs/tools.md: every tool with its kind, REST binding and arguments, from the tools
themselves (what `clawarena tools show` prints). tests/test_cli_tools.py fails when it is stale.

    python scripts/tools_docs.py          # write docs/tools.md
    python scripts/tools_docs.py --check  # exit 1 if docs/tools.md is out of date
"""

from __future__ import annotations

import sys
from pathlib import Path

from clawarena.commands.tools import render_markdown

ROOT = Path(__file__).resolve().parent.parent
TOOLS_MD = ROOT / "docs" / "tools.md"


def main(argv: list[str]) -> int:
    text = render_markdown()
    if "--check" in argv:
        if not TOOLS_MD.exists() or TOOLS_MD.read_text() != text:
            print(f"{TOOLS_MD} is out of date: run python scripts/tools_docs.py", file=sys.stderr)
            return 1
        return 0
    TOOLS_MD.write_text(text)
    print(f"wrote {TOOLS_MD}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
