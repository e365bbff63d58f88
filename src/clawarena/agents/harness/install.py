"""Where an installed harness lives: the manifest its install script writes.

`scripts/install-<harness>.sh` installs a pinned version into the tools folder (`.tools/`, or
`$CLAWARENA_TOOLS`) and writes `harness/<name>.json`: the command that runs it with no wrapper
or shell (`argv`), the folders it needs to see (`binds`, read-only) and those to put on PATH.
The sandbox binds exactly those folders at the same paths, so the command runs unchanged.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError

REPO_TOOLS = Path(__file__).resolve().parents[4] / ".tools"  # the repository's .tools when installed editable


class HarnessUnavailable(RuntimeError):
    """The harness cannot run here (not installed, or no sandbox): one line saying how to fix it."""


class HarnessInstall(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str
    version: str
    argv: list[str] = Field(min_length=1)
    binds: list[str] = []
    path: list[str] = []


def tools_root() -> Path:
    return Path(os.environ["CLAWARENA_TOOLS"]) if os.environ.get("CLAWARENA_TOOLS") else REPO_TOOLS


def find_install(name: str, script: str) -> HarnessInstall:
    """The manifest of harness `name`, or HarnessUnavailable naming the install script."""
    manifest = tools_root() / "harness" / f"{name}.json"
    fix = f"run scripts/{script} (installs it into {tools_root()}), or set CLAWARENA_TOOLS to a tools folder that has it"
    if not manifest.is_file():
        raise HarnessUnavailable(f"{name} is not installed ({manifest} does not exist): {fix}")
    try:
        install = HarnessInstall.model_validate(json.loads(manifest.read_text()))
    except (ValueError, ValidationError) as exc:
        first = exc.errors()[0] if isinstance(exc, ValidationError) else {"loc": (), "msg": str(exc)}
        where = ".".join(str(p) for p in first["loc"]) or "(file)"
        raise HarnessUnavailable(f"{manifest}: {where}: {first['msg']}; {fix}") from None
    program = install.argv[0]
    if not (os.path.isfile(program) and os.access(program, os.X_OK)):
        raise HarnessUnavailable(f"{manifest}: argv.0: {program} is not an executable file; {fix}")
    return install
