#!/usr/bin/env python3
"""Record premath's MCP tool answers with the official MCP Python SDK.

Usage: target/mcp-venv/bin/python vectors/premath-mcp/record.py PREMATH_BIN SOURCE_COMMIT [CASE…]

(With CASE names, only those cases are recorded again.)

For each case of cases.json, in a fresh directory holding the case's files,
starts `premath mcp-serve` over stdio with the SDK's client, calls the tool
with the case's arguments and writes vectors/premath-mcp/<name>.json with the
tool's inputSchema (from tools/list), isError and its text content. The same
cases drive `tusk mcp --premath-tools` in tests/it/premath_mcp.rs (through
tests/mcp/premath_drop_in.py, the same SDK), which must answer alike.
"""
import asyncio
import json
import os
import sys
import tempfile

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

HERE = os.path.dirname(os.path.abspath(__file__))


def setup(root, case):
    """Writes the case's files; a `pathPrepend` directory's files are made
    executable and that directory goes first on PATH (returns PATH)."""
    for rel, text in case.get("files", {}).items():
        path = os.path.join(root, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
    path = os.environ.get("PATH", "")
    if case.get("pathPrepend"):
        bin_dir = os.path.join(root, case["pathPrepend"])
        for name in os.listdir(bin_dir):
            os.chmod(os.path.join(bin_dir, name), 0o755)
        path = bin_dir + os.pathsep + path
    return path


async def call(binary, args, root, tool, arguments, then_list, path):
    params = StdioServerParameters(command=binary, args=args, cwd=root,
                                   env={"PATH": path, "LC_ALL": "C"})
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


def main():
    binary = os.path.abspath(sys.argv[1])
    with open(os.path.join(HERE, "cases.json")) as f:
        cases = json.load(f)["cases"]
    only = set(sys.argv[3:])
    for case in cases:
        if only and case["name"] not in only:
            continue
        with tempfile.TemporaryDirectory() as root:
            path = setup(root, case)
            answer = asyncio.run(call(binary, ["mcp-serve"], root, case["tool"], case["arguments"],
                                      case.get("mutation", False), path))
            # premath names the scenario's directory in some answers
            # (backend status, init, instruction witnesses): recorded as <root>.
            for key in ("text", "after"):
                if isinstance(answer.get(key), str):
                    answer[key] = answer[key].replace(os.path.realpath(root), "<root>").replace(root, "<root>")
        vector = {"case": case["name"], "recordedWith": "premath-cli @ " + sys.argv[2], **answer}
        with open(os.path.join(HERE, case["name"] + ".json"), "w") as f:
            json.dump(vector, f, indent=2, ensure_ascii=False, sort_keys=True)
            f.write("\n")
        print(f"{case['name']}: isError={answer['isError']}")


if __name__ == "__main__":
    main()
