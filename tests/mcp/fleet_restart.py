#!/usr/bin/env python3
"""A fleet through a database restart (issue 58): 8 agents on one `tusk mcp
--http` server over PostgreSQL loop the worker cycle (claim-next, comment,
close) while the database is restarted for real (`pg_ctl restart -m fast`,
which closes every connection). Holds:

- every call that failed failed with a typed store class (store.unavailable
  or store.unreachable), never a transport error or an untyped one, and at
  least one did (the restart was felt);
- the fleet resumes by itself: an accepted cycle begins after the database
  is back and ends within 5 s of it;
- no acknowledged mutation is lost: every issue an agent was told it closed
  is closed in the store with its comment, and each has exactly one
  accepted `issue.close` row in the effect log (a change and its rows are
  one transaction); no issue is closed twice.

usage: fleet_restart.py TUSK
Starts a cluster of its own (tests/pg/cluster.sh), so that restarting it
disturbs no other test; prints a JSON summary; exits 1 when a rule fails.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "bench"))
import fleet_mcp  # noqa: E402

CLUSTER = os.path.join(ROOT, "tests", "pg", "cluster.sh")
AGENTS = 8
TYPED = {"store.unavailable", "store.unreachable"}


def cluster(*args: str) -> str:
    return subprocess.run(["bash", CLUSTER, *args], check=True, capture_output=True, text=True).stdout


def psql(url: str, sql: str) -> list[str]:
    out = subprocess.run(["psql", url, "-Atc", sql], check=True, capture_output=True, text=True)
    return [l for l in out.stdout.splitlines() if l]


def outcome(reply: dict) -> tuple[str | None, str | None]:
    """(the issue a cycle closed, the classes that refused it): a run's own
    failure classes, a request's error class, and each failed action's
    cause (an action's error is `scheme_eval.host_action_execution_error`,
    its diagnostic names the store's class)."""
    sc = reply.get("structuredContent") or {}
    if reply.get("isError") and not sc:
        # A request the server could not serve (its run could not start):
        # "the request could not be served: CLASS: …".
        text = " ".join(c.get("text", "") for c in reply.get("content", []))
        m = re.search(r"could not be served: ([a-z_]+\.[a-z_.]+):", text)
        return None, m.group(1) if m else "untyped:" + text[:200]
    if sc.get("result") == "accepted":
        value = sc.get("value")
        if isinstance(value, list) and value and value[0] == "closed":
            return value[1], None if value[2] == "accepted" else f"close:{value[2]}"
        return None, None
    classes = set(sc.get("failureClasses") or [])
    if isinstance(sc.get("error"), dict) and sc["error"].get("class"):
        classes.add(sc["error"]["class"])
    # An action that failed says why in its diagnostic: "ACTION failed: CLASS: …".
    for effect in sc.get("effects") or []:
        m = re.search(r" failed: ([a-z_]+\.[a-z_.]+):", effect.get("diagnostic") or "")
        if effect.get("resultClass") == "scheme_eval.host_action_execution_error" and m:
            classes.discard("scheme_eval.host_action_execution_error")
            classes.add(m.group(1))
    if not classes:
        classes.add("rejected:" + json.dumps(reply)[:600])
    return None, ",".join(sorted(classes))


def main() -> int:
    tusk = os.path.abspath(sys.argv[1])
    exports = dict(
        line[len("export "):].split("=", 1) for line in cluster("start").splitlines() if line.startswith("export ")
    )
    url, pgdir = exports["TUSK_TEST_PG_URL"].strip("'"), exports["TUSK_TEST_PG_DIR"].strip("'")
    work = tempfile.mkdtemp(prefix="tusk-restart-")
    env = {k: v for k, v in os.environ.items() if k != "TUSK_STORE"}
    failures: list[str] = []
    try:
        gen = os.path.join(work, "gen.py")
        with open(gen, "w") as f:
            f.write("import json, sys\n"
                    "n, out = int(sys.argv[1]), sys.argv[2]\n"
                    "with open(out, 'w') as f:\n"
                    "    for i in range(1, n + 1):\n"
                    "        f.write(json.dumps({'id': f'bd-{i}', 'title': f'Issue {i}', 'status': 'open',\n"
                    "                            'priority': i % 5, 'issue_type': 'task'}) + '\\n')\n")
        store = fleet_mcp.generate(gen, 3000, work)
        store_args = ["--store", url]
        fleet_mcp.load_database(tusk, work, env, store, store_args)
        tokens = fleet_mcp.write_tokens(work, AGENTS)
        server, log, host, port = fleet_mcp.serve(tusk, work, env, 64, store_args)
        calls: list[tuple[float, float, str | None, str | None, str | None]] = []
        lock = threading.Lock()
        stop_at = [time.monotonic() + 60.0]

        def agent(i: int) -> None:
            a = fleet_mcp.Agent(host, port, tokens[i])
            a.open()
            program = fleet_mcp.CYCLE.format(me=f"agent-{i}", role=fleet_mcp.ROLES[i % len(fleet_mcp.ROLES)])
            while time.monotonic() < stop_at[0]:
                t0 = time.monotonic()
                closed = refused = error = None
                try:
                    closed, refused = outcome(a.rpc("tools/call", {"name": "scheme_eval",
                                                                   "arguments": {"program": program}}))
                except Exception as e:  # noqa: BLE001 - every failure is reported
                    error = str(e)[:120] or type(e).__name__
                with lock:
                    calls.append((t0, time.monotonic(), closed, refused, error))

        threads = [threading.Thread(target=agent, args=(i,), daemon=True) for i in range(AGENTS)]
        for t in threads:
            t.start()
        time.sleep(2.5)
        restart_began = time.monotonic()
        cluster("restart", pgdir)
        back = time.monotonic()
        stop_at[0] = back + 6.0
        for t in threads:
            t.join()
        fleet_mcp.stop(server, log)

        before = [c for c in calls if c[1] < restart_began and c[2]]
        if not before:
            failures.append("no cycle closed an issue before the restart")
        errors = [c[4] for c in calls if c[4]]
        if errors:
            failures.append(f"calls failed without a typed class: {sorted(set(errors))}")
        refusals: dict[str, int] = {}
        for c in calls:
            for cls in (c[3] or "").split(","):
                if cls:
                    refusals[cls] = refusals.get(cls, 0) + 1
        untyped = {k: v for k, v in refusals.items() if k not in TYPED}
        if untyped:
            failures.append(f"refusals of other classes: {untyped}")
        if not any(refusals.get(k) for k in TYPED):
            failures.append("no call met the restart (no store.unavailable or store.unreachable)")
        resumed = [c for c in calls if c[0] >= back and c[2]]
        first = min((c[1] for c in resumed), default=None)
        if first is None or first - back > 5.0:
            failures.append(f"the fleet did not resume within 5 s of the database's return "
                            f"(first closed cycle {None if first is None else round(first - back, 2)} s after)")

        closed_by: dict[str, int] = {}
        for c in calls:
            if c[2]:
                closed_by[c[2]] = closed_by.get(c[2], 0) + 1
        doubles = [k for k, v in closed_by.items() if v > 1]
        if doubles:
            failures.append(f"issues closed twice: {doubles[:10]}")
        exported = subprocess.run([tusk, "store", "export", *store_args], cwd=work, env=env, check=True,
                                  capture_output=True, text=True).stdout
        issues = {v["id"]: v for v in (json.loads(l) for l in exported.splitlines() if l.strip())}
        lost = [i for i in closed_by if issues.get(i, {}).get("status") != "closed"
                or not any(c.get("text") == "done by the fleet bench" for c in issues[i].get("comments", []))]
        if lost:
            failures.append(f"acknowledged closes lost (not closed, or without their comment): {lost[:10]}")
        rows: dict[str, int] = {}
        for line in psql(url, "SELECT line FROM tusk_effects"):
            row = json.loads(line)
            if row.get("action") == "issue.close" and row.get("envelope", {}).get("resultClass") == "accepted":
                rid = row.get("args", {}).get("id")
                rows[rid] = rows.get(rid, 0) + 1
        closed_in_store = {i for i, v in issues.items() if v.get("status") == "closed"}
        unrecorded = sorted(closed_in_store - set(rows))
        double_rows = sorted(k for k, v in rows.items() if v > 1)
        without_change = sorted(set(rows) - closed_in_store)
        if unrecorded or double_rows or without_change:
            failures.append(f"closes without their row {unrecorded[:10]}, with two rows {double_rows[:10]}, "
                            f"rows without their close {without_change[:10]}")
        print(json.dumps({
            "calls": len(calls), "closed": len(closed_by), "closedBeforeRestart": len(before),
            "refusals": refusals, "restartSeconds": round(back - restart_began, 2),
            "resumedAfterSeconds": None if first is None else round(first - back, 2),
            "failures": failures,
        }, indent=2))
        return 1 if failures else 0
    finally:
        cluster("stop", pgdir)
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
