//! fable-close-guard hook binary: a thin adapter over `fable::close_guard`. (Stub until its issue lands.)
fn main() -> std::process::ExitCode {
    fable::runner::run_hook("fable-close-guard", |_, _| Ok(fable::hook::Answer::allow()))
}
