//! **Matching**: how strongly a trigger applies to a record.
//!
//! Owns the terms of a text ([`terms`]), the offline lexical matcher ([`matcher`]), a
//! trigger compiled once when its rule is sealed ([`compiled_trigger`]) and when a thin
//! anchorless text is specific enough to be one ([`specificity`]), and where a rule whose
//! fix is about how a name on disk was written may apply: one that joins a split name
//! ([`split_name`]), one that keeps a dash name a name ([`dash_name`]).
//!
//! May use: [`crate::learn::text`].

pub mod compiled_trigger;
pub mod dash_name;
pub mod matcher;
pub mod specificity;
pub mod split_name;
pub mod terms;
