#!/usr/bin/env python3
"""What an atomic run costs (issue 59): one program of K updates, call by
call, `--atomic` and `--dry-run`, on a store of N issues.

usage: atomic_runs.py TUSK GEN_ISSUES [--sizes 1000,10000] [--updates 20]
                      [--runs 9] [--pg-url URL]

For each size: GEN_ISSUES's store of that many issues (the JSONL file, or
with --pg-url imported into that database); then --runs times each mode of
`tusk eval` on a program that updates K issues (each run its own issues),
each a whole process, timed from the outside. Prints the median and p90
per mode and size, and atomic's median over call by call's. An atomic run
reads the whole store once (its base), stages each update on the text in
memory, and writes once; call by call writes K times. The machine's load
average is printed with the figures.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time

args = sys.argv[1:]
if len(args) < 2:
    sys.exit(__doc__)
BIN, GEN = os.path.abspath(args[0]), os.path.abspath(args[1])


def flag(name: str, default: str) -> str:
    return args[args.index(name) + 1] if name in args else default


SIZES = [int(s) for s in flag("--sizes", "1000,10000").split(",")]
UPDATES = int(flag("--updates", "20"))
RUNS = int(flag("--runs", "9"))
PG_URL = flag("--pg-url", "")
MODES = [("call by call", []), ("--atomic", ["--atomic"]), ("--dry-run", ["--dry-run"])]


def tusk(cwd: str, *a: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, TUSK_ACTOR="bench")
    env.pop("TUSK_STORE", None)
    if PG_URL:
        env["TUSK_STORE"] = PG_URL
    return subprocess.run([BIN, *a], cwd=cwd, env=env, input=stdin, capture_output=True, text=True)


def main() -> None:
    print(f"load average {os.getloadavg()[0]:.2f}; {UPDATES} updates per program, {RUNS} runs each")
    for size in SIZES:
        with tempfile.TemporaryDirectory() as work:
            os.makedirs(os.path.join(work, ".premath"))
            store = os.path.join(work, ".premath", "issues.jsonl")
            subprocess.run([sys.executable, GEN, str(size), store], check=True, capture_output=True)
            if PG_URL:
                p = tusk(work, "store", "import", store, "--replace")
                if p.returncode != 0:
                    sys.exit(f"store import: {p.stderr}")
            ids = [line.split('"id":"', 1)[1].split('"', 1)[0]
                   for line in open(store) if '"id":"' in line]
            digest = tusk(work, "policy", "digest").stdout.strip()
            auth = ["--policy-digest", digest, "--instruction-ref", "instr://bench"]
            cursor = 0
            medians = {}
            for name, extra in MODES:
                times = []
                for _ in range(RUNS):
                    chosen = ids[cursor:cursor + UPDATES]
                    cursor += UPDATES
                    program = "".join(
                        f'(issue.update (hash "id" "{i}" "notes" "bench {cursor}"))\n' for i in chosen)
                    path = os.path.join(work, "p.scm")
                    with open(path, "w") as f:
                        f.write(program)
                    start = time.perf_counter()
                    p = tusk(work, "eval", *auth, *extra, path)
                    times.append((time.perf_counter() - start) * 1000)
                    if p.returncode != 0:
                        sys.exit(f"{name}: exit {p.returncode}: {p.stdout[-400:]}{p.stderr[-400:]}")
                times.sort()
                med = statistics.median(times)
                p90 = times[min(len(times) - 1, int(len(times) * 0.9))]
                medians[name] = med
                print(f"{size:>7} issues  {name:<13} median {med:7.1f} ms  p90 {p90:7.1f} ms")
            ratio = medians["--atomic"] / medians["call by call"]
            print(f"{size:>7} issues  atomic / call by call: {ratio:.2f}x")


main()
