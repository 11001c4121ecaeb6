//! `fable init` (installer work).

#[derive(Debug, clap::Args)]
pub struct InitArgs {}

pub fn run(_a: &InitArgs) -> crate::error::Result<i32> {
    Err(crate::error::Error::msg("fable init: not built yet"))
}
