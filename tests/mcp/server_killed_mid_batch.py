#!/usr/bin/env python3
"""A shared server SIGKILLed while its agents' mutations are being written
together (the file store's group commit) loses no acknowledged mutation and
leaves a store every reader parses; a command-line writer on the same store
gets its turn while the server is busy.

usage: server_killed_mid_batch.py TUSK [--rounds 3] [--agents 8] [--store URL]

Each round starts `TUSK mcp --http --auth` on the same store, 8 agents (raw
streamable-HTTP clients, bench/fleet_mcp.py's) each add comments as fast as
they can, one `scheme_eval` each, while `TUSK issue add` runs in a loop beside
them; after a moment the server is SIGKILLed. Then: every line of the store
parses as an issue, ids are unique, and every comment an agent was told was
accepted, and every issue the command line was told it added, is there.
And a change and its record are one (issue 61): once the store is next
opened, every comment and every added issue in the store has its accepted
effect row (the server's rows recovered where it died between the change and
the row), no accepted row lacks its change, and at the end `tusk replay`
keeps parity over every run, the killed server's included.

With `--store postgres://…` the same on a database (the store and both logs
in it, `TUSK_STORE` set for every process): a call's change and its rows are
one transaction, and the killed server's open runs are closed by the next
process that opens the store (its writer's lock went with its connection).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "bench"))
sys.path.insert(0, os.path.dirname(__file__))
from checks import HTTP_LINE  # noqa: E402
from fleet_mcp import Agent  # noqa: E402

ISSUES = 300


def start(tusk: str, work: str, env: dict[str, str], digest: str, log_path: str) -> tuple[subprocess.Popen, str, int]:
    log = open(log_path, "w")
    server = subprocess.Popen([tusk, "mcp", "--http", "127.0.0.1:0", "--auth", "tokens.json",
                               "--policy-digest", digest, "--instruction-ref", "instr://kill-test"],
                              cwd=work, env=env, stdout=log, stderr=log, stdin=subprocess.DEVNULL)
    deadline = time.monotonic() + 30
    while True:
        m = HTTP_LINE.search(open(log_path).read())
        if m:
            url = m.group(1)
            host, port = url.split("//")[1].split("/")[0].split(":")
            return server, host, int(port)
        if server.poll() is not None or time.monotonic() > deadline:
            raise SystemExit(f"FAIL the server did not start:\n{open(log_path).read()[-2000:]}")
        time.sleep(0.05)


def round_trip(tusk: str, work: str, env: dict[str, str], digest: str, tokens: list[str], r: int,
               seconds: float) -> tuple[set[str], set[str]]:
    server, host, port = start(tusk, work, env, digest, os.path.join(work, f"server-{r}.log"))
    acked: set[str] = set()
    added: set[str] = set()
    lock = threading.Lock()
    stop = threading.Event()

    def agent(i: int) -> None:
        try:
            a = Agent(host, port, tokens[i])
            a.open()
        except Exception:  # noqa: BLE001 - killed before it connected
            return
        k = 0
        while not stop.is_set():
            k += 1
            mark = f"ack-{r}-{i}-{k}."
            program = (f'(result-class (issue.comment (hash "id" "bd-{(i * 37 + k) % ISSUES + 1}" '
                       f'"author" "agent-{i}" "text" "{mark}")))')
            try:
                res = a.rpc("tools/call", {"name": "scheme_eval", "arguments": {"program": program}})
            except Exception:  # noqa: BLE001 - the server is gone: not acknowledged
                return
            sc = res.get("structuredContent") or {}
            if sc.get("result") == "accepted" and sc.get("value") == "accepted":
                with lock:
                    acked.add(mark)
            elif not stop.is_set():
                print(f"FAIL agent {i}: a comment was refused: {json.dumps(sc)[:400]} {json.dumps(res)[:600]}")
                os._exit(1)

    def command_line() -> None:
        j = 0
        while not stop.is_set():
            j += 1
            title = f"cli-{r}-{j}"
            out = subprocess.run([tusk, "issue", "add", title, "--json"], cwd=work, env=env,
                                 capture_output=True, text=True)
            if out.returncode == 0:
                with lock:
                    added.add(title)
            elif not stop.is_set():
                print(f"FAIL `tusk issue add` beside the busy server: exit {out.returncode}: {out.stderr[-400:]}")
                os._exit(1)

    threads = [threading.Thread(target=agent, args=(i,)) for i in range(len(tokens))]
    threads.append(threading.Thread(target=command_line))
    for t in threads:
        t.start()
    time.sleep(seconds)
    server.send_signal(signal.SIGKILL)
    server.wait()
    stop.set()
    for t in threads:
        t.join()
    return acked, added


def store_text(tusk: str, work: str, env: dict[str, str]) -> str:
    """The issue store's JSONL text, wherever it lives."""
    if "TUSK_STORE" in env:
        return subprocess.run([tusk, "store", "export"], cwd=work, env=env, capture_output=True, text=True,
                              check=True).stdout
    return open(os.path.join(work, ".premath", "issues.jsonl")).read()


def effect_lines(work: str, env: dict[str, str]) -> list[str]:
    """The effect log's lines, wherever it lives."""
    if "TUSK_STORE" in env:
        out = subprocess.run(["psql", env["TUSK_STORE"], "-Atc", "SELECT line FROM tusk_effects ORDER BY seq"],
                             capture_output=True, text=True, check=True).stdout
        return out.splitlines()
    return open(os.path.join(work, ".premath", "host_effects.jsonl")).read().splitlines()


def settle_and_compare(tusk: str, work: str, env: dict[str, str], r: int) -> None:
    """Opens the store (which settles what the killed server left), then
    compares the store's changes with the effect log's accepted rows."""
    subprocess.run([tusk, "issue", "list", "--json"], cwd=work, env=env, capture_output=True, check=True)
    store_comments, store_titles = set(), set()
    for line in store_text(tusk, work, env).splitlines():
        row = json.loads(line)
        store_comments |= {c.get("text") for c in row.get("comments") or []}
        if str(row.get("title", "")).startswith("cli-"):
            store_titles.add(row["title"])
    row_comments, row_titles = set(), set()
    for line in effect_lines(work, env):
        try:
            row = json.loads(line)
        except ValueError:
            continue  # a row torn by the kill is not a row
        if row.get("envelope", {}).get("resultClass") != "accepted":
            continue
        args = row.get("args") or {}
        if row.get("action") == "issue.comment":
            row_comments.add(args.get("text"))
        elif row.get("action") == "issue.add":
            row_titles.add(args.get("title"))
    for what, store, rows in (("comments", store_comments, row_comments), ("issues", store_titles, row_titles)):
        if store != rows:
            print(f"FAIL round {r}: {what} in the store without their row: {sorted(store - rows)[:5]}; "
                  f"rows without their change: {sorted(rows - store)[:5]}")
            sys.exit(1)
    pending = [n for n in os.listdir(os.path.join(work, ".premath", "issues.jsonl.pending"))
               if n.startswith("calls-")] if os.path.isdir(os.path.join(work, ".premath", "issues.jsonl.pending")) else []
    if pending:
        print(f"FAIL round {r}: journals left unsettled: {pending}")
        sys.exit(1)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("tusk")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--agents", type=int, default=8)
    ap.add_argument("--seconds", type=float, default=2.0)
    ap.add_argument("--store", help="a postgres:// URL: the store and its logs in that database")
    args = ap.parse_args()
    work = tempfile.mkdtemp(prefix="tusk-kill-")
    env = {k: v for k, v in os.environ.items() if k != "TUSK_STORE"}
    os.makedirs(os.path.join(work, ".premath"))
    store = os.path.join(work, ".premath", "issues.jsonl")
    with open(store, "w") as f:
        for i in range(1, ISSUES + 1):
            f.write(json.dumps({"id": f"bd-{i}", "title": f"Issue {i} " + "x" * 200, "status": "open",
                                "priority": i % 5, "issue_type": "task"}) + "\n")
    if args.store:
        for cmd in (["store", "init"], ["store", "import", store, "--replace"]):
            subprocess.run([args.tusk, *cmd, "--store", args.store], cwd=work, env=env, check=True,
                           capture_output=True)
        os.remove(store)
        env["TUSK_STORE"] = args.store
    tokens = [f"kill-token-{i}-{os.urandom(6).hex()}" for i in range(args.agents)]
    with open(os.path.join(work, "tokens.json"), "w") as f:
        json.dump({"tokens": [{"sha256": hashlib.sha256(t.encode()).hexdigest(), "principal": f"agent-{i}",
                               "serverAuthority": True} for i, t in enumerate(tokens)]}, f)
    os.chmod(os.path.join(work, "tokens.json"), 0o600)
    digest = subprocess.run([args.tusk, "policy", "digest"], cwd=work, env=env, capture_output=True, text=True,
                            check=True).stdout.strip()
    all_acked: set[str] = set()
    all_added: set[str] = set()
    for r in range(1, args.rounds + 1):
        acked, added = round_trip(args.tusk, work, env, digest, tokens, r, args.seconds)
        if not acked or not added:
            print(f"FAIL round {r}: nothing acknowledged ({len(acked)} comments, {len(added)} issues added)")
            sys.exit(1)
        all_acked |= acked
        all_added |= added
        text = store_text(args.tusk, work, env)
        ids, titles = set(), set()
        for n, line in enumerate(text.splitlines(), 1):
            try:
                row = json.loads(line)
            except ValueError:
                print(f"FAIL round {r}: line {n} of the store does not parse: {line[:200]!r}")
                sys.exit(1)
            if row["id"] in ids:
                print(f"FAIL round {r}: id {row['id']} twice")
                sys.exit(1)
            ids.add(row["id"])
            titles.add(row.get("title"))
        lost = sorted(m for m in all_acked if m not in text)
        if lost:
            print(f"FAIL round {r}: {len(lost)} acknowledged comments lost, e.g. {lost[:5]}")
            sys.exit(1)
        gone = sorted(all_added - titles)
        if gone:
            print(f"FAIL round {r}: issues the command line added are gone: {gone[:5]}")
            sys.exit(1)
        settle_and_compare(args.tusk, work, env, r)
        print(f"round {r}: {len(acked)} comments and {len(added)} issues acknowledged, all kept")
    replay = subprocess.run([args.tusk, "replay", "--json"], cwd=work, env=env, capture_output=True, text=True)
    report = json.loads(replay.stdout or "{}")
    if replay.returncode != 0 or report.get("parity") is not True:
        bad = [r for r in report.get("runs", []) if not r.get("parity")][:3]
        print(f"FAIL replay after the kills: exit {replay.returncode}: {json.dumps(bad)[:1500]} {replay.stderr[-400:]}")
        sys.exit(1)
    recovered = sum(1 for r in report.get("runs", []) if r.get("recovered"))
    print(f"ok: {len(all_acked)} comments, {len(all_added)} issues over {args.rounds} SIGKILLs; "
          f"replay parity over {report.get('runCount')} runs ({recovered} closed by recovery)")
    # Kept only when something failed (above), for whoever reads why.
    shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
