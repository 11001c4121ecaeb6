//! `fable-log-guard` (PreToolUse: Write | Edit | MultiEdit | NotebookEdit | Bash): a thin
//! adapter over [`fable::discipline::log_guard::decide`].
fn main() -> std::process::ExitCode {
    fable::host::run_hook(
        fable::discipline::log_guard::HOOK_NAME,
        fable::discipline::log_guard::decide,
    )
}
