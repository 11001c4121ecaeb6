#!/usr/bin/env bash
# Installs the Claude Code CLI the end-to-end tests drive (src/harness/, docs/harness.md):
# `@anthropic-ai/claude-code` at the pinned version from the npm registry, with plain npm,
# into $CC_HARNESS_CACHE (default ~/.cache/cc-harness), and links its native binary to
# $CC_HARNESS_CACHE/claude, where tests/support/harness.rs looks. Prints that path.
#
#   scripts/install-claude.sh [VERSION]      (default: the pinned 2.1.332)
#
# Nothing is done when the pinned version is already there. npm may skip the package's
# postinstall (install-scripts policy); that is fine: the platform package's ELF binary is
# linked directly.
set -euo pipefail
PINNED=2.1.332
ver="${1:-$PINNED}"
cache="${CC_HARNESS_CACHE:-$HOME/.cache/cc-harness}"

if [ -x "$cache/claude" ] && "$cache/claude" --version 2>/dev/null | grep -q "^${ver//./\\.}\b"; then
  echo "$cache/claude"
  exit 0
fi
command -v npm >/dev/null || { echo "install-claude.sh: npm is needed (apt-get install npm)" >&2; exit 1; }
mkdir -p "$cache/npm"
timeout 900 npm install --prefix "$cache/npm" --no-audit --no-fund --loglevel=error \
  "@anthropic-ai/claude-code@$ver" >&2

bin=""
for c in "$cache"/npm/node_modules/@anthropic-ai/claude-code-linux-*/claude \
         "$cache"/npm/node_modules/@anthropic-ai/claude-code/bin/claude.exe; do
  [ -f "$c" ] || continue
  # The native build only: the JS launcher would need node on every test machine.
  if [ "$(head -c4 "$c" | od -An -c | tr -d ' ')" = "177ELF" ]; then bin="$c"; break; fi
done
[ -n "$bin" ] || { echo "install-claude.sh: no native claude binary under $cache/npm" >&2; exit 1; }
chmod +x "$bin"
ln -sf "$bin" "$cache/claude"
"$cache/claude" --version >&2
echo "$cache/claude"
