//! Acceptance replay (discipline work).

#[derive(Debug, clap::Args)]
pub struct ReplayArgs {}

pub fn run_cli(_a: &ReplayArgs) -> crate::error::Result<i32> {
    Err(crate::error::Error::msg("fable replay: not built yet"))
}
