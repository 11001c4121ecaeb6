//! `fable lint` (discipline work).

#[derive(Debug, clap::Args)]
pub struct LintArgs {}

pub fn run(_a: &LintArgs) -> crate::error::Result<i32> {
    Err(crate::error::Error::msg("fable lint: not built yet"))
}
