//! **Discipline**: the guards that make a work discipline bind.
//!
//! Owns the ledger grammar ([`ledger`]), citation corroboration against the log
//! ([`corroborate`]), the Stop hook ([`close_guard`]), acceptance replay ([`replay`]) and
//! its reaper of whatever a replayed command left running ([`reaper`]), the fail streak
//! ([`fail_streak`]), the spawn guard ([`spawn_guard`]), the guard that keeps the agent's
//! hands off the evidence log ([`log_guard`]), SessionStart context
//! ([`inject`]) and the read-only reports built on the same decisions ([`lint`],
//! [`status`]).
//!
//! May use: the crate root, [`crate::evidence`], [`crate::setup::trust_store`] (whether
//! this machine trusts a project) and [`crate::learn`]'s rule store and matcher (promoted
//! rules shown at a failure). Never [`crate::measure`]: the hook path stays small.

pub mod backing;
pub mod baseline;
pub mod card_findings;
pub mod claim_check;
pub mod claim_phrases;
pub mod claims;
pub mod close_guard;
pub mod corroborate;
pub mod fail_streak;
pub mod freshness;
pub mod inject;
pub mod ledger;
pub mod lint;
pub mod log_guard;
pub mod lost_record;
pub mod program;
pub mod prose_cite;
pub mod read_only;
pub mod reaper;
pub mod replay;
pub mod replay_check;
pub mod replay_said;
pub mod restart;
pub mod round;
pub mod run_place;
pub mod selection;
pub mod session_model;
pub mod spawn_guard;
pub mod stated_counts;
pub mod status;
pub mod turn;
