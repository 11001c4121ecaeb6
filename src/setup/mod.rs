//! **Set-up**: putting fable on a machine and into a project.
//!
//! Owns the hook registrations ([`registrations`], from `hooks/hooks.json`), merging
//! them into Claude Code's settings ([`settings`]), the installer ([`install`], its scope flags in [`scope`]), how it names
//! the binaries ([`portable`]) and the version rules it follows ([`claude_version`]), what it remembers of each install
//! ([`install_state`]), the uninstaller ([`uninstall`], with [`purge`]), `fable init`
//! ([`init`]), `fable doctor` ([`doctor`], probing hooks with [`doctor_probe`]) and this
//! machine's list of trusted projects ([`trust_store`]); the one-registration rule
//! ([`doubles`], with the plugin folders Claude Code loads: [`plugin`]); `fable selftest`
//! ([`selftest`], the plan and its judging; [`selftest_run`], running it).
//!
//! For the OpenAI Codex CLI: its registration table ([`codex_hooks`]), install and
//! uninstall ([`codex_install`]), hook trust in `config.toml` ([`codex_trust`]),
//! `fable doctor --host codex` ([`codex_doctor`]) and `fable selftest --host codex`
//! ([`selftest_codex`], [`selftest_codex_run`]).
//!
//! May use: the crate root only, and [`crate::harness`] (`fable selftest` runs the same
//! offline harness as the end-to-end tests; the hooks never reach it).

pub mod claude_version;
pub mod codex_doctor;
pub mod codex_hooks;
pub mod codex_install;
pub mod codex_trust;
pub mod doctor;
pub mod doctor_probe;
pub mod doctor_report;
pub mod doctor_trust;
pub mod doubles;
pub mod init;
pub mod install;
pub mod install_state;
pub mod plugin;
pub mod portable;
pub mod purge;
pub mod registrations;
pub mod scope;
pub mod selftest;
pub mod selftest_codex;
pub mod selftest_codex_run;
pub mod selftest_run;
pub mod settings;
pub mod settings_diff;
pub mod skill;
pub mod trust_store;
pub mod uninstall;
pub mod uninstall_backups;
pub mod write_guard;
