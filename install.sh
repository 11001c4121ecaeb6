#!/usr/bin/env bash
# install.sh: build fable's release binaries, copy them into a bin directory, and
# register the hooks with Claude Code (`fable install`). Safe to run again: binaries
# are replaced atomically and `fable install` rewrites only fable's own entries.
set -euo pipefail

usage() {
    cat <<'EOF'
Usage: ./install.sh [--prefix DIR] [--uninstall] [FABLE INSTALL OPTIONS...]

Builds the release binaries (scripts/release-build.sh: static on glibc Linux), installs every fable binary
into DIR (default: $PREFIX, else ~/.local/bin), then runs `DIR/fable install`
with the remaining options, for example:

  ./install.sh                          user settings (~/.claude/settings.json)
  ./install.sh --project ~/repo         <repo>/.claude/settings.json
  ./install.sh --dry-run                show what would change in the settings
  ./install.sh --uninstall              fable uninstall, then remove the binaries

Options:
  --prefix DIR   where the binaries go (default: $PREFIX or ~/.local/bin)
  --uninstall    run `fable uninstall` with the remaining options, then delete
                 the binaries from DIR
  -h, --help     this help; `fable install --help` lists the other options

Then run `fable init` in each project you want fable to act in.
EOF
}

die() {
    echo "install.sh: error: $*" >&2
    exit 1
}
warn() { echo "install.sh: warning: $*" >&2; }

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
prefix="${PREFIX:-${HOME:-}/.local/bin}"
uninstall=0
args=()
while [ $# -gt 0 ]; do
    case "$1" in
        --prefix)
            [ $# -ge 2 ] || die "--prefix needs a directory"
            prefix="$2"
            shift 2
            ;;
        --prefix=*)
            prefix="${1#--prefix=}"
            shift
            ;;
        --uninstall)
            uninstall=1
            shift
            ;;
        -h | --help)
            usage
            exit 0
            ;;
        *)
            args+=("$1")
            shift
            ;;
    esac
done
[ -n "$prefix" ] || die "no install directory: set HOME or PREFIX, or pass --prefix DIR"
[ "$prefix" = "/" ] || prefix="${prefix%/}"
case "$prefix" in
    /*) ;;
    *) prefix="$(pwd)/$prefix" ;;
esac

# The binaries are exactly the crate's bin targets: one src/bin/<name>.rs each.
bins=()
for src in "$here"/src/bin/*.rs; do
    name="$(basename "$src" .rs)"
    case "$name" in
        fable | fable-*) bins+=("$name") ;;
    esac
done
[ ${#bins[@]} -gt 0 ] || die "no binaries found under $here/src/bin; run install.sh from the fable source tree"

if [ "$uninstall" -eq 1 ]; then
    if [ -x "$prefix/fable" ]; then
        "$prefix/fable" uninstall ${args[@]+"${args[@]}"}
    else
        warn "$prefix/fable not found; hooks were not unregistered (run \`fable uninstall\` from wherever fable is installed)"
    fi
    for name in "${bins[@]}"; do
        if [ -e "$prefix/$name" ]; then
            rm -f "$prefix/$name"
            echo "install.sh: removed $prefix/$name"
        fi
    done
    exit 0
fi

# --dry-run changes nothing on disk: no build (it writes target/), no copy. It shows the
# settings change with a binary that already exists, registering the paths in DIR.
dry_run=0
for a in ${args[@]+"${args[@]}"}; do
    [ "$a" = "--dry-run" ] && dry_run=1
done
if [ "$dry_run" -eq 1 ]; then
    echo "install.sh: dry run: would build ${#bins[@]} binaries (scripts/release-build.sh) and copy them into $prefix"
    target_dir="${CARGO_TARGET_DIR:-$here/target}"
    host="$(rustc -vV 2>/dev/null | sed -n 's/^host: //p' || true)"
    for candidate in "$prefix/fable" "$target_dir/$host/release/fable" "$target_dir/release/fable"; do
        if [ -x "$candidate" ]; then
            exec "$candidate" install --bin-dir "$prefix" ${args[@]+"${args[@]}"}
        fi
    done
    echo "install.sh: dry run: no fable binary built yet, so the settings change cannot be shown; run ./install.sh without --dry-run to build"
    exit 0
fi

command -v cargo >/dev/null 2>&1 || die "cargo not found; install Rust (https://rustup.rs) and run install.sh again"
# scripts/release-build.sh links the hooks statically on a glibc Linux host (a hook starts
# about 0.4 ms faster: no dynamic loader) and prints the folder holding the binaries.
echo "install.sh: bash scripts/release-build.sh"
release="$(bash "$here/scripts/release-build.sh")" || die "the release build failed (see above)"
[ -n "$release" ] || die "the release build did not say where the binaries are"
mkdir -p "$prefix"
for name in "${bins[@]}"; do
    [ -x "$release/$name" ] || die "$release/$name was not built"
    # Copy then rename: a hook running right now keeps its old binary, never a half-written one.
    tmp="$prefix/.$name.install-tmp.$$"
    cp "$release/$name" "$tmp"
    chmod 755 "$tmp"
    mv -f "$tmp" "$prefix/$name"
done
echo "install.sh: installed ${#bins[@]} binaries into $prefix"

case ":${PATH:-}:" in
    *":$prefix:"*) ;;
    *) warn "$prefix is not on your PATH; add it (e.g. export PATH=\"$prefix:\$PATH\") to run \`fable\` by name" ;;
esac

exec "$prefix/fable" install ${args[@]+"${args[@]}"}
