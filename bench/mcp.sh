#!/usr/bin/env bash
# Warm round trip of `tusk mcp` over stdio, driven by the official Python MCP SDK
# (the venv at target/mcp-venv that tests/mcp/setup.sh installs).
# Targets: median <= 1.5 ms at concurrency 1 on the 365-issue store, and p99 <= 5x
# the median at concurrency 8 (issue 19; the machine's load is printed with them).
#
#   bench/mcp.sh [CALLS]     (default 300)
#
#   - one `tusk mcp` server, its store 1000 issues from ../shared/bench/gen_issues.py;
#   - the one-call program (hash-ref (payload (issue.ready)) "count") through
#     scheme_eval: 20 warm-up calls, then CALLS calls at concurrency 1 and CALLS at
#     concurrency 8 (bench/mcp_roundtrip.py); median and p99 latency (ms, as the
#     client sees it) and calls/s for each.
# Builds nothing: it needs target/release/tusk with the `mcp` subcommand (and says
# which cargo command to run when it is missing). Respects CARGO_TARGET_DIR and
# SHARED (default ../shared); TUSK=path benches another binary (e.g. target/debug/tusk).
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
SHARED=${SHARED:-$ROOT/../shared}
CALLS=${1:-300}
TARGET_DIR=${CARGO_TARGET_DIR:-$ROOT/target}
BIN=${TUSK:-$TARGET_DIR/release/tusk}

if [ ! -x "$BIN" ]; then
    echo "bench/mcp.sh: $BIN is missing; build it first: (cd $ROOT && cargo build --release)" >&2
    exit 1
fi
if ! "$BIN" mcp --help >/dev/null 2>&1; then
    echo "bench/mcp.sh: $BIN has no \`mcp\` subcommand (an older build); rebuild it: (cd $ROOT && cargo build --release)" >&2
    exit 1
fi
GEN="$SHARED/bench/gen_issues.py"
if [ ! -f "$GEN" ]; then
    echo "bench/mcp.sh: $GEN not found (set SHARED to the directory holding bench/gen_issues.py)" >&2
    exit 1
fi

bash "$ROOT/tests/mcp/setup.sh"
PY="$ROOT/target/mcp-venv/bin/python"

TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
mkdir -p "$TMP/empty/.premath" "$TMP/store/.premath" "$TMP/store365/.premath"
python3 "$GEN" 1000 "$TMP/store/.premath/issues.jsonl" >/dev/null
python3 "$GEN" 365 "$TMP/store365/.premath/issues.jsonl" >/dev/null

echo "binary: $BIN"
echo "uptime: $(uptime)"
echo "== warm MCP round trip: scheme_eval of a one-call program over stdio, official Python SDK, empty store"
"$PY" "$ROOT/bench/mcp_roundtrip.py" "$BIN" "$TMP/empty" "$CALLS"
echo "== the same over 365 issues (the target's store)"
"$PY" "$ROOT/bench/mcp_roundtrip.py" "$BIN" "$TMP/store365" "$CALLS"
echo "== the same over 1000 issues (the call reads the store and returns a 185-item payload in its envelope)"
"$PY" "$ROOT/bench/mcp_roundtrip.py" "$BIN" "$TMP/store" "$CALLS"
echo "uptime: $(uptime)"
