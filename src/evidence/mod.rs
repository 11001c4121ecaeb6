//! **Evidence**: what the agent really ran, machine-written.
//!
//! Owns the evidence record (formats.md §1, [`record`]), the rotating, locked log
//! ([`journal`]), secret redaction before anything is written ([`redact`]), the
//! PostToolUse hook that writes records ([`logger`]), the per-user key that seals them
//! ([`seal`]), the user-state note that a project once had a log ([`log_marker`]) and
//! what a tool's closing summary says about the run ([`summary`]), whatever the exit status.
//!
//! May use: the crate root only (protocol, discovery, runner, user state). Everything else
//! reads the log through here; nothing here knows about ledgers or rules.

pub mod journal;
pub mod log_marker;
pub mod logger;
pub mod record;
pub mod redact;
pub mod seal;
pub mod summary;

// The record is this subsystem's vocabulary: `crate::evidence::Record` everywhere.
pub use record::*;
