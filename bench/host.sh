#!/usr/bin/env bash
# Benchmarks of the host core and the sandbox's process isolation.
# Targets: cold <= 20 ms whole-process (sandbox v2; against premath, see
# bench/compare.sh); warm per-program p50 <= 0.5 ms and p99 <= 1.5 ms (the
# paced run: spares are made between runs); >= 60,000 host calls/s in one
# program; replay >= 60,000 recorded calls/s over many short runs (issue
# "fast paths").
#
#   bench/host.sh [PROGRAMS] [CALLS]     (defaults 2000 and 200000)
#
#   - cold: `tusk eval` of a one-call program, process start to exit
#     (hyperfine when available, installed from Debian's packages when possible;
#     otherwise a plain timing loop), against a store of 1000 issues from
#     ../shared/bench/gen_issues.py;
#   - warm: PROGRAMS one-call programs run by one in-process Host;
#   - throughput: one program making CALLS calls to a trivial read action;
#   - replay: a recorded log of 100,000 calls replayed and checked.
# The last three are `cargo bench --bench host` and `cargo bench --bench replay`. Respects CARGO_TARGET_DIR.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
SHARED=${SHARED:-$ROOT/../shared}
PROGRAMS=${1:-2000}
CALLS=${2:-200000}
TARGET_DIR=${CARGO_TARGET_DIR:-$ROOT/target}

(cd "$ROOT" && cargo build --release --quiet)
BIN="$TARGET_DIR/release/tusk"

# shellcheck source=bench/lib.sh
. "$ROOT/bench/lib.sh"
ensure_hyperfine

TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
mkdir -p "$TMP/.premath"
if [ -f "$SHARED/bench/gen_issues.py" ]; then
    python3 "$SHARED/bench/gen_issues.py" 1000 "$TMP/.premath/issues.jsonl" >/dev/null
fi
echo '(hash-ref (payload (issue.ready)) "count")' >"$TMP/one.scm"
# The program must run, and be accepted, before it is timed.
(cd "$TMP" && "$BIN" eval one.scm >/dev/null)
echo "uptime: $(uptime)"

echo "== cold: tusk eval of a one-call program (process start to exit; target <= 20 ms)"
if command -v hyperfine >/dev/null 2>&1; then
    (cd "$TMP" && hyperfine -N --warmup 3 --runs 50 --style basic -n "tusk eval one.scm" "$BIN eval one.scm")
else
    (cd "$TMP" && time_loop "tusk eval one.scm" 50 "$BIN" eval one.scm)
fi

echo "== warm per-program latency (target, paced: p50 <= 0.5 ms, p99 <= 1.5 ms) and host-call throughput (target >= 60,000/s), one long-lived host"
(cd "$ROOT" && cargo bench --quiet --bench host -- "$PROGRAMS" "$CALLS")

echo "== replay speed (recorded calls re-checked per second, in process; target >= 60,000/s over the short runs)"
(cd "$ROOT" && cargo bench --quiet --bench replay -- 50000)
echo "uptime: $(uptime)"
