#!/usr/bin/env bash
# Installs the OpenAI Codex CLI the Codex end-to-end tests drive (src/harness/codex_*.rs,
# docs/harness.md): `@openai/codex` at the pinned version from the npm registry, with plain
# npm, into $CODEX_HARNESS_CACHE (default ~/.cache/codex-harness), and links its native
# binary to $CODEX_HARNESS_CACHE/bin/codex, where tests/support/codex.rs looks. Prints
# that path.
#
#   scripts/install-codex.sh [VERSION]      (default: the pinned 0.171.0)
#
# Nothing is done when the pinned version is already there. The package is a node
# launcher plus the platform package `@openai/codex-linux-x64` (a static musl binary);
# the binary is linked directly, so the tests need no node (npm brings it for the install).
set -euo pipefail
PINNED=0.171.0
ver="${1:-$PINNED}"
cache="${CODEX_HARNESS_CACHE:-$HOME/.cache/codex-harness}"

if [ -x "$cache/bin/codex" ] && "$cache/bin/codex" --version 2>/dev/null | grep -q "^codex-cli ${ver//./\\.}$"; then
  echo "$cache/bin/codex"
  exit 0
fi
command -v npm >/dev/null || { echo "install-codex.sh: npm is needed (apt-get install npm)" >&2; exit 1; }
mkdir -p "$cache/npm" "$cache/bin"
timeout 900 npm install --prefix "$cache/npm" --no-audit --no-fund --loglevel=error \
  "@openai/codex@$ver" >&2

bin=""
for c in "$cache"/npm/node_modules/@openai/codex-linux-*/vendor/*/bin/codex \
         "$cache"/npm/node_modules/@openai/codex/vendor/*/codex/codex; do
  [ -f "$c" ] || continue
  # The native build only: the JS launcher would need node on every test machine.
  if [ "$(head -c4 "$c" | od -An -c | tr -d ' ')" = "177ELF" ]; then bin="$c"; break; fi
done
[ -n "$bin" ] || { echo "install-codex.sh: no native codex binary under $cache/npm" >&2; exit 1; }
chmod +x "$bin"
ln -sf "$bin" "$cache/bin/codex"
"$cache/bin/codex" --version >&2
echo "$cache/bin/codex"
