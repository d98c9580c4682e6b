#!/usr/bin/env bash
# tusk against the reference, premath, on every shared measure (issue 25):
# cold eval, the join check, issue ready and claim at 100k issues, trajectory
# query and append at 1M rows, and the warm MCP round trip. Interleaved runs,
# medians and the ratio tusk/premath with the target (bench/compare.py).
#
#   bench/compare.sh PREMATH_BIN [ROUNDS]     (ROUNDS default 15)
#
# PREMATH_BIN is premath built from its public source
# (`cargo build --release -p premath-cli` in a clone of workingdoge/premath);
# its checkout (for the control-plane contract scheme-eval reads) is found
# from the binary's path, or given as PREMATH_SRC. Builds tusk (release).
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
SHARED=${SHARED:-$ROOT/../shared}
PREMATH=${1:?usage: bench/compare.sh PREMATH_BIN [ROUNDS]}
ROUNDS=${2:-15}
PREMATH=$(cd "$(dirname "$PREMATH")" && pwd)/$(basename "$PREMATH")
PREMATH_SRC=${PREMATH_SRC:-$(cd "$(dirname "$PREMATH")/../.." && pwd)}
[ -f "$PREMATH_SRC/specs/premath/draft/CONTROL-PLANE-CONTRACT.json" ] \
    || { echo "PREMATH_SRC=$PREMATH_SRC is not a premath checkout" >&2; exit 2; }
TARGET_DIR=${CARGO_TARGET_DIR:-$ROOT/target}
(cd "$ROOT" && cargo build --release --quiet)

WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
python3 "$SHARED/bench/gen_issues.py" 100000 "$WORK/issues-100k.jsonl" >/dev/null
python3 "$SHARED/bench/gen_trajectory.py" 1000000 "$WORK/trajectory-1m.jsonl" >/dev/null
echo "premath: $("$PREMATH" --version 2>/dev/null || echo "$PREMATH")  tusk: $("$TARGET_DIR/release/tusk" --version)"
echo "uptime: $(uptime)"
GEN_ISSUES="$SHARED/bench/gen_issues.py" python3 "$ROOT/bench/compare.py" \
    "$TARGET_DIR/release/tusk" "$PREMATH" "$PREMATH_SRC" "$WORK" "$ROUNDS"
echo "uptime: $(uptime)"
