#!/usr/bin/env bash
# Whole-process timings of the issue memory on generated stores (10k and 100k issues).
#
# usage: bench/issues.sh [RUNS]   (builds the release binary first)
# Each figure is the median wall time of RUNS (default 15) runs of the whole `tusk`
# process (start to exit, `--json` output to /dev/null), measured with `date +%s%N`.
# Mutations run on a fresh copy of the store per run (copied and synced untimed),
# so each one does its real work, fsyncs included.
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${1:-15}
GEN=${GEN:-../shared/bench/gen_issues.py}
: "${CARGO_TARGET_DIR:=target}"
cargo build --release --quiet
TUSK="$CARGO_TARGET_DIR/release/tusk"
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

median() { sort -n | awk '{a[NR]=$1} END {m=int((NR+1)/2); printf "%.1f", a[m]/1e6}'; }

# time_cmd PREP CMD...: runs PREP (untimed, may be ":") then times CMD, RUNS times.
time_cmd() {
  local prep=$1; shift
  for _ in $(seq "$RUNS"); do
    eval "$prep"
    local t0 t1
    t0=$(date +%s%N)
    "$@" >/dev/null || [ $? -eq 1 ]
    t1=$(date +%s%N)
    echo $((t1 - t0))
  done | median
}

# The machine may be shared: say how busy it was, figures depend on it.
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
printf "%-8s %-12s %10s\n" issues command "median ms"
for n in 10000 100000; do
  base="$WORK/base-$n.jsonl"
  python3 "$GEN" "$n" "$base"
  store="$WORK/s-$n/issues.jsonl"
  mkdir -p "$(dirname "$store")"
  fresh="cp $base $store && sync"
  cp "$base" "$store" && sync
  # An open issue with no blockers, to claim and update.
  target=$("$TUSK" issue ready --json --issues "$base" | python3 -c 'import json,sys; print(json.load(sys.stdin)["items"][0]["id"])')
  printf "%-8s %-12s %10s\n" "$n" ready "$(time_cmd : "$TUSK" issue ready --json --issues "$store")"
  printf "%-8s %-12s %10s\n" "$n" blocked "$(time_cmd : "$TUSK" issue blocked --json --issues "$store")"
  printf "%-8s %-12s %10s\n" "$n" claim "$(time_cmd "$fresh" "$TUSK" issue claim "$target" --assignee bench.a --json --issues "$store")"
  printf "%-8s %-12s %10s\n" "$n" claim-next "$(time_cmd "$fresh" "$TUSK" issue claim-next --assignee bench.a --json --issues "$store")"
  printf "%-8s %-12s %10s\n" "$n" update "$(time_cmd "$fresh" "$TUSK" issue update "$target" --notes "bench note" --json --issues "$store")"
  printf "%-8s %-12s %10s\n" "$n" check "$(time_cmd : "$TUSK" issue check --json --issues "$store")"
  # Routing (issue 22): the same store with one of four role labels per issue.
  labelled="$WORK/l-$n.jsonl"
  python3 -c 'import json,sys
for i, line in enumerate(open(sys.argv[1])):
    row = json.loads(line); row["labels"] = [["ui","api","docs","ops"][i % 4]]
    print(json.dumps(row, separators=(",", ":")))' "$base" > "$labelled"
  lfresh="cp $labelled $store && sync"
  cp "$labelled" "$store" && sync
  printf "%-8s %-12s %10s\n" "$n" "ready-label" "$(time_cmd : "$TUSK" issue ready --label api --json --issues "$store")"
  printf "%-8s %-12s %10s\n" "$n" "next-label" "$(time_cmd "$lfresh" "$TUSK" issue claim-next --assignee bench.a --label api --json --issues "$store")"
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
