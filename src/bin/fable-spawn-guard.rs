//! fable-spawn-guard hook binary: a thin adapter over `fable::spawn_guard`. (Stub until its issue lands.)
fn main() -> std::process::ExitCode {
    fable::runner::run_hook("fable-spawn-guard", |_, _| Ok(fable::hook::Answer::allow()))
}
