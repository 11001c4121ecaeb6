//! **Matching**: how strongly a trigger applies to a record.
//!
//! Owns the terms of a text ([`terms`]), the offline lexical matcher ([`matcher`]), a
//! trigger compiled once when its rule is sealed ([`compiled_trigger`]) and when a thin
//! anchorless text is specific enough to be one ([`specificity`]), and where a rule that
//! joins a split name may apply ([`split_name`]).
//!
//! May use: [`crate::learn::text`].

pub mod compiled_trigger;
pub mod matcher;
pub mod specificity;
pub mod split_name;
pub mod terms;
