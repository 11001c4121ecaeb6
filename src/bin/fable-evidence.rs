//! PostToolUse + PostToolUseFailure (Bash): append the evidence record. See `fable::evidence::logger`.
fn main() -> std::process::ExitCode {
    fable::host::run_hook(fable::evidence::logger::HOOK_NAME, fable::evidence::logger::decide)
}
