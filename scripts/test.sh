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

# The end-to-end tests drive the real Claude Code CLI through the project's own offline
# harness (src/harness/, docs/harness.md). Install the pinned CLI when it is missing and npm
# is there (CI: .ci/run has done so already).
cc_cache="${CC_HARNESS_CACHE:-$HOME/.cache/cc-harness}"
if [ ! -x "$cc_cache/claude" ] && command -v npm >/dev/null 2>&1; then
  echo "== Claude Code CLI for the end-to-end tests (npm, pinned by scripts/install-claude.sh)"
  CC_HARNESS_CACHE="$cc_cache" bash scripts/install-claude.sh >/dev/null \
    || echo "could not install the Claude Code CLI: the end-to-end tests will be skipped" >&2
fi

# The same for the OpenAI Codex CLI (the Codex end-to-end tests, tests/e2e_codex*.rs).
codex_cache="${CODEX_HARNESS_CACHE:-$HOME/.cache/codex-harness}"
if [ ! -x "$codex_cache/bin/codex" ] && command -v npm >/dev/null 2>&1; then
  echo "== Codex CLI for the end-to-end tests (npm, pinned by scripts/install-codex.sh)"
  CODEX_HARNESS_CACHE="$codex_cache" bash scripts/install-codex.sh >/dev/null \
    || echo "could not install the Codex CLI: the Codex end-to-end tests will be skipped" >&2
fi

echo "== cargo test (unit, integration, end-to-end under the real Claude Code and Codex CLIs)"
# Two test binaries at a time: the end-to-end tests start the real CLI, and this machine
# class has 2 cores.
log="$(mktemp)"
e2e_log="$(mktemp)"
export FABLE_E2E_LOG="$e2e_log"
# The suite runs with HOME pointed at an empty folder, and must leave it empty: no test may
# write into a user's real home or fable's real user state. The toolchain, the harness's
# CLI cache, pyenv and git's global settings are passed by path (read, not written).
real_home="$HOME"
export CARGO_HOME="${CARGO_HOME:-$real_home/.cargo}"
export RUSTUP_HOME="${RUSTUP_HOME:-$real_home/.rustup}"
export CC_HARNESS_CACHE="$cc_cache"
export CODEX_HARNESS_CACHE="$codex_cache"
[ -d "$real_home/.pyenv" ] && export PYENV_ROOT="${PYENV_ROOT:-$real_home/.pyenv}"
[ -f "$real_home/.gitconfig" ] && export GIT_CONFIG_GLOBAL="${GIT_CONFIG_GLOBAL:-$real_home/.gitconfig}"
empty_home="$(mktemp -d)"
trap 'rm -f "$log" "$e2e_log"; rm -rf "$empty_home"' EXIT
unset XDG_STATE_HOME XDG_CONFIG_HOME XDG_CACHE_HOME XDG_DATA_HOME
HOME="$empty_home" cargo test --locked -- --test-threads=2 2>&1 | tee "$log"
if [ -n "$(find "$empty_home" -mindepth 1 -print -quit)" ]; then
  echo "the test suite wrote into HOME ($empty_home):" >&2
  find "$empty_home" -mindepth 1 | head -20 >&2
  exit 1
fi
echo "HOME left untouched: the suite ran with HOME=$empty_home and it is still empty"

echo "== release binaries as installed (scripts/release-build.sh: static on glibc Linux), smoke test"
# The suite above drives the debug build; the installed artifact is a different link
# (static), so it gets its own check on the paths every session takes.
release_dir="$(bash scripts/release-build.sh)"
bash scripts/smoke_release.sh "$release_dir"

echo "== corpus format check"
python3 scripts/check_corpora.py tests/corpora
python3 scripts/check_corpora.py tests/corpora-classes --min-per-class 4
# The generalisation set (docs/generalisation.md): unsafe corpora are small (9 of 54 classes
# have an unsafe fix), hence the lower trajectory floor.
for half in dev heldout; do
  python3 scripts/check_corpora.py "tests/corpora-general/$half" --min-trajectories 10 --min-per-class 4
done

# The field test as a user runs it: every corpus of a set in one history, the production
# pipeline, and a non-zero exit (--gate) if any rejection corpus accepts a rule — in both
# modes: learned rules only (--packs none) and with the curated core pack (--packs core,
# the production default). The gate is the rejection guarantee only; promotion numbers
# are reported (learned-only floors live in tests/fieldtest_gates.rs).
for packs in none core; do
  echo "== field test: our corpora (--packs $packs)"
  target/debug/fable fieldtest tests/corpora/* --gate --packs "$packs"
done
# The class corpora (tests/corpora-classes: failure classes that vary within the class,
# and rejection corpora on the same triggers), gated the same way; the report adds a
# per-class table (passed/n, Wilson) from the trajectories' `class` field. All six scored
# corpora are gated: with the current learner every rejection corpus accepts 0 rules.
for packs in none core; do
  echo "== field test: class corpora (--packs $packs)"
  target/debug/fable fieldtest tests/corpora-classes/* --gate --packs "$packs"
done
# The reference's corpora (CauterRule, vendored with its NOTICE; THIRD_PARTY.md).
for packs in none core; do
  echo "== field test: the reference's corpora (--packs $packs)"
  target/debug/fable fieldtest tests/corpora-reference/cauterule/* --gate --packs "$packs"
done

# Which end-to-end tests really ran (a skipped one returns early and cargo counts it as
# passed): named here, and moved from "passed" to "skipped" in the closing line.
# Each line names its host: Codex tests end in " (codex)", the rest ran under Claude Code.
e2e_ran=$(grep -c '^ran ' "$e2e_log" || true)
e2e_skipped=$(grep -c '^skipped ' "$e2e_log" || true)
cx_ran=$(grep -c '^ran .* (codex)$' "$e2e_log" || true)
cx_skipped=$(grep -c '^skipped .* (codex)$' "$e2e_log" || true)
cc_ran=$((e2e_ran - cx_ran))
cc_skipped=$((e2e_skipped - cx_skipped))
echo "end-to-end: $e2e_ran of $((e2e_ran + e2e_skipped)) ran (Claude Code CLI: $cc_ran of $((cc_ran + cc_skipped)); Codex CLI: $cx_ran of $((cx_ran + cx_skipped)))"
if [ "$e2e_skipped" -gt 0 ]; then
  echo "end-to-end skipped (run scripts/install-claude.sh and scripts/install-codex.sh, then this command again):"
  sed -n 's/^skipped /  /p' "$e2e_log"
fi

# One closing line for whoever reads the end of the log: every cargo test result summed.
awk -v e2e_skipped="$e2e_skipped" '/^test result:/ { for (i = 1; i <= NF; i++) { if ($i ~ /^passed;?$/) p += $(i-1); if ($i ~ /^failed;?$/) f += $(i-1); if ($i ~ /^ignored;?$/) s += $(i-1) } }
     END { printf "tests: %d passed, %d failed, %d skipped\n", p - e2e_skipped, f, s + e2e_skipped }' "$log"
