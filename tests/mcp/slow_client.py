#!/usr/bin/env python3
"""No program and no slow client holds a row lock past its call (issue 58).

usage: slow_client.py TUSK PG_URL

One `tusk mcp --http` server on PostgreSQL, three agents:
- A runs a program that comments on bd-1 and then computes for about 2.5
  seconds before it ends (under load it may reach its time limit instead:
  either way its comment was committed with its call);
- S sends a program that comments on bd-1 and never reads the reply (a
  client that stalls after its request);
- B, half a second into both, comments on bd-1 and closes it.
B's calls must be answered, accepted, within 1.5 s although A's program is
still running and S's reply still unread: each call's transaction (its row
lock included) ends with the call, before the reply is sent. Prints a JSON
summary; exits 1 when a rule fails.
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

# A's program: a comment, then seconds of arithmetic.
LONG = """(issue.comment (hash "id" "bd-1" "author" "agent-0" "text" "from the long program"))
""" + checks.SPIN + """
(spin {n} 0)"""
STALLED = '(issue.comment (hash "id" "bd-1" "author" "agent-1" "text" "from the stalled client"))'
QUICK = """(list (result-class (issue.comment (hash "id" "bd-1" "author" "agent-2" "text" "quick")))
      (result-class (issue.close (hash "id" "bd-1" "reason" "done"))))"""


def main() -> int:
    tusk, url = os.path.abspath(sys.argv[1]), sys.argv[2]
    work = tempfile.mkdtemp(prefix="tusk-slow-client-")
    env = {k: v for k, v in os.environ.items() if k != "TUSK_STORE"}
    failures: list[str] = []
    try:
        seed = checks.two_issue_seed(work)
        store_args = ["--store", url]
        fleet_mcp.load_database(tusk, work, env, seed, store_args)
        tokens = fleet_mcp.write_tokens(work, 3)
        server, log, host, port = fleet_mcp.serve(tusk, work, env, 16, store_args)
        try:
            a, s, b = (fleet_mcp.Agent(host, port, t) for t in tokens)
            for agent in (a, s, b):
                agent.open()
            n = checks.spin_steps(a, 2.5)
            long_reply: dict = {}

            def long_run() -> None:
                long_reply["r"] = a.rpc("tools/call", {"name": "scheme_eval", "arguments": {
                    "program": LONG.format(n=n)}})
                long_reply["t"] = time.monotonic()

            runner = threading.Thread(target=long_run, daemon=True)
            started = time.monotonic()
            runner.start()
            # S sends its call and never reads the answer.
            body = {"jsonrpc": "2.0", "id": 99, "method": "tools/call",
                    "params": {"name": "scheme_eval", "arguments": {"program": STALLED}}}
            s.conn.request("POST", "/mcp", json.dumps(body).encode(), {
                "Authorization": f"Bearer {s.token}", "Content-Type": "application/json",
                "Accept": "application/json, text/event-stream", "Mcp-Session-Id": s.session or ""})
            time.sleep(0.5)
            t1 = time.monotonic()
            quick = b.rpc("tools/call", {"name": "scheme_eval", "arguments": {"program": QUICK}})
            quick_s = time.monotonic() - t1
            sc = quick.get("structuredContent") or {}
            if sc.get("value") != ["accepted", "accepted"]:
                failures.append(f"B's comment and close were not both accepted: {json.dumps(sc)[:400]}")
            if quick_s > 1.5:
                failures.append(f"B waited {quick_s:.2f} s for bd-1: a lock outlived its call")
            runner.join(timeout=30)
            long_s = long_reply.get("t", time.monotonic()) - started
            # A's result does not matter (on a loaded machine its arithmetic
            # may outrun its time limit): its first call was answered, and
            # it was still running when B was.
            if "r" not in long_reply:
                failures.append("A's program never answered")
            answered = t1 + quick_s
            if long_reply.get("t", 0.0) <= answered:
                failures.append(f"A's program ended after {long_s:.2f} s, before B was answered: "
                                "the test did not hold a program open")
        finally:
            fleet_mcp.stop(server, log)
        exported = subprocess.run([tusk, "store", "export", *store_args], cwd=work, env=env, check=True,
                                  capture_output=True, text=True).stdout
        issue = next(json.loads(l) for l in exported.splitlines() if l.strip() and json.loads(l)["id"] == "bd-1")
        texts = sorted(c["text"] for c in issue.get("comments", []))
        if "quick" not in texts or "from the long program" not in texts or issue.get("status") != "closed":
            failures.append(f"bd-1 lacks a change: {texts}, {issue.get('status')}")
        print(json.dumps({"quickSeconds": round(quick_s, 3), "longSeconds": round(long_s, 2),
                          "comments": texts, "failures": failures}, indent=2))
        return 1 if failures else 0
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
