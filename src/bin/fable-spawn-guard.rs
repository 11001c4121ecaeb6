//! `fable-spawn-guard` (PreToolUse: Agent | Task | Workflow): a thin adapter over
//! [`fable::spawn_guard::decide`].
fn main() -> std::process::ExitCode {
    fable::runner::run_hook(fable::spawn_guard::HOOK_NAME, fable::spawn_guard::decide)
}
