//! `fable-spawn-guard` (PreToolUse: Agent | Task | Workflow): a thin adapter over
//! [`fable::discipline::spawn_guard::decide`].
#![no_main]

fable::hook_main!(
    fable::discipline::spawn_guard::HOOK_NAME,
    fable::discipline::spawn_guard::decide
);
