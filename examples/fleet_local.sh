#!/usr/bin/env bash
# The fleet on one machine: a throwaway PostgreSQL cluster, the schema, a
# store imported into it, two workers claiming from it, and the cluster
# stopped again. The README's fleet section shows these lines; the suite runs
# this very script (TUSK_BIN=PATH uses a built binary, else `tusk` on PATH).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
tusk=${TUSK_BIN:-tusk}

eval "$(bash "$root/tests/pg/cluster.sh" start)"      # exports TUSK_STORE (and TUSK_TEST_PG_*)
work=$(mktemp -d)
trap 'cd /; bash "$root/tests/pg/cluster.sh" stop "$TUSK_TEST_PG_DIR"; rm -rf "$work"' EXIT
cd "$work"
"$tusk" store init
"$tusk" issue add "Write the parser" --issues seed.jsonl >/dev/null   # a local store to import
"$tusk" issue add "Write the printer" --issues seed.jsonl >/dev/null
"$tusk" store import seed.jsonl
"$tusk" issue claim-next --assignee worker.a --json | grep '"id"' | head -1   # worker A gets one issue
"$tusk" issue claim-next --assignee worker.b --json | grep '"id"' | head -1   # worker B gets the other
"$tusk" issue list
