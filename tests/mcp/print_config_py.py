#!/usr/bin/env python3
"""Start `tusk mcp` the way each `tusk mcp --print-config CLIENT` output says,
with the official Python MCP SDK (pinned in requirements.txt), and check that
the server answers.

Usage: print_config_py.py LAUNCHES_JSON

LAUNCHES_JSON holds a list of launches, each
  {"name", "command", "args", "cwd" (null: this process's working directory),
   "env" (null or an object), "authority" (bool), "store" (the issue file the
   server must write)}
taken from a printed configuration. For each: `tools/list` names the four
tools; then `scheme_eval` of a mutation without authority in the call is
accepted (and lands in `store`) when the configuration carries authority, and
refused with mutation.use_evidence_missing when it does not. Prints `ok NAME`
or `FAIL NAME: WHY` per launch, then `N passed, M failed`; exits 0 iff all passed.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
import tempfile
import traceback
from typing import Any

import anyio
from mcp import Client, StdioServerParameters
from mcp.client.stdio import stdio_client
from checks import check, Fail

TOOLS = {"scheme_eval", "describe_actions", "session_open", "session_close"}




def titles(store: str) -> list[str]:
    try:
        with open(store) as f:
            return [json.loads(line)["title"] for line in f if line.strip()]
    except FileNotFoundError:
        return []


async def run(launch: dict[str, Any], log_path: str) -> None:
    params = StdioServerParameters(
        command=launch["command"],
        args=launch["args"],
        cwd=launch["cwd"],
        env=launch["env"],
    )
    title = f"added through the {launch['name']} configuration"
    with open(log_path, "w") as log:
        async with Client(stdio_client(params, errlog=log), read_timeout_seconds=30) as c:
            tools = {t.name for t in (await c.list_tools()).tools}
            check(TOOLS <= tools, f"tools/list: missing {sorted(TOOLS - tools)} (have {sorted(tools)})")
            r = await c.call_tool("scheme_eval", {"program": f'(issue.add (hash "title" "{title}"))'})
            sc = r.structured_content or {}
            if launch["authority"]:
                check(not r.is_error and sc.get("result") == "accepted",
                      f"a mutation under the configured authority was refused: {json.dumps(sc)[:400]}")
                check(title in titles(launch["store"]), f"the issue is not in {launch['store']}: {titles(launch['store'])}")
            else:
                check(r.is_error and sc.get("failureClasses") == ["mutation.use_evidence_missing"],
                      f"a mutation without authority was not refused: {json.dumps(sc)[:400]}")


async def main() -> int:
    with open(sys.argv[1]) as f:
        launches = json.load(f)
    logs = tempfile.mkdtemp(prefix="tusk-print-config-")
    passed = failed = 0
    for launch in launches:
        log_path = os.path.join(logs, f"{launch['name']}.stderr")
        try:
            with anyio.fail_after(60):
                await run(launch, log_path)
            passed += 1
            print(f"ok {launch['name']}", flush=True)
        except Exception as e:  # noqa: BLE001 - every failure is reported
            failed += 1
            print(f"FAIL {launch['name']}: {type(e).__name__}: {e}", flush=True)
            if not isinstance(e, Fail):
                traceback.print_exception(e, file=sys.stderr)
            try:
                with open(log_path) as f:
                    print(f"--- server stderr ---\n{f.read()[-3000:]}", file=sys.stderr)
            except OSError:
                pass
    print(f"{passed} passed, {failed} failed")
    return 0 if failed == 0 and passed == len(launches) else 1


if __name__ == "__main__":
    if len(sys.argv) != 2:
        print("usage: print_config_py.py LAUNCHES_JSON", file=sys.stderr)
        sys.exit(2)
    sys.exit(asyncio.run(main()))
