//! PostToolUse + PostToolUseFailure (Bash): append the evidence record. See `fable::evidence::logger`.
fn main() -> std::process::ExitCode {
    // Started by itself after a pass, as the freshness watcher (`evidence::tree_watch`).
    #[cfg(target_os = "linux")]
    if let Some(code) = fable::evidence::tree_watch_serve::main_if_asked() {
        return code;
    }
    fable::host::run_hook(fable::evidence::logger::HOOK_NAME, fable::evidence::logger::decide)
}
