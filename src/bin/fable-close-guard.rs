//! `fable-close-guard` (Stop, SubagentStop): a thin adapter over [`fable::discipline::close_guard::decide`].
#![no_main]

fable::hook_main!(
    fable::discipline::close_guard::HOOK_NAME,
    fable::discipline::close_guard::decide
);
