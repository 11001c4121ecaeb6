//! **The `fable` command**: one enum of subcommands and their dispatch.
//!
//! Each subcommand's flags live next to its implementation (`InstallArgs` in
//! [`crate::setup::install`], `StatusArgs` in [`crate::discipline::status`], …); this
//! module only names them, so `src/bin/fable.rs` stays a thin adapter. The subcommands
//! whose whole body is command-line plumbing live here too ([`evidence`], [`rules`]).
//!
//! Conventions every subcommand keeps: a project-scoped one takes `--project DIR`
//! ([`crate::project_arg`]); every one that reports takes `--json`, and with it reports
//! its error as JSON on stdout too; exit codes are [`crate::error::exit`]'s; nothing prints
//! colour; a closed pipe ends the command quietly.
//!
//! May use: every subsystem.

pub mod evidence;
pub mod rules;

use crate::discipline::{lint, replay, status};
use crate::measure::{bench, fieldtest};
use crate::setup::codex_hooks::HostName;
use crate::setup::codex_install;
use crate::setup::{codex_doctor, doctor, init, install, selftest_codex_run, selftest_run, trust_store, uninstall};
use clap::{Parser, Subcommand};

#[derive(Parser)]
#[command(
    name = "fable",
    version,
    about = "Evidence, discipline and learned rules for Claude Code",
    propagate_version = true,
    // fable prints no colour of its own; clap's help and usage errors stay plain too, so
    // no output of `fable` ever holds an escape sequence (NO_COLOR, pipes, logs).
    color = clap::ColorChoice::Never
)]
pub struct Cli {
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(Subcommand)]
enum Cmd {
    /// Register fable's hooks in Claude Code's settings.
    Install(install::InstallArgs),
    /// Remove fable's hooks (and only fable's) from Claude Code's settings.
    Uninstall(uninstall::UninstallArgs),
    /// Check that fable's hooks are registered, resolve and answer, scope by scope.
    Doctor(doctor::DoctorArgs),
    /// Prove the hooks act under your own Claude Code: a scripted, offline session.
    Selftest(selftest_run::SelftestArgs),
    /// Opt a project in: create .fable/ with a ledger.
    Init(init::InitArgs),
    /// One screen of the project's discipline state.
    Status(status::StatusArgs),
    /// Check the ledger and SPEC for discipline findings.
    Lint(lint::LintArgs),
    /// Re-run the commands cited as evidence on closed cards.
    Replay(replay::ReplayArgs),
    /// Trust (or distrust) a project on this machine, allowing acceptance replay there.
    Trust(trust_store::TrustArgs),
    /// Read the evidence log.
    Evidence(evidence::EvidenceArgs),
    /// Learned rules: extract, replay, list, show, promote, retire, export, import.
    Rules(rules::RulesArgs),
    /// Run the production learning pipeline on labelled corpora and score it.
    Fieldtest(fieldtest::FieldtestArgs),
    /// Measure whole-process hook latency against realistic state.
    Bench(bench::BenchArgs),
}

impl Cmd {
    /// Whether `--json` was asked for, so an error is reported in JSON as well.
    fn json(&self) -> bool {
        match self {
            Cmd::Install(a) => a.json,
            Cmd::Uninstall(a) => a.json,
            Cmd::Doctor(a) => a.json,
            Cmd::Selftest(a) => a.json,
            Cmd::Init(a) => a.json,
            Cmd::Status(a) => a.json,
            Cmd::Lint(a) => a.json,
            Cmd::Replay(a) => a.json,
            Cmd::Trust(a) => a.json,
            Cmd::Evidence(a) => a.json,
            Cmd::Rules(a) => a.cmd.json(),
            Cmd::Fieldtest(a) => a.json,
            Cmd::Bench(a) => a.json,
        }
    }
}

/// Parses the command line, runs the subcommand, and turns its result into the exit
/// code: the subcommand's own, or the error's ([`crate::error::Error::exit_code`]) with
/// `fable: <error>` on stderr and, under `--json`, `{"error": <kind>, …}` on stdout.
pub fn main() -> std::process::ExitCode {
    // `fable evidence show | head -2`: a reader that closes the pipe ends us quietly, as
    // it ends `cat`, instead of a "failed printing to stdout" panic (Rust ignores SIGPIPE
    // by default). Hooks never go through here: their stdout is Claude Code's.
    // SAFETY: setting a signal disposition to its default, before any thread starts.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
    let cli = Cli::parse();
    let result = match &cli.cmd {
        Cmd::Install(a) if a.codex.host == HostName::Codex => codex_install::run_install(a),
        Cmd::Install(a) if a.codex.trust => Err(crate::error::Error::msg(
            "--trust is for --host codex (Claude Code runs the hooks its settings name)",
        )),
        Cmd::Install(a) => install::run_install(a),
        Cmd::Uninstall(a) if a.codex.host == HostName::Codex => codex_install::run_uninstall(a),
        Cmd::Uninstall(a) => uninstall::run_uninstall(a),
        Cmd::Doctor(a) if a.codex.host == HostName::Codex => codex_doctor::run(a),
        Cmd::Doctor(a) => doctor::run(a),
        Cmd::Selftest(a) if a.host == HostName::Codex => selftest_run::bin_dir_of(a.bin_dir.as_deref())
            .and_then(|bin_dir| selftest_codex_run::run(a.codex.as_deref(), &bin_dir, a.json, a.keep)),
        Cmd::Selftest(a) => selftest_run::run(a),
        Cmd::Init(a) => init::run(a),
        Cmd::Status(a) => status::run(a),
        Cmd::Lint(a) => lint::run(a),
        Cmd::Replay(a) => replay::run_cli(a),
        Cmd::Trust(a) => trust_store::run(a),
        Cmd::Evidence(a) => evidence::run(a),
        Cmd::Rules(a) => rules::run(a),
        Cmd::Bench(a) => bench::run(a),
        Cmd::Fieldtest(a) => fieldtest::run(a),
    };
    match result {
        Ok(code) => std::process::ExitCode::from(code.clamp(0, 255) as u8),
        Err(e) => {
            if cli.cmd.json() {
                println!("{}", e.to_json());
            }
            eprintln!("fable: {e}");
            std::process::ExitCode::from(e.exit_code().clamp(0, 255) as u8)
        }
    }
}
