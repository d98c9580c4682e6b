#!/usr/bin/env python3
"""Generate a large effect log from a few real recorded runs.

usage: gen_effects.py TEMPLATE_LOG ROWS OUT

Cycles through the runs of TEMPLATE_LOG (an effect log `tusk eval` wrote),
giving each copy a fresh runId (tusk's shape, 10 ms apart) and recomputing its row chain
(`prevRowDigest`, the footer's `chainHead`) the way tusk writes it, until
OUT holds at least ROWS rows. Every copied run still passes the log's own
checks and replays with parity.
"""
import datetime
import hashlib
import json
import sys

template, rows, out = sys.argv[1], int(sys.argv[2]), sys.argv[3]


def dumps(row):
    return json.dumps(row, separators=(",", ":"), ensure_ascii=False)


def digest(line):
    return "sha256:" + hashlib.sha256(line.encode()).hexdigest()


runs = {}
order = []
for line in open(template):
    if not line.strip():
        continue
    row = json.loads(line)
    rid = row["runId"]
    if rid not in runs:
        runs[rid] = []
        order.append(rid)
    runs[rid].append(row)
templates = [runs[r] for r in order]

START = datetime.datetime(2026, 1, 1)
written = 0
n = 0
with open(out, "w") as f:
    while written < rows:
        for template_rows in templates:
            n += 1
            # tusk's id shape: the start instant, then 12 hex digits.
            at = START + datetime.timedelta(milliseconds=10 * n)
            rid = "run-{}.{:03d}Z-{}".format(
                at.strftime("%Y%m%dT%H%M%S"), at.microsecond // 1000,
                hashlib.sha256(str(n).encode()).hexdigest()[:12])
            prev = None
            for row in template_rows:
                row = dict(row)
                row["runId"] = rid
                if row["kind"] == "premath.scheme_eval.run.v0":
                    row["prevRowDigest"] = row["programDigest"]
                else:
                    row["prevRowDigest"] = prev
                if row["kind"] == "premath.scheme_eval.run_end.v0":
                    row.pop("chainHead", None)
                    row.pop("signature", None)
                    row["chainHead"] = digest(dumps(row))
                line = dumps(row)
                prev = digest(line)
                f.write(line + "\n")
                written += 1
            if written >= rows:
                break
print(f"{written} rows, {n} runs")
