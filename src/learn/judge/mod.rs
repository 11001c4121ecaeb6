//! **Judge**: replay and gates turn a candidate into a rule (formats.md §3).
//!
//! Owns the assessment of one candidate ([`assess`]), replay against the history
//! ([`rule_replay`]), directive evidence ([`directive_evidence`]), whether a rule's
//! sessions ever got past the failure ([`grind`]), one lesson accepted twice ([`same_lesson`]), Wilson intervals ([`wilson`]), the
//! settings every gate reads ([`config`]: `LearnConfig`, `.fable/learn.json`) and the
//! types the gates make ([`rule`]: `Rule`, `DirectiveEvidence`, `Learned`, `SupportRef`).
//!
//! May use: [`crate::learn::text`], [`crate::learn::matching`], [`crate::learn::history`],
//! [`crate::learn::propose`], [`crate::evidence`], and for `learn.json` the crate's project
//! and file helpers and [`crate::setup::trust_store`].

pub mod assess;
pub mod config;
pub mod directive_evidence;
pub mod grind;
pub mod rule;
pub mod rule_replay;
pub mod same_lesson;
pub mod wilson;
