#!/usr/bin/env bash
# Install bubblewrap (`bwrap`), the OS sandbox of the SWE service's CI job.
#
# Idempotent: when `bwrap` is already on PATH it only prints the version. Otherwise it runs
# `apt-get install -y bubblewrap` (Debian/Ubuntu; with sudo when not root) and prints the
# version. When it cannot install (no apt, no root, no network), it says so and exits 0:
# CI jobs then fall back to `unshare --net` (or plain limits) and record which sandbox ran.
# About 10 seconds on Debian 12 (bubblewrap 0.8.0).
set -uo pipefail

say() { echo "install-bubblewrap: $*"; }

if command -v bwrap >/dev/null 2>&1; then
  say "already installed: $(bwrap --version)"
  exit 0
fi

if ! command -v apt-get >/dev/null 2>&1; then
  say "apt-get is not available: install bubblewrap with your package manager; CI jobs will use unshare or no OS sandbox meanwhile"
  exit 0
fi

SUDO=()
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
    SUDO=(sudo -n)
  else
    say "not root and no passwordless sudo: run 'apt-get install -y bubblewrap' as root; CI jobs will use unshare or no OS sandbox meanwhile"
    exit 0
  fi
fi

export DEBIAN_FRONTEND=noninteractive
if ! "${SUDO[@]}" apt-get install -y -q bubblewrap >/dev/null 2>&1; then
  # The package lists may be missing or stale on a fresh machine.
  "${SUDO[@]}" apt-get update -q >/dev/null 2>&1 || true
  if ! "${SUDO[@]}" apt-get install -y -q bubblewrap >/dev/null 2>&1; then
    say "apt-get install bubblewrap failed (offline, or no such package here); CI jobs will use unshare or no OS sandbox"
    exit 0
  fi
fi

if command -v bwrap >/dev/null 2>&1; then
  say "installed: $(bwrap --version)"
else
  say "bubblewrap was installed but bwrap is not on PATH"
fi
exit 0
