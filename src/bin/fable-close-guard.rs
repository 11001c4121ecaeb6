//! `fable-close-guard` (Stop): a thin adapter over [`fable::close_guard::decide`].
fn main() -> std::process::ExitCode {
    fable::runner::run_hook(fable::close_guard::HOOK_NAME, fable::close_guard::decide)
}
