#!/usr/bin/env python3
"""One command-line mutation on PostgreSQL at 1,000, 10,000 and 100,000 issues.

usage: pg_scale.py TUSK PG_URL GEN_ISSUES [--sizes 1000,10000,100000]
                   [--runs 15] [--jsonl] [--json] [--reads]

For each size: GEN_ISSUES's store of that many issues, imported into the
database PG_URL (`tusk store import --replace`); then --runs times each of
`tusk issue update ID --notes …`, `tusk issue close ID`, `tusk issue comment
add ID TEXT` and `tusk dep add A B --type blocks` (A newer than B, the usual
direction; each run on issues no earlier run touched), each a whole process
as a script or an agent would spawn it, timed from the outside. Prints the
median and p90 per command and size, and the ratio of the largest size's
median to the smallest's (issue 58's target: within 1.5x, under 10 ms).
With --jsonl, the same commands on the JSONL file of the same store, for
scale. "update in a program" is the mutation without a process's start and
connection: a `tusk eval` program of 40 updates, less a program of none,
per update. With --reads, the views a database reads by index too (issue
58: `issue list --status in_progress`, `issue blocked`, `issue stats`,
`issue search`, `dep tree`, `issue lease projection`), each a whole
process, its output discarded. The machine's load average is printed with
the figures.
"""

from __future__ import annotations

import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

args = sys.argv[1:]
if len(args) < 3:
    sys.exit(__doc__)
BIN, PG_URL, GEN = os.path.abspath(args[0]), args[1], args[2]
DIGEST = ""


def opt(name: str, default: str) -> str:
    return args[args.index(name) + 1] if name in args else default


SIZES = [int(x) for x in opt("--sizes", "1000,10000,100000").split(",")]
RUNS = int(opt("--runs", "15"))
JSONL = "--jsonl" in args
AS_JSON = "--json" in args
COMMANDS = ["update", "close", "comment add", "dep add", "update in a program"]
READS = ["list in_progress", "blocked", "stats", "search", "dep tree", "lease projection"]
if "--reads" in args:
    COMMANDS = COMMANDS + READS
# Calls per program for "update in a program": one process, one connection.
PROGRAM_CALLS = 40
env = {k: v for k, v in os.environ.items() if k != "TUSK_STORE"}
env.setdefault("TUSK_ACTOR", "bench")


def run(cmd: list[str], cwd: str) -> float:
    started = time.perf_counter()
    out = subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=cwd)
    elapsed = (time.perf_counter() - started) * 1000
    if out.returncode != 0:
        sys.exit(f"{' '.join(cmd)}: exit {out.returncode}\n{out.stdout}\n{out.stderr}")
    return elapsed


def read_store(path: str) -> tuple[list[int], set[tuple[str, str]]]:
    """The open issues' numbers, and every edge (issue, target)."""
    ids, edges = [], set()
    with open(path) as f:
        for line in f:
            issue = json.loads(line)
            if issue["status"] == "open":
                ids.append(int(issue["id"].split("-")[1]))
            for dep in issue.get("dependencies", []):
                edges.add((dep["issue_id"], dep["depends_on_id"]))
    return ids, edges


def measure(store: list[str], n: int, work: str, open_: list[int], edges: set[tuple[str, str]]) -> dict[str, list[float]]:
    # Disjoint issues per command and run: the newest open ones for close,
    # spread over the store for the others.
    step = max(1, n // (RUNS * 4 + 4))
    spread = [1 + i * step for i in range(RUNS * 4)]
    figures: dict[str, list[float]] = {k: [] for k in COMMANDS}
    for r in range(RUNS):
        a, b, c = spread[r], spread[RUNS + r], spread[2 * RUNS + r]
        figures["update"].append(
            run([BIN, "issue", "update", f"bd-{a}", "--notes", f"bench {r}", *store, "--json"], work)
        )
        figures["close"].append(
            run([BIN, "issue", "close", f"bd-{open_[-1 - r]}", *store, "--json"], work)
        )
        figures["comment add"].append(
            run([BIN, "issue", "comment", "add", f"bd-{b}", f"bench {r}", "--author", "bench", *store, "--json"], work)
        )
        # A newer issue depends on an older one (gen_issues' edges all point
        # to older issues: never a cycle), on a pair without an edge.
        newer = spread[3 * RUNS + r]
        older = next(t for t in range(c, 0, -1) if (f"bd-{newer}", f"bd-{t}") not in edges)
        figures["dep add"].append(
            run([BIN, "dep", "add", f"bd-{newer}", f"bd-{older}", "--type", "blocks", *store, "--json"], work)
        )
        # The mutation itself, without a process's start and its connection:
        # a program of PROGRAM_CALLS updates against one that makes none.
        calls = "".join(f'(issue.update (hash "id" "bd-{spread[(r + k) % len(spread)]}" "notes" "p{r}-{k}"))\n'
                        for k in range(PROGRAM_CALLS))
        full = run_program(store, work, calls)
        empty = run_program(store, work, "(+ 1 2)\n")
        figures["update in a program"].append((full - empty) / PROGRAM_CALLS)
        if READS[0] in figures:
            for name, cmd in (
                ("list in_progress", ["issue", "list", "--status", "in_progress"]),
                ("blocked", ["issue", "blocked"]),
                ("stats", ["issue", "stats"]),
                ("search", ["issue", "search", f"issue {a}"]),
                ("dep tree", ["dep", "tree", f"bd-{spread[-1 - r]}", "--direction", "both"]),
                ("lease projection", ["issue", "lease-projection"]),
            ):
                figures[name].append(run([BIN, *cmd, *store, "--json"], work))
    return figures


def run_program(store: list[str], work: str, program: str) -> float:
    path = os.path.join(work, "p.scm")
    with open(path, "w") as f:
        f.write(program)
    return run([BIN, "eval", path, "--max-calls", str(PROGRAM_CALLS), "--policy-digest", DIGEST,
                "--instruction-ref", "instr://pg-scale", *store], work)


def main() -> None:
    if not os.access(BIN, os.X_OK):
        sys.exit(f"{BIN}: not an executable (cargo build --release)")
    work = tempfile.mkdtemp(prefix="tusk-pg-scale.")
    try:
        subprocess.run([BIN, "store", "init", "--store", PG_URL], check=True, env=env, capture_output=True)
        global DIGEST
        DIGEST = subprocess.run([BIN, "policy", "digest"], check=True, env=env, capture_output=True,
                                text=True, cwd=work).stdout.strip()
        results = []
        for n in SIZES:
            src = os.path.join(work, f"issues-{n}.jsonl")
            subprocess.run([sys.executable, GEN, str(n), src], check=True)
            subprocess.run(
                [BIN, "store", "import", src, "--replace", "--store", PG_URL],
                check=True, env=env, capture_output=True,
            )
            open_, edges = read_store(src)
            stores = [("postgresql", ["--store", PG_URL])]
            if JSONL:
                copy = os.path.join(work, f"copy-{n}.jsonl")
                shutil.copy(src, copy)
                stores.append(("jsonl", ["--issues", copy]))
            for name, flags in stores:
                figures = measure(flags, n, work, open_, edges)
                for cmd, xs in figures.items():
                    xs.sort()
                    results.append({
                        "store": name, "issues": n, "command": cmd,
                        "median_ms": round(statistics.median(xs), 1),
                        "p90_ms": round(xs[int(len(xs) * 0.9) - 1 if len(xs) > 1 else 0], 1),
                    })
        load = os.getloadavg()
        if AS_JSON:
            print(json.dumps({"load": load, "runs": RUNS, "results": results}, indent=2))
            return
        print(f"# {RUNS} runs each; load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}; {os.cpu_count()} cores")
        print(f"{'store':<11} {'command':<20} " + " ".join(f"{n:>14,}" for n in SIZES) + "   largest/smallest")
        for name in sorted({r['store'] for r in results}, reverse=True):
            for cmd in COMMANDS:
                row = [r for r in results if r["store"] == name and r["command"] == cmd]
                cells = " ".join(f"{r['median_ms']:>6.1f} ({r['p90_ms']:>5.1f})" for r in row)
                ratio = row[-1]["median_ms"] / row[0]["median_ms"]
                print(f"{name:<11} {cmd:<20} {cells}   {ratio:.2f}x")
        print("(median ms, p90 in parentheses, per size)")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
