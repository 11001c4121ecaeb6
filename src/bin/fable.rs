//! The `fable` command-line tool: set-up, inspection and the learning pipeline.
//! Every subcommand's flags live next to its implementation in the library.

use clap::{Parser, Subcommand};
use fable::*;

#[derive(Parser)]
#[command(
    name = "fable",
    version,
    about = "Evidence, discipline and learned rules for Claude Code",
    propagate_version = true
)]
struct Cli {
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(Subcommand)]
enum Cmd {
    /// Register fable's hooks in Claude Code's settings.
    Install(install::InstallArgs),
    /// Remove fable's hooks (and only fable's) from Claude Code's settings.
    Uninstall(install::UninstallArgs),
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
    Evidence(evidence_cli::EvidenceArgs),
    /// Learned rules: extract, replay, list, show, promote, retire, export, import.
    Rules(rules_cli::RulesArgs),
    /// Run the production learning pipeline on labelled corpora and score it.
    Fieldtest(fieldtest::FieldtestArgs),
    /// Measure whole-process hook latency against realistic state.
    Bench(bench::BenchArgs),
}

fn main() -> std::process::ExitCode {
    let cli = Cli::parse();
    let result = match &cli.cmd {
        Cmd::Install(a) => install::run_install(a),
        Cmd::Uninstall(a) => install::run_uninstall(a),
        Cmd::Init(a) => init::run(a),
        Cmd::Status(a) => status::run(a),
        Cmd::Lint(a) => lint::run(a),
        Cmd::Replay(a) => replay::run_cli(a),
        Cmd::Trust(a) => trust_store::run(a),
        Cmd::Evidence(a) => evidence_cli::run(a),
        Cmd::Rules(a) => rules_cli::run(a),
        Cmd::Bench(a) => bench::run(a),
        Cmd::Fieldtest(a) => fieldtest::run(a),
    };
    match result {
        Ok(code) => std::process::ExitCode::from(code.clamp(0, 255) as u8),
        Err(e) => {
            eprintln!("fable: {e}");
            std::process::ExitCode::from(1)
        }
    }
}
