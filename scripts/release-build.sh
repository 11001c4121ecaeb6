#!/usr/bin/env bash
# Builds the release binaries the way they are installed, and prints the folder that holds
# them (the only line on stdout; cargo's progress goes to stderr).
#
# Why static: a hook is a whole process on every tool call, and most of what a small Rust
# binary costs over /bin/true is the dynamic loader mapping and relocating libc, libm and
# libgcc_s (measured: 167 page faults and 1.03 ms task-clock dynamic, 125 and 0.62 ms
# static, /bin/true 0.60 ms). On a glibc Linux host the binaries are therefore linked with
# `-C target-feature=+crt-static`. That flag cannot be set in .cargo/config.toml: it would
# also reach the proc-macro crates (serde_derive, clap_derive), which must stay dynamic, so
# the build names the host target explicitly — cargo then applies RUSTFLAGS to the target
# units only — and the binaries land in target/<host>/release.
#
# The static binaries are also linked non-PIE (`-C relocation-model=static`): a static-pie
# binary relocates itself at every start (`_dl_relocate_static_pie`) and writes the
# relocated pages, each a copy-on-write fault. Measured on `fable-evidence` (a failure,
# 300 interleaved runs each, 2026-12-06, same source): 175 → 102 page faults, CPU added
# over /bin/true +0.63 → +0.47 ms (docs/benchmarks.md). The cost: the executable's own code and data are not placed at a
# random address (stack, heap and mappings still are); a hook is a short-lived process
# that parses one JSON payload, and that trade is taken for a start on every tool call.
#
# Anywhere else (macOS, musl, no static glibc: libc6-dev / glibc-static missing) it is a
# plain `cargo build --release` into target/release, and it says so on stderr.
#
# Usage: scripts/release-build.sh [--dynamic] [extra cargo build args...]
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
dynamic=0
if [ "${1:-}" = "--dynamic" ]; then
    dynamic=1
    shift
fi
locked=()
[ -f "$here/Cargo.lock" ] && locked=(--locked)
target_dir="${CARGO_TARGET_DIR:-$here/target}"
case "$target_dir" in
    /*) ;;
    *) target_dir="$here/$target_dir" ;;
esac

host="$(rustc -vV 2>/dev/null | sed -n 's/^host: //p' || true)"
static_ok=0
if [ "$dynamic" -eq 0 ] && [[ "$host" == *-linux-gnu ]]; then
    # Static glibc needs libc.a; ask the C compiler rustc links with where it would find it.
    libc_a="$(${CC:-cc} -print-file-name=libc.a 2>/dev/null || true)"
    [ -n "$libc_a" ] && [ -f "$libc_a" ] && static_ok=1
fi

if [ "$static_ok" -eq 1 ]; then
    echo "release-build: static binaries for $host (cargo build --release --target $host, +crt-static, non-PIE)" >&2
    RUSTFLAGS="${RUSTFLAGS:-} -C target-feature=+crt-static -C relocation-model=static" \
        cargo build --release --bins ${locked[@]+"${locked[@]}"} \
        --manifest-path "$here/Cargo.toml" --target "$host" "$@" >&2
    echo "$target_dir/$host/release"
else
    if [ "$dynamic" -eq 0 ]; then
        echo "release-build: no static libc for host '${host:-unknown}': dynamic binaries (a hook then starts about 0.4 ms slower)" >&2
    fi
    cargo build --release --bins ${locked[@]+"${locked[@]}"} --manifest-path "$here/Cargo.toml" "$@" >&2
    echo "$target_dir/release"
fi
