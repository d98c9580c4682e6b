#!/usr/bin/env python3
"""Who did what (issue 57), as agents on a shared server meet it, with the
official Python MCP SDK (pinned in requirements.txt).

Usage: principals_py.py TUSK_BINARY SCRATCH_DIR

Each scenario starts its own server(s) in SCRATCH_DIR/<scenario>/, prints
`ok NAME` or `FAIL NAME: WHY`; the script ends with `N passed, M failed`
and exits 0 iff all passed.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys

from checks import check
import servers
from servers import Work, show, texts, token_file, stdio, http_server, http_client, evaluate, classes

if len(sys.argv) != 3:
    print("usage: principals_py.py TUSK_BINARY SCRATCH_DIR", file=sys.stderr)
    sys.exit(2)
servers.configure(sys.argv[1], sys.argv[2])
INSTR = "instr://tests/mcp/principals_py"


async def s_a_principal_acts_as_itself() -> None:
    w = Work("act_as")
    w.seed(5)
    digest = w.digest()
    tokens = token_file(w, [
        {"token": "alice", "principal": "agent.alice", "serverAuthority": True},
        {"token": "bob", "principal": "agent.bob", "serverAuthority": True},
        {"token": "orch", "principal": "orchestrator", "serverAuthority": True, "actAs": ["agent.*"]},
    ])
    claim = '(issue.claim (hash "id" "{id}" "assignee" "{who}"))'
    async with http_server(w, "--auth", tokens, "--policy-digest", digest, "--instruction-ref", INSTR) as srv:
        async with http_client(srv.url, "alice") as c:
            # Claiming in bob's name: refused, naming both, and nothing changes.
            r = await evaluate(c, claim.format(id="bd-1", who="agent.bob"))
            check(r.is_error and classes(r) == ["authority.act_as_denied"], f"alice claimed as bob: {show(r)}")
            said = " ".join(texts(r))
            check("agent.bob" in said and "agent.alice" in said, f"the refusal names neither: {said}")
            issue = w.issue("bd-1")
            check(issue["status"] == "open" and not issue.get("assignee"), f"bd-1 changed: {issue}")
            # The same for a claim-next, a comment's author and a lease release.
            for program in ['(issue.claim_next (hash "assignee" "agent.bob"))',
                            '(issue.comment (hash "id" "bd-2" "author" "agent.bob" "text" "hi"))',
                            '(issue.lease_release (hash "id" "bd-2" "assignee" "agent.bob"))',
                            '(harness.stop (hash "issueId" "bd-2" "workerId" "agent.bob" "summary" "s" "nextStep" "n" "lease" "release"))']:
                r = await evaluate(c, program)
                check(r.is_error and "authority.act_as_denied" in classes(r), f"{program}: {show(r)}")
            check(not w.issue("bd-2").get("comments"), "a comment in bob's name was written")
            # As herself: accepted. Assigning is planning: allowed.
            r = await evaluate(c, claim.format(id="bd-3", who="agent.alice"))
            check(not r.is_error, f"alice claiming as herself: {show(r)}")
            r = await evaluate(c, '(issue.update (hash "id" "bd-4" "assignee" "agent.bob"))')
            check(not r.is_error, f"alice assigning bd-4 to bob: {show(r)}")
            check(w.issue("bd-4")["assignee"] == "agent.bob", "bd-4 not assigned")
        async with http_client(srv.url, "orch") as c:
            # An orchestrator whose token grants agent.*: accepted.
            r = await evaluate(c, claim.format(id="bd-1", who="agent.bob"))
            check(not r.is_error, f"orchestrator handing bd-1 to bob: {show(r)}")
            r = await evaluate(c, claim.format(id="bd-5", who="someone.else"))
            check(r.is_error and classes(r) == ["authority.act_as_denied"], f"outside actAs: {show(r)}")
            check("agent.*" in " ".join(texts(r)), f"the refusal does not say the grant: {show(r)}")
    check(w.issue("bd-1")["assignee"] == "agent.bob", "bd-1 not claimed for bob")
    # Recorded with both names: the run's principal and the argument.
    rows = w.rows()
    header = {h["runId"]: h for h in rows if h.get("kind") == "premath.scheme_eval.run.v0"}
    claim_rows = [r for r in rows if r.get("action") == "issue.claim" and r["envelope"]["resultClass"] == "accepted"]
    orch = [r for r in claim_rows if header[r["runId"]].get("principal") == "orchestrator"]
    check(orch and orch[0]["args"]["assignee"] == "agent.bob", f"the orchestrator's claim is not recorded with both names: {orch}")
    w.replay_ok()


async def s_stdio_and_premath_tools() -> None:
    w = Work("act_as_stdio")
    w.seed(2)
    digest = w.digest()
    # Over stdio the caller is not proven: its names are recorded, not checked.
    async with stdio(w, "--policy-digest", digest, "--instruction-ref", INSTR) as c:
        r = await evaluate(c, '(issue.claim (hash "id" "bd-1" "assignee" "agent.anyone"))')
        check(not r.is_error, f"stdio claim: {show(r)}")
    # premath's tools on a shared server follow their twins' rule (with
    # premath's instruction witness, as premath's tools ask).
    os.makedirs(os.path.join(w.dir, "artifacts", "ciwitness"), exist_ok=True)
    with open(os.path.join(w.dir, "artifacts", "ciwitness", "instr-1.json"), "w") as f:
        # premath's policy digest for its instruction-linked mode (as
        # tests/it/premath_mcp.rs writes it).
        json.dump({"instructionId": "instr-1", "verdictClass": "accepted",
                   "policyDigest": "pol1_1ab3e7f398a472c2cf0f3fbd7ead7ece7bd74e836cbde924f1e33f02895d18ab",
                   "capabilityClaims": ["capabilities.change_morphisms", "capabilities.change_morphisms.all"],
                   "failureClasses": [], "joinClosed": True, "joinFailureClasses": []}, f)
    tokens = token_file(w, [{"token": "alice", "principal": "agent.alice", "serverAuthority": True}])
    async with http_server(w, "--premath-tools", "--auth", tokens, "--policy-digest", digest, "--instruction-ref", INSTR) as srv:
        async with http_client(srv.url, "alice") as c:
            r = await c.call_tool("issue_claim", {"id": "bd-2", "assignee": "agent.bob", "instruction_id": "instr-1"})
            check(r.is_error and "acts as itself" in show(r), f"premath issue_claim as bob: {show(r)}")
            r = await c.call_tool("issue_claim", {"id": "bd-2", "assignee": "agent.alice", "instruction_id": "instr-1"})
            check(not r.is_error, f"premath issue_claim as herself: {show(r)}")
    check(w.issue("bd-2")["assignee"] == "agent.alice", "bd-2")


async def s_tokens_as_commands_taken_live() -> None:
    """`tusk mcp token add/list/revoke` on a running server: a new token
    works within a second, a revoked one's sessions end and its next
    request is 401 within a second; the file keeps digests only, 0600."""
    import httpx2
    w = Work("tokens_live")
    w.seed(2)
    digest = w.digest()
    path = os.path.join(w.dir, ".premath", "tokens.json")

    def add(name: str, *flags: str) -> str:
        p = w.tusk("mcp", "token", "add", name, *flags, "--json")
        check(p.returncode == 0, f"token add {name}: {p.stdout}{p.stderr}")
        return json.loads(p.stdout)["token"]

    alice = add("agent.alice", "--server-authority")
    check(oct(os.stat(path).st_mode & 0o777) == "0o600", f"token file mode {oct(os.stat(path).st_mode)}")
    with open(path) as f:
        stored = f.read()
    check(alice not in stored and "sha256" in stored, "the token file holds the secret")
    p = w.tusk("mcp", "token", "add", "agent.alice")
    check(p.returncode != 0 and "already has a token" in p.stderr, f"a second token for alice: {p.stdout}{p.stderr}")
    async with http_server(w, "--auth", path, "--policy-digest", digest, "--instruction-ref", INSTR) as srv:
        carol = add("agent.carol", "--server-authority")
        dave = add("agent.dave", "--read-only")
        erin = add("agent.erin", "--actions", "issue.ready,issue.list")

        async def status(token: str) -> int:
            async with httpx2.AsyncClient(timeout=10) as hc:
                r = await hc.post(srv.url, headers={"Authorization": f"Bearer {token}", "Accept": "application/json, text/event-stream"},
                                  json={"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
                                      "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "probe", "version": "0"}}})
                return r.status_code

        async def within_a_second(token: str, want: int) -> None:
            start = asyncio.get_event_loop().time()
            while True:
                got = await status(token)
                if got == want:
                    return
                check(asyncio.get_event_loop().time() - start < 1.5, f"still {got}, not {want}, after 1.5 s")
                await asyncio.sleep(0.05)

        await within_a_second(carol, 200)
        p = w.tusk("mcp", "token", "list")
        check(p.returncode == 0 and "agent.dave  (read-only)" in p.stdout and carol not in p.stdout, f"token list: {p.stdout}")
        async with http_client(srv.url, dave) as c:
            r = await evaluate(c, '(issue.close (hash "id" "bd-1"))')
            check(r.is_error and classes(r) == ["authority.read_only"], f"read-only token closing: {show(r)}")
            said = " ".join(texts(r))
            check("agent.dave" in said and "read-only" in said and "actions list" not in said, f"not in the caller's terms: {said}")
        async with http_client(srv.url, erin) as c:
            r = await evaluate(c, '(issue.show (hash "id" "bd-1"))')
            check(r.is_error and classes(r) == ["scheme_eval.effect_denied"], f"erin's unlisted read: {show(r)}")
            said = " ".join(texts(r))
            check("`agent.erin`'s token actions list" in said and "issue.ready" in said, f"not the token's list: {said}")
        async with http_client(srv.url, carol) as c:
            r = await evaluate(c, '(issue.claim (hash "id" "bd-1" "assignee" "agent.carol"))')
            check(not r.is_error, f"carol's claim: {show(r)}")
            p = w.tusk("mcp", "token", "revoke", "agent.carol")
            check(p.returncode == 0, f"revoke: {p.stdout}{p.stderr}")
            await within_a_second(carol, 401)
            failed = False
            try:
                await evaluate(c, "(issue.ready)")
            except BaseException:  # the transport refuses: 401
                failed = True
            check(failed, "a revoked token's connected client still runs programs")
        await within_a_second(alice, 200)
    check(w.issue("bd-1").get("assignee") == "agent.carol", "carol's claim is not stored")
    w.replay_ok()


if __name__ == "__main__":
    sys.exit(asyncio.run(servers.run(servers.scenarios_of(globals()), only_env="TUSK_PRINCIPALS_ONLY")))
