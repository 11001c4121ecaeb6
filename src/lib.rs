//! fable: fast, fail-open Claude Code hooks that make work discipline bind by structure,
//! and learn standing rules from the agent's own recurring failures.
//!
//! Every decision lives in this library as a function of its inputs; the binaries in
//! `src/bin/` only read stdin, call one function here, and map its [`hook::Answer`] to an
//! exit code and output through the fail-open [`runner`].
//!
//! The folders are the architecture, each one subsystem (its module doc says what it owns
//! and what it may use), layered so that no folder uses one above it:
//!
//! ```text
//! cli/         the `fable` command: one enum of subcommands, dispatch
//! harness/     the offline Claude Code harness of the e2e tests (never on the hook path)
//! measure/     field test, sweep, recurrence, benchmarks      (never on the hook path)
//! discipline/  ledger, corroboration, Stop/spawn/streak guards, inject, lint, status
//! learn/       episodes → candidates → replay + gates → rules; the SessionEnd hook
//! evidence/    the record, the locked rotating log, redaction, the logging hook
//! host/        the agent CLIs (Claude Code, Codex): payloads in, answers out, at the edge
//! setup/       registrations, settings merge, installer, init, trust store
//! (root)       hook protocol, runner, project discovery and `--project`, the `.fable/` door, user state
//! ```

// The foundation every subsystem may use.
/// Prints one line of terminal text through the one sanitiser ([`hook::visible`]):
/// control characters, escape sequences and bidi controls from files, logs and paths are
/// shown, never acted on. JSON output is printed as it is (JSON escapes them itself).
#[macro_export]
macro_rules! say {
    ($($t:tt)*) => {
        println!("{}", $crate::hook::visible(&format!($($t)*)))
    };
}

pub mod atomic_file;
pub mod error;
pub mod fable_dir;

pub mod fingerprint;
pub mod hook;
pub mod payload_read;
pub mod project;
pub mod project_arg;
pub mod runner;
pub mod session_state;
pub mod state_file;

// The subsystems, lowest first.
pub mod cli;
pub mod discipline;
pub mod evidence;
pub mod harness;
pub mod host;
pub mod learn;
pub mod measure;
pub mod setup;
