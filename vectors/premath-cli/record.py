#!/usr/bin/env python3
"""Record parity vectors from the reference binary.

Usage: record.py PREMATH_BIN SOURCE_COMMIT [SCENARIO ...]
(with scenario names, only those are re-recorded)

Runs each scenario of scenarios.json in a fresh temporary directory with the
reference premath-cli and writes vectors/premath-cli/<name>.json holding its exit
code, stdout, stderr and the captured files (null when absent), byte for byte as
premath produced them. tusk's test (tests/it/parity_vectors.rs) replays the same
scenarios and must match.

A scenario has:
  args      one command's arguments, or
  steps     several commands' arguments, run in order in the same directory
            (the vector then has one {args, exit, stdout, stderr} per step);
  dirs      directories to create first;
  files     files to create first (path -> text);
  filesFrom files to create first from an earlier vector's captured files
            (path -> "<vector name>:<captured path>"), e.g. a ledger premath wrote;
  filesCopy files to create first as copies of files of this repository
            (path -> repository-relative path), e.g. premath's control-plane
            contract kept under tests/premath_worker/;
  capture   files whose final content is recorded;
  mcp       {tool, arguments}: the reference has no such CLI command, only an
            MCP tool (e.g. issue_lease_projection): the tool is called through
            `premath mcp-serve` (stdio, run in the scenario's directory) and
            recorded as the CLI would print it: stdout is the tool's text
            content plus the newline `println!` adds, exit is 0 for a tool
            result and 1 for a tool error, stderr is empty (the server's
            banner on stderr is not part of the answer). tusk runs `args`.
The keys `normalize`, `normalizeInstant`, `extraKeys`, `missingKeys`,
`dropResolver`, `jsonLines` and `skip` only affect
the comparison (parity_vectors.rs).
"""
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))


def write_file(root, rel, text):
    path = os.path.join(root, rel)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
        f.write(text.encode("utf-8"))


def setup(root, scenario):
    for rel in scenario.get("dirs", []):
        os.makedirs(os.path.join(root, rel), exist_ok=True)
    for rel, text in scenario.get("files", {}).items():
        write_file(root, rel, text)
    for rel, source in scenario.get("filesCopy", {}).items():
        with open(os.path.join(REPO, source), encoding="utf-8") as f:
            write_file(root, rel, f.read())
    for rel, source in scenario.get("filesFrom", {}).items():
        name, captured = source.split(":", 1)
        with open(os.path.join(HERE, name + ".json")) as f:
            text = json.load(f)["files"][captured]
        if text is None:
            sys.exit(f"{scenario['name']}: {source} was not captured")
        write_file(root, rel, text)


def call_mcp(binary, root, env, tool, arguments):
    """(exit, stdout) of one MCP tool call, as the CLI would print it."""
    p = subprocess.Popen([binary, "mcp-serve"], cwd=root, env=env, stdin=subprocess.PIPE,
                         stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)

    def send(message):
        p.stdin.write(json.dumps(message) + "\n")
        p.stdin.flush()

    def answer(wanted):
        while True:
            line = p.stdout.readline()
            if not line:
                sys.exit(f"mcp-serve ended before answering request {wanted}")
            message = json.loads(line)
            if message.get("id") == wanted:
                return message

    send({"jsonrpc": "2.0", "id": 1, "method": "initialize",
          "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                     "clientInfo": {"name": "record.py", "version": "1"}}})
    answer(1)
    send({"jsonrpc": "2.0", "method": "notifications/initialized"})
    send({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
          "params": {"name": tool, "arguments": arguments}})
    result = answer(2)["result"]
    p.stdin.close()
    p.wait(timeout=10)
    texts = [c["text"] for c in result["content"] if c.get("type") == "text"]
    if len(texts) != 1:
        sys.exit(f"{tool}: expected one text content, got {result}")
    return (1 if result.get("isError") else 0), texts[0] + "\n"


def main():
    binary = os.path.abspath(sys.argv[1])
    with open(os.path.join(HERE, "scenarios.json")) as f:
        scenarios = json.load(f)["scenarios"]
    version = "premath-cli @ " + sys.argv[2]
    env = {"PATH": os.environ.get("PATH", ""), "LC_ALL": "C"}
    only = set(sys.argv[3:])
    unknown = only - {sc["name"] for sc in scenarios}
    if unknown:
        sys.exit(f"no such scenario: {', '.join(sorted(unknown))}")
    for sc in scenarios:
        if only and sc["name"] not in only:
            continue
        steps = sc["steps"] if "steps" in sc else [sc["args"]]
        runs = []
        with tempfile.TemporaryDirectory() as root:
            setup(root, sc)
            for args in steps:
                if "mcp" in sc:
                    code, out = call_mcp(binary, root, env, sc["mcp"]["tool"], sc["mcp"]["arguments"])
                    runs.append({"args": args, "exit": code, "stdout": out, "stderr": ""})
                    continue
                p = subprocess.run([binary] + args, cwd=root, capture_output=True, env=env)
                runs.append({
                    "args": args,
                    "exit": p.returncode,
                    "stdout": p.stdout.decode("utf-8"),
                    "stderr": p.stderr.decode("utf-8"),
                })
            files = {}
            for rel in sc.get("capture", []):
                path = os.path.join(root, rel)
                files[rel] = open(path, "rb").read().decode("utf-8") if os.path.isfile(path) else None
        vector = {"scenario": sc["name"], "recordedWith": version, "files": files}
        if "mcp" in sc:
            vector["mcp"] = sc["mcp"]
        if "steps" in sc:
            vector["steps"] = runs
        else:
            vector.update(runs[0])
        with open(os.path.join(HERE, sc["name"] + ".json"), "w") as f:
            json.dump(vector, f, indent=2, ensure_ascii=False, sort_keys=True)
            f.write("\n")
        print(f"{sc['name']}: exit {' '.join(str(r['exit']) for r in runs)}")


if __name__ == "__main__":
    main()
