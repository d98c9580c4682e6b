#!/usr/bin/env bash
# Whole-process timings of the issue memory on generated stores (10k and 100k issues).
#
# usage: bench/issues.sh [RUNS]   (builds the release binary first)
# Each figure is the median wall time of RUNS (default 15) runs of the `tusk`
# process, measured with `date +%s%N` around it; output goes to /dev/null.
# Mutations run on a fresh copy of the store per run, so each one does real work.
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

printf "%-8s %-12s %10s\n" issues command "median ms"
for n in 10000 100000; do
  base="$WORK/base-$n.jsonl"
  python3 "$GEN" "$n" "$base"
  store="$WORK/s-$n/issues.jsonl"
  mkdir -p "$(dirname "$store")"
  fresh="cp $base $store"
  # An open issue with no blockers, to claim and update.
  target=$("$TUSK" issue ready --json --issues "$base" | python3 -c 'import json,sys; print(json.load(sys.stdin)["items"][0]["id"])')
  printf "%-8s %-12s %10s\n" "$n" ready "$(time_cmd "$fresh" "$TUSK" issue ready --json --issues "$store")"
  printf "%-8s %-12s %10s\n" "$n" blocked "$(time_cmd "$fresh" "$TUSK" issue blocked --json --issues "$store")"
  printf "%-8s %-12s %10s\n" "$n" claim "$(time_cmd "$fresh" "$TUSK" issue claim "$target" --assignee bench.a --json --issues "$store")"
  printf "%-8s %-12s %10s\n" "$n" claim-next "$(time_cmd "$fresh" "$TUSK" issue claim-next --assignee bench.a --json --issues "$store")"
  printf "%-8s %-12s %10s\n" "$n" update "$(time_cmd "$fresh" "$TUSK" issue update "$target" --notes "bench note" --json --issues "$store")"
  printf "%-8s %-12s %10s\n" "$n" check "$(time_cmd "$fresh" "$TUSK" issue check --json --issues "$store")"
done
