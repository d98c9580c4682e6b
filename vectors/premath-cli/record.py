#!/usr/bin/env python3
"""Record parity vectors from the reference binary.

Usage: record.py PREMATH_BIN SOURCE_COMMIT [SCENARIO ...]
(with scenario names, only those are re-recorded)

Runs each scenario of scenarios.json in a fresh temporary directory with the
reference premath-cli and writes vectors/premath-cli/<name>.json holding its exit
code, stdout, stderr and the captured files (null when absent), byte for byte as
premath produced them. tusk's test (tests/parity_vectors.rs) replays the same
scenarios and must match.

A scenario has:
  args      one command's arguments, or
  steps     several commands' arguments, run in order in the same directory
            (the vector then has one {args, exit, stdout, stderr} per step);
  dirs      directories to create first;
  files     files to create first (path -> text);
  filesFrom files to create first from an earlier vector's captured files
            (path -> "<vector name>:<captured path>"), e.g. a ledger premath wrote;
  capture   files whose final content is recorded.
The keys `normalize` and `skip` only affect the comparison (parity_vectors.rs).
"""
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))


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
    for rel, source in scenario.get("filesFrom", {}).items():
        name, captured = source.split(":", 1)
        with open(os.path.join(HERE, name + ".json")) as f:
            text = json.load(f)["files"][captured]
        if text is None:
            sys.exit(f"{scenario['name']}: {source} was not captured")
        write_file(root, rel, text)


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
