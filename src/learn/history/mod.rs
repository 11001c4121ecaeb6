//! **History**: the evidence records prepared once, then cut into episodes (a failure, what
//! followed it, how it ended) and their recoveries.
//!
//! Owns [`episodes`] (`Prepared`, `Episode`, `Outcome`), the form of a recovery
//! ([`recovery_form`]), the key of an episode's fix ([`fix_key`]) and trust by origin
//! ([`origin_trust`]).
//!
//! May use: [`crate::learn::text`], [`crate::learn::matching`], [`crate::evidence`].

pub mod episodes;
pub mod fix_key;
pub mod origin_trust;
pub mod recovery_form;
