//! `fable status` (discipline work).

#[derive(Debug, clap::Args)]
pub struct StatusArgs {}

pub fn run(_a: &StatusArgs) -> crate::error::Result<i32> {
    Err(crate::error::Error::msg("fable status: not built yet"))
}
