#!/usr/bin/env python3
"""premath's MCP tool calls against `tusk mcp --premath-tools`, with the
official MCP Python SDK.

Usage: premath_drop_in.py TUSK_BIN

Runs every case of vectors/premath-mcp/cases.json (recorded from premath's
`mcp-serve` by vectors/premath-mcp/record.py) against tusk in a fresh
directory holding the case's files, tusk started with the default policy's
digest (`tusk policy digest`) and an instruction ref as its authority, and
compares: the tool is listed with premath's input schema, isError is
premath's, the text content is premath's byte for byte, and for a mutation
so is the issue_list answer afterwards (the store it left). Normalized, as
truly variable: instants taken from the clock (premath prints nanoseconds,
tusk whole seconds; the fixtures' own instants, in 2020 and 2099, are
compared), a write witness's `witnessId` and `recordedAtUnixMs`. Set aside:
premath's `resolverWitness` and `resolverWitnessRef` on lease answers (its
doctrine site resolver, which tusk does not compute; README). Each call must
leave its run in tusk's effect log (a row for `premath.<tool>`, accepted iff
premath accepted), except premath's instruction-witness refusals (cases with
`recorded: false`), which tusk answers before any run: those must leave no
row and the store byte for byte as it was. Prints `ok NAME` / `FAIL NAME:
WHY` and `N passed, M failed`; exits 0 iff all passed.
"""
import asyncio
import json
import os
import re
import subprocess
import sys
import tempfile

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
VECTORS = os.path.join(ROOT, "vectors", "premath-mcp")
INSTANT = re.compile(r'"(\d{4})-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?(Z|[+-]\d\d:\d\d)"')
FIXTURE_YEARS = {"2020", "2099"}
INSTRUCTION_REF = "instr://premath-drop-in"


def normalized(text):
    if not isinstance(text, str):
        return text
    try:
        value = json.loads(text)
    except ValueError:
        value = None
    if isinstance(value, dict) and "resolverWitness" in value:
        value.pop("resolverWitness", None)
        value.pop("resolverWitnessRef", None)
        text = json.dumps(value, indent=2, ensure_ascii=False)
    text = INSTANT.sub(
        lambda m: m.group(0) if m.group(1) in FIXTURE_YEARS else f'"<instant>{m.group(2)}"', text)
    text = re.sub(r'"bdw1_\d+"', '"bdw1_<nanos>"', text)
    return re.sub(r'("recordedAtUnixMs": )\d+', r'\1"<ms>"', text)


async def call(binary, digest, root, tool, arguments, then_list, prepend):
    env = {k: v for k, v in os.environ.items() if k != "TUSK_STORE"}
    if prepend:  # the case's stand-in tools (jj) first on PATH
        bin_dir = os.path.join(root, prepend)
        for name in os.listdir(bin_dir):
            os.chmod(os.path.join(bin_dir, name), 0o755)
        env["PATH"] = bin_dir + os.pathsep + env.get("PATH", "")
    args = ["mcp", "--premath-tools", "--policy-digest", digest, "--instruction-ref", INSTRUCTION_REF]
    params = StdioServerParameters(command=binary, args=args, cwd=root, env=env)
    async with stdio_client(params, errlog=open(os.devnull, "w")) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            tools = {t.name: t for t in (await session.list_tools()).tools}
            result = await session.call_tool(tool, arguments)
            texts = [c.text for c in result.content if c.type == "text"]
            answer = {
                "inputSchema": tools[tool].input_schema if tool in tools else None,
                "isError": bool(result.is_error),
                "text": texts[0] if len(texts) == 1 else texts,
            }
            if then_list:
                listed = await session.call_tool("issue_list", {})
                answer["after"] = [c.text for c in listed.content if c.type == "text"][0]
            return answer


def snapshot(root):
    files = {}
    for base, _, names in os.walk(root):
        for name in names:
            path = os.path.join(base, name)
            if name != "host_effects.jsonl" and "harness_trajectory" not in name:
                files[os.path.relpath(path, root)] = open(path, "rb").read()
    return files


def check(binary, digest, case):
    want = json.load(open(os.path.join(VECTORS, case["name"] + ".json")))
    mutation = case.get("mutation", False)
    with tempfile.TemporaryDirectory() as root:
        for rel, text in case.get("files", {}).items():
            path = os.path.join(root, rel)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "w", encoding="utf-8") as f:
                f.write(text)
        before = snapshot(root)
        got = asyncio.run(call(binary, digest, root, case["tool"], case["arguments"], mutation,
                               case.get("pathPrepend")))
        for key in ("text", "after"):  # the directory, as record.py records it
            if isinstance(got.get(key), str):
                got[key] = got[key].replace(os.path.realpath(root), "<root>").replace(root, "<root>")
        unchanged = snapshot(root) == before
        log = os.path.join(root, ".premath", "host_effects.jsonl")
        rows = [json.loads(l) for l in open(log)] if os.path.exists(log) else []
    problems = []
    if got["inputSchema"] != want["inputSchema"]:
        problems.append(f"inputSchema {got['inputSchema']} != premath's {want['inputSchema']}")
    if got["isError"] != want["isError"]:
        problems.append(f"isError {got['isError']} != premath's {want['isError']}")
    for key in ("text", "after") if mutation else ("text",):
        if normalized(got.get(key)) != normalized(want.get(key)):
            problems.append(f"{key}\n--- premath\n{normalized(want.get(key))}\n--- tusk\n{normalized(got.get(key))}")
    action = "premath." + case["tool"]
    mine = [r for r in rows if r.get("action") == action]
    if case.get("recorded", True):
        if not mine:
            problems.append("no effect-log row for " + action)
        elif (mine[0]["envelope"]["resultClass"] == "accepted") == want["isError"]:
            problems.append(f"effect-log row {mine[0]['envelope']['resultClass']} for premath's isError {want['isError']}")
    else:
        if mine:
            problems.append("a refusal before any run left an effect-log row")
        if not unchanged:
            problems.append("a refusal before any run changed the directory")
    return problems


def main():
    binary = os.path.abspath(sys.argv[1])
    with tempfile.TemporaryDirectory() as empty:
        digest = subprocess.run([binary, "policy", "digest"], cwd=empty, check=True,
                                capture_output=True, text=True).stdout.strip()
    cases = json.load(open(os.path.join(VECTORS, "cases.json")))["cases"]
    failed = 0
    for case in cases:
        try:
            problems = check(binary, digest, case)
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
