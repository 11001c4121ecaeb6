//! **Store**: rules at rest in `.fable/`.
//!
//! Owns the store and its merge ([`rules`]: `rules.json`, `RULES.md`, the lock), this
//! machine's seal on a promotion ([`rule_seal`]), the standing set ([`standing`]: one rule
//! per failure class) and sharing ([`rule_export`]: packs, the managed CLAUDE.md section).
//!
//! May use: every folder above ([`crate::learn::text`] … [`crate::learn::judge`]),
//! [`crate::evidence`] and the crate's file helpers.

pub mod rule_export;
pub mod rule_index;
pub mod rule_seal;
pub mod rules;
pub mod standing;
