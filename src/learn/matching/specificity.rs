//! When a failure text without an anchor is specific enough to stand as a trigger.
//!
//! Why: an anchorless trigger of few terms used to be `generic` by its length alone
//! (fewer than `generic_min_terms`). Real tools say short things — `grep: Unmatched ( or
//! \(`, `error: no such command: <q>` — and a short text is not a vague one. What makes
//! a trigger generic is what it would fire on, and the history shows that: a thin text is
//! specific when it has a word of its own (a failure term, not the program's name: the
//! matcher needs one to fire at all) and, replayed over the history, it matches the
//! failures of exactly one class. The gate's other demands stand (an observed fix, the
//! unanchored recurrence minimum of sessions agreeing on it, the contest and coincidence
//! tests), so a thin text still needs as many sessions fixing it one way as any other.

use crate::learn::matching::matcher::TriggerSpec;

/// Whether a thin anchorless trigger is nonetheless specific: it has a failure term of its
/// own and its replay matched failures of one class only (`matched_classes`, counted in
/// the trigger's domain).
pub fn thin_but_distinct(spec: &TriggerSpec, matched_classes: usize) -> bool {
    !spec.failure_terms.is_empty() && matched_classes == 1
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(failure_terms: &[u32]) -> TriggerSpec {
        TriggerSpec {
            domain: "grep".into(),
            action: String::new(),
            anchors: Vec::new(),
            actions: Vec::new(),
            terms: [&[0], failure_terms].concat(),
            failure_terms: failure_terms.to_vec(),
            domains: Vec::new(),
            alternatives: Vec::new(),
        }
    }

    #[test]
    fn a_thin_text_is_specific_only_with_a_word_of_its_own_and_one_class() {
        assert!(thin_but_distinct(&spec(&[7]), 1));
        // Only the program's name: the matcher could never tell this failure from another.
        assert!(!thin_but_distinct(&spec(&[]), 1));
        // It fired on failures of two classes: generic, whatever its length.
        assert!(!thin_but_distinct(&spec(&[7]), 2));
        // It fired on nothing.
        assert!(!thin_but_distinct(&spec(&[7]), 0));
    }
}
