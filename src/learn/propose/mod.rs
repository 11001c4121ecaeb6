//! **Propose**: episodes → candidate rules (a trigger in words and a directive).
//!
//! Owns [`candidates`] (clusters and fix groups), which sessions agree with a fix
//! ([`agreement`]), the classes fixes contest in ([`failure_class`]), necessity against
//! plain retries ([`necessity`]), how a fix group is said ([`fix_directive`]; a substitute from several environments in
//! [`environment_said`], a path the shell now expands in [`expansion_said`], a runner's own options in [`runner_said`]) and rendered
//! as shell ([`render`]), what a directive is ([`directive`]), the curated core pack
//! ([`core_pack`]), one cause's fixes united across programs ([`cross_program`]), one option every fix gave ([`shared_option`]), one value every changed retry gave ([`shared_value`]), a step's other spellings ([`step_said_otherwise`]) and across texts of one program ([`one_program`]), and external extractors ([`extractor`]: `Proposal`, `EpisodeBrief`).
//!
//! May use: [`crate::learn::text`], [`crate::learn::matching`], [`crate::learn::history`],
//! [`crate::evidence`].

pub mod agreement;
#[cfg(test)]
mod agreement_tests;
pub mod candidates;
#[cfg(test)]
mod candidates_tests;
pub mod core_pack;
pub mod cross_program;
pub mod directive;
pub mod environment_said;
pub mod expansion_said;
pub mod extractor;
pub mod failure_class;
#[cfg(test)]
pub(crate) mod fair_contest_tests;
pub mod fix_directive;
pub mod necessity;
pub mod one_program;
pub mod render;
pub mod runner_said;
pub mod shared_option;
pub mod shared_value;
pub mod step_said_otherwise;
pub mod written_input;
