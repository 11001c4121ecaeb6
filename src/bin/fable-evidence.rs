//! PostToolUse + PostToolUseFailure (Bash): append the evidence record. See `fable::logger`.
fn main() -> std::process::ExitCode {
    fable::runner::run_hook(fable::logger::HOOK_NAME, fable::logger::decide)
}
