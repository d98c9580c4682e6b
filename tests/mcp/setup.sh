#!/usr/bin/env bash
# Installs the MCP client SDKs that tests/it/mcp_clients.rs drives `tusk mcp` with:
#   - Python: a venv at target/mcp-venv with tests/mcp/requirements.txt (pinned mcp)
#   - Node:   tests/mcp/node_modules from tests/mcp/package-lock.json (npm ci)
# Idempotent: when the installed versions match the pins (and the pin files have not
# changed since the last install) it returns at once. Exits non-zero with a message on
# any failure.
#
# Environment: PYTHON (interpreter for the venv, default python3), NPM (default npm).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
venv="$root/target/mcp-venv"
python="${PYTHON:-python3}"
npm="${NPM:-npm}"

die() {
  echo "tests/mcp/setup.sh: $*" >&2
  exit 1
}

# A content hash of the pin files, so an edited pin triggers a reinstall.
stamp_of() {
  if command -v sha256sum >/dev/null 2>&1; then
    sha256sum "$@" | sha256sum | cut -d' ' -f1
  else
    cat "$@" | cksum | tr ' ' '_'
  fi
}

# ---------------------------------------------------------------- Python
py_pin="$(sed -n 's/^mcp==\([^[:space:]]*\).*/\1/p' "$here/requirements.txt")"
[ -n "$py_pin" ] || die "no 'mcp==VERSION' pin in tests/mcp/requirements.txt"
py_stamp="$(stamp_of "$here/requirements.txt")"

py_installed() {
  [ -x "$venv/bin/python" ] || return 1
  [ "$(cat "$venv/.tusk-stamp" 2>/dev/null)" = "$py_stamp" ] || return 1
  local v
  v="$("$venv/bin/python" -c 'import importlib.metadata as m; print(m.version("mcp"))' 2>/dev/null)" || return 1
  [ "$v" = "$py_pin" ]
}

if py_installed; then
  echo "python: mcp $py_pin already installed in target/mcp-venv"
else
  command -v "$python" >/dev/null 2>&1 || die "$python not found (set PYTHON=/path/to/python3.10+)"
  "$python" -c 'import sys; sys.exit(0 if sys.version_info >= (3, 10) else 1)' \
    || die "mcp $py_pin needs Python >= 3.10; $python is $("$python" --version 2>&1)"
  echo "python: creating target/mcp-venv and installing mcp==$py_pin"
  mkdir -p "$root/target"
  if [ ! -x "$venv/bin/python" ]; then
    "$python" -m venv "$venv" || die "could not create the venv at $venv (is the venv module installed? apt-get install python3-venv)"
  fi
  "$venv/bin/python" -m pip install --disable-pip-version-check --quiet -r "$here/requirements.txt" \
    || die "pip install -r tests/mcp/requirements.txt failed (is PyPI reachable?)"
  v="$("$venv/bin/python" -c 'import importlib.metadata as m; print(m.version("mcp"))')" \
    || die "mcp is not importable from the venv after installing it"
  [ "$v" = "$py_pin" ] || die "installed mcp $v, but requirements.txt pins $py_pin"
  echo "$py_stamp" >"$venv/.tusk-stamp"
fi

# ---------------------------------------------------------------- Node
command -v node >/dev/null 2>&1 || die "node not found on PATH (the TypeScript client needs Node.js >= 18)"
node -e 'process.exit(Number(process.versions.node.split(".")[0]) >= 18 ? 0 : 1)' \
  || die "Node.js >= 18 is needed; node is $(node --version)"
ts_pin="$(node -e 'console.log(require(process.argv[1]).dependencies["@modelcontextprotocol/sdk"])' "$here/package.json")" \
  || die "cannot read the SDK pin from tests/mcp/package.json"
ts_stamp="$(stamp_of "$here/package.json" "$here/package-lock.json")"
sdk_json="$here/node_modules/@modelcontextprotocol/sdk/package.json"

ts_installed() {
  [ -f "$sdk_json" ] || return 1
  [ "$(cat "$here/node_modules/.tusk-stamp" 2>/dev/null)" = "$ts_stamp" ] || return 1
  [ "$(node -e 'console.log(require(process.argv[1]).version)' "$sdk_json" 2>/dev/null)" = "$ts_pin" ]
}

if ts_installed; then
  echo "node: @modelcontextprotocol/sdk $ts_pin already installed in tests/mcp/node_modules"
else
  command -v "$npm" >/dev/null 2>&1 || die "$npm not found on PATH"
  echo "node: npm ci in tests/mcp (@modelcontextprotocol/sdk $ts_pin)"
  (cd "$here" && "$npm" ci --no-audit --no-fund --loglevel=error) \
    || die "npm ci in tests/mcp failed (is the npm registry reachable? is package-lock.json in sync with package.json?)"
  v="$(node -e 'console.log(require(process.argv[1]).version)' "$sdk_json")" \
    || die "@modelcontextprotocol/sdk is missing from node_modules after npm ci"
  [ "$v" = "$ts_pin" ] || die "installed @modelcontextprotocol/sdk $v, but package.json pins $ts_pin"
  echo "$ts_stamp" >"$here/node_modules/.tusk-stamp"
fi

echo "MCP client SDKs ready: python mcp $py_pin, node @modelcontextprotocol/sdk $ts_pin"
