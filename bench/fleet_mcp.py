#!/usr/bin/env python3
"""A fleet on one server: N agents on one `tusk mcp --http --auth` server.

usage: fleet_mcp.py TUSK [--agents 8,32,64] [--seconds 8] [--issues 10000]
                        [--pg-url URL [--servers K]] [--premath PREMATH]
                        [--gen GEN_ISSUES] [--json]

For each store (the JSONL default, and PostgreSQL when --pg-url is given) and
each N: a fresh directory with GEN_ISSUES's store of --issues issues (each
given one of four role labels), one `TUSK mcp --http 127.0.0.1:0 --auth
tokens.json` server whose tokens carry the server's authority, and N agents,
each a raw streamable-HTTP MCP client (Python's http.client on a thread of
its own, not tusk's code) with its own bearer token and role. Each agent loops
for --seconds on the worker cycle as one `scheme_eval` program: claim the next
ready issue its role routes to, add a comment, close it (nothing to claim:
the program says so and the agent goes on).

With --servers K, each PostgreSQL row is run again with K servers on the
one database (as K machines would run them), the agents spread over them
round-robin: double claims are counted across all of them.

With --premath, the same cycle on the same JSONL store with N premath
`mcp-serve` servers over stdio, one per agent (premath's tools: claim-next,
then update with notes, then close), for the ratio.

Prints per store and N: cycles/s, call latency p50/p95/p99 (ms, the client's
view), errors by class, double claims (an issue closed by two agents, or two
agents told they claimed it), the server's RSS and PSS summed over its
processes (sampled every 0.5 s, the peak), and its process count. The client's
own cost per call is measured first (an HTTP round trip to the server's
`ping`) and printed, so it can be set against the latency.
"""

from __future__ import annotations

import argparse
import hashlib
import http.client
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from typing import Any

ROLES = ["role-a", "role-b", "role-c", "role-d"]
HTTP_LINE = re.compile(r"serving streamable HTTP at http://([0-9.]+):(\d+)/mcp")
CYCLE = """(define claim (issue.claim_next (hash "assignee" "{me}" "filter" (hash "labels" (list "{role}")))))
(if (and (accepted? claim) (hash-ref (payload claim) "claimed"))
    (let ((id (hash-ref (hash-ref (payload claim) "issue") "id")))
      (issue.comment (hash "id" id "author" "{me}" "text" "done by the fleet bench"))
      (list "closed" id (result-class (issue.close (hash "id" id "reason" "bench")))))
    (list "idle" (result-class claim)))"""


def percentile(xs: list[float], p: float) -> float:
    if not xs:
        return float("nan")
    s = sorted(xs)
    return s[max(0, min(len(s) - 1, int(round(p / 100 * len(s) + 0.5)) - 1))]


def memory_of(pid: int) -> tuple[int, int, int]:
    """RSS and PSS in bytes, summed over `pid` and its descendants, and their count."""
    pids = [pid]
    i = 0
    while i < len(pids):
        try:
            with open(f"/proc/{pids[i]}/task/{pids[i]}/children") as f:
                pids.extend(int(c) for c in f.read().split())
        except OSError:
            pass
        i += 1
    rss = pss = 0
    alive = 0
    for p in pids:
        try:
            with open(f"/proc/{p}/smaps_rollup") as f:
                for line in f:
                    if line.startswith("Rss:"):
                        rss += int(line.split()[1]) * 1024
                    elif line.startswith("Pss:"):
                        pss += int(line.split()[1]) * 1024
            alive += 1
        except OSError:
            pass
    return rss, pss, alive


class Sampler(threading.Thread):
    def __init__(self, pid: int) -> None:
        super().__init__(daemon=True)
        self.pid, self.stop = pid, threading.Event()
        self.peak = (0, 0, 0)

    def run(self) -> None:
        while not self.stop.is_set():
            m = memory_of(self.pid)
            if m[1] > self.peak[1]:
                self.peak = m
            self.stop.wait(0.5)


class Tally:
    """What the agents did, added up under one lock."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.latencies: list[float] = []
        self.errors: Counter[str] = Counter()
        self.closed_by: dict[str, list[int]] = {}
        self.idle = 0

    def row(self, elapsed: float) -> dict[str, Any]:
        """The figures every row has: cycles, latency percentiles, errors, doubles."""
        cycles = sum(len(v) for v in self.closed_by.values())
        return {
            "seconds": round(elapsed, 2), "cycles": cycles, "cyclesPerSecond": round(cycles / elapsed, 2),
            "idleCalls": self.idle, "p50Ms": round(percentile(self.latencies, 50), 1),
            "p95Ms": round(percentile(self.latencies, 95), 1), "p99Ms": round(percentile(self.latencies, 99), 1),
            "errors": dict(self.errors), "doubleClaims": sum(1 for v in self.closed_by.values() if len(v) > 1),
        }


def drive(n: int, seconds: float, cycle: Any) -> tuple[Tally, float]:
    """N agent threads, started together, each running `cycle(i)` until the
    time is up. A cycle returns (the issue it closed or None, the class of a
    refusal it met or None); the time it took counts as a call's latency. One
    that raises counts as an error of its message, with no latency."""
    tally = Tally()
    start = threading.Barrier(n + 1)
    stop_at = [0.0]

    def loop(i: int) -> None:
        start.wait()
        while time.monotonic() < stop_at[0]:
            t0 = time.perf_counter()
            try:
                closed, refused = cycle(i)
            except Exception as e:  # noqa: BLE001 - counted by class
                with tally.lock:
                    tally.errors[str(e)[:60] or type(e).__name__] += 1
                continue
            ms = (time.perf_counter() - t0) * 1000
            with tally.lock:
                tally.latencies.append(ms)
                if refused:
                    tally.errors[refused] += 1
                if closed:
                    tally.closed_by.setdefault(closed, []).append(i)
                elif not refused:
                    tally.idle += 1

    threads = [threading.Thread(target=loop, args=(i,), daemon=True) for i in range(n)]
    for t in threads:
        t.start()
    stop_at[0] = time.monotonic() + seconds
    began = time.monotonic()
    start.wait()
    for t in threads:
        t.join()
    return tally, time.monotonic() - began


class Agent:
    """One MCP client over streamable HTTP: its own connection and session."""

    def __init__(self, host: str, port: int, token: str) -> None:
        self.conn = http.client.HTTPConnection(host, port, timeout=60)
        self.token = token
        self.session: str | None = None
        self.next_id = 0

    def rpc(self, method: str, params: dict[str, Any] | None = None, notify: bool = False) -> Any:
        body: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
        if params is not None:
            body["params"] = params
        if not notify:
            self.next_id += 1
            body["id"] = self.next_id
        headers = {
            "Authorization": f"Bearer {self.token}",
            "Content-Type": "application/json",
            "Accept": "application/json, text/event-stream",
        }
        if self.session:
            headers["Mcp-Session-Id"] = self.session
        # Bytes, so that headers and body leave in one segment (a str body is
        # sent apart and meets the peer's delayed ACK: +40 ms a call).
        self.conn.request("POST", "/mcp", json.dumps(body).encode(), headers)
        resp = self.conn.getresponse()
        data = resp.read()
        if resp.getheader("mcp-session-id"):
            self.session = resp.getheader("mcp-session-id")
        if notify:
            return None
        if resp.status != 200:
            raise RuntimeError(f"http.{resp.status}")
        text = data.decode()
        if "text/event-stream" in (resp.getheader("content-type") or ""):
            messages = [json.loads(l[5:]) for l in text.splitlines() if l.startswith("data:") and l[5:].strip()]
            reply = next(m for m in messages if m.get("id") == body["id"])
        else:
            reply = json.loads(text)
        if "error" in reply:
            raise RuntimeError(f"rpc.{reply['error'].get('code')}")
        return reply["result"]

    def open(self) -> None:
        self.rpc("initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                                "clientInfo": {"name": "fleet-bench", "version": "0"}})
        self.rpc("notifications/initialized", notify=True)


def generate(gen: str, n: int, work: str) -> str:
    raw = os.path.join(work, "generated.jsonl")
    subprocess.run([sys.executable, gen, str(n), raw], check=True)
    store = os.path.join(work, ".premath", "issues.jsonl")
    os.makedirs(os.path.dirname(store), exist_ok=True)
    with open(raw) as src, open(store, "w") as dst:
        for i, line in enumerate(src):
            row = json.loads(line)
            row["labels"] = [ROLES[i % len(ROLES)]]
            dst.write(json.dumps(row, separators=(",", ":")) + "\n")
    return store


def load_database(tusk: str, work: str, env: dict[str, str], source: str, store_args: list[str]) -> None:
    """The database of `store_args` made (`store init`) and given exactly the issues of `source`."""
    subprocess.run([tusk, "store", "init", *store_args], cwd=work, env=env, check=True, capture_output=True)
    subprocess.run([tusk, "store", "import", source, "--replace", *store_args], cwd=work, env=env,
                   check=True, capture_output=True)


def write_tokens(work: str, n: int) -> list[str]:
    """N bearer tokens with the server's authority, principals agent-0…; the file `tokens.json`."""
    tokens = [f"bench-token-{i}-{os.urandom(6).hex()}" for i in range(n)]
    with open(os.path.join(work, "tokens.json"), "w") as f:
        json.dump({"tokens": [{"sha256": hashlib.sha256(t.encode()).hexdigest(), "principal": f"agent-{i}",
                               "serverAuthority": True} for i, t in enumerate(tokens)]}, f)
    os.chmod(os.path.join(work, "tokens.json"), 0o600)
    return tokens


def serve(tusk: str, work: str, env: dict[str, str], sessions: int, store_args: list[str],
          name: str = "server") -> tuple[subprocess.Popen[bytes], Any, str, int]:
    """One `tusk mcp --http --auth tokens.json` server in `work`: the process,
    its log file (open), and the host and port it serves at."""
    digest = subprocess.run([tusk, "policy", "digest"], cwd=work, env=env, capture_output=True, text=True,
                            check=True).stdout.strip()
    log_path = os.path.join(work, f"{name}.log")
    log = open(log_path, "w")
    server = subprocess.Popen([tusk, "mcp", "--http", "127.0.0.1:0", "--auth", "tokens.json",
                               "--policy-digest", digest, "--instruction-ref", "instr://fleet-bench",
                               "--max-sessions", str(sessions), *store_args],
                              cwd=work, env=env, stdout=log, stderr=log, stdin=subprocess.DEVNULL)
    deadline = time.monotonic() + 30
    while True:
        m = HTTP_LINE.search(open(log_path).read())
        if m:
            return server, log, m.group(1), int(m.group(2))
        if server.poll() is not None or time.monotonic() > deadline:
            server.kill()
            raise SystemExit(f"the server did not start:\n{open(log_path).read()[-2000:]}")
        time.sleep(0.05)


def stop(server: subprocess.Popen[bytes], log: Any) -> None:
    server.terminate()
    try:
        server.wait(timeout=20)
    except subprocess.TimeoutExpired:
        server.kill()
    log.close()


def cycle_of(agent: "Agent", program: str) -> tuple[str | None, str | None]:
    """One worker cycle as one `scheme_eval` call: (the issue it closed or
    None, the classes of a refusal or None)."""
    r = agent.rpc("tools/call", {"name": "scheme_eval", "arguments": {"program": program}})
    sc = r.get("structuredContent") or {}
    if sc.get("result") != "accepted":
        return None, ",".join(sc.get("failureClasses") or ["rejected"])
    value = sc.get("value")
    if isinstance(value, list) and value and value[0] == "closed":
        return value[1], None if value[2] == "accepted" else f"close:{value[2]}"
    return None, None


def tusk_fleet(tusk: str, n: int, seconds: float, issues: int, gen: str, pg: str | None,
               servers: int = 1) -> dict[str, Any]:
    work = tempfile.mkdtemp(prefix="tusk-fleet-")
    store = generate(gen, issues, work)
    env = {k: v for k, v in os.environ.items() if k != "TUSK_STORE"}
    store_args: list[str] = []
    if pg:
        store_args = ["--store", pg]
        load_database(tusk, work, env, store, store_args)
    tokens = write_tokens(work, n)
    # Several servers on one database, as machines of a fleet would run them
    # (the file store has one server: its store is one machine's file).
    running = [serve(tusk, work, env, max(64, 2 * n), store_args, f"server-{k}") for k in range(servers)]
    server, log, host, port = running[0]
    try:
        # The client's own cost: a ping round trip, one agent, warm.
        probe = Agent(host, port, tokens[0])
        probe.open()
        pings = []
        for _ in range(50):
            t0 = time.perf_counter()
            probe.rpc("ping")
            pings.append((time.perf_counter() - t0) * 1000)
        agents = [Agent(running[i % servers][2], running[i % servers][3], t) for i, t in enumerate(tokens)]
        for a in agents:
            a.open()
        sampler = Sampler(server.pid)
        sampler.start()
        programs = [CYCLE.format(me=f"agent-{i}", role=ROLES[i % len(ROLES)]) for i in range(n)]

        def cycle(i: int) -> tuple[str | None, str | None]:
            return cycle_of(agents[i], programs[i])

        tally, elapsed = drive(n, seconds, cycle)
        sampler.stop.set()
        sampler.join()
        rss, pss, procs = sampler.peak
        # Every close an agent was told of is in the store.
        if pg:
            exported = subprocess.run([tusk, "store", "export", *store_args], cwd=work, env=env, check=True,
                                      capture_output=True, text=True).stdout
        else:
            with open(store) as f:
                exported = f.read()
        status = {v["id"]: v.get("status") for v in (json.loads(l) for l in exported.splitlines() if l.strip())}
        lost = sum(1 for issue in tally.closed_by if status.get(issue) != "closed")
        label = "postgresql" if pg else "jsonl"
        return {
            "store": label if servers == 1 else f"{label} ({servers} servers)", "agents": n, **tally.row(elapsed),
            "serverRssMiB": round(rss / 2**20, 1), "serverPssMiB": round(pss / 2**20, 1),
            "serverProcesses": procs, "clientPingP50Ms": round(statistics.median(pings), 2),
            "lostCloses": lost,
        }
    finally:
        for server, log, _, _ in running:
            stop(server, log)
        shutil.rmtree(work, ignore_errors=True)


def premath_fleet(premath: str, n: int, seconds: float, issues: int, gen: str) -> dict[str, Any]:
    """N premath `mcp-serve` servers over stdio on one JSONL store, one per agent."""
    work = tempfile.mkdtemp(prefix="premath-fleet-")
    generate(gen, issues, work)
    procs = []
    for _ in range(n):
        procs.append(subprocess.Popen([premath, "mcp-serve", "--mutation-policy", "open"], cwd=work,
                                      stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                      text=True, bufsize=1))
    counter = [0]

    def call(p: subprocess.Popen[str], method: str, params: dict[str, Any] | None, notify: bool = False) -> Any:
        body: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
        if params is not None:
            body["params"] = params
        if not notify:
            counter[0] += 1
            body["id"] = counter[0]
        assert p.stdin and p.stdout
        p.stdin.write(json.dumps(body) + "\n")
        p.stdin.flush()
        if notify:
            return None
        while True:
            reply = json.loads(p.stdout.readline())
            if reply.get("id") == body["id"]:
                if "error" in reply:
                    raise RuntimeError(f"rpc.{reply['error'].get('code')}")
                return reply["result"]

    try:
        for p in procs:
            call(p, "initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                                   "clientInfo": {"name": "fleet-bench", "version": "0"}})
            call(p, "notifications/initialized", None, notify=True)
        def tool(p: subprocess.Popen[str], name: str, args: dict[str, Any]) -> dict[str, Any]:
            r = call(p, "tools/call", {"name": name, "arguments": args})
            text = "".join(c.get("text", "") for c in r.get("content", []))
            if r.get("isError"):
                raise RuntimeError(text.split("]")[0].lstrip("[") or "tool error")
            try:
                value = json.loads(text)
            except ValueError:
                return {"text": text}
            # A refusal can come back as a result that is not an error.
            if isinstance(value, dict) and value.get("result") == "rejected":
                raise RuntimeError(",".join(value.get("failureClasses") or ["rejected"]))
            return value

        def cycle(i: int) -> tuple[str | None, str | None]:
            # premath has no claim-next: its cycle is ready → claim (the
            # agent's own offset into the ready list, the next on contention)
            # → note → close, four tool calls (as bench/context.py counts).
            p, me = procs[i], f"agent-{i}"
            ready = tool(p, "issue_ready", {}).get("items") or []
            for k in range(min(3, len(ready))):
                candidate = ready[(i + k) % len(ready)]["id"]
                try:
                    tool(p, "issue_claim", {"id": candidate, "assignee": me})
                except RuntimeError as e:
                    if "contention" not in str(e) and "claimed" not in str(e):
                        raise
                    continue
                tool(p, "issue_update", {"id": candidate, "notes": "done by the fleet bench"})
                tool(p, "issue_update", {"id": candidate, "status": "closed"})
                return candidate, None
            return None, None

        tally, elapsed = drive(n, seconds, cycle)
        return {"store": "jsonl (premath x N)", "agents": n, **tally.row(elapsed)}
    finally:
        for p in procs:
            p.kill()
            p.wait()
        shutil.rmtree(work, ignore_errors=True)


def main() -> int:
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("tusk")
    ap.add_argument("--agents", default="8,32,64")
    ap.add_argument("--seconds", type=float, default=8)
    ap.add_argument("--issues", type=int, default=10000)
    ap.add_argument("--pg-url")
    ap.add_argument("--servers", type=int, default=1,
                    help="on PostgreSQL, also run each N with this many servers on the one database, "
                         "agents spread over them")
    ap.add_argument("--premath")
    ap.add_argument("--gen", default=os.path.join(here, "..", "..", "shared", "bench", "gen_issues.py"))
    ap.add_argument("--json", action="store_true", help="one JSON object per line instead of the table")
    a = ap.parse_args()
    a.tusk = os.path.abspath(a.tusk) if os.sep in a.tusk else (shutil.which(a.tusk) or a.tusk)
    if not os.path.isfile(a.gen):
        print(f"fleet_mcp.py: no issue generator at {a.gen}; pass --gen PATH to ../shared/bench/gen_issues.py "
              "(usage: gen_issues.py N OUT)", file=sys.stderr)
        return 2
    counts = [int(x) for x in a.agents.split(",")]
    rows = []
    stores: list[str | None] = [None] + ([a.pg_url] if a.pg_url else [])
    for pg in stores:
        for n in counts:
            rows.append(tusk_fleet(a.tusk, n, a.seconds, a.issues, a.gen, pg))
            if a.json:
                print(json.dumps(rows[-1]), flush=True)
            if pg and a.servers > 1:
                rows.append(tusk_fleet(a.tusk, n, a.seconds, a.issues, a.gen, pg, a.servers))
                if a.json:
                    print(json.dumps(rows[-1]), flush=True)
    if a.premath:
        for n in counts:
            rows.append(premath_fleet(a.premath, n, a.seconds, a.issues, a.gen))
            if a.json:
                print(json.dumps(rows[-1]), flush=True)
    if not a.json:
        print(f"# {a.issues} issues, {a.seconds:g} s per row, {os.cpu_count()} cores, load {os.getloadavg()[0]:.2f}")
        print(f"{'store':<22}{'N':>4}{'cycles/s':>10}{'p50 ms':>9}{'p95 ms':>9}{'p99 ms':>9}{'double':>8}"
              f"{'RSS MiB':>9}{'PSS MiB':>9}{'procs':>7}  errors")
        for r in rows:
            print(f"{r['store']:<22}{r['agents']:>4}{r['cyclesPerSecond']:>10}{r['p50Ms']:>9}{r['p95Ms']:>9}"
                  f"{r['p99Ms']:>9}{r['doubleClaims']:>8}{r.get('serverRssMiB', '-'):>9}"
                  f"{r.get('serverPssMiB', '-'):>9}{r.get('serverProcesses', '-'):>7}  {r['errors'] or '-'}")
        for n in counts:
            t = next((r for r in rows if r["store"] == "jsonl" and r["agents"] == n), None)
            p = next((r for r in rows if r["store"].startswith("jsonl (premath") and r["agents"] == n), None)
            if t and p and p["cyclesPerSecond"]:
                print(f"# N={n}: tusk's shared server / N premath servers = "
                      f"{t['cyclesPerSecond'] / p['cyclesPerSecond']:.2f}x")
        pings = [r["clientPingP50Ms"] for r in rows if "clientPingP50Ms" in r]
        if pings:
            print(f"# the client's own round trip (ping, p50): {statistics.median(pings):.2f} ms")
    # premath's rows report what premath does (its double claims included);
    # only tusk's must hold.
    bad = [r for r in rows if (r["doubleClaims"] or r.get("lostCloses")) and "premath" not in r["store"]]
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
