"""Run one command over a throwaway workspace: no network, limits, an empty environment, an OS sandbox.

The strongest sandbox this machine offers is used, probed once per process:

- `bubblewrap`: `bwrap` as the unprivileged uid 65534 (`setpriv` when we are root, so nothing
  maps back to host root), binding only /usr, /etc, /lib* (and /bin, /sbin as the links they
  are), the interpreter's prefix when it lives outside /usr, and the workspace (read-write,
  chowned to 65534) at /tmp/workspace under a private tmpfs /tmp; `--unshare-all` (own network
  namespace with only loopback, own pids), `--die-with-parent --new-session --clearenv
  --cap-drop ALL`.
- `unshare`: `unshare --net --pid --fork --kill-child --mount-proc` (with `--user
  --map-root-user` when we are not root), then `setpriv` to 65534 when we are root. No
  network, but the host filesystem stays readable as far as uid 65534 may read it.
- `none`: only the limits and the cleared environment.

Every kind runs under `prlimit` (address space, file size, processes, no core files) and a
wall-clock limit that kills the whole process group. `CLAWARENA_SWE_SANDBOX` (auto, bubblewrap,
unshare, none) forces a kind, e.g. to test the fallbacks; a forced kind that cannot start is
reported as a problem, never silently downgraded.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
from dataclasses import dataclass
from pathlib import Path

KINDS = ("bubblewrap", "unshare", "none")
OVERRIDE_ENV = "CLAWARENA_SWE_SANDBOX"
NOBODY = 65534
INSIDE = "/tmp/workspace"  # where a bubblewrap job sees its workspace
_HOST_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
_TOP_DIRS = ("/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")


@dataclass(frozen=True)
class Limits:
    time_s: float
    memory_bytes: int
    file_bytes: int = 16 * 1024 * 1024
    processes: int = 128  # per uid: concurrent jobs of uid 65534 share it
    output_bytes: int = 256 * 1024  # the tail of the output that is kept


@dataclass(frozen=True)
class Outcome:
    sandbox: str  # the kind that ran the job (or was asked for, when it could not start)
    returncode: int | None
    timed_out: bool
    output: bytes  # stdout and stderr interleaved, the last `output_bytes`
    workspace_alias: str  # the workspace's path as the job saw it (logs strip it)
    problem: str = ""  # the sandbox could not start: the job did not run


def interpreter() -> str:
    """Debian's /usr/bin/python3 (readable by an unprivileged uid), else the running interpreter."""
    debian = "/usr/bin/python3"
    if os.path.isfile(debian) and os.access(debian, os.X_OK):
        return debian
    return os.path.realpath(sys.executable)


def _is_root() -> bool:
    return hasattr(os, "geteuid") and os.geteuid() == 0


def _drops_privileges() -> bool:
    return _is_root() and shutil.which("setpriv") is not None


def _setpriv() -> list[str]:
    return [shutil.which("setpriv") or "setpriv", "--reuid", str(NOBODY), "--regid", str(NOBODY), "--clear-groups"]


def _prefix_binds(program: str) -> list[str]:
    """The interpreter's installation, bound read-only, when it does not live under /usr."""
    real = os.path.realpath(program)
    if real.startswith("/usr/"):
        return []
    prefix = os.path.realpath(sys.base_prefix) if real == os.path.realpath(sys.executable) else os.path.dirname(os.path.dirname(real))
    return ["--ro-bind", prefix, prefix]


def top_dir_binds() -> list[str]:
    """bwrap arguments for /bin, /lib, ...: the links they are on merged-/usr systems, else read-only binds."""
    args: list[str] = []
    for top in _TOP_DIRS:
        if os.path.islink(top):
            args += ["--symlink", os.readlink(top), top]
        elif os.path.isdir(top):
            args += ["--ro-bind", top, top]
    return args


def _bwrap(workspace: Path, argv: list[str], env: dict[str, str]) -> list[str]:
    args = [shutil.which("bwrap") or "bwrap", "--ro-bind", "/usr", "/usr", "--ro-bind", "/etc", "/etc", *top_dir_binds()]
    args += _prefix_binds(argv[0])
    args += ["--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp", "--dir", INSIDE, "--bind", str(workspace), INSIDE,
             "--chdir", INSIDE, "--unshare-all", "--die-with-parent", "--new-session", "--clearenv",
             "--hostname", "sandbox", "--cap-drop", "ALL"]  # fmt: skip
    for key in sorted(env):
        args += ["--setenv", key, env[key]]
    args += ["--", *argv]
    return (_setpriv() + ["--"] if _drops_privileges() else []) + args


def _unshare(argv: list[str]) -> list[str]:
    base = [shutil.which("unshare") or "unshare"]
    if not _is_root():
        base += ["--user", "--map-root-user"]
    base += ["--net", "--pid", "--fork", "--kill-child", "--mount-proc", "--"]
    return base + (_setpriv() + ["--"] if _drops_privileges() else []) + argv


def _limits(limits: Limits) -> list[str]:
    prlimit = shutil.which("prlimit")
    if prlimit is None:
        return []
    return [prlimit, f"--as={limits.memory_bytes}", f"--fsize={limits.file_bytes}", f"--nproc={limits.processes}", "--core=0", "--"]


def _preexec(limits: Limits):
    """Without prlimit: the same limits set in the child before exec."""
    if shutil.which("prlimit") is not None:
        return None
    import resource

    def apply() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (limits.memory_bytes, limits.memory_bytes))
        resource.setrlimit(resource.RLIMIT_FSIZE, (limits.file_bytes, limits.file_bytes))
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        if hasattr(resource, "RLIMIT_NPROC"):
            resource.setrlimit(resource.RLIMIT_NPROC, (limits.processes, limits.processes))

    return apply


def _chown_tree(root: Path) -> None:
    for dirpath, dirnames, filenames in os.walk(root):
        os.lchown(dirpath, NOBODY, NOBODY)
        for name in dirnames + filenames:
            os.lchown(os.path.join(dirpath, name), NOBODY, NOBODY)


def _execute(kind: str, workspace: Path, argv: list[str], env: dict[str, str], limits: Limits) -> Outcome:
    if _drops_privileges():
        _chown_tree(workspace)
        os.chmod(workspace.parent, 0o711)  # uid 65534 must reach the workspace, nothing else in its parent
    env = {**env, "HOME": INSIDE if kind == "bubblewrap" else str(workspace)}
    if kind == "bubblewrap":
        command, popen_env, cwd, alias = _bwrap(workspace, argv, env), {"PATH": _HOST_PATH}, None, INSIDE
    elif kind == "unshare":
        command, popen_env, cwd, alias = _unshare(argv), dict(env), str(workspace), str(workspace)
    else:
        command = (_setpriv() + ["--"] if _drops_privileges() else []) + argv
        popen_env, cwd, alias = dict(env), str(workspace), str(workspace)
    command = _limits(limits) + command
    with tempfile.TemporaryFile() as out:
        try:
            proc = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT, env=popen_env,
                                    cwd=cwd, start_new_session=True, close_fds=True, preexec_fn=_preexec(limits))  # fmt: skip
        except OSError as exc:
            return Outcome(kind, None, False, b"", alias, problem=f"{kind} could not start: {exc}")
        timed_out = False
        try:
            proc.wait(timeout=limits.time_s)
        except subprocess.TimeoutExpired:
            timed_out = True
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            proc.wait()
        size = out.seek(0, os.SEEK_END)
        out.seek(max(0, size - limits.output_bytes))
        output = out.read()
    return Outcome(kind, proc.returncode, timed_out, output, alias)


_probed: dict[str, bool] = {}
_probe_lock = threading.Lock()


def _works(kind: str) -> bool:
    """Whether `kind` can run the interpreter on this machine (bwrap may be installed but refused
    user namespaces, as in some containers): probed once per process."""
    with _probe_lock:
        if kind not in _probed:
            tool = {"bubblewrap": "bwrap", "unshare": "unshare"}.get(kind)
            ok = tool is None or shutil.which(tool) is not None
            if ok and tool is not None:
                root = Path(tempfile.mkdtemp(prefix="clawarena-probe-"))
                try:
                    (root / "workspace").mkdir()
                    result = _execute(kind, root / "workspace", [interpreter(), "-c", "pass"], {"PATH": "/usr/bin:/bin"}, Limits(time_s=15, memory_bytes=1 << 30))
                    ok = result.returncode == 0 and not result.problem
                finally:
                    shutil.rmtree(root, ignore_errors=True)
            _probed[kind] = ok
        return _probed[kind]


def choose() -> tuple[str, str]:
    """(the sandbox kind to use, a problem when a forced kind cannot run here)."""
    wanted = os.environ.get(OVERRIDE_ENV, "auto").strip().lower() or "auto"
    if wanted != "auto":
        if wanted not in KINDS:
            return wanted, f"{OVERRIDE_ENV}={wanted!r} is not one of auto, {', '.join(KINDS)}"
        return (wanted, "") if _works(wanted) else (wanted, f"sandbox {wanted} is not available on this machine")
    return next(k for k in KINDS if _works(k)), ""


def run(workspace: Path, argv: list[str], env: dict[str, str], limits: Limits) -> Outcome:
    """Run `argv` (argv[0]: an absolute interpreter path) with `workspace` as its working folder.

    `env` is the job's entire environment (HOME is set to the workspace). The workspace should live in a folder of its own
    (its parent is opened to uid 65534 when privileges are dropped).
    """
    kind, problem = choose()
    if problem:
        return Outcome(kind, None, False, b"", str(workspace), problem=problem)
    return _execute(kind, workspace, argv, env, limits)
