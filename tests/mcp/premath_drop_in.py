#!/usr/bin/env python3
"""premath's MCP tool calls against `tusk mcp --premath-tools`, with the
official MCP Python SDK.

Usage: premath_drop_in.py TUSK_BIN

Runs every case of vectors/premath-mcp/cases.json (recorded from premath's
`mcp-serve` by vectors/premath-mcp/record.py) against tusk in a fresh
directory holding the case's files, and compares: the tool is listed with
premath's input schema, isError is premath's, the text content is premath's
byte for byte (lease-projection instants `checkedAt` normalized: premath
prints nanoseconds, tusk whole seconds), and the call left its run in tusk's
effect log (a row for `premath.<tool>`). Prints `ok NAME` / `FAIL NAME: WHY`
and `N passed, M failed`; exits 0 iff all passed.
"""
import asyncio
import json
import os
import re
import sys
import tempfile

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
VECTORS = os.path.join(ROOT, "vectors", "premath-mcp")
INSTANT = re.compile(r'("checkedAt": )"[^"]*"')


def normalized(text):
    return INSTANT.sub(r'\1"<normalized>"', text) if isinstance(text, str) else text


async def call(binary, root, tool, arguments):
    env = {k: v for k, v in os.environ.items() if k != "TUSK_STORE"}
    params = StdioServerParameters(command=binary, args=["mcp", "--premath-tools"], cwd=root, env=env)
    async with stdio_client(params, errlog=open(os.devnull, "w")) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            tools = {t.name: t for t in (await session.list_tools()).tools}
            result = await session.call_tool(tool, arguments)
            texts = [c.text for c in result.content if c.type == "text"]
            return {
                "inputSchema": tools[tool].input_schema if tool in tools else None,
                "isError": bool(result.is_error),
                "text": texts[0] if len(texts) == 1 else texts,
            }


def check(binary, case):
    want = json.load(open(os.path.join(VECTORS, case["name"] + ".json")))
    with tempfile.TemporaryDirectory() as root:
        for rel, text in case.get("files", {}).items():
            path = os.path.join(root, rel)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "w", encoding="utf-8") as f:
                f.write(text)
        got = asyncio.run(call(binary, root, case["tool"], case["arguments"]))
        if isinstance(got["text"], str):  # the directory, as record.py records it
            got["text"] = got["text"].replace(os.path.realpath(root), "<root>").replace(root, "<root>")
        log = os.path.join(root, ".premath", "host_effects.jsonl")
        rows = [json.loads(l) for l in open(log)] if os.path.exists(log) else []
    problems = []
    if got["inputSchema"] != want["inputSchema"]:
        problems.append(f"inputSchema {got['inputSchema']} != premath's {want['inputSchema']}")
    if got["isError"] != want["isError"]:
        problems.append(f"isError {got['isError']} != premath's {want['isError']}")
    if normalized(got["text"]) != normalized(want["text"]):
        problems.append(f"text\n--- premath\n{want['text']}\n--- tusk\n{got['text']}")
    if not any(r.get("action") == "premath." + case["tool"] for r in rows):
        problems.append("no effect-log row for premath." + case["tool"])
    return problems


def main():
    binary = os.path.abspath(sys.argv[1])
    cases = json.load(open(os.path.join(VECTORS, "cases.json")))["cases"]
    failed = 0
    for case in cases:
        try:
            problems = check(binary, case)
        except Exception as e:  # a crash is a failure of that case, reported
            problems = [f"{type(e).__name__}: {e}"]
        if problems:
            failed += 1
            print(f"FAIL {case['name']}: " + "; ".join(problems))
        else:
            print(f"ok {case['name']}")
    print(f"{len(cases) - failed} passed, {failed} failed")
    sys.exit(1 if failed or not cases else 0)


if __name__ == "__main__":
    main()
