//! fable-learn (SessionEnd): runs the learning pipeline on new evidence, bounded in time
//! (`FABLE_LEARN_BUDGET_MS`), never blocking the session.
fn main() -> std::process::ExitCode {
    fable::host::run_hook("fable-learn", fable::learn::decide)
}
