#!/usr/bin/env bash
# Whole-process benchmarks of the harness artifacts.
#
#   bench/harness.sh [ROWS]      (default 1000000)
#
# Generates ROWS trajectory rows with ../shared/bench/gen_trajectory.py into a temp
# directory, then times with hyperfine (installed from Debian's packages when
# missing and possible; otherwise a plain timing loop):
#   - `tusk harness-trajectory query` in each mode over the ROWS rows,
#   - `tusk harness-kpi` over the same file,
#   - `tusk harness-trajectory append` onto that file (whole process per row),
# and finally the in-process throughput of the evaluator's TrajectoryWriter
# (`cargo bench --bench trajectory_writer`). Respects CARGO_TARGET_DIR.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
SHARED=${SHARED:-$ROOT/../shared}
ROWS=${1:-1000000}
TARGET_DIR=${CARGO_TARGET_DIR:-$ROOT/target}
GEN="$SHARED/bench/gen_trajectory.py"

[ -f "$GEN" ] || { echo "bench: $GEN not found (set SHARED=…)" >&2; exit 2; }

(cd "$ROOT" && cargo build --release --quiet)
BIN="$TARGET_DIR/release/tusk"

# shellcheck source=bench/lib.sh
. "$ROOT/bench/lib.sh"
ensure_hyperfine

TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
TRAJ="$TMP/trajectory.jsonl"
echo "== generating $ROWS rows"
python3 "$GEN" "$ROWS" "$TRAJ"
ls -l "$TRAJ" | awk '{printf "   %s bytes\n", $5}'
# Warm the page cache the way a real reader finds a recently written file.
cat "$TRAJ" >/dev/null

echo "== query and kpi over $ROWS rows (whole process)"
if command -v hyperfine >/dev/null 2>&1; then
    hyperfine -N --warmup 1 --runs 10 --style basic \
        -n "query latest" "$BIN harness-trajectory query --path $TRAJ --mode latest --json" \
        -n "query failed" "$BIN harness-trajectory query --path $TRAJ --mode failed --json" \
        -n "query retry-needed" "$BIN harness-trajectory query --path $TRAJ --mode retry-needed --json" \
        -n "kpi" "$BIN harness-kpi --path $TRAJ --now 2026-03-01T00:00:00Z --window-hours 720 --json"
else
    for mode in latest failed retry-needed; do
        time_loop "query $mode" 5 "$BIN" harness-trajectory query --path "$TRAJ" --mode "$mode" --json
    done
    time_loop "kpi" 5 "$BIN" harness-kpi --path "$TRAJ" --now 2026-03-01T00:00:00Z --window-hours 720 --json
fi

echo "== append onto the $ROWS-row file (whole process per row)"
APPEND=(harness-trajectory append --path "$TRAJ" --step-id bench-append --action verify.run
    --result-class accepted --issue-id bd-1 --witness-ref host-effect://bench/1
    --finished-at 2026-03-01T00:00:00Z --json)
if command -v hyperfine >/dev/null 2>&1; then
    hyperfine -N --warmup 5 --runs 300 --style basic -n "append" "$BIN ${APPEND[*]}"
else
    time_loop "append" 300 "$BIN" "${APPEND[@]}"
fi
# Every appended row is whole: the file still reads cleanly.
"$BIN" harness-trajectory query --path "$TRAJ" --limit 0 --json | grep -q '"totalCount"'

echo "== in-process TrajectoryWriter throughput"
(cd "$ROOT" && cargo bench --quiet --bench trajectory_writer)
