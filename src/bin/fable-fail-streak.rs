//! fable-fail-streak hook binary: a thin adapter over `fable::fail_streak`. (Stub until its issue lands.)
fn main() -> std::process::ExitCode {
    fable::runner::run_hook("fable-fail-streak", |_, _| Ok(fable::hook::Answer::allow()))
}
