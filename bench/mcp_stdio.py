"""One MCP server over stdio, spoken to in raw JSON-RPC: what bench/compare.py
times and bench/context.py counts (no SDK between the bytes and the clock)."""

from __future__ import annotations

import json
import subprocess
import sys


class StdioServer:
    """Starts `cmd` in `cwd` and initializes it; `call` sends one request and
    returns its reply, exiting the bench on a JSON-RPC error or a tool
    result with isError."""

    def __init__(self, cmd: list[str], cwd: str, client: str):
        self.p = subprocess.Popen(cmd, cwd=cwd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  stderr=subprocess.DEVNULL, text=True, bufsize=1)
        self.n = 0
        self.call("initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                                 "clientInfo": {"name": client, "version": "0"}})
        self.p.stdin.write(json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}) + "\n")

    def call(self, method: str, params: dict) -> dict:
        self.n += 1
        self.p.stdin.write(json.dumps({"jsonrpc": "2.0", "id": self.n, "method": method,
                                       "params": params}) + "\n")
        self.p.stdin.flush()
        while True:
            reply = json.loads(self.p.stdout.readline())
            if reply.get("id") == self.n:
                if "error" in reply or reply.get("result", {}).get("isError"):
                    sys.exit(f"MCP call {method} failed: {json.dumps(reply)[:600]}")
                return reply

    def close(self) -> None:
        self.p.stdin.close()
        self.p.wait(timeout=30)
