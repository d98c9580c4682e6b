"""What the MCP scenario scripts share: a scenario's own directory and
store (`Work`), `tusk mcp` servers over stdio and HTTP, SDK clients, the
result helpers, and the runner that prints `ok NAME` / `FAIL NAME: WHY`.

A script calls `configure(TUSK_BINARY, SCRATCH_DIR)` first, then
`sys.exit(asyncio.run(run(scenarios, deadlines)))`.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import os
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

TUSK = ""
ROOT = ""
STDERR_LOGS: list[str] = []


def configure(tusk: str, root: str) -> None:
    """Where the binary is and where scenarios make their directories."""
    global TUSK, ROOT
    TUSK = os.path.abspath(tusk)
    ROOT = os.path.abspath(root)


class Work:
    """A scenario's own directory, store and logs."""

    def __init__(self, name: str) -> None:
        self.dir = os.path.join(ROOT, name)
        os.makedirs(self.dir, exist_ok=True)
        self.effects = os.path.join(self.dir, ".premath", "host_effects.jsonl")
        self.trajectory = os.path.join(self.dir, ".premath", "harness_trajectory.jsonl")

    def tusk(self, *args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
        return subprocess.run([TUSK, *args], cwd=self.dir, capture_output=True, text=True, timeout=60, input=stdin)

    def seed(self, n: int = 3) -> None:
        """n open issues bd-1..bd-n, written to the store (a command would
        leave a recorded run of its own in the logs, issue 57)."""
        os.makedirs(os.path.join(self.dir, ".premath"), exist_ok=True)
        path = os.path.join(self.dir, ".premath", "issues.jsonl")
        have = sum(1 for line in open(path) if line.strip()) if os.path.exists(path) else 0
        with open(path, "a") as f:
            for i in range(have, have + n):
                f.write(json.dumps({"id": f"bd-{i + 1}", "title": f"Seed issue {i + 1}", "status": "open",
                                    "priority": 2, "issue_type": "task", "created_at": "2026-11-01T00:00:00Z",
                                    "updated_at": "2026-11-01T00:00:00Z"}) + "\n")

    def digest(self) -> str:
        p = self.tusk("policy", "digest")
        check(p.returncode == 0, f"`tusk policy digest` exited {p.returncode}")
        return p.stdout.strip()

    def rows(self, path: str | None = None) -> list[dict[str, Any]]:
        path = path or self.effects
        if not os.path.exists(path):
            return []
        with open(path) as f:
            return [json.loads(line) for line in f if line.strip()]

    def log_bytes(self) -> tuple[int, int]:
        size = lambda p: os.path.getsize(p) if os.path.exists(p) else 0  # noqa: E731
        return size(self.effects), size(self.trajectory)

    def issue(self, issue_id: str) -> dict[str, Any]:
        p = self.tusk("issue", "show", issue_id, "--json")
        check(p.returncode == 0, f"`tusk issue show {issue_id}` exited {p.returncode}: {p.stderr.strip()}")
        return json.loads(p.stdout)["issue"]

    def replay_ok(self, *args: str) -> None:
        p = self.tusk("replay", "--effects", self.effects, *args)
        check(p.returncode == 0, f"`tusk replay {' '.join(args)}` exited {p.returncode}: {(p.stdout + p.stderr)[-600:]}")


def texts(r: Any) -> list[str]:
    return [b.text for b in r.content if getattr(b, "type", None) == "text"]


def show(r: Any) -> str:
    return f"isError={r.is_error} text={' | '.join(texts(r))[:300]!r}"


def token_file(w: Work, entries: list[dict[str, Any]]) -> str:
    path = os.path.join(w.dir, "tokens.json")
    tokens = []
    for e in entries:
        e = dict(e)
        secret = e.pop("token")
        tokens.append({"sha256": hashlib.sha256(secret.encode()).hexdigest(), **e})
    with open(path, "w") as f:
        json.dump({"tokens": tokens}, f)
    return path


def log_for(w: Work, label: str) -> str:
    path = os.path.join(w.dir, f"server-{len(STDERR_LOGS) + 1}-{label}.stderr")
    STDERR_LOGS.append(path)
    return path


@asynccontextmanager
async def stdio(w: Work, *flags: str, mode: str = "auto"):
    with open(log_for(w, "stdio"), "w") as log:
        params = StdioServerParameters(command=TUSK, args=["mcp", *flags], cwd=w.dir)
        async with Client(stdio_client(params, errlog=log), mode=mode, read_timeout_seconds=30) as c:
            yield c


class HttpServer:
    def __init__(self, proc: subprocess.Popen[bytes], url: str) -> None:
        self.proc = proc
        self.url = url
        self.base = url[: -len("/mcp")]


@asynccontextmanager
async def http_server(w: Work, *flags: str):
    path = log_for(w, "http")
    with open(path, "w") as log:
        proc = subprocess.Popen([TUSK, "mcp", "--http", "127.0.0.1:0", *flags], cwd=w.dir,
                                stdin=subprocess.DEVNULL, stdout=log, stderr=log)
    try:
        deadline = time.monotonic() + 20
        while True:
            with open(path) as f:
                m = HTTP_LINE.search(f.read())
            if m:
                break
            check(proc.poll() is None, f"`tusk mcp --http` exited {proc.returncode} before serving")
            check(time.monotonic() < deadline, "no 'serving streamable HTTP' line within 20 s")
            await asyncio.sleep(0.05)
        yield HttpServer(proc, m.group(1))
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


@asynccontextmanager
async def http_client(url: str, token: str | None = None, mode: str = "auto", big: bool = False):
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    extra = {"max_sse_event_size": 400 * 1024 * 1024} if big else {}
    # A 100 MB result takes a while to move and parse on a loaded machine; the
    # big client's deadline is not what its test measures.
    read = 180 if big else 60
    async with httpx2.AsyncClient(headers=headers, timeout=httpx2.Timeout(30, read=read)) as hc:
        async with Client(streamable_http_client(url, http_client=hc, **extra), mode=mode,
                          read_timeout_seconds=read if big else 30) as c:
            yield c


async def evaluate(c: Client, program: str, **extra: Any) -> Any:
    return await c.call_tool("scheme_eval", {"program": program, **extra})


def sc_of(r: Any) -> dict[str, Any]:
    check(isinstance(r.structured_content, dict), f"no result object: {show(r)}")
    return r.structured_content


def classes(r: Any) -> list[str]:
    return sc_of(r)["failureClasses"]




def scenarios_of(namespace: dict[str, Any]) -> list[tuple[str, Any]]:
    """The `s_NAME` coroutine functions of a script, by name."""
    return [(name[2:], fn) for name, fn in sorted(namespace.items()) if name.startswith("s_") and callable(fn)]


def why(e: BaseException) -> str:
    while isinstance(e, BaseExceptionGroup) and len(e.exceptions) == 1:
        e = e.exceptions[0]
    text = str(e) if isinstance(e, Fail) else ("timed out" if isinstance(e, TimeoutError) else f"{type(e).__name__}: {e}")
    return " ".join(text.split("\n"))


async def run(scenarios: list[tuple[str, Any]], deadlines: dict[str, int] | None = None, only_env: str = "TUSK_SHARED_ONLY") -> int:
    """Runs each scenario under its deadline (60 s unless `deadlines` says);
    `$only_env` (comma-separated names) runs only those. Exit status."""
    os.makedirs(ROOT, exist_ok=True)
    only = set(filter(None, os.environ.get(only_env, "").split(",")))
    passed = failed = 0
    for name, fn in scenarios:
        if only and name not in only:
            continue
        first_log = len(STDERR_LOGS)
        err: BaseException | None = None
        try:
            with anyio.fail_after((deadlines or {}).get(name, 60)):
                await fn()
        except BaseException as e:  # noqa: BLE001 - every failure is reported
            err = e
        if err is None:
            passed += 1
            print(f"ok {name}", flush=True)
        else:
            failed += 1
            print(f"FAIL {name}: {why(err)}", flush=True)
            if not isinstance(err, Fail):
                traceback.print_exception(err, file=sys.stderr)
            for path in STDERR_LOGS[first_log:]:
                try:
                    with open(path) as f:
                        print(f"--- {path} (tail) ---\n{f.read()[-2000:]}", file=sys.stderr)
                except OSError:
                    pass
    print(f"{passed} passed, {failed} failed")
    return 0 if failed == 0 else 1
