//! PostToolUse + PostToolUseFailure (Bash): append the evidence record. See `fable::evidence::logger`.
#![no_main]

// Started by itself after a pass, it is the freshness watcher (`evidence::tree_watch`).
#[cfg(target_os = "linux")]
fable::hook_main!(
    fable::evidence::logger::HOOK_NAME,
    fable::evidence::logger::decide,
    || fable::evidence::tree_watch_serve::main_if_asked()
);
#[cfg(not(target_os = "linux"))]
fable::hook_main!(fable::evidence::logger::HOOK_NAME, fable::evidence::logger::decide);
