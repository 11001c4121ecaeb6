//! `fable install` / `fable uninstall` (installer work).

#[derive(Debug, clap::Args)]
pub struct InstallArgs {}

#[derive(Debug, clap::Args)]
pub struct UninstallArgs {}

pub fn run_install(_a: &InstallArgs) -> crate::error::Result<i32> {
    Err(crate::error::Error::msg("fable install: not built yet"))
}

pub fn run_uninstall(_a: &UninstallArgs) -> crate::error::Result<i32> {
    Err(crate::error::Error::msg("fable uninstall: not built yet"))
}
