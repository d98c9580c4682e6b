# Shared by the bench scripts: sourced, not run.

# Installs hyperfine from Debian's packages when missing and possible; the
# scripts fall back to a plain timing loop otherwise.
ensure_hyperfine() {
    if ! command -v hyperfine >/dev/null 2>&1 && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
        apt-get install -y -qq hyperfine >/dev/null 2>&1 \
            || { apt-get update -qq >/dev/null 2>&1 && apt-get install -y -qq hyperfine >/dev/null 2>&1; } \
            || echo "bench: hyperfine not installable, using a timing loop" >&2
    fi
}

# time_loop NAME RUNS CMD...: mean wall time of RUNS runs, without hyperfine.
time_loop() {
    local name=$1 runs=$2
    shift 2
    local start end
    start=$(date +%s%N)
    for _ in $(seq "$runs"); do "$@" >/dev/null; done
    end=$(date +%s%N)
    awk -v n="$name" -v t=$((end - start)) -v r="$runs" 'BEGIN { printf "%-28s mean %.2f ms over %d runs\n", n, t / r / 1e6, r }'
}
