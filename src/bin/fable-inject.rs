//! `fable-inject` (SessionStart): a thin adapter over [`fable::discipline::inject::decide`].
#![no_main]

fable::hook_main!(fable::discipline::inject::HOOK_NAME, fable::discipline::inject::decide);
