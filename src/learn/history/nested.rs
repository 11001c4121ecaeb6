//! Nested failures: a failure inside an earlier episode's span (between that failure and
//! its successful retry) of the same session is an attempt within someone else's fix, not
//! a standing problem of its own ([`crate::learn::history::episodes::Episode::nested`]).
//!
//! Pure on positions, so that the episodes, which it marks, are not imported here.

use std::collections::HashMap;

/// One episode's place: its session's slot, the failure's position in the session, and
/// its successful retry's position, if any.
pub type Span = (usize, usize, Option<usize>);

/// For each episode, whether its failure lies strictly inside another's (failure, retry)
/// span of the same session.
pub fn marks(spans: &[Span]) -> Vec<bool> {
    let mut by_slot: HashMap<usize, Vec<(usize, usize)>> = HashMap::new();
    for &(slot, a, b) in spans {
        if let Some(b) = b {
            by_slot.entry(slot).or_default().push((a, b));
        }
    }
    spans
        .iter()
        .map(|&(slot, pos, _)| {
            by_slot
                .get(&slot)
                .is_some_and(|v| v.iter().any(|&(a, b)| a < pos && pos < b))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_failure_inside_another_recovery_of_its_session_is_nested() {
        // Session 0: a failure at 1 recovered at 5; failures at 3 (inside) and 6 (after).
        // Session 1: a failure at 3 is in another session.
        let m = marks(&[(0, 1, Some(5)), (0, 3, None), (0, 6, None), (1, 3, None)]);
        assert_eq!(m, vec![false, true, false, false]);
    }
}
