#!/usr/bin/env bash
# Claims per second with 1, 4 and 16 concurrent workers on PostgreSQL and on the
# JSONL store, at 10,000 and 100,000 issues (../shared/bench/gen_issues.py).
#
#   bench/fleet.sh [--sizes 10000,100000] [--workers 1,4,16] [--seconds 10] [--filter]
#
# Uses TUSK_BENCH_PG_URL when set; otherwise starts a throwaway cluster
# (tests/pg/cluster.sh) and stops it afterwards. Respects CARGO_TARGET_DIR.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
SHARED=${SHARED:-$ROOT/../shared}
TARGET_DIR=${CARGO_TARGET_DIR:-$ROOT/target}
(cd "$ROOT" && cargo build --release --quiet)
if [ -z "${TUSK_BENCH_PG_URL:-}" ]; then
  eval "$(bash "$ROOT/tests/pg/cluster.sh" start)"
  trap 'bash "$ROOT/tests/pg/cluster.sh" stop "$TUSK_TEST_PG_DIR"' EXIT
  TUSK_BENCH_PG_URL=$TUSK_TEST_PG_URL
fi
python3 "$ROOT/bench/fleet.py" "$TARGET_DIR/release/tusk" "$TUSK_BENCH_PG_URL" \
  "$SHARED/bench/gen_issues.py" "$@"
