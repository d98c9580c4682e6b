#!/usr/bin/env bash
# Builds tusk, seeds a small issue store in ./demo, and runs the worker
# examples against it with the built-in mutation policy.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cargo build --release --quiet --manifest-path "$root/Cargo.toml"
tusk="$root/target/release/tusk"
demo="$root/demo"
rm -rf "$demo" && mkdir -p "$demo" && cd "$demo"
"$tusk" issue add "Write the parser" --priority 1 >/dev/null
"$tusk" issue add "Test the parser" >/dev/null
"$tusk" dep add bd-2 bd-1 >/dev/null
digest=$("$tusk" policy digest)
echo "== ready report (read-only)"
"$tusk" eval "$root/examples/ready_report.scm" --read-only
echo "== worker loop (harness.boot, claim, verify, retry decision, harness.stop releasing the lease)"
"$tusk" eval "$root/examples/worker_loop.scm" --policy-digest "$digest" --instruction-ref instr://quickstart
echo "== claim next"
"$tusk" eval "$root/examples/claim_next.scm" --policy-digest "$digest" --instruction-ref instr://quickstart
echo "== the store now"
"$tusk" issue list
echo "== replay every recorded run from the effect log (no store touched)"
"$tusk" replay
