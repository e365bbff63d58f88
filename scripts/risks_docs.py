"""Generate docs/risks.md: the risk taxonomy as tables, from src/clawarena/spec/risks.yaml (what
`clawarena synth taxonomy` prints). tests/test_risks.py fails when it is stale.

    python scripts/risks_docs.py          # write docs/risks.md
    python scripts/risks_docs.py --check  # exit 1 if docs/risks.md is out of date
"""

from __future__ import annotations

import sys
from pathlib import Path

from clawarena.commands.synth import render_markdown

ROOT = Path(__file__).resolve().parent.parent
RISKS_MD = ROOT / "docs" / "risks.md"


def main(argv: list[str]) -> int:
    text = render_markdown()
    if "--check" in argv:
        if not RISKS_MD.exists() or RISKS_MD.read_text() != text:
            print(f"{RISKS_MD} is out of date: run python scripts/risks_docs.py", file=sys.stderr)
            return 1
        return 0
    RISKS_MD.write_text(text)
    print(f"wrote {RISKS_MD}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
