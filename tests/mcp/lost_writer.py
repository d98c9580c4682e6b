#!/usr/bin/env python3
"""A live server that lost its writer lock is closed without a row of its
run following the footer (issue 61, `pg::writers`).

usage: lost_writer.py TUSK PG_URL

One `tusk mcp --http` server on PostgreSQL. Agent A runs a program that
comments on bd-1, computes for about 2.5 seconds, then comments again.
Half a second in, the test cuts the connection that holds the server's
writer lock (`pg_terminate_backend`, as a network cut or a database
failover would) and opens the store with `tusk issue list`, which takes the
now free lock and closes A's open run as interrupted. Then:
- A's second comment is refused as `store.unavailable` and is not in the
  store; its first is;
- A's run in the effect log is its header, its first call and the
  recovered footer, with no row after the footer;
- `tusk replay` keeps parity;
- the server's next run is accepted, under a new writer, and a further
  `tusk issue list` closes nothing of it.
Prints a JSON summary; exits 1 when a rule fails.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(HERE)), "bench"))
import fleet_mcp  # noqa: E402

sys.path.insert(0, HERE)
import checks  # noqa: E402

# The liveness locks' class (pg::writers::WRITERS, "tusk").
WRITERS = 0x7475736B
LONG = """(issue.comment (hash "id" "bd-1" "author" "agent-0" "text" "before the cut"))
""" + checks.SPIN + """
(spin {n} 0)
(result-class (issue.comment (hash "id" "bd-1" "author" "agent-0" "text" "after the cut")))"""
NEXT = '(result-class (issue.comment (hash "id" "bd-2" "author" "agent-1" "text" "next run")))'


def psql(url: str, sql: str) -> list[str]:
    out = subprocess.run(["psql", url, "-Atc", sql], capture_output=True, text=True, check=True)
    return out.stdout.splitlines()


def main() -> int:
    tusk, url = os.path.abspath(sys.argv[1]), sys.argv[2]
    work = tempfile.mkdtemp(prefix="tusk-lost-writer-")
    env = {k: v for k, v in os.environ.items() if k != "TUSK_STORE"}
    failures: list[str] = []
    try:
        seed = checks.two_issue_seed(work)
        store_args = ["--store", url]
        fleet_mcp.load_database(tusk, work, env, seed, store_args)
        tokens = fleet_mcp.write_tokens(work, 2)
        server, log, host, port = fleet_mcp.serve(tusk, work, env, 4, store_args)
        try:
            a, b = (fleet_mcp.Agent(host, port, t) for t in tokens)
            for agent in (a, b):
                agent.open()

            n = checks.spin_steps(a, 2.5)
            writers_before = psql(url, "SELECT writer FROM tusk_log_writers")
            reply: dict = {}

            def long_run() -> None:
                reply["r"] = a.rpc("tools/call", {"name": "scheme_eval", "arguments": {
                    "program": LONG.format(n=n)}})

            runner = threading.Thread(target=long_run, daemon=True)
            runner.start()
            time.sleep(0.5)
            cut = psql(url, "SELECT pg_terminate_backend(pid) FROM pg_locks "
                            f"WHERE locktype = 'advisory' AND classid = {WRITERS} AND objsubid = 2 AND granted "
                            "AND database = (SELECT oid FROM pg_database WHERE datname = current_database())")
            if cut != ["t"]:
                failures.append(f"expected one writer lock to cut, found {cut}")
            opened = subprocess.run([tusk, "issue", "list", "--json", *store_args], cwd=work, env=env,
                                    capture_output=True, text=True)
            if opened.returncode != 0:
                failures.append(f"`tusk issue list` failed: {opened.stderr[-400:]}")
            runner.join(timeout=60)
            sc = (reply.get("r") or {}).get("structuredContent") or {}
            run_id = sc.get("runId")
            if sc.get("result") == "accepted" and sc.get("value") == "accepted":
                failures.append("A's second comment was accepted after its run was closed")
            if "store.unavailable" not in json.dumps(sc):
                failures.append(f"A's result does not say store.unavailable: {json.dumps(sc)[:600]}")
            rows = [json.loads(line) for line in psql(url, "SELECT line FROM tusk_effects ORDER BY seq")]
            mine = [r for r in rows if r.get("runId") == run_id]
            kinds = [r.get("kind", "").rsplit(".", 2)[-2] for r in mine]
            if kinds != ["run", "row", "run_end"] or not mine[-1].get("recovered"):
                failures.append(f"A's run in the log: {kinds}, footer {json.dumps(mine[-1:])[:400]}")
            if mine and mine[0].get("writer") not in writers_before:
                failures.append(f"A's header names writer {mine[0].get('writer')}, not {writers_before}")
            nxt = b.rpc("tools/call", {"name": "scheme_eval", "arguments": {"program": NEXT}})
            nsc = nxt.get("structuredContent") or {}
            if nsc.get("value") != "accepted":
                failures.append(f"the server's next run was not accepted: {json.dumps(nsc)[:400]}")
            writers_after = psql(url, "SELECT writer FROM tusk_log_writers")
            if len(writers_after) != 1 or writers_after == writers_before:
                failures.append(f"writers before {writers_before}, after {writers_after}: expected a new one")
            again = subprocess.run([tusk, "issue", "list", "--json", *store_args], cwd=work, env=env,
                                   capture_output=True, text=True)
            if again.returncode != 0 or psql(url, "SELECT writer FROM tusk_log_writers") != writers_after:
                failures.append("opening the store again closed the live server's new writer")
        finally:
            fleet_mcp.stop(server, log)
        exported = subprocess.run([tusk, "store", "export", *store_args], cwd=work, env=env, check=True,
                                  capture_output=True, text=True).stdout
        issue = next(json.loads(l) for l in exported.splitlines() if l.strip() and json.loads(l)["id"] == "bd-1")
        texts = sorted(c["text"] for c in issue.get("comments", []))
        if texts != ["before the cut"]:
            failures.append(f"bd-1's comments: {texts}, expected only the one before the cut")
        replay = subprocess.run([tusk, "replay", "--json", *store_args], cwd=work, env=env,
                                capture_output=True, text=True)
        report = json.loads(replay.stdout or "{}")
        if report.get("parity") is not True:
            bad = [r for r in report.get("runs", []) if not r.get("parity")][:3]
            failures.append(f"replay: {json.dumps(bad)[:800]} {replay.stderr[-300:]}")
        print(json.dumps({"comments": texts, "runs": report.get("runCount"), "failures": failures}, indent=2))
        return 1 if failures else 0
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
