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
