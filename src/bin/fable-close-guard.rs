//! `fable-close-guard` (Stop, SubagentStop): a thin adapter over [`fable::discipline::close_guard::decide`].
fn main() -> std::process::ExitCode {
    fable::host::run_hook(
        fable::discipline::close_guard::HOOK_NAME,
        fable::discipline::close_guard::decide,
    )
}
