#!/usr/bin/env python3
"""tusk against the reference (premath) on every shared measure, from
interleaved runs: each round runs premath's command, then tusk's (in turn
reversed every other round), so load drifts hit both alike. Prints, per
measure, the two medians, the ratio tusk/premath and the issue's target.

usage: compare.py TUSK_BIN PREMATH_BIN PREMATH_SRC WORK_DIR [ROUNDS]

WORK_DIR must hold issues-100k.jsonl and trajectory-1m.jsonl (bench/compare.sh
generates them with ../shared/bench). The warm MCP round trip speaks raw
line-delimited JSON-RPC over stdio to both servers (tusk mcp: scheme_eval of
`(issue.ready)`; premath mcp-serve: its issue_ready tool), on a 365-issue store.
"""
from __future__ import annotations

import json
import os
import shutil
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from mcp_stdio import StdioServer  # noqa: E402

TUSK, PREMATH, SRC, WORK = sys.argv[1:5]
ROUNDS = int(sys.argv[5]) if len(sys.argv) > 5 else 15


def timed(cmd: list[str], cwd: str, before=None) -> float:
    if before:
        before()
    t = time.perf_counter()
    r = subprocess.run(cmd, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    dt = (time.perf_counter() - t) * 1e3
    if r.returncode not in (0,):
        sys.exit(f"{' '.join(cmd)} exited {r.returncode}: {r.stderr.decode()[-400:]}")
    return dt


rows: list[tuple[str, float, float, str]] = []


def measure(name: str, premath: list[str], tusk: list[str], cwd: str, target: str,
            before=None, warmup: int = 2) -> None:
    for _ in range(warmup):
        timed(premath, cwd, before)
        timed(tusk, cwd, before)
    p, t = [], []
    for i in range(ROUNDS):
        if i % 2 == 0:
            p.append(timed(premath, cwd, before))
            t.append(timed(tusk, cwd, before))
        else:
            t.append(timed(tusk, cwd, before))
            p.append(timed(premath, cwd, before))
    pm, tm = statistics.median(p), statistics.median(t)
    rows.append((name, pm, tm, target))
    print(f"{name:<44} premath {pm:8.2f} ms   tusk {tm:8.2f} ms   ratio {tm / pm:5.2f}   target {target}",
          flush=True)


def small_store(dirname: str, n: int) -> str:
    d = os.path.join(WORK, dirname)
    os.makedirs(os.path.join(d, ".premath"), exist_ok=True)
    gen = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "shared", "bench", "gen_issues.py")
    gen = os.environ.get("GEN_ISSUES", gen)
    subprocess.run([sys.executable, gen, str(n), os.path.join(d, ".premath", "issues.jsonl")],
                   check=True, stdout=subprocess.DEVNULL)
    return d


# 1. cold eval of a one-call (issue.ready) program
cold = small_store("cold", 365)
shutil.copy(os.path.join(SRC, "specs/premath/draft/CONTROL-PLANE-CONTRACT.json"), os.path.join(cold, "contract.json"))
with open(os.path.join(cold, "p.json"), "w") as f:
    json.dump({"schema": 1, "programKind": "premath.scheme_eval.request.v0",
               "calls": [{"id": "c1", "action": "issue.ready", "args": {}}]}, f)
with open(os.path.join(cold, "one.scm"), "w") as f:
    f.write("(issue.ready)\n")
measure("cold eval, one (issue.ready) call",
        [PREMATH, "scheme-eval", "--program", "p.json", "--control-plane-contract", "contract.json", "--json"],
        [TUSK, "eval", "--json", "one.scm"], cold, "<= 1.5")

# 2. the join check
case = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "vectors", "harness-typestate",
                    "golden", "context_projection_not_required_accept", "case.json")
with open(case) as f:
    with open(os.path.join(WORK, "join.json"), "w") as g:
        json.dump(json.load(f)["input"], g)
measure("harness-join-check --json",
        [PREMATH, "harness-join-check", "--input", "join.json", "--json"],
        [TUSK, "harness-join-check", "--input", "join.json", "--json"], WORK, "<= 1.0")

# 3. issue ready and claim at 100k issues
big = os.path.join(WORK, "issues-100k.jsonl")
measure("issue ready --json, 100k issues",
        [PREMATH, "issue", "ready", "--issues", big, "--json"],
        [TUSK, "issue", "ready", "--issues", big, "--json"], WORK, "<= 1.0")
claim_store = os.path.join(WORK, "claim.jsonl")


def fresh_claim_store() -> None:
    shutil.copy(big, claim_store)
    # premath takes its lock by creating the lock file; tusk's flock leaves one.
    for lock in (claim_store + ".lock",):
        if os.path.exists(lock):
            os.remove(lock)


measure("issue claim --json, 100k issues (fresh copy each run)",
        [PREMATH, "issue", "claim", "bd-1", "--assignee", "agent.a", "--issues", claim_store, "--json"],
        [TUSK, "issue", "claim", "bd-1", "--assignee", "agent.a", "--issues", claim_store, "--json"],
        WORK, "<= 1.0", before=fresh_claim_store)

# 4. trajectory append and query at 1M rows
traj = os.path.join(WORK, "trajectory-1m.jsonl")
measure("harness-trajectory query --mode failed, 1M rows",
        [PREMATH, "harness-trajectory", "query", "--path", traj, "--mode", "failed", "--limit", "20", "--json"],
        [TUSK, "harness-trajectory", "query", "--path", traj, "--mode", "failed", "--limit", "20", "--json"],
        WORK, "<= 1.0")
append = ["harness-trajectory", "append", "--path", traj, "--step-id", "bench-append", "--action",
          "apply.patch", "--result-class", "accepted", "--json"]
measure("harness-trajectory append, 1M rows", [PREMATH] + append, [TUSK] + append, WORK, "<= 1.0")


# 5. warm MCP round trip over stdio, raw JSON-RPC
warm = small_store("warm", 365)
tusk_srv = StdioServer([TUSK, "mcp"], warm, "compare")
prem_srv = StdioServer([PREMATH, "mcp-serve", "--issues", ".premath/issues.jsonl"], warm, "compare")
tusk_call = ("tools/call", {"name": "scheme_eval", "arguments": {"program": "(issue.ready)"}})
prem_call = ("tools/call", {"name": "issue_ready", "arguments": {}})
for _ in range(20):
    tusk_srv.call(*tusk_call)
    prem_srv.call(*prem_call)
tt, pt = [], []
for i in range(ROUNDS * 20):
    order = [(prem_srv, prem_call, pt), (tusk_srv, tusk_call, tt)]
    if i % 2:
        order.reverse()
    for srv, call, out in order:
        t = time.perf_counter()
        srv.call(*call)
        out.append((time.perf_counter() - t) * 1e3)
tusk_srv.close()
prem_srv.close()
pm, tm = statistics.median(pt), statistics.median(tt)
rows.append(("warm MCP round trip (issue_ready / scheme_eval)", pm, tm, "<= 0.5"))
print(f"{'warm MCP round trip (issue_ready / scheme_eval)':<44} premath {pm:8.2f} ms   tusk {tm:8.2f} ms   "
      f"ratio {tm / pm:5.2f}   target <= 0.5", flush=True)
