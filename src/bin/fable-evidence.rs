//! PostToolUse + PostToolUseFailure (Bash): append the evidence record. See `fable::evidence::logger`.
fn main() -> std::process::ExitCode {
    fable::runner::run_hook(fable::evidence::logger::HOOK_NAME, fable::evidence::logger::decide)
}
