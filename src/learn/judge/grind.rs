//! Whether the sessions a rule stands on ever got past the failure.
//!
//! A template or pack rule is supported by unresolved failures by construction. When
//! none of its supporting sessions ever saw the failing action pass afterwards — a grind
//! that nothing fixed, the very thing the fail streak sends to a fresh context — the rule
//! is learned from a dead end: "do not retry unchanged" distilled from an agent that did
//! nothing else. Such a candidate may be kept and counted (accepted), but it is not
//! promoted, so it is never shown as a standing rule (`unrecovered`, [`crate::learn::judge::assess`]).

use crate::learn::history::episodes::Prepared;
use crate::learn::history::records::Records;

/// True when some failure the rule stands on — its support, or a failure its replay
/// counts as prevented — was followed, in its session and however much later, by a
/// passing run of the same action: somewhere the failure was got past.
pub fn any_recovery<H: Records + ?Sized>(fails: impl IntoIterator<Item = usize>, history: &H, prep: &Prepared) -> bool {
    fails.into_iter().any(|i| {
        let Some(seg) = prep.failing(i) else {
            return false;
        };
        let (slot, pos) = prep.position[i];
        prep.sessions[slot].1[pos + 1..]
            .iter()
            .any(|&k| history.ok(k) && prep.norms[k].find(&seg.domain, &seg.action).is_some())
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::evidence::Record;
    use crate::learn::history::episodes::{extract, tests::rec};

    #[test]
    fn a_grind_nothing_fixed_has_no_recovery_and_a_late_pass_is_one() {
        let err = "error: could not compile `app`";
        let grind: Vec<Record> = (0..4).map(|_| rec("s1", "cargo build", false, err)).collect();
        let prep = Prepared::new(&grind);
        let eps = extract(&grind, &prep, 10);
        assert!(!eps.is_empty());
        assert!(!any_recovery(eps.iter().map(|e| e.fail_idx), &grind, &prep));
        assert!(!any_recovery(0..4, &grind, &prep));
        // The same session, with the build passing much later (beyond any window).
        let mut late = grind.clone();
        late.extend((0..30).map(|i| rec("s1", &format!("echo step{i}"), true, "")));
        late.push(rec("s1", "cargo build", true, ""));
        let prep = Prepared::new(&late);
        assert!(any_recovery([0], &late, &prep));
    }
}
