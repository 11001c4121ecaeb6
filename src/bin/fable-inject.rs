//! `fable-inject` (SessionStart): a thin adapter over [`fable::inject::decide`].
fn main() -> std::process::ExitCode {
    fable::runner::run_hook(fable::inject::HOOK_NAME, fable::inject::decide)
}
