"""Generate docs/tools.md: every tool with its kind, REST binding and arguments, from the tools
themselves (what `clawarena tools show` prints). tests/test_cli_tools.py fails when it is stale.

    python scripts/tools_docs.py          # write docs/tools.md
    python scripts/tools_docs.py --check  # exit 1 if docs/tools.md is out of date
"""

from __future__ import annotations

import sys

from generated_doc import write_or_check

from clawarena.commands.tools import render_markdown

if __name__ == "__main__":
    sys.exit(write_or_check(sys.argv[1:], "docs/tools.md", render_markdown, "tools_docs.py"))
