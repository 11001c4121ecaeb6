//! `fable-fail-streak` (PostToolUse + PostToolUseFailure, Bash): a thin adapter over
//! [`fable::discipline::fail_streak::decide`].
#![no_main]

fable::hook_main!(
    fable::discipline::fail_streak::HOOK_NAME,
    fable::discipline::fail_streak::decide
);
