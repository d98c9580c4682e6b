#!/usr/bin/env python3
"""Connect to tusk the way `tusk mcp --print-config CLIENT --url URL
--token-env VAR` and `--print-config CLIENT --portable` say, with the
official Python MCP SDK (pinned in requirements.txt).

Usage: print_config_shared_py.py TUSK WORKDIR

In WORKDIR (an initialised project) this starts `tusk mcp --http
127.0.0.1:0 --auth tokens.json`, then for each client:
- prints its shared-server configuration, checks the token is not in it,
  resolves the Authorization header as that client does (Claude Code
  `${VAR}`, Cursor and VS Code `${env:VAR}`, Codex `bearer_token_env_var`)
  from this process's environment, connects over streamable HTTP (an
  initialized session), lists the tools and runs a read; on the way out the
  SDK ends the session with a DELETE, which must answer 200, and the SDK
  must log nothing at WARNING or above on the way;
- prints its portable stdio configuration, checks it names no path of this
  machine, and starts it as the client would: `tusk` found on PATH, the
  project directory substituted for `${workspaceFolder}` (Cursor, VS Code)
  or used as the working directory (Claude Code, Codex).
Prints `ok NAME` or `FAIL NAME: WHY` per case, then `N passed, M failed`;
exits 0 iff all passed.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import logging
import os
import re
import subprocess
import sys
import time
import tomllib
import traceback
from typing import Any

import anyio
import httpx2
from mcp import Client, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client
from checks import check, Fail, HTTP_LINE

CLIENTS = ["claude", "cursor", "vscode", "codex"]
TOOLS = {"scheme_eval", "describe_actions", "session_open", "session_close"}
TOKEN_VAR = "TUSK_PRINT_CONFIG_TOKEN"
TOKEN = "s3cret-token-for-print-config"




class Records(logging.Handler):
    """Every log record at WARNING or above, from any logger (the SDK's own)."""

    def __init__(self) -> None:
        super().__init__(level=logging.WARNING)
        self.records: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(f"{record.name}: {record.getMessage()}")


def print_config(tusk: str, work: str, *args: str) -> str:
    p = subprocess.run([tusk, "mcp", "--print-config", *args], cwd=work,
                       capture_output=True, text=True, timeout=60,
                       env={**os.environ, TOKEN_VAR: TOKEN})
    check(p.returncode == 0, f"--print-config {' '.join(args)} exited {p.returncode}: {p.stderr}")
    check(TOKEN not in p.stdout, "the token's value is in the printed configuration")
    return p.stdout


def expand(client: str, text: str) -> str:
    """A header value as the client expands it from its environment."""
    pattern = r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}" if client == "claude" else r"\$\{env:([A-Za-z_][A-Za-z0-9_]*)\}"
    return re.sub(pattern, lambda m: os.environ[m.group(1)], text)


def server_entry(client: str, text: str) -> dict[str, Any]:
    if client == "codex":
        doc = tomllib.loads(text)
        check(list(doc["mcp_servers"]) == ["tusk"], f"codex: {doc}")
        return doc["mcp_servers"]["tusk"]
    doc = json.loads(text)
    top = "servers" if client == "vscode" else "mcpServers"
    check(list(doc) == [top] and list(doc[top]) == ["tusk"], f"{client}: {doc}")
    return doc[top]["tusk"]


async def shared(client: str, tusk: str, work: str, url: str, records: Records) -> None:
    entry = server_entry(client, print_config(tusk, work, client, "--url", url, "--token-env", TOKEN_VAR))
    check(entry["url"] == url, f"url {entry.get('url')!r}")
    if client == "codex":
        check(entry.get("bearer_token_env_var") == TOKEN_VAR, f"codex entry: {entry}")
        headers = {"Authorization": f"Bearer {os.environ[entry['bearer_token_env_var']]}"}
    else:
        check(entry.get("type") == (None if client == "cursor" else "http"), f"type: {entry}")
        headers = {k: expand(client, v) for k, v in entry["headers"].items()}
    before = len(records.records)
    deletes: list[int] = []

    async def on_response(response: Any) -> None:
        if response.request.method == "DELETE":
            deletes.append(response.status_code)

    async with httpx2.AsyncClient(headers=headers, timeout=httpx2.Timeout(30, read=60),
                                  event_hooks={"response": [on_response]}) as hc:
        # "legacy": an initialized session, which the SDK ends with a DELETE on
        # the way out (its "auto" mode keeps no session, so sends none).
        async with Client(streamable_http_client(entry["url"], http_client=hc), mode="legacy",
                          read_timeout_seconds=30) as c:
            tools = {t.name for t in (await c.list_tools()).tools}
            check(TOOLS <= tools, f"tools/list: {sorted(tools)}")
            r = await c.call_tool("scheme_eval", {"program": "(issue.ready)"})
            sc = r.structured_content or {}
            check(not r.is_error and sc.get("result") == "accepted", f"a read was refused: {json.dumps(sc)[:300]}")
    check(deletes == [200], f"the disconnect's DELETE answers: {deletes} (the SDK wants 200 or 204)")
    logged = records.records[before:]
    check(not logged, f"the SDK logged on the way: {logged}")


async def portable(client: str, tusk: str, work: str) -> None:
    text = print_config(tusk, work, client, "--portable")
    check(work not in text and os.path.dirname(tusk) not in text, f"a path of this machine in:\n{text}")
    entry = server_entry(client, text)
    check(entry["command"] == "tusk", f"command {entry['command']!r}")
    args = [a.replace("${workspaceFolder}", work) for a in entry["args"]]
    if client in ("cursor", "vscode"):
        check(args[:2] == ["-C", work], f"args {entry['args']}")
        cwd = None
    else:
        check("${workspaceFolder}" not in entry["args"] and "cwd" not in entry, f"entry {entry}")
        cwd = work  # Claude Code and Codex start a project's server in it
    env = {"PATH": os.path.dirname(tusk) + os.pathsep + os.environ.get("PATH", "")}
    params = StdioServerParameters(command="tusk", args=args, cwd=cwd, env=env)
    with open(os.devnull, "w") as log:
        async with Client(stdio_client(params, errlog=log), read_timeout_seconds=30) as c:
            tools = {t.name for t in (await c.list_tools()).tools}
            check(TOOLS <= tools, f"tools/list: {sorted(tools)}")
            r = await c.call_tool("scheme_eval", {"program": '(issue.add (hash "title" "portable"))'})
            sc = r.structured_content or {}
            # No authority in a portable configuration: the mutation is refused,
            # which shows the server ran in `work` with its policy.
            check(sc.get("failureClasses") == ["mutation.use_evidence_missing"], f"{json.dumps(sc)[:300]}")


async def main() -> int:
    tusk, work = sys.argv[1], os.path.realpath(sys.argv[2])
    os.environ[TOKEN_VAR] = TOKEN
    records = Records()
    logging.getLogger().addHandler(records)
    logging.getLogger().setLevel(logging.DEBUG)
    tokens = os.path.join(work, "tokens.json")
    with open(tokens, "w") as f:
        json.dump({"tokens": [{"sha256": hashlib.sha256(TOKEN.encode()).hexdigest(), "principal": "agent.cfg"}]}, f)
    os.chmod(tokens, 0o600)
    log_path = os.path.join(work, "server.stderr")
    with open(log_path, "w") as log:
        proc = subprocess.Popen([tusk, "mcp", "--http", "127.0.0.1:0", "--auth", tokens], cwd=work,
                                stdin=subprocess.DEVNULL, stdout=log, stderr=log)
    passed = failed = 0
    try:
        deadline = time.monotonic() + 20
        while True:
            with open(log_path) as f:
                m = HTTP_LINE.search(f.read())
            if m:
                break
            check(proc.poll() is None and time.monotonic() < deadline, "the server did not start")
            await asyncio.sleep(0.05)
        url = m.group(1)
        cases = [(f"{c}+url", shared(c, tusk, work, url, records)) for c in CLIENTS]
        cases += [(f"{c}+portable", portable(c, tusk, work)) for c in CLIENTS]
        for name, case in cases:
            try:
                with anyio.fail_after(60):
                    await case
                passed += 1
                print(f"ok {name}", flush=True)
            except Exception as e:  # noqa: BLE001 - every failure is reported
                while isinstance(e, BaseExceptionGroup) and len(e.exceptions) == 1:
                    e = e.exceptions[0]
                failed += 1
                print(f"FAIL {name}: {type(e).__name__}: {e}", flush=True)
                if not isinstance(e, Fail):
                    traceback.print_exception(e, file=sys.stderr)
    finally:
        proc.terminate()
        proc.wait(timeout=10)
    if failed:
        with open(log_path) as f:
            print(f"--- server stderr ---\n{f.read()[-3000:]}", file=sys.stderr)
    print(f"{passed} passed, {failed} failed")
    return 0 if failed == 0 and passed == 2 * len(CLIENTS) else 1


if __name__ == "__main__":
    if len(sys.argv) != 3:
        print("usage: print_config_shared_py.py TUSK WORKDIR", file=sys.stderr)
        sys.exit(2)
    sys.exit(asyncio.run(main()))
