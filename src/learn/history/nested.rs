//! Nested failures: a failure inside an earlier episode's span (between that failure and
//! its successful retry) of the same session is an attempt within someone else's fix, not
//! a standing problem of its own ([`Episode::nested`]).

use crate::learn::history::episodes::{Episode, Prepared};
use std::collections::HashMap;

/// Marks every episode that lies inside another's (failure, retry) span; `out` is sorted
/// by failure.
pub fn mark(out: &mut [Episode], prep: &Prepared) {
    let spans: Vec<(usize, usize, usize)> = out
        .iter()
        .filter_map(|e| {
            e.retry_idx.map(|r| {
                let (slot, a) = prep.position[e.fail_idx];
                (slot, a, prep.position[r].1)
            })
        })
        .collect();
    if !spans.is_empty() {
        let mut by_slot: HashMap<usize, Vec<(usize, usize)>> = HashMap::new();
        for (slot, a, b) in spans {
            by_slot.entry(slot).or_default().push((a, b));
        }
        for e in out.iter_mut() {
            let (slot, pos) = prep.position[e.fail_idx];
            if let Some(v) = by_slot.get(&slot) {
                e.nested = v.iter().any(|&(a, b)| a < pos && pos < b);
            }
        }
    }
}
