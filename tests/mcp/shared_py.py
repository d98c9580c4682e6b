#!/usr/bin/env python3
"""A `tusk mcp` several agents can share, tried as hostile clients and a careful
operator would, with the official Python MCP SDK (pinned in requirements.txt),
raw HTTP (httpx2, the SDK's own HTTP client) and raw stdio JSON-RPC.

Usage: shared_py.py TUSK_BINARY SCRATCH_DIR

Each scenario starts its own server(s) in SCRATCH_DIR/<scenario>/ (so its
stores are its own), prints `ok NAME` or `FAIL NAME: WHY`, and the script ends
with `N passed, M failed`; exit 0 iff all passed.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import os
import re
import signal
import subprocess
import sys
import time
import traceback
from contextlib import asynccontextmanager
from typing import Any

import anyio
import httpx2
from mcp import Client, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client
from checks import check, Fail, HTTP_LINE
import servers
from servers import (Work, texts, show, token_file, log_for, stdio, http_server, http_client,
                     evaluate, sc_of, classes)

if len(sys.argv) != 3:
    print("usage: shared_py.py TUSK_BINARY SCRATCH_DIR", file=sys.stderr)
    sys.exit(2)

servers.configure(sys.argv[1], sys.argv[2])
TUSK = servers.TUSK
INSTR = "instr://tests/mcp/shared_py"
SPIN = "(let loop ((i 0)) (if (< i 400000000) (loop (+ i 1)) i))"





# -------------------------------------------------------------- process tree

def children(pid: int) -> list[int]:
    out = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                stat = f.read()
        except OSError:
            continue
        fields = stat[stat.rindex(")") + 2:].split()
        if int(fields[1]) == pid and fields[0] != "Z":
            out.append(int(entry))
    return out


def descendants(pid: int) -> list[int]:
    found, todo = [], [pid]
    while todo:
        kids = children(todo.pop())
        found += kids
        todo += kids
    return found


def rss_kb(pid: int) -> int:
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    raise Fail(f"no VmRSS for {pid}")


# -------------------------------------------------------------- raw stdio

class RawStdio:
    """`tusk mcp` spoken to line by line, for what no SDK sends."""

    def __init__(self, w: Work, *flags: str) -> None:
        self.log = open(log_for(w, "raw"), "w")
        self.proc = subprocess.Popen([TUSK, "mcp", *flags], cwd=w.dir, stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=self.log)

    def send(self, data: bytes) -> None:
        assert self.proc.stdin
        self.proc.stdin.write(data)
        self.proc.stdin.flush()

    def request(self, rid: int, method: str, params: dict[str, Any]) -> None:
        self.send(json.dumps({"jsonrpc": "2.0", "id": rid, "method": method, "params": params}).encode() + b"\n")

    def read(self, timeout: float = 10) -> dict[str, Any]:
        assert self.proc.stdout
        import select
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            check(left > 0, "no message from the server in time")
            ready, _, _ = select.select([self.proc.stdout], [], [], left)
            if ready:
                line = self.proc.stdout.readline()
                check(line, "the server closed stdout")
                return json.loads(line)

    def answer(self, rid: int, timeout: float = 10) -> dict[str, Any]:
        while True:
            msg = self.read(timeout)
            if msg.get("id") == rid:
                return msg

    def initialize(self) -> None:
        self.request(0, "initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                                       "clientInfo": {"name": "raw", "version": "0"}})
        check("result" in self.answer(0), "initialize failed")
        self.send(b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n')

    def close(self) -> None:
        try:
            if self.proc.stdin:
                self.proc.stdin.close()
        except OSError:
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self.log.close()


# -------------------------------------------------------------- scenarios

async def s_hijack_refused_between_principals() -> None:
    """Client B learns A's session id and tries to read and redefine in it: refused as unknown."""
    w = Work("hijack_tokens")
    w.seed()
    digest = w.digest()
    tokens = token_file(w, [
        {"token": "secret-a", "principal": "agent.a", "policyDigest": digest, "instructionRef": INSTR},
        {"token": "secret-b", "principal": "agent.b", "policyDigest": digest, "instructionRef": INSTR},
    ])
    async with http_server(w, "--auth", tokens) as srv:
        async with http_client(srv.url, "secret-a") as a, http_client(srv.url, "secret-b") as b:
            r = await a.call_tool("session_open", {})
            sid = r.structured_content["sessionId"]
            r = await evaluate(a, '(define secret "a-only") (define (work) (issue.ready))', sessionId=sid)
            check(not r.is_error, f"A's define: {show(r)}")
            # What B can see of A's session through a read action: no usable id.
            r = await evaluate(b, '(map (lambda (row) (hash-ref row "lineageRefs")) (hash-ref (payload (harness.trajectory.query (hash "limit" 50))) "items"))')
            seen = json.dumps(sc_of(r)["value"])
            check(sid not in seen, f"A's full session id is readable by B through the trajectory: {seen[:300]}")
            public = sid.rsplit(".", 1)[0]
            check(public in seen, f"the trajectory should name A's session by its public part {public!r}: {seen[:300]}")
            for attempt in [sid, public]:
                r = await evaluate(b, "secret", sessionId=attempt)
                check(r.is_error and "unknown or expired session" in " ".join(texts(r)), f"B used A's session {attempt!r}: {show(r)}")
                r = await evaluate(b, '(define (work) (issue.close (hash "id" "bd-1")))', sessionId=attempt)
                check(r.is_error and "unknown or expired session" in " ".join(texts(r)), f"B redefined in A's session: {show(r)}")
                r = await b.call_tool("session_close", {"sessionId": attempt})
                check(r.is_error, f"B closed A's session: {show(r)}")
            r = await evaluate(a, "(result-class (work))", sessionId=sid)
            check(not r.is_error and sc_of(r)["value"] == "accepted", f"A's own function changed: {show(r)}")
            check(w.issue("bd-1")["status"] != "closed", "bd-1 was closed")
            headers = [row for row in w.rows() if row.get("kind") == "premath.scheme_eval.run.v0"]
            check({h.get("principal") for h in headers} == {"agent.a", "agent.b"}, f"principals in headers: {[h.get('principal') for h in headers]}")


async def s_hijack_refused_between_transport_sessions() -> None:
    """Two anonymous loopback clients (legacy transport sessions): one cannot use the other's session."""
    w = Work("hijack_anonymous")
    async with http_server(w) as srv:
        async with http_client(srv.url, mode="legacy") as a, http_client(srv.url, mode="legacy") as b:
            sid = (await a.call_tool("session_open", {})).structured_content["sessionId"]
            check(re.fullmatch(r"mcp-\d{8}T\d{6}\.\d{3}Z-[0-9a-f]{12}\.[0-9a-f]{32}", sid), f"session id shape {sid!r}")
            await evaluate(a, "(define x 1)", sessionId=sid)
            r = await evaluate(b, "x", sessionId=sid)
            check(r.is_error and "unknown or expired session" in " ".join(texts(r)), f"B used A's session: {show(r)}")
            r = await evaluate(a, "(+ x 1)", sessionId=sid)
            check(sc_of(r)["value"] == 2, f"A's session: {show(r)}")


async def s_unauthorized_is_401() -> None:
    w = Work("unauthorized")
    tokens = token_file(w, [{"token": "right", "principal": "agent.a"}])
    before = w.log_bytes()
    async with http_server(w, "--auth", tokens) as srv:
        body = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "x", "version": "0"}}}
        hdrs = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
        async with httpx2.AsyncClient(timeout=10) as hc:
            for auth, err in [(None, None), ("Bearer wrong", "invalid_token"), ("Basic cmlnaHQ=", None)]:
                h = dict(hdrs)
                if auth:
                    h["Authorization"] = auth
                resp = await hc.post(srv.url, json=body, headers=h)
                check(resp.status_code == 401, f"{auth!r}: status {resp.status_code}")
                challenge = resp.headers.get("www-authenticate", "")
                check(challenge.startswith("Bearer"), f"{auth!r}: WWW-Authenticate {challenge!r}")
                check(err is None or err in challenge, f"{auth!r}: challenge {challenge!r} lacks {err}")
            resp = await hc.post(srv.url, json=body, headers={**hdrs, "Authorization": "Bearer right"})
            check(resp.status_code == 200, f"with the token: status {resp.status_code}")
        # An SDK client without a token cannot even list tools.
        try:
            async with http_client(srv.url) as c:
                await c.list_tools()
            raise Fail("a client without a token was served")
        except Fail:
            raise
        except BaseException:  # noqa: BLE001 - the SDK's error for a 401
            pass
    check(w.log_bytes() == before, "something was recorded for unauthorized requests")


async def s_token_authority_applied_and_recorded() -> None:
    w = Work("token_authority")
    w.seed()
    digest = w.digest()
    tokens = token_file(w, [
        {"token": "owner", "principal": "agent.owner", "policyDigest": digest, "instructionRef": INSTR},
        {"token": "server", "principal": "agent.server", "serverAuthority": True},
        {"token": "bare", "principal": "agent.bare"},
        {"token": "reader", "principal": "agent.reader", "readOnly": True, "serverAuthority": True},
        {"token": "narrow", "principal": "agent.narrow", "actions": ["issue.ready", "issue.claim"], "serverAuthority": True},
    ])
    claim = '(issue.claim (hash "id" "{id}" "assignee" "{who}"))'
    async with http_server(w, "--auth", tokens, "--policy-digest", digest, "--instruction-ref", "instr://server") as srv:
        async with http_client(srv.url, "owner") as c:
            r = await evaluate(c, claim.format(id="bd-1", who="agent.owner"))
            check(not r.is_error, f"token's own authority: {show(r)}")
        async with http_client(srv.url, "server") as c:
            r = await evaluate(c, claim.format(id="bd-2", who="agent.server"))
            check(not r.is_error, f"serverAuthority token: {show(r)}")
        async with http_client(srv.url, "bare") as c:
            r = await evaluate(c, claim.format(id="bd-3", who="agent.bare"))
            check(r.is_error and "mutation.use_evidence_missing" in classes(r), f"token without authority mutated: {show(r)}")
            r = await evaluate(c, claim.format(id="bd-3", who="agent.bare"), policyDigest=digest, instructionRef=INSTR)
            check(not r.is_error, f"own evidence in the call: {show(r)}")
        async with http_client(srv.url, "reader") as c:
            tools = {t.name: t for t in (await c.list_tools()).tools}
            ann = tools["scheme_eval"].annotations
            check(ann and ann.read_only_hint is True and ann.destructive_hint is False, f"reader's scheme_eval annotations {ann!r}")
            r = await evaluate(c, '(issue.close (hash "id" "bd-1"))')
            # Refused in the caller's terms (issue 57): its token is read-only.
            check(r.is_error and classes(r) == ["authority.read_only"], f"read-only principal mutated: {show(r)}")
        async with http_client(srv.url, "narrow") as c:
            r = await evaluate(c, "(issue.list)")
            check(r.is_error and classes(r) == ["scheme_eval.effect_denied"], f"narrowed principal used issue.list: {show(r)}")
            r = await evaluate(c, "(result-class (issue.ready))")
            check(not r.is_error, f"narrowed principal's allowed read: {show(r)}")
    headers = {h["runId"]: h for h in w.rows() if h.get("kind") == "premath.scheme_eval.run.v0"}
    principals = sorted({h.get("principal") for h in headers.values()})
    check(principals == ["agent.bare", "agent.narrow", "agent.owner", "agent.reader", "agent.server"], f"principals {principals}")
    owner_run = next(h for h in headers.values() if h.get("principal") == "agent.owner")
    check(owner_run["authority"].get("policyDigest") == digest and owner_run["authority"].get("instructionRef") == INSTR, f"recorded authority {owner_run['authority']}")
    server_run = next(h for h in headers.values() if h.get("principal") == "agent.server")
    check(server_run["authority"].get("instructionRef") == "instr://server", f"server authority not applied: {server_run['authority']}")
    narrow = next(h for h in headers.values() if h.get("principal") == "agent.narrow")
    check(narrow["hostActions"] == ["issue.claim", "issue.ready"], f"narrowed principal bound {narrow['hostActions']}")
    steps = [row for row in w.rows(w.trajectory)]
    check(all(any(r.startswith("principal://agent.") for r in row.get("lineageRefs", [])) for row in steps), "a trajectory row without its principal")
    w.replay_ok()


async def s_anonymous_http_gets_no_server_authority() -> None:
    w = Work("anonymous")
    w.seed()
    digest = w.digest()
    async with http_server(w, "--policy-digest", digest, "--instruction-ref", INSTR) as srv:
        async with http_client(srv.url) as c:
            r = await evaluate(c, '(issue.claim (hash "id" "bd-1" "assignee" "x"))')
            check(r.is_error and "mutation.use_evidence_missing" in classes(r), f"anonymous caller used the server's authority: {show(r)}")
    check(w.issue("bd-1")["status"] == "open", "bd-1 changed")
    p = w.tusk("mcp", "--http", "0.0.0.0:0", "--allow-remote")
    check(p.returncode != 0 and "--auth" in p.stderr, f"remote without --auth: exit {p.returncode} {p.stderr[-300:]!r}")


async def s_origin_validated() -> None:
    w = Work("origin")
    async with http_server(w) as srv:
        port = srv.url.split(":")[2].split("/")[0]
        body = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "x", "version": "0"}}}
        hdrs = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
        async with httpx2.AsyncClient(timeout=10) as hc:
            resp = await hc.post(srv.url, json=body, headers={**hdrs, "Origin": "http://evil.example"})
            check(resp.status_code == 403, f"foreign Origin: status {resp.status_code}")
            resp = await hc.post(srv.url, json=body, headers={**hdrs, "Origin": f"http://localhost:{port}"})
            check(resp.status_code == 200, f"loopback Origin: status {resp.status_code}")
    async with http_server(w, "--allow-origin", "https://app.example.com:443") as srv:
        async with httpx2.AsyncClient(timeout=10) as hc:
            resp = await hc.post(srv.url, json=body, headers={**hdrs, "Origin": "https://app.example.com"})
            check(resp.status_code == 200, f"allowed Origin: status {resp.status_code}")


async def s_cancel_stops_the_run() -> None:
    """notifications/cancelled stops the run within 100 ms of the cancel; the mutation after the spin never happens."""
    w = Work("cancel")
    w.seed()
    digest = w.digest()
    program = f'(issue.ready) {SPIN} (issue.close (hash "id" "bd-1"))'
    async with stdio(w, "--policy-digest", digest, "--instruction-ref", INSTR, "--timeout-ms", "20000") as c:
        await evaluate(c, "(+ 1 2)")  # a warm server
        started = time.monotonic()
        with anyio.move_on_after(0.5):
            await evaluate(c, program)
        cancelled_at = time.monotonic()
        check(cancelled_at - started < 1.0, "the cancel did not return")
        # The footer of the cancelled run is written within 100 ms of the cancel.
        footer = None
        while time.monotonic() - cancelled_at < 3:
            runs = [r for r in w.rows() if r.get("kind") == "premath.scheme_eval.run.v0" and r.get("program") == program]
            if runs:
                footer = next((r for r in w.rows() if r.get("kind") == "premath.scheme_eval.run_end.v0" and r.get("runId") == runs[0]["runId"]), None)
            if footer:
                break
            await asyncio.sleep(0.01)
        check(footer is not None, "the cancelled run has no footer")
        ended = time.monotonic() - cancelled_at
        check(footer["failureClasses"] == ["scheme_eval.interrupted"], f"footer classes {footer['failureClasses']}")
        check(ended < 0.35, f"the run ended {ended * 1000:.0f} ms after the cancel")
        # And the server goes on serving.
        r = await evaluate(c, "(+ 40 2)")
        check(sc_of(r)["value"] == 42, f"after the cancel: {show(r)}")
    run_id = footer["runId"]
    calls = [r for r in w.rows() if r.get("runId") == run_id and r.get("kind") == "premath.host_effect.row.v0"]
    check([c["action"] for c in calls] == ["issue.ready"], f"calls of the cancelled run: {[c['action'] for c in calls]}")
    check(w.issue("bd-1")["status"] == "open", "the mutation after the cancel landed")
    w.replay_ok("--run", run_id, "--timeout-ms", "20000")


async def s_disconnect_stops_the_run() -> None:
    w = Work("disconnect")
    raw = RawStdio(w, "--timeout-ms", "20000")
    try:
        raw.initialize()
        raw.request(1, "tools/call", {"name": "scheme_eval", "arguments": {"program": f"(issue.ready) {SPIN}"}})
        time.sleep(0.5)
        gone = time.monotonic()
    finally:
        raw.close()
    took = time.monotonic() - gone
    check(took < 3, f"the server took {took:.1f} s to go after its client")
    footers = [r for r in w.rows() if r.get("kind") == "premath.scheme_eval.run_end.v0"]
    check(len(footers) == 1 and footers[0]["failureClasses"] == ["scheme_eval.interrupted"], f"footers {footers}")


async def s_progress_per_host_call() -> None:
    w = Work("progress")
    w.seed()
    seen: list[tuple[float, str | None]] = []

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        seen.append((progress, message))

    async with stdio(w) as c:
        r = await c.call_tool("scheme_eval", {"program": "(issue.ready) (issue.list) (issue.show (hash \"id\" \"nope\"))"}, progress_callback=on_progress)
        check(sc_of(r)["usage"]["hostCalls"] == 3, show(r))
        # Every notification comes before the result: nothing is awaited.
        check([p for p, _ in seen] == [1, 2, 3], f"progress {seen}")
    check("issue.ready" in (seen[0][1] or "") and "accepted" in (seen[0][1] or ""), f"message {seen[0][1]!r}")
    check("issue.show" in (seen[2][1] or "") and "accepted" not in (seen[2][1] or ""), f"message {seen[2][1]!r}")


async def s_actions_narrowing() -> None:
    w = Work("narrowing")
    w.seed()
    async with stdio(w) as c:
        r = await evaluate(c, "(issue.list)", actions=["issue.ready"])
        check(r.is_error and classes(r) == ["scheme_eval.effect_denied"], f"outside the list: {show(r)}")
        check("actions list" in sc_of(r)["error"]["message"], f"message {sc_of(r)['error']}")
        r = await evaluate(c, '(result-class (host-call "issue.list" (hash)))', actions=["issue.ready"])
        check(sc_of(r)["value"] == "scheme_eval.effect_denied", f"host-call outside the list: {show(r)}")
        r = await evaluate(c, "(host-actions)", actions=["issue.ready", "issue.list"])
        check(sc_of(r)["value"] == ["issue.list", "issue.ready"], f"bound {sc_of(r)['value']}")
        r = await evaluate(c, "(+ 1 1)", actions=["issue.ready", "no.such_action"])
        check(r.is_error and "no.such_action" in " ".join(texts(r)), f"unknown action in the list: {show(r)}")
        s = (await c.call_tool("session_open", {"actions": ["issue.ready"]})).structured_content["sessionId"]
        r = await evaluate(c, "(define n (hash-ref (payload (issue.ready)) \"count\")) n", sessionId=s)
        check(not r.is_error, show(r))
        r = await evaluate(c, "(issue.list)", sessionId=s)
        check(classes(r) == ["scheme_eval.effect_denied"], f"session narrowing: {show(r)}")
    headers = [h for h in w.rows() if h.get("kind") == "premath.scheme_eval.run.v0"]
    check(headers[0]["hostActions"] == ["issue.ready"], f"header hostActions {headers[0]['hostActions']}")
    w.replay_ok()


async def s_annotations() -> None:
    w = Work("annotations")
    async with stdio(w, "--direct-tools") as c:
        tools = {t.name: t for t in (await c.list_tools()).tools}
    for name, t in tools.items():
        check(t.annotations is not None, f"{name} has no annotations")
    check(tools["scheme_eval"].annotations.destructive_hint is True and tools["scheme_eval"].annotations.read_only_hint is False, "scheme_eval on a writing server")
    check(tools["describe_actions"].annotations.read_only_hint is True, "describe_actions")
    check(tools["issue_ready"].annotations.read_only_hint is True, "issue_ready")
    check(tools["issue_claim"].annotations.destructive_hint is True, "issue_claim")
    async with stdio(w, "--direct-tools", "--read-only") as c:
        tools = {t.name: t for t in (await c.list_tools()).tools}
    check(tools["scheme_eval"].annotations.read_only_hint is True and tools["scheme_eval"].annotations.destructive_hint is False, "scheme_eval on a read-only server")
    check("issue_claim" not in tools, "a read-only server lists a mutation tool")


async def s_oversized_fields_refused() -> None:
    w = Work("bounds")
    w.seed()
    big = "x" * (2 * 1024 * 1024)
    async with stdio(w) as c:
        await evaluate(c, "(issue.ready)")
        before = w.log_bytes()
        for field in ["issueId", "instructionRef", "policyDigest"]:
            r = await evaluate(c, "(issue.ready)", **{field: big})
            t = " ".join(texts(r))
            check(r.is_error and "request.field_too_large" in t and field in t, f"{field}: {show(r)}")
            check(len(t) < 2000, f"{field}: the error echoes the field ({len(t)} chars)")
        r = await evaluate(c, "(issue.ready)", sessionId=big)
        check(r.is_error and len(" ".join(texts(r))) < 2000, f"sessionId: {show(r)}")
        r = await evaluate(c, "(issue.ready)", joinEvidence={"blob": big})
        check(r.is_error and "request.field_too_large" in " ".join(texts(r)), f"joinEvidence: {show(r)}")
        r = await c.call_tool("session_open", {"issueId": big})
        check(r.is_error and "field_too_large" in " ".join(texts(r)), f"session_open issueId: {show(r)}")
        check(w.log_bytes() == before, f"something was written: {before} -> {w.log_bytes()}")
        r = await evaluate(c, f'(display "x") "{"y" * (2 * 1024 * 1024)}"')
        check(r.is_error and classes(r) == ["scheme_eval.invalid_program"], f"2 MiB program: {show(r)}")
        check(w.log_bytes() == before, "an oversized program was recorded")
        r = await evaluate(c, '(make-string 20000000 #\\a)')
        check(r.is_error and classes(r) == ["scheme_eval.value_too_large"], f"20 MB value: {show(r)}")


async def s_rss_returns_after_large_results() -> None:
    w = Work("rss")
    # What is measured is memory, not time: a generous deadline keeps a loaded
    # machine (the suite runs in parallel) from turning it into a timeout.
    async with http_server(w, "--max-value-bytes", "150000000", "--max-memory-mb", "1024",
                           "--timeout-ms", "60000") as srv:
        async with http_client(srv.url, big=True) as c:
            await evaluate(c, "(+ 1 1)")
            await asyncio.sleep(1.5)
            base = rss_kb(srv.proc.pid)
            for _ in range(2):
                r = await evaluate(c, "(make-string 100000000 #\\a)")
                check(not r.is_error and len(sc_of(r)["value"]) == 100_000_000,
                      f"a 100 MB value: {show(r) if r.is_error else 'wrong length'}")
                del r
            peak = rss_kb(srv.proc.pid)
            deadline = time.monotonic() + 8
            now = peak
            while time.monotonic() < deadline:
                await asyncio.sleep(0.5)
                now = rss_kb(srv.proc.pid)
                if now <= 2 * base:
                    break
            check(now <= 2 * base, f"server RSS {now} KiB after two 100 MB results (idle baseline {base} KiB, peak {peak} KiB)")


async def s_fair_scheduling() -> None:
    """Four slow calls wait on one issue; an unrelated call is served meanwhile."""
    w = Work("fair")
    slow = "(let loop ((i 0)) (if (< i 6000000) (loop (+ i 1)) i))"
    async with stdio(w, "--max-concurrency", "2") as c:
        await evaluate(c, "(+ 1 1)")
        t0 = time.monotonic()
        slow_calls = [asyncio.create_task(evaluate(c, slow, issueId="bd-same")) for _ in range(4)]
        await asyncio.sleep(0.3)
        t1 = time.monotonic()
        r = await evaluate(c, "(+ 2 2)")
        quick = time.monotonic() - t1
        rs = await asyncio.gather(*slow_calls)
        total = time.monotonic() - t0
    check(sc_of(r)["value"] == 4, show(r))
    check(all(not x.is_error for x in rs), "a slow call failed")
    check(quick < 0.5 * total, f"the unrelated call took {quick:.2f} s while the slow ones took {total:.2f} s")
    check(quick < 1.0, f"the unrelated call waited {quick:.2f} s")


async def s_expired_session_worker_ends() -> None:
    w = Work("expiry")
    async with http_server(w, "--session-ttl-seconds", "1") as srv:
        async with http_client(srv.url) as c:
            await evaluate(c, "(+ 1 1)")
            await asyncio.sleep(0.5)
            before = set(descendants(srv.proc.pid))
            sid = (await c.call_tool("session_open", {})).structured_content["sessionId"]
            await evaluate(c, "(define y 1)", sessionId=sid)
            during = set(descendants(srv.proc.pid))
            added = during - before
            check(len(added) >= 1, f"no session worker appeared ({before} -> {during})")
            # No call touches the server from here on.
            deadline = time.monotonic() + 4
            while time.monotonic() < deadline and added & set(descendants(srv.proc.pid)):
                await asyncio.sleep(0.1)
            left = added & set(descendants(srv.proc.pid))
            check(not left, f"the expired session's worker {left} still runs")


async def s_dead_template_is_rebuilt() -> None:
    w = Work("template")
    async with http_server(w) as srv:
        async with http_client(srv.url) as c:
            for _ in range(3):
                await evaluate(c, "(+ 1 1)")
            await asyncio.sleep(0.3)
            template = [p for p in children(srv.proc.pid) if children(p)]
            check(len(template) == 1, f"no single template process: {children(srv.proc.pid)}")
            os.kill(template[0], signal.SIGKILL)
            await asyncio.sleep(0.2)
            r = await evaluate(c, "(+ 40 2)")
            check(not r.is_error and sc_of(r)["value"] == 42, f"the run after the template died: {show(r)}")
            r = await evaluate(c, "(+ 40 3)")
            check(not r.is_error, f"the next run: {show(r)}")


async def s_malformed_requests_answered() -> None:
    w = Work("malformed")
    raw = RawStdio(w)
    try:
        raw.initialize()
        cases = [
            (b'{"jsonrpc":"2.0","id":7,"method":"tools/list"', -32700, None),   # truncated
            (b'{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"scheme_eval","arguments":{"program":"\\ud800"}}}', -32700, 8),
            (b"[" * 5000 + b"]" * 5000, -32700, None),
            (b'{"jsonrpc":"2.0","id":9,"method":' + b'"' + b"a" * (20 * 1024 * 1024) + b'"}', -32600, None),
            (b'{"jsonrpc":"2.0","id":10}', -32600, 10),
        ]
        for line, code, rid in cases:
            raw.send(line + b"\n")
            msg = raw.read(15)
            check(msg.get("error", {}).get("code") == code, f"{line[:40]!r}…: answer {json.dumps(msg)[:300]}")
            check(msg.get("id") == rid, f"{line[:40]!r}…: id {msg.get('id')!r}, want {rid!r}")
        raw.request(11, "tools/call", {"name": "scheme_eval", "arguments": {"program": "(+ 1 2)"}})
        answer = raw.answer(11)
        check(answer["result"]["structuredContent"]["value"] == 3, f"after the garbage: {answer}")
    finally:
        raw.close()


async def s_non_reading_client_is_bounded() -> None:
    w = Work("nonreading")
    raw = RawStdio(w, "--max-concurrency", "2")
    try:
        raw.initialize()
        base = rss_kb(raw.proc.pid)
        big = '(make-string 2000000 #\\a)'
        sent = 0
        t0 = time.monotonic()
        # Send 150 calls whose answers are 2 MB each, and read none of them.
        import threading
        def writer() -> None:
            nonlocal sent
            try:
                for i in range(150):
                    raw.request(100 + i, "tools/call", {"name": "scheme_eval", "arguments": {"program": big}})
                    sent += 1
            except (BrokenPipeError, OSError):
                pass
        t = threading.Thread(target=writer, daemon=True)
        t.start()
        time.sleep(8)
        grown = rss_kb(raw.proc.pid) - base
        check(grown < 200 * 1024, f"the server grew by {grown // 1024} MiB for a client that reads nothing (sent {sent})")
        runs = len([r for r in w.rows() if r.get("kind") == "premath.scheme_eval.run.v0"])
        check(runs < 60, f"{runs} runs went ahead for a client that reads nothing")
        del t0
    finally:
        raw.proc.kill()
        raw.close()


INIT = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "x", "version": "0"}}}
RAW_HEADERS = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}


async def raw_session(hc: Any, url: str, headers: dict[str, str]) -> dict[str, str]:
    """Opens a transport session by hand (initialize, initialized): the headers that use it."""
    resp = await hc.post(url, json=INIT, headers={**RAW_HEADERS, **headers})
    sid = resp.headers.get("mcp-session-id")
    check(resp.status_code == 200 and sid, f"initialize: {resp.status_code} {resp.text[:200]}")
    h = {**RAW_HEADERS, **headers, "mcp-session-id": sid, "mcp-protocol-version": "2025-06-18"}
    resp = await hc.post(url, json={"jsonrpc": "2.0", "method": "notifications/initialized"}, headers=h)
    check(resp.status_code in (200, 202), f"initialized: {resp.status_code}")
    return h


async def answered_quickly(url: str, token: str | None, program: str, want: Any, what: str) -> None:
    """A well-behaved SDK client is answered within 1 s (allowing 0.5 s for a loaded machine)."""
    t0 = time.monotonic()
    with anyio.fail_after(10):
        async with http_client(url, token) as c:
            r = await evaluate(c, program)
    took = time.monotonic() - t0
    check(not r.is_error and sc_of(r)["value"] == want, f"{what}: {show(r)}")
    check(took < 1.5, f"a well-behaved client took {took:.2f} s {what}")


async def s_slowloris_and_session_flood() -> None:
    """Half-sent headers and a flood of initializes: a client that uses its session keeps it, a new one is served."""
    w = Work("flood")
    async with http_server(w, "--max-connections", "32", "--max-transport-sessions", "16") as srv:
        host, port = "127.0.0.1", int(srv.url.split(":")[2].split("/")[0])
        held = []
        for _ in range(200):
            try:
                r, wr = await asyncio.open_connection(host, port)
                wr.write(b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ")
                await wr.drain()
                held.append(wr)
            except OSError:
                break
        for _ in range(3):
            await answered_quickly(srv.url, None, "(+ 1 2)", 3, "under a slowloris flood")
        for wr in held:
            wr.close()
        async with httpx2.AsyncClient(timeout=10) as hc:
            mine = await raw_session(hc, srv.url, {})
            call = {"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {"name": "scheme_eval", "arguments": {"program": "(* 6 7)"}}}
            resp = await hc.post(srv.url, json=call, headers=mine)
            check(resp.status_code == 200 and "42" in resp.text, f"a used session: {resp.status_code} {resp.text[:200]}")
            # 300 initializes from one client: each ends the oldest never-used
            # session; none is refused, and the server holds no more than its cap.
            codes: dict[int, int] = {}
            for _ in range(300):
                resp = await hc.post(srv.url, json=INIT, headers=RAW_HEADERS)
                codes[resp.status_code] = codes.get(resp.status_code, 0) + 1
            check(codes == {200: 300}, f"initialize flood answered {codes}")
            # The session in use survived the flood.
            resp = await hc.post(srv.url, json={**call, "id": 8}, headers=mine)
            check(resp.status_code == 200 and "42" in resp.text, f"the used session after the flood: {resp.status_code} {resp.text[:200]}")
        await answered_quickly(srv.url, None, "(+ 2 3)", 5, "after an initialize flood")


async def s_transport_sessions_belong_to_their_principal() -> None:
    """A read-only token with another principal's Mcp-Session-Id cannot end it, cancel into it, stream it or call in it."""
    w = Work("transport_owner")
    w.seed()
    digest = w.digest()
    tokens = token_file(w, [
        {"token": "secret-a", "principal": "agent.a", "policyDigest": digest, "instructionRef": INSTR},
        {"token": "secret-r", "principal": "agent.reader", "readOnly": True},
    ])
    async with http_server(w, "--auth", tokens, "--timeout-ms", "20000") as srv:
        async with httpx2.AsyncClient(timeout=30) as hc:
            ha = await raw_session(hc, srv.url, {"Authorization": "Bearer secret-a"})
            program = f"(issue.ready) {SPIN}"
            call = asyncio.create_task(hc.post(srv.url, headers=ha, json={"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "scheme_eval", "arguments": {"program": program}}}))
            await asyncio.sleep(0.6)
            hr = {**ha, "Authorization": "Bearer secret-r"}
            unknown = await hc.delete(srv.url, headers={**hr, "mcp-session-id": "no-such-session"})
            attempts = [
                ("DELETE", await hc.delete(srv.url, headers=hr)),
                ("cancel", await hc.post(srv.url, headers=hr, json={"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 2, "reason": "x"}})),
                ("call", await hc.post(srv.url, headers=hr, json={"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "scheme_eval", "arguments": {"program": "(issue.ready)"}}})),
                ("GET", await hc.get(srv.url, headers={**hr, "Accept": "text/event-stream"})),
            ]
            for what, resp in attempts:
                check(resp.status_code == 404 and resp.text == unknown.text,
                      f"{what} with another principal's session: {resp.status_code} {resp.text[:200]} (an unknown id: {unknown.status_code} {unknown.text!r})")
            await asyncio.sleep(0.5)
            ends = [r for r in w.rows() if r.get("kind") == "premath.scheme_eval.run_end.v0"]
            check(not ends, f"A's run ended after the other principal's requests: {ends}")
            check(not call.done(), "A's call was answered early")
            resp = await hc.post(srv.url, headers=ha, json={"jsonrpc": "2.0", "id": 4, "method": "ping"})
            check(resp.status_code == 200, f"A's session after the attempts: {resp.status_code}")
            runs = [r for r in w.rows() if r.get("kind") == "premath.scheme_eval.run.v0"]
            check({r.get("principal") for r in runs} == {"agent.a"}, f"run principals {[r.get('principal') for r in runs]}")
            # Its owner ends it: 200 (clients expect 200 or 204), and its run stops.
            resp = await hc.delete(srv.url, headers=ha)
            check(resp.status_code == 200, f"the owner's DELETE: {resp.status_code}")
            deadline = time.monotonic() + 3
            while not any(r.get("kind") == "premath.scheme_eval.run_end.v0" for r in w.rows()) and time.monotonic() < deadline:
                await asyncio.sleep(0.02)
            footer = next((r for r in w.rows() if r.get("kind") == "premath.scheme_eval.run_end.v0"), None)
            check(footer is not None and footer["failureClasses"] == ["scheme_eval.interrupted"], f"footer {footer}")
            call.cancel()


async def s_two_authorization_headers_are_400() -> None:
    w = Work("two_auth")
    tokens = token_file(w, [
        {"token": "secret-a", "principal": "agent.a"},
        {"token": "secret-r", "principal": "agent.reader", "readOnly": True},
    ])
    async with http_server(w, "--auth", tokens) as srv:
        async with httpx2.AsyncClient(timeout=10) as hc:
            for pair in [("secret-r", "secret-a"), ("secret-a", "secret-r"), ("secret-a", "secret-a")]:
                headers = [*RAW_HEADERS.items(), *[("Authorization", f"Bearer {t}") for t in pair]]
                resp = await hc.post(srv.url, json=INIT, headers=headers)
                check(resp.status_code == 400 and "Authorization" in resp.text, f"two Authorization headers {pair}: {resp.status_code} {resp.text[:200]}")


async def s_stalled_bodies_and_event_streams() -> None:
    """300 connections stalled mid-body and a reader holding every event stream it may: others are still served within 1 s."""
    w = Work("stalls")
    tokens = token_file(w, [
        {"token": "secret-a", "principal": "agent.a"},
        {"token": "secret-r", "principal": "agent.reader", "readOnly": True},
    ])
    async with http_server(w, "--auth", tokens) as srv:
        host, port = "127.0.0.1", int(srv.url.split(":")[2].split("/")[0])
        held = []
        for _ in range(300):
            try:
                _, wr = await asyncio.open_connection(host, port)
                wr.write(b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer secret-r\r\n"
                         b"Content-Type: application/json\r\nContent-Length: 100000\r\n\r\n{\"jsonrpc\"")
                await wr.drain()
                held.append(wr)
            except OSError:
                break
        check(len(held) == 300, f"opened {len(held)} stalled connections")
        await asyncio.sleep(0.3)
        for _ in range(3):
            await answered_quickly(srv.url, "secret-a", "(+ 1 2)", 3, "under 300 stalled bodies")
        for wr in held:
            wr.close()
        # Event streams: the reader's 17th is refused, others are served.
        async with httpx2.AsyncClient(timeout=httpx2.Timeout(10, read=None)) as hc:
            streams = []
            statuses = []
            for _ in range(20):
                h = await raw_session(hc, srv.url, {"Authorization": "Bearer secret-r"})
                req = hc.build_request("GET", srv.url, headers={**h, "Accept": "text/event-stream"})
                resp = await hc.send(req, stream=True)
                statuses.append(resp.status_code)
                streams.append(resp)
            check(statuses[:16] == [200] * 16 and statuses[16:] == [429] * 4, f"event streams: {statuses}")
            await answered_quickly(srv.url, "secret-a", "(+ 2 3)", 5, "while a reader holds 16 event streams")
            for resp in streams:
                await resp.aclose()


async def s_transport_delete_stops_the_run() -> None:
    """An HTTP DELETE of the transport session stops its running call, recorded as interrupted."""
    w = Work("delete")
    hdrs = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
    init = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "x", "version": "0"}}}
    async with http_server(w, "--timeout-ms", "20000") as srv:
        async with httpx2.AsyncClient(timeout=30) as hc:
            resp = await hc.post(srv.url, json=init, headers=hdrs)
            sid = resp.headers.get("mcp-session-id")
            check(resp.status_code == 200 and sid, f"initialize: {resp.status_code} {dict(resp.headers)}")
            h = {**hdrs, "mcp-session-id": sid, "mcp-protocol-version": "2025-06-18"}
            await hc.post(srv.url, json={"jsonrpc": "2.0", "method": "notifications/initialized"}, headers=h)
            program = f"(issue.ready) {SPIN}"
            call = asyncio.create_task(hc.post(srv.url, headers=h, json={"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "scheme_eval", "arguments": {"program": program}}}))
            await asyncio.sleep(0.6)
            deleted_at = time.monotonic()
            resp = await hc.delete(srv.url, headers=h)
            check(resp.status_code in (200, 202, 204), f"DELETE: {resp.status_code}")
            footer = None
            while footer is None and time.monotonic() - deleted_at < 3:
                footer = next((r for r in w.rows() if r.get("kind") == "premath.scheme_eval.run_end.v0"), None)
                await asyncio.sleep(0.01)
            took = time.monotonic() - deleted_at
            call.cancel()
    check(footer is not None and footer["failureClasses"] == ["scheme_eval.interrupted"], f"footer {footer}")
    check(took < 0.4, f"the run ended {took * 1000:.0f} ms after the DELETE")


# Scenarios whose work is large by design get a longer whole-scenario deadline
# (what they check is not time; on a loaded machine the suite runs in parallel).
DEADLINES = {"rss_returns_after_large_results": 240}


if __name__ == "__main__":
    sys.exit(asyncio.run(servers.run(servers.scenarios_of(globals()), DEADLINES)))
