#!/usr/bin/env bash
# Smoke test of the binaries as they are installed (scripts/release-build.sh: static on
# glibc Linux). The test suite drives the debug build; this proves the release artifact a
# user gets behaves the same on the paths every session takes: a record is written and
# sealed, a cited never-run command blocks the stop, the cited command once run lets it go.
#
# Usage: scripts/smoke_release.sh BIN_DIR
set -euo pipefail
bin="$(cd "${1:?usage: scripts/smoke_release.sh BIN_DIR}" && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
export XDG_STATE_HOME="$work/state"
export HOME="$work/home"
mkdir -p "$HOME" "$work/p"
cd "$work/p"
git init -q .
"$bin/fable" init >/dev/null

fail() {
    echo "smoke_release: $*" >&2
    exit 1
}
payload() { # event command exit
    if [ "$3" -eq 0 ]; then
        printf '{"session_id":"smoke","transcript_path":"%s/t.jsonl","cwd":"%s","hook_event_name":"PostToolUse","tool_name":"Bash","tool_input":{"command":"%s"},"tool_response":{"stdout":"ok\\n","stderr":"","interrupted":false}}' "$work" "$work/p" "$2"
    else
        printf '{"session_id":"smoke","transcript_path":"%s/t.jsonl","cwd":"%s","hook_event_name":"PostToolUseFailure","tool_name":"Bash","tool_input":{"command":"%s"},"error":"Exit code %s\\nboom"}' "$work" "$work/p" "$2" "$3"
    fi
}
stop() {
    printf '{"session_id":"smoke","transcript_path":"%s/t.jsonl","cwd":"%s","hook_event_name":"Stop","stop_hook_active":false}' "$work" "$work/p" | "$bin/fable-close-guard"
}

payload x "ls /nonexistent" 2 | "$bin/fable-evidence" || fail "fable-evidence exited $?"
payload x "ls /nonexistent" 2 | "$bin/fable-fail-streak" >/dev/null || fail "fable-fail-streak exited $?"
"$bin/fable" evidence verify >/dev/null || fail "the release hook's record does not verify"
printf -- '- [x] 1. smoke -- evidence: `true --smoke` -> exit 0\n' >>.fable/LEDGER.md
stop >"$work/out" 2>&1 || fail "fable-close-guard exited $?"
grep -q '"decision":"block"' "$work/out" || fail "a card citing a never-run command was not blocked: $(cat "$work/out")"
payload x "true --smoke" 0 | "$bin/fable-evidence" || fail "fable-evidence exited $?"
stop >"$work/out" 2>&1 || fail "fable-close-guard exited $?"
if grep -q '"decision":"block"' "$work/out"; then fail "the stop was blocked after the cited command ran: $(cat "$work/out")"; fi
n="$("$bin/fable" evidence stats --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["records"])')"
[ "$n" -eq 2 ] || fail "expected 2 records, found $n"
echo "smoke_release: ok ($bin: 2 sealed records, a never-run citation blocked, the run one allowed)"
