#!/usr/bin/env bash
# Page times of `tusk observe` on a 100k-issue store, a 1M-row effect log
# and a 1M-row trajectory (issue 24; target: every page under 200 ms).
#
# usage: bench/observe.sh [RUNS] [ISSUES] [EFFECT_ROWS] [TRAJECTORY_ROWS]
#        (defaults 15, 100000, 1000000, 1000000)
#
# Generates the store with ../shared/bench/gen_issues.py, the trajectory with
# ../shared/bench/gen_trajectory.py, and the effect log with
# bench/gen_effects.py from a few runs `tusk eval` records on a small store
# (each copy keeps a valid chain, so run pages check and replay it for
# real). Serves them with `tusk observe` and prints, per page, the median
# wall time of RUNS requests (curl's time_total, a fresh connection each).
# With TUSK_BENCH_PG_URL (a database it may overwrite, schema made with
# `tusk store init`), the same pages again over the same data in PostgreSQL
# (loaded with `tusk store import` and psql's \copy).
# Builds the release binary unless TUSK_BIN names one; respects
# CARGO_TARGET_DIR.
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${1:-15}
ISSUES=${2:-100000}
EFFECT_ROWS=${3:-1000000}
TRAJECTORY_ROWS=${4:-1000000}
SHARED=${SHARED:-../shared}
: "${CARGO_TARGET_DIR:=target}"
if [ -z "${TUSK_BIN:-}" ]; then
  cargo build --release --quiet
  TUSK_BIN="$CARGO_TARGET_DIR/release/tusk"
fi
TUSK=$(cd "$(dirname "$TUSK_BIN")" && pwd)/$(basename "$TUSK_BIN")
command -v curl >/dev/null || { echo "bench: curl is required" >&2; exit 2; }
WORK=$(mktemp -d)
SERVER=""
cleanup() {
  [ -n "$SERVER" ] && kill "$SERVER" 2>/dev/null || true
  rm -rf "$WORK"
}
trap cleanup EXIT

echo "== generating $ISSUES issues, $TRAJECTORY_ROWS trajectory rows, $EFFECT_ROWS effect rows"
python3 "$SHARED/bench/gen_issues.py" "$ISSUES" "$WORK/issues.jsonl"
python3 "$SHARED/bench/gen_trajectory.py" "$TRAJECTORY_ROWS" "$WORK/trajectory.jsonl"
# Template runs on a small store: a read, a show, a pure value, a failure.
mkdir -p "$WORK/tpl"
(
  cd "$WORK/tpl"
  "$TUSK" init >/dev/null
  "$TUSK" issue add "Template issue one" >/dev/null
  "$TUSK" issue add "Template issue two" >/dev/null
  for program in '(issue.ready)' '(issue.show (hash "id" "bd-1"))' \
      '(define xs (list 1 2 3)) (display xs) (apply + xs)' '(car (list))' \
      '(map (lambda (id) (issue.show (hash "id" id))) (list "bd-1" "bd-2"))'; do
    printf '%s\n' "$program" > p.scm
    "$TUSK" eval p.scm >/dev/null || true
  done
)
python3 bench/gen_effects.py "$WORK/tpl/.premath/host_effects.jsonl" "$EFFECT_ROWS" "$WORK/effects.jsonl"
ls -l "$WORK"/*.jsonl | awk '{printf "   %-40s %12s bytes\n", $9, $5}' | sed "s|$WORK/||"
cat "$WORK"/*.jsonl >/dev/null   # a warm page cache, as a live fleet's logs are

# start_server ARGS…: serves the data, sets BASE.
start_server() {
  [ -n "$SERVER" ] && kill "$SERVER" 2>/dev/null && wait "$SERVER" 2>/dev/null || true
  "$TUSK" observe --http 127.0.0.1:0 "$@" 2>"$WORK/observe.err" &
  SERVER=$!
  for _ in $(seq 100); do grep -q serving "$WORK/observe.err" && break; sleep 0.1; done
  BASE=$(sed -n 's|.*serving \(http://[^/]*\)/.*|\1|p' "$WORK/observe.err")
  [ -n "$BASE" ] || { cat "$WORK/observe.err" >&2; exit 1; }
}
start_server --issues "$WORK/issues.jsonl" --effects "$WORK/effects.jsonl" \
  --trajectory "$WORK/trajectory.jsonl"

median() { sort -n | awk '{a[NR]=$1} END {m=int((NR+1)/2); printf "%.1f", a[m]*1000}'; }
# page NAME METHOD PATH [PREP]: the median time of RUNS requests (each must
# succeed), PREP run untimed before each.
page() {
  local name=$1 method=$2 path=$3 prep=${4:-:}
  for _ in $(seq "$RUNS"); do
    eval "$prep"
    curl -sS -o /dev/null -X "$method" -w '%{http_code} %{time_total}\n' "$BASE$path"
  done > "$WORK/times"
  if grep -qv '^200 ' "$WORK/times"; then
    echo "bench: $path answered $(grep -v '^200 ' "$WORK/times" | head -1)" >&2
    exit 1
  fi
  printf "%-34s %10s\n" "$name" "$(cut -d' ' -f2 "$WORK/times" | median)"
}

# pages PREP: every page, PREP changing the store before the cold measure.
pages() {
  json() { curl -sS "$BASE$1" | python3 -c "import json,sys; v=json.load(sys.stdin); print($2)"; }
  newest=$(json "/runs?format=json&limit=1" 'v["items"][0]["href"]')
  mid_cursor=$(json "/runs?format=json&limit=1" 'v["items"][0]["pos"] // 2')
  oldest_id=$(head -c 4096 "$WORK/effects.jsonl" | head -1 | python3 -c 'import json,sys; print(json.load(sys.stdin)["runId"])')
  replay=$(json "$newest&format=json" 'v["replay"]["href"]')

  echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
  printf "%-34s %10s\n" page "median ms"
  page "queue" GET "/queue"
  # The parsed store is kept until the store changes: the first page after a
  # change parses it again.
  page "queue, store just changed" GET "/queue" "$1"
  page "queue, ready page 1000" GET "/queue?readyOffset=50000"
  page "queue, filtered (type=bug)" GET "/queue?type=bug"
  page "leases" GET "/leases"
  page "runs (newest 25)" GET "/runs"
  page "runs (mid-log page)" GET "/runs?before=$mid_cursor"
  page "runs JSON (the live poll)" GET "/runs?format=json"
  page "run (from the list's link)" GET "$newest"
  page "run (oldest, found by id)" GET "/runs/$oldest_id"
  page "replay (POST)" POST "$replay"
  page "trajectory & KPI (20k rows)" GET "/trajectory"
  page "trajectory & KPI (100k rows)" GET "/trajectory?rows=100000"
  page "dependency graph" GET "/issues/bd-$((ISSUES / 2))/graph"
}

echo "== JSONL files"
pages "touch $WORK/issues.jsonl"

if [ -n "${TUSK_BENCH_PG_URL:-}" ]; then
  echo "== PostgreSQL (loading the same data)"
  "$TUSK" store init --store "$TUSK_BENCH_PG_URL" >/dev/null
  "$TUSK" store import --replace "$WORK/issues.jsonl" --store "$TUSK_BENCH_PG_URL" >/dev/null
  # CSV with delimiter and quote bytes JSON never holds: each line verbatim.
  for t in trajectory effects; do
    psql -q "$TUSK_BENCH_PG_URL" -c "TRUNCATE tusk_$t" \
      -c "\\copy tusk_$t (line) FROM '$WORK/$t.jsonl' WITH (FORMAT csv, DELIMITER E'\\x02', QUOTE E'\\x01')"
  done
  start_server --store "$TUSK_BENCH_PG_URL"
  # A change to one issue line (its row rewritten as it is).
  pages "psql -q '$TUSK_BENCH_PG_URL' -c 'UPDATE tusk_issue_lines SET line = line WHERE ord = 1'"
fi
