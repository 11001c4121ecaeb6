//! `fable-inject` (SessionStart): a thin adapter over [`fable::discipline::inject::decide`].
fn main() -> std::process::ExitCode {
    fable::host::run_hook(fable::discipline::inject::HOOK_NAME, fable::discipline::inject::decide)
}
