#!/usr/bin/env bash
# Install Debian's Chromium (/usr/bin/chromium), the browser the report's and the viewer's tests drive through
# Playwright's `executable_path` (no `playwright install`, no browser download by Playwright).
#
# Idempotent: when /usr/bin/chromium exists it only prints the version. Otherwise it runs
# `apt-get install -y chromium` (Debian/Ubuntu; with sudo when not root). When it cannot install
# (no apt, no root, no network), it says so and exits 0: the browser test then skips with that reason.
# 40 to 60 seconds on Debian 12 (about 113 MB downloaded, +421 MB on disk).
set -uo pipefail

say() { echo "install-chromium: $*"; }
CHROMIUM=/usr/bin/chromium

version() { "$CHROMIUM" --version 2>/dev/null | grep -i chromium || echo "(version unknown)"; }

if [ -x "$CHROMIUM" ]; then
  say "already installed: $(version)"
  exit 0
fi

if ! command -v apt-get >/dev/null 2>&1; then
  say "apt-get is not available: install chromium at $CHROMIUM with your package manager; the browser tests will skip meanwhile"
  exit 0
fi

SUDO=()
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
    SUDO=(sudo -n)
  else
    say "not root and no passwordless sudo: run 'apt-get install -y chromium' as root; the browser tests will skip meanwhile"
    exit 0
  fi
fi

export DEBIAN_FRONTEND=noninteractive
if ! "${SUDO[@]}" apt-get install -y -q chromium >/dev/null 2>&1; then
  # The package lists may be missing or stale on a fresh machine.
  "${SUDO[@]}" apt-get update -q >/dev/null 2>&1 || true
  if ! "${SUDO[@]}" apt-get install -y -q chromium >/dev/null 2>&1; then
    say "apt-get install chromium failed (offline, or no such package here); the browser tests will skip"
    exit 0
  fi
fi

if [ -x "$CHROMIUM" ]; then
  say "installed: $(version)"
else
  say "chromium was installed but $CHROMIUM is missing; the browser tests will skip"
fi
exit 0
