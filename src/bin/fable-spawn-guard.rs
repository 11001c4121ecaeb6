//! `fable-spawn-guard` (PreToolUse: Agent | Task | Workflow): a thin adapter over
//! [`fable::discipline::spawn_guard::decide`].
fn main() -> std::process::ExitCode {
    fable::host::run_hook(
        fable::discipline::spawn_guard::HOOK_NAME,
        fable::discipline::spawn_guard::decide,
    )
}
