//! **History**: the evidence records prepared once, then cut into episodes (a failure, what
//! followed it, how it ended) and their recoveries.
//!
//! Owns the compact history as the log streams in ([`records`]: `History`, `Records`),
//! each record normalised once ([`prepared`]: `Prepared`), [`episodes`] (`Episode`, `Outcome`), the form of a recovery
//! ([`recovery_form`]), another action run instead of a retry ([`instead`]), a retry scoped away from what failed ([`scoped_away`]), failures inside another's recovery ([`nested`]), a run of the failing program that made its input ([`made_input`]), a short flag spelt for an unsafe long one ([`short_spelling`]), one operand edited
//! ([`operand_edit`]), the option the failure named set by the retry ([`option_set`]), the key of an episode's fix ([`fix_key`]), failure texts that say
//! the same thing ([`same_text`]), options switched on by config or environment
//! ([`switch_spelling`]), the file a failure blamed emptied or removed ([`blamed_file`]), a retry whose line
//! swallowed its status ([`swallowed`]), the finding a failure named handed to a switch
//! that silences it ([`named_ignore`]), the switch a failure offered to suppress itself, taken ([`escape_hatch`]), a retry on fewer operands ([`narrowed`]),
//! strictness lowered ([`strictness`]), what failed taken out of the check's sight by the
//! project's own files ([`silenced_step`]) and
//! trust by origin ([`origin_trust`]).
//!
//! May use: [`crate::learn::text`], [`crate::learn::matching`], [`crate::evidence`].

pub mod blamed_file;
pub mod converted;
pub mod dropped_requirement;
pub mod edit_span;
pub mod elsewhere_first;
pub mod episodes;
#[cfg(test)]
mod episodes_tests;
pub mod escape_hatch;
pub mod fix_key;
#[cfg(test)]
mod fix_key_tests;
pub mod fix_safety;
pub mod instead;
pub mod looked_up;
pub mod made_input;
pub mod named_ignore;
pub mod narrowed;
pub mod nested;
pub mod operand_edit;
pub mod option_set;
pub mod origin_trust;
pub mod pipeline_options;
pub mod prepared;
pub mod records;
pub mod recovery_form;
pub mod same_text;
pub mod scoped_away;
pub mod short_spelling;
pub mod silenced_step;
pub mod strictness;
pub mod swallowed;
pub mod switch_spelling;
