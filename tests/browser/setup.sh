#!/usr/bin/env bash
# Installs what tests/it/observe_browser.rs drives `tusk observe` with:
#   - Debian's `chromium` (at /usr/bin/chromium), from the OS packages when missing;
#   - Playwright for Python, pinned in tests/browser/requirements.txt, in a venv
#     at target/browser-venv. Playwright drives the system browser
#     (executable_path); it never downloads one (no `playwright install`).
# Idempotent: returns at once when both are in place and the pin has not changed.
# Exits non-zero with a message on any failure.
#
# Environment: PYTHON (interpreter for the venv, default python3).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
venv="$root/target/browser-venv"
python="${PYTHON:-python3}"

die() {
  echo "tests/browser/setup.sh: $*" >&2
  exit 1
}

# ---------------------------------------------------------------- Chromium
if [ ! -x /usr/bin/chromium ]; then
  command -v apt-get >/dev/null 2>&1 || die "/usr/bin/chromium is missing and apt-get is not available (install Debian's chromium package)"
  echo "chromium: installing Debian's chromium package"
  if [ "$(id -u)" = 0 ]; then sudo=""; else sudo="sudo"; fi
  $sudo apt-get update -qq || die "apt-get update failed"
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq chromium >/dev/null \
    || die "apt-get install chromium failed"
  [ -x /usr/bin/chromium ] || die "chromium installed, but /usr/bin/chromium is not there"
fi
echo "chromium: $(/usr/bin/chromium --version 2>/dev/null || echo 'present')"

# ---------------------------------------------------------------- Playwright
pin="$(sed -n 's/^playwright==\([^[:space:]]*\).*/\1/p' "$here/requirements.txt")"
[ -n "$pin" ] || die "no 'playwright==VERSION' pin in tests/browser/requirements.txt"
stamp="$(sha256sum "$here/requirements.txt" | cut -d' ' -f1)"

installed() {
  [ -x "$venv/bin/python" ] || return 1
  [ "$(cat "$venv/.tusk-stamp" 2>/dev/null)" = "$stamp" ] || return 1
  local v
  v="$("$venv/bin/python" -c 'import importlib.metadata as m; print(m.version("playwright"))' 2>/dev/null)" || return 1
  [ "$v" = "$pin" ]
}

if installed; then
  echo "python: playwright $pin already installed in target/browser-venv"
else
  command -v "$python" >/dev/null 2>&1 || die "$python not found (set PYTHON=/path/to/python3)"
  echo "python: creating target/browser-venv and installing playwright==$pin"
  mkdir -p "$root/target"
  if [ ! -x "$venv/bin/python" ]; then
    "$python" -m venv "$venv" || die "could not create the venv at $venv (apt-get install python3-venv)"
  fi
  "$venv/bin/python" -m pip install --disable-pip-version-check --quiet -r "$here/requirements.txt" \
    || die "pip install -r tests/browser/requirements.txt failed (is PyPI reachable?)"
  v="$("$venv/bin/python" -c 'import importlib.metadata as m; print(m.version("playwright"))')" \
    || die "playwright is not importable from the venv after installing it"
  [ "$v" = "$pin" ] || die "installed playwright $v, but requirements.txt pins $pin"
  echo "$stamp" >"$venv/.tusk-stamp"
fi
echo "browser test ready: chromium at /usr/bin/chromium, python playwright $pin"
