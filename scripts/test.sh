#!/usr/bin/env bash
# The project's test command (the README names it; CI runs it through .ci/run).
# Formatting and lints first (cheap, and a red build should say so early), then every
# unit, integration and end-to-end test, then the corpus checks.
set -euo pipefail
cd "$(dirname "$0")/.."

echo "== cargo fmt --check"
cargo fmt --all -- --check

echo "== cargo clippy -D warnings"
cargo clippy --locked --all-targets -- -D warnings

echo "== source layout (folders, no import cycles, file sizes)"
python3 scripts/check_layout.py

echo "== cargo test (unit, integration, end-to-end under the real Claude Code CLI)"
# Two test binaries at a time: the end-to-end tests start the real CLI, and this machine
# class has 2 cores.
log="$(mktemp)"
trap 'rm -f "$log"' EXIT
cargo test --locked -- --test-threads=2 2>&1 | tee "$log"

echo "== corpus format check"
python3 scripts/check_corpora.py tests/corpora

# The field test as a user runs it: every corpus of a set in one history, the production
# pipeline, and a non-zero exit (--gate) if any rejection corpus accepts a rule.
echo "== field test: our corpora"
target/debug/fable fieldtest tests/corpora/* --gate
shared=../shared/corpora/cauterule
if [ -d "$shared" ]; then
  echo "== field test: the reference's corpora"
  target/debug/fable fieldtest "$shared"/* --gate
elif [ -n "${CI:-}" ]; then
  echo "missing $shared: CI must run the field test on the reference's corpora" >&2
  exit 1
fi

# One closing line for whoever reads the end of the log: every cargo test result summed.
awk '/^test result:/ { for (i = 1; i <= NF; i++) { if ($i ~ /^passed;?$/) p += $(i-1); if ($i ~ /^failed;?$/) f += $(i-1); if ($i ~ /^ignored;?$/) s += $(i-1) } }
     END { printf "tests: %d passed, %d failed, %d skipped\n", p, f, s }' "$log"
