//! **Matching**: how strongly a trigger applies to a record.
//!
//! Owns the terms of a text ([`terms`]), the offline lexical matcher ([`matcher`]) and a
//! trigger compiled once when its rule is sealed ([`compiled_trigger`]).
//!
//! May use: [`crate::learn::text`].

pub mod compiled_trigger;
pub mod matcher;
pub mod terms;
