"""Generate docs/suites/synth.md: the synthesized suite's coverage tables, from its build manifest
(src/clawarena/suites/synth/synth-build.json) and task files. tests/test_synth_suite.py fails when
it is stale.

    python scripts/synth_docs.py          # write docs/suites/synth.md
    python scripts/synth_docs.py --check  # exit 1 if it is out of date
"""

from __future__ import annotations

import sys

from generated_doc import write_or_check

from clawarena.synth.report import render_suite_doc

if __name__ == "__main__":
    sys.exit(write_or_check(sys.argv[1:], "docs/suites/synth.md", render_suite_doc, "synth_docs.py"))
