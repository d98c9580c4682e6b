"""What the MCP client scripts in this directory share: the failure they
report a case with, and the line `tusk mcp --http` prints when it serves."""

from __future__ import annotations

import re
from typing import Any

HTTP_LINE = re.compile(r"serving streamable HTTP at (http://\S+)")


class Fail(Exception):
    """A case's check that did not hold (reported as `FAIL NAME: WHY`)."""


def check(cond: Any, why: str) -> None:
    if not cond:
        raise Fail(why)


# A program of arithmetic only: `(spin N 0)` takes time in proportion to N.
SPIN = "(define (spin n acc) (if (= n 0) acc (spin (- n 1) (+ acc 1))))"


def spin_steps(agent: Any, seconds: float) -> int:
    """How many steps of SPIN take about `seconds` for `agent`'s server on this
    machine (measured, not assumed: the difference of two runs leaves out a
    call's own cost)."""
    import time

    def timed(steps: int) -> float:
        t0 = time.monotonic()
        agent.rpc("tools/call", {"name": "scheme_eval",
                                 "arguments": {"program": f"{SPIN} (spin {steps} 0)"}})
        return time.monotonic() - t0

    per_step = (timed(400000) - timed(100000)) / 300000
    return int(seconds / max(per_step, 1e-9))


def two_issue_seed(work: str) -> str:
    """A seed store of two open issues, bd-1 and bd-2, in `work`: its path."""
    import json
    import os
    seed = os.path.join(work, "seed.jsonl")
    with open(seed, "w") as f:
        for i in (1, 2):
            f.write(json.dumps({"id": f"bd-{i}", "title": f"Issue {i}", "status": "open",
                                "priority": 1, "issue_type": "task"}) + "\n")
    return seed
