"""Which clawarena modules a command line imports: the CLI runs in a fresh interpreter and
reports `sys.modules` (the lazy-import rule: a command loads only its own module)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path


def modules_after(args: list[str], cache_dir: Path, prefixes: tuple[str, ...] = ("clawarena.commands.",)) -> set[str]:
    code = (
        "import sys\nfrom clawarena.cli import app\n"
        f"try:\n    app({args!r}, prog_name='clawarena')\nexcept SystemExit as exc:\n    assert exc.code in (0, None), exc.code\n"
        f"print('MODULES', ' '.join(sorted(m for m in sys.modules if m.startswith({prefixes!r}))))\n"
    )
    env = {**os.environ, "CLAWARENA_CACHE_DIR": str(cache_dir), "COLUMNS": "200"}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=300, check=False)
    assert out.returncode == 0, out.stderr
    line = [ln for ln in out.stdout.splitlines() if ln.startswith("MODULES")][-1]
    return set(line.split()[1:])
