"""Generate docs/risks.md: the risk taxonomy as tables, from src/clawarena/spec/risks.yaml (what
`clawarena synth taxonomy` prints). tests/test_risks.py fails when it is stale.

    python scripts/risks_docs.py          # write docs/risks.md
    python scripts/risks_docs.py --check  # exit 1 if docs/risks.md is out of date
"""

from __future__ import annotations

import sys

from generated_doc import write_or_check

from clawarena.commands.synth import render_markdown

if __name__ == "__main__":
    sys.exit(write_or_check(sys.argv[1:], "docs/risks.md", render_markdown, "risks_docs.py"))
