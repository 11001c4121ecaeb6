//! `fable-fail-streak` (PostToolUse + PostToolUseFailure, Bash): a thin adapter over
//! [`fable::fail_streak::decide`].
fn main() -> std::process::ExitCode {
    fable::runner::run_hook(fable::fail_streak::HOOK_NAME, fable::fail_streak::decide)
}
