#!/usr/bin/env python3
"""Record parity vectors from the reference binary.

Usage: record.py PREMATH_BIN SOURCE_COMMIT

Runs each scenario of scenarios.json in a fresh temporary directory with the
reference premath-cli and writes vectors/premath-cli/<name>.json holding its exit
code, stdout, stderr and the captured files (null when absent). tusk's test
(tests/parity_vectors.rs) replays the same scenarios and must match byte for byte.
"""
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))


def setup(root, scenario):
    for rel in scenario.get("dirs", []):
        os.makedirs(os.path.join(root, rel), exist_ok=True)
    for rel, text in scenario.get("files", {}).items():
        path = os.path.join(root, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "wb") as f:
            f.write(text.encode("utf-8"))


def main():
    binary = os.path.abspath(sys.argv[1])
    with open(os.path.join(HERE, "scenarios.json")) as f:
        scenarios = json.load(f)["scenarios"]
    version = "premath-cli @ " + sys.argv[2]
    for sc in scenarios:
        with tempfile.TemporaryDirectory() as root:
            setup(root, sc)
            env = {"PATH": os.environ.get("PATH", ""), "LC_ALL": "C"}
            p = subprocess.run([binary] + sc["args"], cwd=root, capture_output=True, env=env)
            files = {}
            for rel in sc.get("capture", []):
                path = os.path.join(root, rel)
                files[rel] = open(path, "rb").read().decode("utf-8") if os.path.isfile(path) else None
        vector = {
            "scenario": sc["name"],
            "recordedWith": version,
            "args": sc["args"],
            "exit": p.returncode,
            "stdout": p.stdout.decode("utf-8"),
            "stderr": p.stderr.decode("utf-8"),
            "files": files,
        }
        with open(os.path.join(HERE, sc["name"] + ".json"), "w") as f:
            json.dump(vector, f, indent=2, ensure_ascii=False, sort_keys=True)
            f.write("\n")
        print(f"{sc['name']}: exit {p.returncode}")


if __name__ == "__main__":
    main()
