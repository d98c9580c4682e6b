#!/usr/bin/env bash
# The cost of OpenTelemetry export (issue 24; target: under 5% with a
# collector up), measured on the release binary against a local stand-in
# collector (bench/otlp_sink.py, OTLP/HTTP):
#
#   bench/telemetry.sh [CALLS] [ROUNDS]      (defaults 20000 and 5)
#
#   - cold: `tusk eval` of a one-call program, without export and with
#     `--otlp` (hyperfine, interleaved by alternating runs), process start to
#     exit, so the exit flush to the collector is included;
#   - host calls/s: one program making CALLS calls to `issue.ready` on an
#     empty store, each call one span; ROUNDS alternating runs of each, the
#     median of the run's own elapsedMs.
# Also prints the figures with the collector down (a closed port).
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
CALLS=${1:-20000}
ROUNDS=${2:-5}
TARGET_DIR=${CARGO_TARGET_DIR:-$ROOT/target}
(cd "$ROOT" && cargo build --release --quiet)
BIN="$TARGET_DIR/release/tusk"
# shellcheck source=bench/lib.sh
. "$ROOT/bench/lib.sh"
ensure_hyperfine

TMP=$(mktemp -d)
PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
DEAD=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
python3 "$ROOT/bench/otlp_sink.py" "$PORT" &
SINK=$!
trap 'kill $SINK 2>/dev/null; rm -rf "$TMP"' EXIT
sleep 0.5
URL="http://127.0.0.1:$PORT"
unset OTEL_EXPORTER_OTLP_ENDPOINT OTEL_EXPORTER_OTLP_TRACES_ENDPOINT OTEL_EXPORTER_OTLP_METRICS_ENDPOINT TRACEPARENT

echo '(hash-ref (payload (issue.ready)) "count")' >"$TMP/one.scm"
cat >"$TMP/many.scm" <<SCM
(define (go i) (if (< i $CALLS) (begin (issue.ready) (go (+ i 1))) i))
(go 0)
SCM
cd "$TMP"
"$BIN" eval one.scm >/dev/null
"$BIN" eval --otlp "$URL" one.scm >/dev/null
echo "uptime: $(uptime)"

echo "== cold: tusk eval of a one-call program, without and with export"
if command -v hyperfine >/dev/null 2>&1; then
    hyperfine -N --warmup 5 --runs 60 --style basic \
        -n "no export" "$BIN eval one.scm" \
        -n "otlp, collector up" "$BIN eval --otlp $URL one.scm" \
        -n "otlp, collector down" "$BIN eval --otlp http://127.0.0.1:$DEAD one.scm"
else
    time_loop "no export" 60 "$BIN" eval one.scm
    time_loop "--otlp (collector up)" 60 "$BIN" eval --otlp "$URL" one.scm
fi

echo "== host calls/s: one program of $CALLS issue.ready calls, $ROUNDS alternating runs each (median)"
rate() { # rate ARGS...: calls/s of one run, from its own elapsedMs
    rm -rf .premath
    "$BIN" eval --json --max-calls "$CALLS" --timeout-ms 600000 "$@" many.scm 2>/dev/null \
        | python3 -c "import json,sys; r=json.load(sys.stdin); assert r['result']=='accepted', r; print(r['usage']['hostCalls']/(r['usage']['elapsedMs']/1e3))"
}
off=(); on=(); down=()
for _ in $(seq "$ROUNDS"); do
    off+=("$(rate)")
    on+=("$(rate --otlp "$URL")")
    down+=("$(rate --otlp "http://127.0.0.1:$DEAD")")
done
python3 - "${off[*]}" "${on[*]}" "${down[*]}" <<'PY'
import statistics, sys
off, on, down = (statistics.median(map(float, a.split())) for a in sys.argv[1:4])
print(f"no export:              {off:,.0f} calls/s")
print(f"--otlp (collector up):  {on:,.0f} calls/s  ({(off - on) / off * 100:+.1f}% slower)")
print(f"--otlp (collector down): {down:,.0f} calls/s  ({(off - down) / off * 100:+.1f}% slower)")
PY
