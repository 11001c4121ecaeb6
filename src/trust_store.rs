//! Per-machine trust of projects for replay (discipline work).

#[derive(Debug, clap::Args)]
pub struct TrustArgs {}

pub fn run(_a: &TrustArgs) -> crate::error::Result<i32> {
    Err(crate::error::Error::msg("fable trust: not built yet"))
}
