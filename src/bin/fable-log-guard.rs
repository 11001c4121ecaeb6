//! `fable-log-guard` (PreToolUse: Write | Edit | MultiEdit | NotebookEdit | Bash): a thin
//! adapter over [`fable::discipline::log_guard::decide`].
#![no_main]

fable::hook_main!(
    fable::discipline::log_guard::HOOK_NAME,
    fable::discipline::log_guard::decide
);
