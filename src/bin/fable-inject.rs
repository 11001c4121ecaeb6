//! fable-inject hook binary: a thin adapter over `fable::inject`. (Stub until its issue lands.)
fn main() -> std::process::ExitCode {
    fable::runner::run_hook("fable-inject", |_, _| Ok(fable::hook::Answer::allow()))
}
