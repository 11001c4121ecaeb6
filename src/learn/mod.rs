//! **Learning**: recurring failures in the log become tested, gated standing rules.
//!
//! Owns the whole pipeline, offline and deterministic: command normalisation
//! ([`command_norm`]), failure signatures ([`signature`]), episodes ([`episodes`]) and the key of their fix ([`fix_key`]),
//! candidates ([`candidates`]), which sessions agree with a fix ([`agreement`]), the
//! classes fixes contest in ([`failure_class`]), recovery by intent on the raw words
//! ([`intent`]), canonical flag spellings ([`spelling`]), listings and inspections ([`inspection`]), what only looks ([`read_only`]), how a fix group is said ([`fix_directive`]) and rendered as shell
//! ([`render`]), the context a retry added ([`retry_context`]), necessity against plain retries ([`necessity`]), the matcher ([`matcher`]) and its terms ([`terms`]), replay against history ([`rule_replay`]), directive evidence ([`directive_evidence`]), the trust and safety
//! gates ([`origin_trust`], [`safety`]), Wilson intervals ([`wilson`]), the assessment of
//! one candidate ([`assess`]), the pipeline itself ([`pipeline`]), its settings
//! ([`config`]), external extractors ([`extractor`]), the rule store and packs
//! ([`rules`], [`rule_export`], the curated [`core_pack`]), what the agent is shown
//! ([`rules_inject`]) and the SessionEnd hook ([`session_end`]).
//!
//! May use: the crate root, [`crate::evidence`] and [`crate::setup::trust_store`] (whether
//! this machine trusts a project's own `learn.json`). Never [`crate::discipline`] or
//! [`crate::measure`] (the field test measures this, not the other way round).

pub mod agreement;
pub mod assess;
pub mod candidates;
pub mod command_norm;
pub mod compiled_trigger;
pub mod config;
pub mod core_pack;
pub mod directive;
pub mod directive_evidence;
pub mod episodes;
pub mod extractor;
pub mod failure_class;
pub mod fix_directive;
pub mod fix_key;
pub mod grind;
pub mod history;
pub mod inspection;
pub mod intent;
pub mod mask_engine;
pub mod matcher;
pub mod necessity;
pub mod origin_trust;
pub mod outcome;
pub mod pipeline;
pub mod prepared;
pub mod read_only;
pub mod recovery_form;
pub mod render;
pub mod retry_context;
pub mod rule_export;
pub mod rule_replay;
pub mod rule_seal;
pub mod rules;
pub mod rules_inject;
pub mod safety;
pub mod session_end;
pub mod signature;
pub mod spelling;
pub mod standing;
pub mod terms;
pub mod wilson;

// The pipeline's entry points and types, as callers name them: `crate::learn::run_pipeline`.
pub use config::*;
pub use extractor::command_proposer;
pub use outcome::*;
pub use pipeline::*;
pub use session_end::*;
