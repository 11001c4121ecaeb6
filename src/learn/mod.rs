//! **Learning**: recurring failures in the log become tested, gated standing rules.
//!
//! Offline and deterministic. The folders follow the data one way, each using only those
//! above it; a reader follows a session's failure to a rule without climbing back:
//!
//! ```text
//! evidence records
//!   → text/      one command line or output read on its own (normalise, signature, anchors)
//!   → matching/  how strongly a trigger applies to a record (terms, matcher, compiled trigger)
//!   → history/   records prepared once (`Prepared`) → episodes and their recoveries
//!   → propose/   episodes → candidates (+ core pack, external extractor)
//!   → judge/     replay and gates → `Rule` (and `Learned`, what the field test keeps)
//!   → store/     rules at rest: merge, seal, standing set, packs
//!   → shown      at SessionStart and at a failure ([`rules_inject`])
//! ```
//!
//! The root holds the facade and the two doors from the hooks: `pipeline`
//! ([`run_pipeline_with`], the one place the stages meet), its result (`outcome`:
//! [`LearnOutcome`]), the SessionEnd hook (`session_end`: [`decide`]) and what the agent
//! is shown ([`rules_inject`]).
//! The folders are private to the crate; callers outside `learn` use the names
//! re-exported below. `scripts/check_layout.py` checks the folder order.
//!
//! May use: the crate root, [`crate::evidence`] and [`crate::setup::trust_store`] (whether
//! this machine trusts a project's own `learn.json`). Never [`crate::discipline`] or
//! [`crate::measure`] (the field test measures this, not the other way round).

pub(crate) mod history;
pub(crate) mod judge;
pub(crate) mod matching;
pub(crate) mod propose;
pub(crate) mod store;
pub(crate) mod text;

pub(crate) mod outcome;
pub(crate) mod pipeline;
#[cfg(test)]
mod pipeline_clause_tests;
#[cfg(test)]
mod pipeline_coincidence_tests;
#[cfg(test)]
mod pipeline_safety_tests;
#[cfg(test)]
mod pipeline_source_tests;
#[cfg(test)]
mod pipeline_spelling_tests;
#[cfg(test)]
mod pipeline_tests;
#[cfg(test)]
mod pipeline_texts_tests;
pub(crate) mod reassess;
pub mod rules_inject;
pub(crate) mod session_end;

// The facade: the names callers outside `learn` use (`crate::learn::run_pipeline`).
pub use history::origin_trust::Trust;
pub use history::records::{History, HistoryBuilder, Records};
pub use judge::config::*;
pub use judge::rule::{DirectiveEvidence, Learned, Rule, SupportRef};
pub use outcome::*;
pub use pipeline::*;
pub use propose::extractor::{command_proposer, EpisodeBrief, Proposal, Proposer};
pub use reassess::reassess;
pub use session_end::*;
// Namespaces callers use by name (`learn::rule_seal::scope`, `learn::wilson::fmt3`).
pub use judge::wilson;
pub use store::{rule_export, rule_seal, rules};
pub use text::{command_norm, signature, tables};
