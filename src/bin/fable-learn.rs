//! fable-learn hook binary: a thin adapter over `fable::learn`. (Stub until its issue lands.)
fn main() -> std::process::ExitCode {
    fable::runner::run_hook("fable-learn", |_, _| Ok(fable::hook::Answer::allow()))
}
