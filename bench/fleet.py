#!/usr/bin/env python3
"""Claims per second of `tusk issue claim-next` by W concurrent workers, on the
JSONL file store and on PostgreSQL, at N issues.

usage: fleet.py TUSK_BIN PG_URL GEN_ISSUES [--sizes 10000,100000] [--workers 1,4,16]
                [--seconds 10]

Each worker is a loop of `tusk issue claim-next` processes in its own working
directory (as fleet workers on separate machines would be), all claiming from one
store: the JSONL file (a shared path, one machine) or the database (--store URL).
The store is reseeded from ../shared/bench/gen_issues.py output before each
configuration; claims/s = claims completed in the window / window length."""
import json, os, subprocess, sys, tempfile, threading, time

args = sys.argv[1:]
if len(args) < 3:
    sys.exit(__doc__)
BIN, PG_URL, GEN = os.path.abspath(args[0]), args[1], args[2]
if not os.access(BIN, os.X_OK):
    sys.exit(f"{BIN}: not an executable (build with cargo build --release)")
def opt(name, default):
    return args[args.index(name) + 1] if name in args else default
SIZES = [int(x) for x in opt("--sizes", "10000,100000").split(",")]
WORKERS = [int(x) for x in opt("--workers", "1,4,16").split(",")]
SECONDS = float(opt("--seconds", "10"))
# --filter: every issue gets one of four role labels and worker w claims with
# --label GROUPS[w % 4] (issue 22's routing); the figures compare with the
# unfiltered run of the same size.
FILTER = "--filter" in args
GROUPS = ["ui", "api", "docs", "ops"]

def run(cmd, **kw):
    out = subprocess.run(cmd, capture_output=True, text=True, **kw)
    if out.returncode != 0:
        sys.exit(f"{cmd}: exit {out.returncode}\n{out.stderr}")
    return out.stdout

work = tempfile.mkdtemp(prefix="tusk-fleet-bench.")
env = {k: v for k, v in os.environ.items() if k != "TUSK_STORE"}
run([BIN, "store", "init", "--store", PG_URL], env=env)

def seed(n, backend):
    src = os.path.join(work, f"seed-{n}.jsonl")
    if not os.path.exists(src):
        run([sys.executable, GEN, str(n), src])
        if FILTER:
            with open(src) as f:
                rows = [json.loads(line) for line in f]
            for i, row in enumerate(rows):
                row["labels"] = [GROUPS[i % 4]]
            with open(src, "w") as f:
                f.writelines(json.dumps(r, separators=(",", ":")) + "\n" for r in rows)
    if backend == "jsonl":
        dst = os.path.join(work, "shared", ".premath", "issues.jsonl")
        os.makedirs(os.path.dirname(dst), exist_ok=True)
        with open(src, "rb") as f, open(dst, "wb") as g:
            g.write(f.read())
        return ["--issues", dst]
    run([BIN, "store", "import", src, "--replace", "--store", PG_URL], env=env)
    return ["--store", PG_URL]

def measure(store_args, workers):
    stop = time.monotonic() + SECONDS
    counts = [0] * workers
    errors = []
    def loop(w):
        d = os.path.join(work, f"w{w}")
        os.makedirs(d, exist_ok=True)
        while time.monotonic() < stop and not errors:
            out = subprocess.run(
                [BIN, "issue", "claim-next", "--assignee", f"bench-{w}", "--json",
                 "--lock-timeout-ms", "60000"]
                + (["--label", GROUPS[w % 4]] if FILTER else []) + store_args,
                cwd=d, capture_output=True, text=True, env=env)
            if out.returncode != 0:
                errors.append(out.stdout + out.stderr)
                return
            if '"claimed": true' not in out.stdout:
                errors.append("queue ran dry")
                return
            counts[w] += 1
    started = time.monotonic()
    threads = [threading.Thread(target=loop, args=(w,)) for w in range(workers)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    elapsed = time.monotonic() - started
    if errors:
        sys.exit(f"worker failed: {errors[0][:500]}")
    return sum(counts), elapsed

print(f"# tusk issue claim-next{' --label <role>' if FILTER else ''}, {SECONDS:g} s windows, {os.cpu_count()} cores")
print(f"{'backend':<9} {'issues':>7} {'workers':>7} {'claims':>7} {'claims/s':>9} {'ms/claim':>9}")
for n in SIZES:
    for backend in ["jsonl", "postgres"]:
        for w in WORKERS:
            store_args = seed(n, backend)
            claims, elapsed = measure(store_args, w)
            rate = claims / elapsed
            print(f"{backend:<9} {n:>7} {w:>7} {claims:>7} {rate:>9.1f} {1000 * w / rate if rate else 0:>9.1f}", flush=True)
