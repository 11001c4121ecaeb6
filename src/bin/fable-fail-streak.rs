//! `fable-fail-streak` (PostToolUse + PostToolUseFailure, Bash): a thin adapter over
//! [`fable::discipline::fail_streak::decide`].
fn main() -> std::process::ExitCode {
    fable::host::run_hook(
        fable::discipline::fail_streak::HOOK_NAME,
        fable::discipline::fail_streak::decide,
    )
}
