#!/usr/bin/env python3
"""Drive the real `tusk mcp` server with the official Python MCP SDK (pinned in
requirements.txt) over stdio, and over streamable HTTP (`tusk mcp --http`) in the
http_transport scenario.

Usage: client_py.py TUSK_BINARY SCRATCH_DIR

Every server is spawned as `TUSK_BINARY mcp [flags]` with its working directory
set to SCRATCH_DIR (so its stores default to SCRATCH_DIR/.premath); the HTTP one is
`TUSK_BINARY mcp --http 127.0.0.1:0`, its URL read from its stderr. Prints one
line per scenario, `ok NAME` or `FAIL NAME: WHY`, then `N passed, M failed`;
exits 0 iff every scenario passed. Server stderr goes to
SCRATCH_DIR/server-*.stderr and is echoed to our stderr when a scenario fails.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import time
import traceback
from contextlib import asynccontextmanager
from typing import Any

import anyio
import anyio.lowlevel
from mcp import Client, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client
from checks import check, Fail, HTTP_LINE

if len(sys.argv) != 3:
    print("usage: client_py.py TUSK_BINARY SCRATCH_DIR", file=sys.stderr)
    sys.exit(2)

TUSK = os.path.abspath(sys.argv[1])
WORK = os.path.abspath(sys.argv[2])
EFFECTS = os.path.join(WORK, ".premath", "host_effects.jsonl")
INSTR = "instr://tests/mcp/client_py"
TOOLS = {"scheme_eval", "describe_actions", "session_open", "session_close"}
SPIN = "(begin (issue.ready) (let loop ((i 0)) (if (< i 300000) (loop (+ i 1)) i)) (issue.ready))"
CRASH = "(define b (box 1)) (set-box! b b) (car b)"
CLAIM = '(issue.claim_next (hash "assignee" "{who}"))'

# Protocol-level garbage seen on any server's stdout (it must carry JSON-RPC only).
STREAM_ERRORS: list[str] = []
STDERR_LOGS: list[str] = []
# How servers are connected: the SDK's default ("auto": probe server/discover, fall
# back to the initialize handshake). If that fails, the `connect_default` scenario
# fails and every other scenario runs over the explicit "legacy" handshake instead.
MODE = ["auto"]




def tusk(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([TUSK, *args], cwd=WORK, capture_output=True, text=True, timeout=60)


def digest() -> str:
    p = tusk("policy", "digest")
    check(p.returncode == 0, f"`tusk policy digest` exited {p.returncode}: {p.stderr.strip()}")
    return p.stdout.strip()


async def on_message(message: Any) -> None:
    if isinstance(message, Exception):
        STREAM_ERRORS.append(f"{type(message).__name__}: {message}")
    await anyio.lowlevel.checkpoint()


@asynccontextmanager
async def server(*flags: str, cwd: str = WORK):
    """One `tusk mcp FLAGS` server (in CWD), connected with the SDK's default negotiation."""
    log_path = os.path.join(WORK, f"server-{len(STDERR_LOGS) + 1}.stderr")
    STDERR_LOGS.append(log_path)
    with open(log_path, "w") as log:
        log.write(f"# tusk mcp {' '.join(flags)}\n")
        log.flush()
        params = StdioServerParameters(command=TUSK, args=["mcp", *flags], cwd=cwd)
        async with Client(
            stdio_client(params, errlog=log),
            mode=MODE[0],
            read_timeout_seconds=30,
            message_handler=on_message,
        ) as client:
            yield client




@asynccontextmanager
async def http_server(*flags: str):
    """`tusk mcp --http 127.0.0.1:0 FLAGS` as a child process; yields the URL its stderr names.

    The server is terminated (then killed, if it lingers) on the way out."""
    log_path = os.path.join(WORK, f"server-{len(STDERR_LOGS) + 1}.stderr")
    STDERR_LOGS.append(log_path)
    with open(log_path, "w") as log:
        log.write(f"# tusk mcp --http 127.0.0.1:0 {' '.join(flags)}\n")
        log.flush()
        proc = subprocess.Popen(
            [TUSK, "mcp", "--http", "127.0.0.1:0", *flags],
            cwd=WORK,
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=log,
        )
    try:
        url = None
        deadline = time.monotonic() + 20
        while url is None:
            with open(log_path) as f:
                m = HTTP_LINE.search(f.read())
            if m:
                url = m.group(1)
                break
            check(proc.poll() is None, f"`tusk mcp --http` exited {proc.returncode} before serving")
            check(time.monotonic() < deadline, "no 'serving streamable HTTP at' line on stderr within 20 s")
            await asyncio.sleep(0.05)
        check(url.startswith("http://127.0.0.1:") and url.endswith("/mcp"), f"bound address {url!r}")
        check(not url.startswith("http://127.0.0.1:0/"), f"port 0 was not resolved in {url!r}")
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def texts(r: Any) -> list[str]:
    return [b.text for b in r.content if getattr(b, "type", None) == "text"]


def show(r: Any) -> str:
    body = " | ".join(texts(r))
    return f"isError={r.is_error} text={body[:300]!r}"


async def call(c: Client, tool: str, args: dict[str, Any]) -> Any:
    return await c.call_tool(tool, args)


async def eval_ok(c: Client, program: str, **extra: Any) -> dict[str, Any]:
    """scheme_eval that must be accepted; returns structuredContent."""
    r = await call(c, "scheme_eval", {"program": program, **extra})
    sc = r.structured_content
    check(not r.is_error, f"{program!r}: expected accepted, got {show(r)}; structuredContent={json.dumps(sc)[:400]}")
    check_result_shape(r, program)
    check(sc["result"] == "accepted", f"{program!r}: isError false but result={sc.get('result')!r}")
    return sc


async def eval_rejected(c: Client, program: str, **extra: Any) -> dict[str, Any]:
    """scheme_eval that must be rejected (isError true); returns structuredContent."""
    r = await call(c, "scheme_eval", {"program": program, **extra})
    check(r.is_error, f"{program!r}: expected isError true, got {show(r)}")
    check_result_shape(r, program)
    sc = r.structured_content
    check(sc["result"] == "rejected", f"{program!r}: isError true but result={sc.get('result')!r}")
    return sc


def check_result_shape(r: Any, program: str) -> None:
    sc = r.structured_content
    check(isinstance(sc, dict), f"{program!r}: structuredContent is {type(sc).__name__}, not an object ({show(r)})")
    check(sc.get("kind") == "premath.scheme_eval.result.v0", f"{program!r}: kind={sc.get('kind')!r}")
    check(len(r.content) == 1 and len(texts(r)) == 1, f"{program!r}: want exactly one text block, got {r.content!r}")
    fc = sc.get("failureClasses")
    check(isinstance(fc, list) and fc == sorted(fc), f"{program!r}: failureClasses not a sorted list: {fc!r}")
    check(isinstance(sc.get("effects"), list), f"{program!r}: effects missing: {sc.get('effects')!r}")
    check(isinstance(sc.get("runId"), str) and sc["runId"], f"{program!r}: runId missing")
    check(sc.get("result") in ("accepted", "rejected"), f"{program!r}: result={sc.get('result')!r}")
    check(r.is_error == (sc.get("result") == "rejected"), f"{program!r}: isError={r.is_error} but result={sc['result']!r}")


def check_input_schema(name: str, s: Any) -> None:
    check(isinstance(s, dict) and s.get("type") == "object", f"{name}: inputSchema not an object schema: {s!r}"[:300])
    for prop, sub in (s.get("properties") or {}).items():
        # The TypeScript SDK rejects the whole tools/list when any property schema is not an object (e.g. `true`).
        check(isinstance(sub, dict), f"{name}: inputSchema property {prop!r} is {sub!r}, not an object schema")


def replay_failure(p: subprocess.CompletedProcess[str]) -> str:
    """The diverged runs and the closing summary of a failed `tusk replay`, on one line."""
    lines = [l.strip() for l in (p.stdout + p.stderr).splitlines() if l.strip()]
    bad = [l for l in lines if "DIVERGED" in l or "error" in l.lower()][:3]
    return " / ".join(bad + lines[-1:])[:900]


def effect_log() -> list[dict[str, Any]]:
    with open(EFFECTS) as f:
        return [json.loads(line) for line in f if line.strip()]


# ---------------------------------------------------------------- scenarios


async def s_connect_legacy(_: Client) -> None:
    """The pre-2026 initialize handshake (what older clients speak) works too."""
    saved = MODE[0]
    MODE[0] = "legacy"
    try:
        async with server() as c:
            check(c.protocol_version not in (None, ""), "no protocol version negotiated")
            check(TOOLS <= {t.name for t in (await c.list_tools()).tools}, "tools missing over the legacy handshake")
            sc = await eval_ok(c, "(+ 1 2)")
            check(sc["value"] == 3, f"value {sc['value']!r}")
    finally:
        MODE[0] = saved


async def s_tools_list(c: Client) -> None:
    tools = {t.name: t for t in (await c.list_tools()).tools}
    check(TOOLS <= tools.keys(), f"missing tools: {sorted(TOOLS - tools.keys())} (have {sorted(tools)})")
    for name in TOOLS:
        check_input_schema(name, tools[name].input_schema)
    out = tools["scheme_eval"].output_schema
    check(isinstance(out, dict) and out.get("type") == "object", f"scheme_eval: outputSchema {out!r}")
    desc = tools["scheme_eval"].description or ""
    check("issue.claim_next" in desc, "scheme_eval description does not mention issue.claim_next")
    check(len(desc) < 11000, f"scheme_eval description is {len(desc)} chars (want < 11000)")
    props = tools["scheme_eval"].input_schema.get("properties", {})
    check("program" in props, f"scheme_eval inputSchema lacks `program`: {sorted(props)}")
    check("program" in tools["scheme_eval"].input_schema.get("required", []), "scheme_eval: `program` not required")
    direct = sorted(n for n in tools if n.startswith("issue_"))
    check(not direct, f"direct tools listed without --direct-tools: {direct}")


async def s_resources(c: Client) -> None:
    uris = {str(r.uri) for r in (await c.list_resources()).resources}
    check({"tusk://actions", "tusk://prelude"} <= uris, f"resources: {sorted(uris)}")
    actions = (await c.read_resource("tusk://actions")).contents
    check(len(actions) >= 1 and hasattr(actions[0], "text"), f"tusk://actions contents: {actions!r}"[:300])
    check(actions[0].mime_type == "application/json", f"tusk://actions mimeType {actions[0].mime_type!r}")
    doc = json.loads(actions[0].text)
    check("issue.claim_next" in json.dumps(doc), "tusk://actions does not mention issue.claim_next")
    prelude = (await c.read_resource("tusk://prelude")).contents
    check(len(prelude) >= 1 and getattr(prelude[0], "text", ""), "tusk://prelude is empty")
    check("(define" in prelude[0].text, "tusk://prelude does not look like Scheme source")


async def s_eval_read(c: Client) -> None:
    sc = await eval_ok(c, "(issue.ready)")
    eff = sc["effects"]
    check(len(eff) == 1 and eff[0]["action"] == "issue.ready", f"effects: {json.dumps(eff)[:300]}")
    check(eff[0]["resultClass"] == "accepted", f"issue.ready resultClass {eff[0]['resultClass']!r}")
    check(sc["failureClasses"] == [], f"failureClasses {sc['failureClasses']!r}")


async def s_eval_value(c: Client) -> None:
    sc = await eval_ok(c, "(+ 1 2)")
    check(sc["value"] == 3, f"(+ 1 2) value {sc['value']!r}")
    sc = await eval_ok(c, '(display "hi") (list 1 "two")')
    check(sc["value"] == [1, "two"] and sc["output"] == "hi", f"value {sc['value']!r} output {sc['output']!r}")


async def s_mutation_no_authority(c: Client) -> None:
    sc = await eval_rejected(c, CLAIM.format(who="agent.none"))
    check("mutation.use_evidence_missing" in sc["failureClasses"], f"failureClasses {sc['failureClasses']!r}")
    check(sc["effects"] and sc["effects"][0]["resultClass"] == "mutation.use_evidence_missing", f"effects {json.dumps(sc['effects'])[:300]}")


async def s_mutation_authority_in_call(c: Client) -> None:
    sc = await eval_ok(c, CLAIM.format(who="agent.call"), policyDigest=digest(), instructionRef=INSTR, detail="full")
    e = sc["effects"][0]
    check(e["action"] == "issue.claim_next" and e["resultClass"] == "accepted", f"effect {json.dumps(e)[:300]}")
    check(e["payload"].get("claimed") is True, f"nothing claimed: {json.dumps(e['payload'])[:300]}")
    check(e.get("policyDigest") == digest() and e.get("instructionRef") == INSTR, "authority not recorded in the envelope")


async def s_mutation_authority_flags(_: Client) -> None:
    async with server("--policy-digest", digest(), "--instruction-ref", "instr://tests/mcp/flags") as c:
        sc = await eval_ok(c, CLAIM.format(who="agent.flags"), detail="full")
        e = sc["effects"][0]
        check(e["resultClass"] == "accepted" and e["payload"].get("claimed") is True, f"effect {json.dumps(e)[:300]}")


async def s_describe_actions(c: Client) -> None:
    r = await call(c, "describe_actions", {"ids": ["issue.claim"]})
    check(not r.is_error, f"ids: {show(r)}")
    acts = r.structured_content["actions"]
    check([a["id"] for a in acts] == ["issue.claim"], f"ids=[issue.claim] gave {[a.get('id') for a in acts]}")
    a = acts[0]
    check(a["kind"] == "mutation", f"issue.claim kind {a['kind']!r}")
    for k in ("args", "payload"):
        check(isinstance(a[k], dict), f"issue.claim {k} is not a JSON Schema object: {a[k]!r}"[:300])
    check(isinstance(a["description"], str) and a["description"], "issue.claim has no description")
    check(isinstance(a["failureClasses"], list), f"failureClasses {a['failureClasses']!r}")
    check("example" in a and a["example"], "issue.claim has no example")
    r = await call(c, "describe_actions", {"query": "lease"})
    check(not r.is_error, f"query: {show(r)}")
    found = r.structured_content["actions"]
    ids = [a["id"] for a in found]
    check({"issue.lease_release", "issue.lease_renew"} <= set(ids), f"query=lease gave {ids}")
    stray = [a["id"] for a in found if "lease" not in (a["id"] + " " + a.get("description", "")).lower()]
    check(not stray and "dep.add" not in ids, f"query=lease matched actions that never mention a lease: {stray or ids}")
    r = await call(c, "describe_actions", {})
    kinds = {a["id"]: a["kind"] for a in r.structured_content["actions"]}
    check(kinds.get("issue.ready") == "read" and kinds.get("issue.claim_next") == "mutation", f"all actions: {kinds}")


async def s_session(c: Client) -> None:
    r = await call(c, "session_open", {})
    check(not r.is_error, f"session_open: {show(r)}")
    sid = r.structured_content["sessionId"]
    check(isinstance(sid, str) and sid, f"sessionId {sid!r}")
    sc = await eval_ok(c, "(define x 41)", sessionId=sid)
    check(sc.get("sessionId") == sid, f"define: sessionId in result {sc.get('sessionId')!r}")
    sc = await eval_ok(c, "(+ x 1)", sessionId=sid)
    check(sc["value"] == 42, f"(+ x 1) in session gave {sc['value']!r}")
    check(sc.get("sessionId") == sid, f"use: sessionId in result {sc.get('sessionId')!r}")
    r = await call(c, "session_close", {"sessionId": sid})
    check(not r.is_error, f"session_close: {show(r)}")
    check(r.structured_content == {"sessionId": sid, "closed": True}, f"session_close gave {r.structured_content!r}")
    r = await call(c, "scheme_eval", {"program": "(+ x 1)", "sessionId": sid})
    check(r.is_error, f"eval in a closed session: {show(r)}")
    check("session" in " ".join(texts(r)).lower(), f"closed-session error does not say so: {texts(r)!r}")
    headers = [row for row in effect_log() if row.get("kind") == "premath.scheme_eval.run.v0" and row.get("sessionId") == sid]
    check(len(headers) >= 2, f"effect log has {len(headers)} run headers with sessionId {sid}")
    p = tusk("replay", "--effects", EFFECTS, "--session", sid)
    check(p.returncode == 0, f"`tusk replay --session {sid}` exited {p.returncode}: {replay_failure(p)}")


async def s_session_isolation(c: Client) -> None:
    await eval_ok(c, "(define lonely 7)")
    r = await call(c, "scheme_eval", {"program": "lonely"})
    check(r.is_error, f"a sessionless definition leaked into the next call: {show(r)}")


async def s_unknown_session(c: Client) -> None:
    r = await call(c, "scheme_eval", {"program": "(+ 1 2)", "sessionId": "no-such-session"})
    check(r.is_error, f"unknown session: {show(r)}")
    t = " ".join(texts(r)).lower()
    check("unknown" in t or "not found" in t or "no such" in t or "expired" in t, f"text does not say so: {texts(r)!r}")


async def s_session_expired(_: Client) -> None:
    async with server("--session-ttl-seconds", "1") as c:
        r = await call(c, "session_open", {})
        check(not r.is_error, f"session_open: {show(r)}")
        sid = r.structured_content["sessionId"]
        await eval_ok(c, "(define y 1)", sessionId=sid)
        await asyncio.sleep(2.5)
        r = await call(c, "scheme_eval", {"program": "y", "sessionId": sid})
        check(r.is_error, f"expired session still usable: {show(r)}")
        t = " ".join(texts(r)).lower()
        check("expired" in t or "unknown" in t, f"text does not mention expired/unknown: {texts(r)!r}")


async def s_concurrent_ten(c: Client) -> None:
    rs = await asyncio.gather(*(call(c, "scheme_eval", {"program": f"(* {i} {i})"}) for i in range(10)))
    for i, r in enumerate(rs):
        check(not r.is_error, f"call {i}: {show(r)}")
        check(r.structured_content["value"] == i * i, f"call {i}: value {r.structured_content['value']!r}")
    check(len({r.structured_content["runId"] for r in rs}) == 10, "runIds are not distinct")


async def s_same_issue_serialized(c: Client) -> None:
    rs = await asyncio.gather(*(call(c, "scheme_eval", {"program": SPIN, "issueId": "bd-1"}) for _ in range(2)))
    for r in rs:
        check(not r.is_error, f"spin run: {show(r)}")
    a, b = (r.structured_content["runId"] for r in rs)
    rows = effect_log()
    ia = [n for n, row in enumerate(rows) if row.get("runId") == a]
    ib = [n for n, row in enumerate(rows) if row.get("runId") == b]
    check(len(ia) >= 3 and len(ib) >= 3, f"want >= 3 log rows per run (header, calls, footer), got {len(ia)} and {len(ib)}")
    check(max(ia) < min(ib) or max(ib) < min(ia), f"rows of the two same-issue runs interleave: {ia} vs {ib}")


async def s_crash_then_ok(c: Client) -> None:
    sc = await eval_rejected(c, CRASH)
    check("scheme_eval.worker_crashed" in sc["failureClasses"], f"failureClasses {sc['failureClasses']!r}")
    sc = await eval_ok(c, "(+ 1 2)")
    check(sc["value"] == 3, f"after the crash: value {sc['value']!r}")


async def s_limits_timeout(c: Client) -> None:
    t0 = time.monotonic()
    sc = await eval_rejected(c, "(let loop () (loop))", limits={"timeoutMs": 300})
    check(sc["failureClasses"], "a timed-out run has no failure class")
    check(time.monotonic() - t0 < 10, f"timeoutMs=300 took {time.monotonic() - t0:.1f}s")
    sc = await eval_rejected(c, "(issue.ready) (issue.ready)", limits={"maxCalls": 1})
    check(sc["failureClasses"], "a run over maxCalls has no failure class")


async def s_read_only(_: Client) -> None:
    async with server("--read-only") as c:
        sc = await eval_rejected(c, CLAIM.format(who="agent.ro"), policyDigest=digest(), instructionRef=INSTR)
        check(sc["failureClasses"], "read-only rejection without a failure class")
        await eval_ok(c, "(issue.ready)")
    async with server("--read-only", "--policy-digest", digest(), "--instruction-ref", INSTR) as c:
        await eval_rejected(c, CLAIM.format(who="agent.ro2"))


async def s_direct_tools(_: Client) -> None:
    async with server("--direct-tools") as c:
        tools = {t.name: t for t in (await c.list_tools()).tools}
        want = {"issue_ready", "issue_list", "issue_claim", "issue_claim_next", "dep_add"}
        check(want <= tools.keys(), f"missing direct tools: {sorted(want - tools.keys())}")
        for name in want:
            check_input_schema(name, tools[name].input_schema)
        r = await call(c, "issue_ready", {})
        check(not r.is_error, f"issue_ready: {show(r)}")
        env = r.structured_content
        check(env.get("schema") == "premath.host_effect.v0", f"issue_ready schema {env.get('schema')!r}")
        sc = await eval_ok(c, "(issue.ready)", detail="full")
        e = sc["effects"][0]
        for k in ("action", "resultClass", "payload"):
            check(env.get(k) == e.get(k), f"issue_ready {k} differs from scheme_eval's: {json.dumps(env.get(k))[:200]} vs {json.dumps(e.get(k))[:200]}")
        r = await call(c, "issue_claim_next", {"assignee": "agent.direct"})
        check(r.is_error, f"issue_claim_next without authority: {show(r)}")
        check(r.structured_content.get("resultClass") == "mutation.use_evidence_missing", f"resultClass {r.structured_content.get('resultClass')!r}")
        r = await call(c, "issue_claim_next", {"assignee": "agent.direct", "policyDigest": digest(), "instructionRef": INSTR})
        check(not r.is_error, f"issue_claim_next with authority: {show(r)}")
        check(r.structured_content.get("resultClass") == "accepted", f"resultClass {r.structured_content.get('resultClass')!r}")


async def s_http_transport(_: Client) -> None:
    """The same server over streamable HTTP: tools, a value, and a session's state across calls."""
    async with http_server() as url:
        async with Client(
            streamable_http_client(url),
            mode=MODE[0],
            read_timeout_seconds=30,
            message_handler=on_message,
        ) as c:
            tools = {t.name for t in (await c.list_tools()).tools}
            check("scheme_eval" in tools, f"tools/list over HTTP: {sorted(tools)}")
            sc = await eval_ok(c, "(+ 1 2)")
            check(sc["value"] == 3, f"(+ 1 2) over HTTP gave {sc['value']!r}")
            r = await call(c, "session_open", {})
            check(not r.is_error, f"session_open over HTTP: {show(r)}")
            sid = r.structured_content["sessionId"]
            await eval_ok(c, "(define h 41)", sessionId=sid)
            sc = await eval_ok(c, "(+ h 1)", sessionId=sid)
            check(sc["value"] == 42 and sc.get("sessionId") == sid, f"session over HTTP: value {sc['value']!r} sessionId {sc.get('sessionId')!r}")
            r = await call(c, "session_close", {"sessionId": sid})
            check(not r.is_error, f"session_close over HTTP: {show(r)}")


async def s_http_refuses_remote(_: Client) -> None:
    p = tusk("mcp", "--http", "0.0.0.0:0")
    check(p.returncode != 0, f"`tusk mcp --http 0.0.0.0:0` exited 0 (stderr {p.stderr.strip()[:300]!r})")
    check("not a loopback address" in p.stderr, f"stderr does not say 'not a loopback address': {p.stderr.strip()[:300]!r}")


async def s_replay_whole_log(_: Client) -> None:
    p = tusk("replay", "--effects", EFFECTS)
    check(p.returncode == 0, f"`tusk replay` exited {p.returncode}: {replay_failure(p)}")


async def s_postgres_store(_: Client) -> None:
    # A fresh database from tests/it/mcp_clients.rs (the cluster .ci/run starts).
    url = os.environ.get("TUSK_MCP_PG_URL", "")
    check(url.startswith("postgres://"), "TUSK_MCP_PG_URL is not set: start a cluster with tests/pg/cluster.sh")
    for n in range(3):
        p = tusk("issue", "add", f"Fleet issue {n + 1}", "--store", url)
        check(p.returncode == 0, f"`tusk issue add --store` exited {p.returncode}: {p.stderr.strip()}")
    async with server("--store", url, "--policy-digest", digest(), "--instruction-ref", INSTR) as c:
        sc = await eval_ok(c, CLAIM.format(who="agent.pg"), detail="full")
        e = sc["effects"][0]
        check(e["resultClass"] == "accepted" and e["payload"].get("claimed") is True, f"effect {json.dumps(e)[:300]}")
        check(e["payload"]["issuesPath"].startswith("postgres://") and ":" not in e["payload"]["issuesPath"].split("@")[0][len("postgres://"):],
              f"issuesPath must be the URL without its password: {e['payload']['issuesPath']}")
        check(e["trajectoryRow"]["path"].endswith("#trajectory"), f"trajectory row not in the database: {e['trajectoryRow']}")
    exported = tusk("store", "export", "--store", url)
    rows = [json.loads(line) for line in exported.stdout.splitlines() if line.strip()]
    check([r.get("assignee") for r in rows].count("agent.pg") == 1, f"store after the claim: {exported.stdout[:400]}")
    p = tusk("replay", "--store", url)
    check(p.returncode == 0, f"`tusk replay --store` exited {p.returncode}: {replay_failure(p)}")


def add_issue(title: str, *store: str) -> str:
    p = tusk("issue", "add", title, "--json", *store)
    check(p.returncode == 0, f"`tusk issue add` exited {p.returncode}: {p.stderr.strip()}")
    return json.loads(p.stdout)["issue"]["id"]


def stored(issue_id: str, *store: str) -> dict[str, Any]:
    p = tusk("issue", "show", issue_id, "--json", *store)
    check(p.returncode == 0, f"`tusk issue show` exited {p.returncode}: {p.stderr.strip()}")
    return json.loads(p.stdout)["issue"]


async def atomic_checks(c: Client, *store: str) -> None:
    """Issue 59 through the SDK: a dry run's plan, all or nothing, a retry by key."""
    a, b = add_issue("Atomic A", *store), add_issue("Atomic B", *store)
    auth = {"policyDigest": digest(), "instructionRef": INSTR}
    close_both = (f'(issue.close (hash "id" "{a}" "reason" "done")) '
                  f'(issue.close (hash "id" "{b}" "reason" "done")) '
                  f'(hash-ref (hash-ref (payload (issue.show (hash "id" "{a}"))) "issue") "status")')
    sc = await eval_ok(c, close_both, dryRun=True, **auth)
    check(sc["value"] == "closed", f"a dry run must read its own writes: {sc['value']!r}")
    plan = sc.get("plan") or {}
    check(plan.get("kind") == "tusk.plan.v1" and str(plan.get("planId", "")).startswith("plan-"), f"plan {json.dumps(plan)[:300]}")
    check([ch["id"] for ch in plan["changes"]] == sorted([a, b]), f"plan changes {json.dumps(plan['changes'])[:300]}")
    check(stored(a, *store)["status"] == "open", "a dry run closed an issue")
    # All or nothing: the second close names an issue that does not exist.
    half = (f'(issue.close (hash "id" "{a}" "reason" "done")) '
            f'(issue.close (hash "id" "bd-404404" "reason" "done"))')
    sc = await eval_rejected(c, half, atomic=True, **auth)
    check(sc.get("commit", {}).get("outcome") == "aborted", f"commit {sc.get('commit')!r}")
    check("run.aborted" in sc["failureClasses"], f"failureClasses {sc['failureClasses']!r}")
    check(stored(a, *store)["status"] == "open", "an aborted atomic run closed an issue")
    sc = await eval_ok(c, close_both, atomic=True, **auth)
    check(sc["commit"] == {"outcome": "committed", "issues": sorted([a, b])}, f"commit {sc.get('commit')!r}")
    check(stored(b, *store)["status"] == "closed", "a committed run's change is missing")
    # A retry with the same key runs nothing and answers the first result.
    add = '(hash-ref (hash-ref (payload (issue.add (hash "title" "Keyed once"))) "issue") "id")'
    first = await eval_ok(c, add, idempotencyKey="sdk-key-1", **auth)
    again = await eval_ok(c, add, idempotencyKey="sdk-key-1", **auth)
    check(again["value"] == first["value"] and again["idempotency"]["replayed"] is True, f"retry {json.dumps(again)[:300]}")
    other = await call(c, "scheme_eval", {"program": "(issue.ready)", "idempotencyKey": "sdk-key-1", **auth})
    check(other.is_error and "request.idempotency_conflict" in " ".join(texts(other)), f"another program under the key: {show(other)}")
    # A dry run's plan, kept by id, applied later by a program; once.
    x = add_issue("Planned", *store)
    sc = await eval_ok(c, f'(issue.update (hash "id" "{x}" "priority" 0))', dryRun=True, **auth)
    plan_id = sc["plan"]["planId"]
    check(stored(x, *store)["priority"] == 2, "a dry run changed the store")
    apply = f'(hash-ref (payload (plan.apply (hash "planId" "{plan_id}"))) "replayed")'
    first = await eval_ok(c, apply, **auth)
    check(first["value"] is False and stored(x, *store)["priority"] == 0, f"plan.apply: {json.dumps(first)[:300]}")
    again = await eval_ok(c, apply, **auth)
    check(again["value"] is True, f"a second plan.apply must answer the first: {json.dumps(again)[:300]}")


async def s_atomic_runs(c: Client) -> None:
    await atomic_checks(c)
    # A server whose runs are atomic by default; a call may say otherwise.
    async with server("--atomic", "--policy-digest", digest(), "--instruction-ref", INSTR) as d:
        x = add_issue("Default atomic")
        sc = await eval_rejected(d, f'(issue.update (hash "id" "{x}" "priority" 0)) (car (list))')
        check(sc.get("commit", {}).get("outcome") == "aborted", f"commit {sc.get('commit')!r}")
        check(stored(x)["priority"] == 2, "the server's default did not make the run atomic")
        await eval_rejected(d, f'(issue.update (hash "id" "{x}" "priority" 0)) (car (list))', atomic=False)
        check(stored(x)["priority"] == 0, "atomic: false did not land call by call")


async def s_atomic_runs_postgres(_: Client) -> None:
    url = os.environ.get("TUSK_MCP_PG_URL", "")
    check(url.startswith("postgres://"), "TUSK_MCP_PG_URL is not set: start a cluster with tests/pg/cluster.sh")
    async with server("--store", url) as c:
        await atomic_checks(c, "--store", url)
    p = tusk("replay", "--store", url)
    check(p.returncode == 0, f"`tusk replay --store` exited {p.returncode}: {replay_failure(p)}")


async def s_approval(_: Client) -> None:
    """Issue 59: a policy's approval rule holds a worker's close until an approver approves its plan."""
    d = os.path.join(WORK, "approval")
    os.makedirs(os.path.join(d, ".premath"), exist_ok=True)
    run = lambda *a: subprocess.run([TUSK, *a], cwd=d, capture_output=True, text=True, timeout=60)
    check(run("issue", "add", "Held back").returncode == 0, "issue add in the approval store")
    actions = json.loads(run("actions", "--json").stdout)
    mutations = [a["id"] for a in actions if a["kind"] == "mutation" and not a["id"].startswith("plan.")]
    with open(os.path.join(d, ".premath", "mutation_policy.json"), "w") as f:
        json.dump({"schema": 1, "policyKind": "premath.mutation_policy.v1", "allowedActions": mutations,
                   "approval": {"require": [{"actions": ["issue.close"], "principals": ["agent.*"]}],
                                "approvers": ["alice"]}}, f)
    digest_out = run("policy", "digest")
    check(digest_out.returncode == 0, f"policy digest: {digest_out.stderr.strip()}")
    auth = {"policyDigest": digest_out.stdout.strip(), "instructionRef": INSTR, "detail": "full"}
    async with server("--actor", "agent.sdk", cwd=d) as c:
        sc = await eval_rejected(c, '(issue.close (hash "id" "bd-1" "reason" "done"))', **auth)
        e = sc["effects"][0]
        check(e["resultClass"] == "plan.approval_required", f"effect {json.dumps(e)[:300]}")
        plan_id = e["payload"]["planId"]
        check(e["payload"]["plan"]["requestedBy"] == "agent.sdk", f"plan {json.dumps(e['payload'])[:300]}")
        refused = await eval_rejected(c, f'(plan.approve (hash "planId" "{plan_id}"))', **auth)
        check(refused["effects"][0]["resultClass"] == "plan.not_approver", f"agent.sdk approved: {json.dumps(refused)[:300]}")
    shown = json.loads(run("issue", "show", "bd-1", "--json").stdout)["issue"]
    check(shown["status"] == "open", "a held-back close closed the issue")
    async with server("--actor", "alice", cwd=d) as c:
        sc = await eval_ok(c, f'(plan.approve (hash "planId" "{plan_id}"))', **auth)
        p = sc["effects"][0]["payload"]
        check(p["approvedBy"] == "alice" and p["requestedBy"] == "agent.sdk", f"approval {json.dumps(p)[:300]}")
    shown = json.loads(run("issue", "show", "bd-1", "--json").stdout)["issue"]
    check(shown["status"] == "closed", "the approved close did not land")
    r = run("replay")
    check(r.returncode == 0, f"`tusk replay` in the approval store exited {r.returncode}: {replay_failure(r)}")


async def s_stdout_protocol_only(_: Client) -> None:
    check(not STREAM_ERRORS, f"non-protocol output on stdout: {STREAM_ERRORS[:3]}")


SCENARIOS = [
    ("connect_legacy_handshake", s_connect_legacy),
    ("tools_list", s_tools_list),
    ("resources", s_resources),
    ("eval_read", s_eval_read),
    ("eval_value", s_eval_value),
    ("mutation_no_authority", s_mutation_no_authority),
    ("mutation_authority_in_call", s_mutation_authority_in_call),
    ("mutation_authority_flags", s_mutation_authority_flags),
    ("describe_actions", s_describe_actions),
    ("session_lifecycle_and_replay", s_session),
    ("session_isolation", s_session_isolation),
    ("unknown_session", s_unknown_session),
    ("session_expired", s_session_expired),
    ("concurrent_ten", s_concurrent_ten),
    ("same_issue_serialized", s_same_issue_serialized),
    ("crash_then_ok", s_crash_then_ok),
    ("limits", s_limits_timeout),
    ("read_only", s_read_only),
    ("direct_tools", s_direct_tools),
    ("http_transport", s_http_transport),
    ("http_refuses_remote", s_http_refuses_remote),
    ("atomic_runs", s_atomic_runs),
    ("approval", s_approval),
    ("replay_whole_log", s_replay_whole_log),
    ("postgres_store", s_postgres_store),
    ("atomic_runs_postgres", s_atomic_runs_postgres),
    ("stdout_protocol_only", s_stdout_protocol_only),
]


def why(e: BaseException) -> str:
    while isinstance(e, BaseExceptionGroup) and len(e.exceptions) == 1:
        e = e.exceptions[0]
    if isinstance(e, Fail):
        text = str(e)
    elif isinstance(e, TimeoutError):
        text = "timed out"
    else:
        text = f"{type(e).__name__}: {e}"
    return " ".join(text.split("\n"))


async def main() -> int:
    os.makedirs(WORK, exist_ok=True)
    passed = failed = 0

    def report(name: str, err: BaseException | None) -> None:
        nonlocal passed, failed
        if err is None:
            passed += 1
            print(f"ok {name}", flush=True)
        else:
            failed += 1
            print(f"FAIL {name}: {why(err)}", flush=True)
            if not isinstance(err, Fail):
                traceback.print_exception(err, file=sys.stderr)

    try:
        for n in range(5):
            p = tusk("issue", "add", f"Seed issue {n + 1}", "--json")
            check(p.returncode == 0, f"`tusk issue add` exited {p.returncode}: {p.stderr.strip()}")
            json.loads(p.stdout)["issue"]["id"]
        digest()
    except BaseException as e:  # noqa: BLE001 - reported as a scenario
        report("seed", e)
        print(f"{passed} passed, {failed} failed")
        return 1

    err: BaseException | None = None
    try:
        with anyio.fail_after(30):
            async with server() as c:
                print(f"# default (auto) connect negotiated protocol {c.protocol_version}", file=sys.stderr)
                await c.list_tools()
    except Exception as e:  # noqa: BLE001 - reported as a scenario
        err = e
        MODE[0] = "legacy"
        print("# the default connect failed: the other scenarios use mode='legacy'", file=sys.stderr)
    report("connect_default", err)

    try:
        async with server() as c:
            print(f"# main server: protocol {c.protocol_version}", file=sys.stderr)
            for name, fn in SCENARIOS:
                err = None
                try:
                    with anyio.fail_after(45):
                        await fn(c)
                except Exception as e:  # noqa: BLE001 - every failure is reported, never raised
                    err = e
                report(name, err)
    except BaseException as e:  # noqa: BLE001 - connecting or shutting down the main server
        report("main_server", e)

    if failed:
        for path in STDERR_LOGS:
            try:
                with open(path) as f:
                    tail = f.read()[-3000:]
            except OSError:
                continue
            print(f"--- {path} (tail) ---\n{tail}", file=sys.stderr)
    print(f"{passed} passed, {failed} failed")
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
