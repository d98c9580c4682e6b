#!/usr/bin/env python3
"""What a model reads, in bytes, for one standard task (issue 46): find the
top ready issue, claim it, add a note, close it, on a 365-issue store.

usage: context.py TUSK_BINARY PREMATH_BINARY [WORK_DIR]

  - premath: its MCP tools over stdio (`premath mcp-serve --mutation-policy
    open`, the mode that asks least of the caller): issue_ready, issue_claim
    of the first item, issue_update with a note, issue_update to closed; four
    tool calls.
  - tusk: one `scheme_eval` (`tusk mcp` with the server's authority), the
    task written two ways (through issue.ready, and with issue.claim_next),
    each with `detail` "summary" (the default) and "full".

For every tool call it counts what a client hands the model: the text of
the result's `content` and the JSON of its `structuredContent`, and prints
the totals, the ratio premath/tusk against the 3x target, and (once per
server) the bytes of tools/list, which a client reads at the start.

PREMATH_BINARY is premath built from its public source
(`cargo build --release -p premath-cli` in a clone of workingdoge/premath).
Both servers work on their own copy of the same generated store
(../shared/bench/gen_issues.py 365).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from mcp_stdio import StdioServer  # noqa: E402

TARGET = 3.0
HERE = os.path.dirname(os.path.abspath(__file__))
GEN = os.path.join(HERE, "..", "..", "shared", "bench", "gen_issues.py")

READY_PROGRAM = """(define top (car (hash-ref (payload (issue.ready)) "items")))
(define id (hash-ref top "id"))
(define claim (issue.claim (hash "id" id "assignee" "agent.a")))
(define note (issue.update (hash "id" id "notes" "looked at it")))
(define done (issue.close (hash "id" id "reason" "done")))
(list id (result-class claim) (result-class note) (result-class done))"""

CLAIM_NEXT_PROGRAM = """(define claim (issue.claim_next (hash "assignee" "agent.a")))
(define id (hash-ref* (payload claim) "issue" "id"))
(define note (issue.update (hash "id" id "notes" "looked at it")))
(define done (issue.close (hash "id" id "reason" "done")))
(list id (result-class claim) (result-class note) (result-class done))"""


class Server(StdioServer):
    """An MCP server over stdio, counting what a model reads of each tool result."""

    def tool(self, name: str, args: dict) -> tuple[dict, int]:
        """Calls a tool; returns the result and the bytes a model reads of it."""
        result = self.call("tools/call", {"name": name, "arguments": args})["result"]
        read = sum(len(c.get("text", "").encode()) for c in result.get("content", []))
        if result.get("structuredContent") is not None:
            read += len(json.dumps(result["structuredContent"], separators=(",", ":")).encode())
        return result, read

    def tools_list_bytes(self) -> int:
        return len(json.dumps(self.call("tools/list", {})["result"], separators=(",", ":")).encode())


def store(work: str, name: str) -> str:
    d = os.path.join(work, name)
    os.makedirs(os.path.join(d, ".premath"), exist_ok=True)
    shutil.copy(os.path.join(work, "seed.jsonl"), os.path.join(d, ".premath", "issues.jsonl"))
    return d


def structured(result: dict) -> dict:
    sc = result.get("structuredContent")
    if isinstance(sc, dict):
        return sc
    # premath puts its JSON in the text block.
    return json.loads(result["content"][0]["text"])


def premath_task(premath: str, work: str) -> tuple[int, int]:
    d = store(work, "premath")
    srv = Server([premath, "mcp-serve", "--issues", ".premath/issues.jsonl",
                  "--mutation-policy", "open"], d, "context")
    listed = srv.tools_list_bytes()
    total = 0
    ready, n = srv.tool("issue_ready", {})
    total += n
    items = structured(ready).get("items") or structured(ready).get("issues")
    top = items[0]["id"]
    for name, args in [
        ("issue_claim", {"id": top, "assignee": "agent.a"}),
        ("issue_update", {"id": top, "notes": "looked at it"}),
        ("issue_update", {"id": top, "status": "closed"}),
    ]:
        _, n = srv.tool(name, args)
        total += n
    srv.close()
    return total, listed


def tusk_task(tusk: str, work: str, name: str, program: str, detail: str) -> tuple[int, int, object]:
    d = store(work, f"tusk-{name}-{detail}")
    digest = subprocess.run([tusk, "policy", "digest"], cwd=d, capture_output=True,
                            text=True, check=True).stdout.strip()
    srv = Server([tusk, "mcp", "--policy-digest", digest, "--instruction-ref", "instr://context"], d,
                 "context")
    listed = srv.tools_list_bytes()
    result, n = srv.tool("scheme_eval", {"program": program, "detail": detail})
    srv.close()
    return n, listed, result["structuredContent"]["value"]


def main() -> int:
    if len(sys.argv) not in (3, 4):
        print(__doc__, file=sys.stderr)
        return 2
    tusk, premath = (os.path.abspath(a) for a in sys.argv[1:3])
    work = sys.argv[3] if len(sys.argv) == 4 else tempfile.mkdtemp(prefix="tusk-context-")
    os.makedirs(work, exist_ok=True)
    subprocess.run([sys.executable, GEN, "365", os.path.join(work, "seed.jsonl")], check=True,
                   stdout=subprocess.DEVNULL)
    p_bytes, p_list = premath_task(premath, work)
    print(f"store: 365 generated issues; task: top ready issue -> claim -> note -> close")
    print(f"{'premath MCP tools (4 calls)':<44} {p_bytes:>8} bytes read   tools/list {p_list} bytes")
    worst = 0.0
    for name, program in [("issue.ready", READY_PROGRAM), ("issue.claim_next", CLAIM_NEXT_PROGRAM)]:
        for detail in ("summary", "full"):
            t_bytes, t_list, value = tusk_task(tusk, work, name.replace(".", "_"), program, detail)
            if not (isinstance(value, list) and value[1:] == ["accepted"] * 3):
                print(f"tusk program through {name} did not do the task: {value}", file=sys.stderr)
                return 1
            ratio = p_bytes / t_bytes
            label = f"tusk scheme_eval via {name}, {detail}"
            print(f"{label:<44} {t_bytes:>8} bytes read   tools/list {t_list} bytes   "
                  f"premath/tusk {ratio:6.1f}x")
            if detail == "summary":
                worst = min(worst, ratio) if worst else ratio
    print(f"target: premath/tusk >= {TARGET:.0f}x with the default detail; "
          f"{'met' if worst >= TARGET else 'NOT met'} ({worst:.1f}x at worst)")
    return 0 if worst >= TARGET else 1


if __name__ == "__main__":
    sys.exit(main())
