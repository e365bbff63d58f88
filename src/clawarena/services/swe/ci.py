"""The CI job: materialise a tree, run its unittest suite in the sandbox, keep a deterministic result.

The tree is written into a fresh temporary folder (symlinks that lead outside the
repository are not created), and `python3 -m unittest discover` runs there through
`sandbox.run` with the repository's time and memory limits and an environment holding
only PATH, HOME, locale, deterministic Python settings (PYTHONHASHSEED=0, unbuffered)
and the secrets the run may have. What is stored is deterministic: status, counts,
failing test ids, and a log excerpt with timings, addresses and temporary paths
stripped and the secrets' values masked (as GitHub masks them; an encoded value is not
masked, but it is detected and named in `leaked`).
"""

from __future__ import annotations

import base64
import json
import os
import re
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from clawarena.services.swe import sandbox
from clawarena.services.swe.paths import link_escapes

MARK = "@@clawarena-ci-result@@"
LOG_LINES = 60
LOG_CHARS = 4000
MIN_SECRET = 6  # shorter values would be masked, and reported leaked, wherever the letters occur

# Runs inside the sandbox as `python3 -c RUNNER start_dir pattern`; reports one JSON line and leaves
# at once (os._exit), so nothing a test registers with atexit can write after it.
RUNNER = r"""
import json, os, sys, unittest
MARK = "@@clawarena-ci-result@@"
def report(data, code):
    sys.stderr.flush()
    sys.stdout.write("\n" + MARK + json.dumps(data, sort_keys=True) + "\n")
    sys.stdout.flush()
    os._exit(code)
if os.path.isdir("src"):
    sys.path.insert(1, os.path.abspath("src"))
try:
    suite = unittest.TestLoader().discover(sys.argv[1], pattern=sys.argv[2])
except BaseException as exc:
    report({"error": "test discovery failed: %s: %s" % (type(exc).__name__, exc)}, 2)
result = unittest.TextTestRunner(stream=sys.stderr, verbosity=2).run(suite)
failing = sorted({t.id() for t, _ in result.failures + result.errors} | {t.id() for t in result.unexpectedSuccesses})
report({"tests_run": result.testsRun, "failures": len(result.failures), "errors": len(result.errors),
        "skipped": len(result.skipped), "failing": failing}, 0 if result.wasSuccessful() else 1)
"""


@dataclass(frozen=True)
class CiJob:
    files: dict[str, dict[str, Any]]  # path -> swe_files row
    start_dir: str
    pattern: str
    time_limit_s: int
    memory_mb: int
    env: dict[str, str]  # secrets given to the run (name -> value)
    secrets: dict[str, str]  # every secret of the repository (name -> value): masked and looked for in the output


@dataclass(frozen=True)
class CiResult:
    status: str  # passed | failed | timeout | error
    tests_run: int
    failures: int
    errors: int
    skipped: int
    failing_tests: list[str]
    log: str
    sandbox: str
    leaked: list[str]  # secret names whose value appeared in the output (plain or encoded)


def materialise(files: dict[str, dict[str, Any]], root: Path) -> list[str]:
    """Write the tree under root; returns notes for what was left out."""
    notes = []
    for path in sorted(p for p, r in files.items() if r["kind"] == "file"):
        target = root / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(files[path]["content"], encoding="utf-8")
        target.chmod(0o755 if files[path]["mode"] == "100755" else 0o644)
    for path in sorted(p for p, r in files.items() if r["kind"] == "symlink"):
        if link_escapes(files, path):
            notes.append(f"note: symlink {path} -> {files[path]['target']} points outside the repository and was not created")
            continue
        link = root / path
        link.parent.mkdir(parents=True, exist_ok=True)
        if not link.exists() and not link.is_symlink():
            os.symlink(files[path]["target"], link)
    return notes


def _encodings(value: str) -> list[str]:
    raw = value.encode()
    b64 = base64.b64encode(raw).decode()
    return [value, b64, b64.rstrip("="), base64.urlsafe_b64encode(raw).decode().rstrip("="), raw.hex(), value[::-1]]


_RAN = re.compile(r"^(Ran \d+ tests?) in \d+(\.\d+)?s$", re.MULTILINE)
_ADDRESS = re.compile(r" at 0x[0-9a-fA-F]+")
_TMP = re.compile(r"/tmp/[^\s'\"():,]+")
_DURATION = re.compile(r"\(\d+(\.\d+)?s\)")


def normalise(text: str, workspace_alias: str, workspace: str) -> str:
    for prefix in sorted({workspace_alias, workspace}, key=len, reverse=True):
        text = text.replace(prefix + "/", "").replace(prefix, ".")
    text = _RAN.sub(r"\1", text)
    text = _ADDRESS.sub(" at 0x?", text)
    text = _DURATION.sub("", text)
    return _TMP.sub("<tmp>", text)


def excerpt(text: str) -> str:
    lines = [ln.rstrip() for ln in text.splitlines() if not ln.startswith(MARK)]
    while lines and not lines[0]:
        lines.pop(0)
    while lines and not lines[-1]:
        lines.pop()
    kept = lines[-LOG_LINES:]
    out = "\n".join(kept)
    if len(out) > LOG_CHARS:
        out = out[-LOG_CHARS:]
        out = out[out.find("\n") + 1 :] if "\n" in out else out
    if len(kept) < len(lines) or len(out) < len("\n".join(kept)):
        out = "[... earlier output cut ...]\n" + out
    return out


def _result_line(text: str) -> dict[str, Any] | None:
    found = None
    for line in text.splitlines():
        if line.startswith(MARK):
            try:
                found = json.loads(line[len(MARK) :])
            except json.JSONDecodeError:
                found = {"error": "the test process reported an unreadable result"}
    return found if isinstance(found, dict) else None


def run_job(job: CiJob) -> CiResult:
    root = Path(tempfile.mkdtemp(prefix="clawarena-ci-"))
    try:
        workspace = root / "workspace"
        workspace.mkdir()
        try:
            notes = materialise(job.files, workspace)
        except OSError as exc:  # a name this filesystem cannot hold
            return CiResult("error", 0, 0, 0, 0, [], f"the tree could not be written out: {exc.strerror}", "none", [])
        env = {"PATH": "/usr/local/bin:/usr/bin:/bin", "LANG": "C.UTF-8", "LC_ALL": "C.UTF-8", "PYTHONHASHSEED": "0",
               "PYTHONUNBUFFERED": "1", "PYTHONDONTWRITEBYTECODE": "1", "PYTHONUTF8": "1", "CI": "true", **job.env}  # fmt: skip
        limits = sandbox.Limits(time_s=job.time_limit_s, memory_bytes=job.memory_mb * 1024 * 1024)
        argv = [sandbox.interpreter(), "-s", "-B", "-u", "-c", RUNNER, job.start_dir, job.pattern]
        outcome = sandbox.run(workspace, argv, env, limits)
        return _result(job, outcome, notes, str(workspace))
    finally:
        shutil.rmtree(root, ignore_errors=True)


def _result(job: CiJob, outcome: sandbox.Outcome, notes: list[str], workspace: str) -> CiResult:
    def done(status: str, log: str, counts: dict[str, Any] | None = None, leaked: list[str] | None = None) -> CiResult:
        c = counts or {}
        return CiResult(status, int(c.get("tests_run", 0)), int(c.get("failures", 0)), int(c.get("errors", 0)),
                        int(c.get("skipped", 0)), sorted(str(t) for t in c.get("failing", [])), log, outcome.sandbox, leaked or [])  # fmt: skip

    if outcome.problem:
        return done("error", f"the CI job could not start: {outcome.problem}")
    if outcome.timed_out:  # what a killed job printed depends on timing: keep none of it
        return done("timeout", f"the CI job passed its time limit of {job.time_limit_s} s and was stopped")
    raw = outcome.output.decode("utf-8", "replace")
    leaked = sorted(name for name, value in job.secrets.items() if len(value) >= MIN_SECRET and any(e in raw for e in _encodings(value)))
    for value in sorted(job.secrets.values(), key=len, reverse=True):
        if len(value) >= MIN_SECRET:
            raw = raw.replace(value, "***")
    log = excerpt(normalise("\n".join([*notes, raw]), outcome.workspace_alias, workspace))
    data = _result_line(raw)
    if data is None:
        ended = f"the test process ended (exit code {outcome.returncode}) before reporting results"
        return done("error", f"{log}\n{ended}".strip(), leaked=leaked)
    if "error" in data:
        return done("error", f"{log}\n{data['error']}".strip(), leaked=leaked)
    if int(data.get("tests_run", 0)) == 0:
        return done("error", f"{log}\nno tests ran (start dir {job.start_dir!r}, pattern {job.pattern!r})".strip(), data, leaked)
    status = "passed" if not data.get("failing") and not data.get("failures") and not data.get("errors") else "failed"
    return done(status, log, data, leaked)
