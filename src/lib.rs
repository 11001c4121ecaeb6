//! fable: fast, fail-open Claude Code hooks that make work discipline bind by structure,
//! and learn standing rules from the agent's own recurring failures.
//!
//! Every decision lives in this library as a function of its inputs; the binaries in
//! `src/bin/` only read stdin, call one function here, and map its [`hook::Answer`] to an
//! exit code and output through the fail-open [`runner`].

// Foundation: protocol, discovery, evidence.
pub mod atomic_file;
pub mod error;
pub mod evidence;
pub mod fingerprint;
pub mod hook;
pub mod journal;
pub mod log_marker;
pub mod logger;
pub mod project;
pub mod redact;
pub mod runner;

// Installation and set-up.
pub mod claude_version;
pub mod init;
pub mod install;
pub mod registrations;
pub mod settings;

// Discipline guards.
pub mod close_guard;
pub mod corroborate;
pub mod fail_streak;
pub mod inject;
pub mod ledger;
pub mod lint;
pub mod replay;
pub mod session_state;
pub mod spawn_guard;
pub mod status;
pub mod trust_store;

// Learning.
pub mod candidates;
pub mod command_norm;
pub mod directive_evidence;
pub mod episodes;
pub mod learn;
pub mod matcher;
pub mod origin_trust;
pub mod rule_export;
pub mod rule_replay;
pub mod rules;
pub mod rules_cli;
pub mod rules_inject;
pub mod safety;
pub mod signature;
pub mod wilson;

// Field test.
pub mod chart;
pub mod corpus;
pub mod extraction_metrics;
pub mod fieldtest;
pub mod recurrence;
pub mod sweep;

// Command line.
pub mod bench;
pub mod bench_learn;
pub mod evidence_cli;
