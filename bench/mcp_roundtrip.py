#!/usr/bin/env python3
"""Warm round trip of `tusk mcp` (stdio) driven by the official Python MCP SDK.

usage: mcp_roundtrip.py TUSK_BINARY WORK_DIR [CALLS]     (CALLS defaults to 300)

Starts one `TUSK_BINARY mcp` server with its working directory WORK_DIR (whose
.premath/issues.jsonl is the store; bench/mcp.sh fills it with 1000 generated
issues), checks that the one-call program is accepted, warms up with 20 calls,
then times CALLS `scheme_eval` calls of it at concurrency 1 (one after another)
and CALLS at concurrency 8 (a semaphore over one client). Each latency is the
client's view, from sending tools/call to holding the parsed result. Prints, per
concurrency, the median and p99 latency in ms and calls per second (CALLS over
the wall time of the batch), plus the median of the server's own `usage.elapsedMs`
(whole milliseconds), and for reference the round trip of describe_actions,
which runs no Scheme (the SDK's and the transport's own share). Run with the venv's python (target/mcp-venv, set up by
tests/mcp/setup.sh). Exits 1 if any call is rejected or returns another value.
"""

from __future__ import annotations

import asyncio
import math
import os
import statistics
import sys
import time
from typing import Any

from mcp import Client, StdioServerParameters
from mcp.client.stdio import stdio_client

PROGRAM = '(hash-ref (payload (issue.ready)) "count")'
WARMUP = 20
CONCURRENCY = (1, 8)
TARGET = "target: median <= 1.5 ms at concurrency 1 (365 issues); p99 <= 5x median at concurrency 8"


class BenchFail(Exception):
    pass


def fail(why: str) -> None:
    raise BenchFail(why)


def p99(xs: list[float]) -> float:
    """Nearest-rank 99th percentile."""
    s = sorted(xs)
    return s[max(0, math.ceil(0.99 * len(s)) - 1)]


async def timed_call(c: Client) -> tuple[float, Any]:
    t0 = time.perf_counter()
    r = await c.call_tool("scheme_eval", {"program": PROGRAM})
    return time.perf_counter() - t0, r


def value_of(r: Any) -> Any:
    sc = r.structured_content or {}
    if r.is_error or sc.get("result") != "accepted":
        text = " | ".join(getattr(b, "text", "") for b in r.content)[:400]
        fail(f"{PROGRAM} was not accepted: isError={r.is_error} result={sc.get('result')!r} {text}")
    return sc.get("value")


async def run(c: Client, calls: int, concurrency: int, want: Any) -> None:
    sem = asyncio.Semaphore(concurrency)

    async def one() -> tuple[float, Any]:
        async with sem:
            return await timed_call(c)

    t0 = time.perf_counter()
    if concurrency == 1:
        results = [await timed_call(c) for _ in range(calls)]
    else:
        results = await asyncio.gather(*(one() for _ in range(calls)))
    wall = time.perf_counter() - t0
    # Checked after the clock stops, so checking costs the figures nothing.
    for _, r in results:
        got = value_of(r)
        if got != want:
            fail(f"{PROGRAM} gave {got!r}, the first call gave {want!r}")
    lat = [dt * 1000 for dt, _ in results]
    server = [r.structured_content.get("usage", {}).get("elapsedMs") for _, r in results]
    server = [s for s in server if isinstance(s, (int, float))]
    server_txt = f"   server elapsedMs median {statistics.median(server):.0f}" if server else ""
    print(
        f"concurrency {concurrency}: {calls} calls   median {statistics.median(lat):.2f} ms   "
        f"p99 {p99(lat):.2f} ms   {calls / wall:.0f} calls/s{server_txt}",
        flush=True,
    )


async def floor(c: Client, calls: int) -> None:
    """For reference: the same SDK and transport around a tool that runs no Scheme."""
    args = {"ids": ["issue.ready"]}
    for _ in range(WARMUP):
        await c.call_tool("describe_actions", args)
    lat = []
    for _ in range(calls):
        t0 = time.perf_counter()
        r = await c.call_tool("describe_actions", args)
        lat.append((time.perf_counter() - t0) * 1000)
        if r.is_error:
            fail(f"describe_actions failed: {r.content!r}"[:400])
    print(
        f"reference, describe_actions (no Scheme run) at concurrency 1: median {statistics.median(lat):.2f} ms   "
        f"p99 {p99(lat):.2f} ms",
        flush=True,
    )


async def main() -> int:
    if len(sys.argv) not in (3, 4):
        print("usage: mcp_roundtrip.py TUSK_BINARY WORK_DIR [CALLS]", file=sys.stderr)
        return 2
    tusk = os.path.abspath(sys.argv[1])
    work = os.path.abspath(sys.argv[2])
    calls = int(sys.argv[3]) if len(sys.argv) == 4 else 300
    if calls < 1:
        print("bench/mcp_roundtrip.py: CALLS must be >= 1", file=sys.stderr)
        return 2
    log_path = os.path.join(work, "server.stderr")
    try:
        with open(log_path, "w") as log:
            params = StdioServerParameters(command=tusk, args=["mcp"], cwd=work)
            async with Client(stdio_client(params, errlog=log), read_timeout_seconds=30) as c:
                print(f"server: {tusk} mcp (stdio), protocol {c.protocol_version}", flush=True)
                _, r = await timed_call(c)
                want = value_of(r)
                if not isinstance(want, int):
                    fail(f"{PROGRAM} gave {want!r}, not a count")
                print(f"program: {PROGRAM} -> {want}", flush=True)
                for _ in range(WARMUP):
                    value_of((await timed_call(c))[1])
                print(f"warm-up: {WARMUP} calls", flush=True)
                for n in CONCURRENCY:
                    await run(c, calls, n, want)
                await floor(c, calls)
    except BaseException as e:  # noqa: BLE001 - say what went wrong, with the server's stderr
        while isinstance(e, BaseExceptionGroup) and len(e.exceptions) == 1:
            e = e.exceptions[0]
        if isinstance(e, KeyboardInterrupt):
            raise
        why = str(e) if isinstance(e, BenchFail) else f"{type(e).__name__}: {e}"
        try:
            with open(log_path) as f:
                tail = f.read()[-2000:]
        except OSError:
            tail = ""
        print(f"bench/mcp_roundtrip.py: {why}\n--- server stderr (tail) ---\n{tail}", file=sys.stderr)
        return 1
    print(TARGET)
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
