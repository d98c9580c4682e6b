#!/usr/bin/env bash
# Builds tusk, seeds a small issue store in ./demo, and runs the worker
# examples against it with the built-in mutation policy.
#
# TUSK_BIN=PATH uses an already built binary instead of building one,
# TUSK_PROFILE=dev builds the debug binary instead of the release one, and
# TUSK_DEMO_DIR=DIR seeds DIR instead of ./demo (the test suite runs this very
# script that way, so a rule change that breaks a step fails CI).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
if [ -n "${TUSK_BIN:-}" ]; then
  # A path is made absolute (the script changes directory); a bare name is
  # looked up on PATH.
  case $TUSK_BIN in
    */*) tusk="$(cd "$(dirname "$TUSK_BIN")" && pwd)/$(basename "$TUSK_BIN")" ;;
    *) tusk=$(command -v "$TUSK_BIN") || { echo "TUSK_BIN=$TUSK_BIN is not on PATH" >&2; exit 1; } ;;
  esac
else
  # The debug binary (TUSK_PROFILE=dev) builds in a fraction of the time,
  # for trying the examples only.
  profile=${TUSK_PROFILE:-release}
  case $profile in
    release) echo "== building tusk (release: about 12 minutes on 2 cores the first time)" ;;
    *) echo "== building tusk ($profile)" ;;
  esac
  cargo build --profile "$profile" --manifest-path "$root/Cargo.toml"
  # Where cargo put it: CARGO_TARGET_DIR (or a config's build.target-dir)
  # moves the target directory, and cargo metadata knows where.
  target=$(cargo metadata --format-version 1 --no-deps --manifest-path "$root/Cargo.toml" \
    | python3 -c 'import json, sys; print(json.load(sys.stdin)["target_directory"])')
  case $profile in
    dev) tusk="$target/debug/tusk" ;;
    *) tusk="$target/$profile/tusk" ;;
  esac
fi
demo=${TUSK_DEMO_DIR:-"$root/demo"}
rm -rf "$demo" && mkdir -p "$demo" && cd "$demo"

# Every active issue states how it is accepted and the command that verifies
# it: `issue check` (and the read-only report below) holds the queue to that.
"$tusk" issue add "Write the parser" --priority 1 \
  --description $'Acceptance: the parser reads every example file.\n\nVerify: `cargo test parser`' >/dev/null
"$tusk" issue add "Test the parser" \
  --description $'Acceptance: every parser rule has a failing case.\n\nVerify: `cargo test parser_rules`' >/dev/null
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
if [ -z "${TUSK_BIN:-}" ]; then
  echo
  echo "tusk is at $tusk; put it on your PATH with"
  echo "  cargo install --locked --path $root"
fi
