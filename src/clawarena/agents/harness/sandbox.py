"""The OS sandbox a harness runs in: bubblewrap, an unprivileged uid, a private folder, and
network only to its model and MCP endpoints.

Inside, the harness sees:
- `/usr` (and the /bin, /lib links), a few files of `/etc` (certificates, passwd), read-only;
- the folders of its install (`HarnessInstall.binds`), read-only, at their own paths;
- its trial folder at `/agent` (home, state, workspace, tmp), writable, and a private /tmp;
- new ipc, pid, uts, cgroup and network namespaces: nothing but loopback, where forward.py
  listens on the model and MCP ports and relays to the host's proxies over unix sockets
  (`/run/clawarena`), the only path out.

Run by root, bubblewrap itself keeps root just long enough to mount that view, then `setpriv`
drops to uid 65534 with no capabilities before anything else runs: the binds need no host
permissions for uid 65534 beyond the files themselves, and nothing maps back to root (a user
namespace would map the sandbox's uid to root's). Run by anyone else, bubblewrap's user
namespace does the same for that user.
"""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass, field
from pathlib import Path

from clawarena.services.swe.sandbox import top_dir_binds

NOBODY = 65534
INSIDE = "/agent"  # the trial folder, as the harness sees it
SOCKETS = "/run/clawarena"  # the host's proxy sockets
FORWARDER = "/run/clawarena-forward.py"
SYSTEM_PYTHON = "/usr/bin/python3"  # runs forward.py inside; the project's interpreter may live where uid 65534 cannot read
MODEL_PORT = 4000  # the sandbox has its own loopback, so fixed ports cannot clash
MCP_PORT = 4001
ETC_FILES = ("/etc/ssl", "/etc/ca-certificates", "/etc/passwd", "/etc/group", "/etc/hosts", "/etc/localtime", "/etc/ld.so.cache", "/etc/nsswitch.conf")
_FORWARD_PY = Path(__file__).with_name("forward.py")


@dataclass(frozen=True)
class SandboxSpec:
    """One sandboxed run: the command, its environment and what it may see."""

    argv: list[str]
    env: dict[str, str]
    root: Path  # host folder bound at INSIDE
    sockets: Path  # host folder holding model.sock and mcp.sock, bound at SOCKETS
    binds: list[str] = field(default_factory=list)  # read-only, at the same path
    path: list[str] = field(default_factory=list)  # PATH entries before the system's


def _is_root() -> bool:
    return hasattr(os, "geteuid") and os.geteuid() == 0


def problem() -> str:
    """Why no sandbox can start here, or ''."""
    if shutil.which("bwrap") is None:
        return "bubblewrap (bwrap) is not installed: run scripts/install-bubblewrap.sh (Debian: apt-get install bubblewrap)"
    if not os.access(SYSTEM_PYTHON, os.X_OK):
        return f"{SYSTEM_PYTHON} is missing: the sandbox's forwarder runs on the system's Python 3"
    if _is_root() and not os.access("/usr/bin/setpriv", os.X_OK):
        return "/usr/bin/setpriv (util-linux) is missing: as root the sandbox drops to uid 65534 with it"
    return ""


def prepare(root: Path, sockets: Path) -> None:
    """Make the trial folder the sandbox's own (uid 65534 when we are root) and the sockets reachable."""
    os.chmod(sockets, 0o755)
    if not _is_root():
        return
    for dirpath, dirnames, filenames in os.walk(root):
        os.lchown(dirpath, NOBODY, NOBODY)
        for name in dirnames + filenames:
            os.lchown(os.path.join(dirpath, name), NOBODY, NOBODY)


def _parent_dirs(paths: list[str]) -> list[str]:
    """Mount points' parents made world-traversable: bubblewrap would make them 0700 as root,
    and uid 65534 could not reach what is bound below them."""
    parents: dict[str, None] = {}
    for path in paths:
        for parent in reversed(Path(path).parents[:-1]):  # outermost first, without '/'
            parents.setdefault(parent.as_posix(), None)
    args: list[str] = []
    for parent in parents:
        if parent not in ("/usr", "/tmp", "/dev", "/proc") and not parent.startswith(("/usr/", "/dev/", "/proc/")):
            args += ["--perms", "0755", "--dir", parent]
    return args


def command(spec: SandboxSpec) -> list[str]:
    """The full argv: bwrap, the forwarder, the harness."""
    etc = [e for e in ETC_FILES if os.path.exists(e)]
    binds = list(dict.fromkeys(spec.binds))
    # the private /tmp first: mounted after the binds, it would hide an install that lives under /tmp
    args = [shutil.which("bwrap") or "bwrap", "--ro-bind", "/usr", "/usr", *top_dir_binds(), "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp"]
    args += _parent_dirs([*etc, *binds, SOCKETS, FORWARDER])
    for path in [*etc, *binds]:
        args += ["--ro-bind", path, path]
    args += ["--bind", str(spec.root), INSIDE, "--bind", str(spec.sockets), SOCKETS,
             "--ro-bind", str(_FORWARD_PY), FORWARDER, "--chdir", f"{INSIDE}/workspace"]  # fmt: skip
    if _is_root():
        args += ["--unshare-ipc", "--unshare-pid", "--unshare-net", "--unshare-uts", "--unshare-cgroup-try"]
    else:
        args += ["--unshare-all", "--cap-drop", "ALL"]
    args += ["--die-with-parent", "--new-session", "--clearenv", "--hostname", "sandbox"]
    env = {"PATH": ":".join([*spec.path, "/usr/local/bin", "/usr/bin", "/bin"]), "HOME": f"{INSIDE}/home",
           "TMPDIR": f"{INSIDE}/tmp", "LANG": "C.UTF-8", **spec.env}  # fmt: skip
    for key in sorted(env):
        args += ["--setenv", key, env[key]]
    args.append("--")
    if _is_root():
        args += ["/usr/bin/setpriv", "--reuid", str(NOBODY), "--regid", str(NOBODY), "--clear-groups",
                 "--inh-caps=-all", "--bounding-set=-all", "--no-new-privs", "--"]  # fmt: skip
    forward = ["--listen", f"{MODEL_PORT}={SOCKETS}/model.sock", "--listen", f"{MCP_PORT}={SOCKETS}/mcp.sock"]
    return [*args, SYSTEM_PYTHON, FORWARDER, *forward, "--", *spec.argv]


# ---- the host touching what the sandbox wrote ---------------------------------------------------
# The trial folder belongs to the harness while it runs: any name in it may be a symlink to a host
# path. The host (often root) must never follow one, whether it reads or writes there.
def files_in(folder: Path, name: str) -> list[Path]:
    """Regular files under `folder` whose name matches the glob `name`, found without following
    a symlink (to a file or a folder), in sorted order."""
    found: list[Path] = []
    if folder.is_symlink() or not folder.is_dir():
        return found
    for dirpath, dirnames, filenames in os.walk(folder, followlinks=False):
        dirnames[:] = [d for d in dirnames if not os.path.islink(os.path.join(dirpath, d))]
        for filename in filenames:
            path = Path(dirpath) / filename
            if path.match(name) and path.is_file() and not path.is_symlink():
                found.append(path)
    return sorted(found)


def read_text(path: Path, limit: int = 64 * 1024 * 1024) -> str:
    """A file the sandbox wrote, read without following a symlink (O_NOFOLLOW) and at most `limit` bytes."""
    fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW)
    with os.fdopen(fd, "rb") as f:
        return f.read(limit).decode("utf-8", errors="replace")


def write_text(path: Path, text: str) -> None:
    """Write a new file into a folder the sandbox had: never through a name it left behind."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8", errors="replace") as f:
        f.write(text)
