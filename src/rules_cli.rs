//! `fable rules …` (learning work).

#[derive(Debug, clap::Args)]
pub struct RulesArgs {}

pub fn run(_a: &RulesArgs) -> crate::error::Result<i32> {
    Err(crate::error::Error::msg("fable rules: not built yet"))
}
