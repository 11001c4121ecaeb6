//! The restart the fail streak demands, as a legitimate stop.
//!
//! At six failures the fail streak tells the agent to write `-- tried: …` on its card and
//! restart from a fresh context. A model that obeys ends its turn with the card still open
//! — and in full mode the close guard used to block exactly that stop, three times, until
//! the block limit let it go. This is the exit the demand promised: after a demand
//! (remembered in the session's streak state with the `tried:` notes that existed then), a
//! stop whose open card carries a `tried:` note that is NOT among them is the restart, and
//! the open-cards rule does not hold it; the user is told to start a fresh session, and
//! the next session's SessionStart shows the note ([`crate::discipline::inject`]). The
//! exit is spent once it lets a stop through ([`spend`]).
//!
//! Without a demand a `tried:` note opens nothing (else it would be a free pass out of
//! every open card), nor does a note that was already there when the demand came.

use crate::discipline::fail_streak::fingerprint;
use crate::discipline::ledger::{Card, Ledger, NoteKind};
use crate::session_state::Demand;

/// The open cards carrying a substantive `tried:` note written after `demand`.
pub fn restarted<'a>(ledger: &'a Ledger, demand: Option<&Demand>) -> Vec<&'a Card> {
    let Some(d) = demand else { return Vec::new() };
    ledger
        .open_cards()
        .filter(|c| {
            c.notes_of(NoteKind::Tried)
                .filter(|n| crate::discipline::ledger::is_substantive(&n.body))
                .any(|n| !d.tried.contains(&fingerprint(&n.body)))
        })
        .collect()
}

/// The message to the user when this stop is the restart, `None` when it is not.
pub fn exit_message(ledger: &Ledger, demand: Option<&Demand>) -> Option<String> {
    let cards = restarted(ledger, demand);
    let first = cards.first()?;
    Some(format!(
        "fable: the fail streak asked for a restart and the card has its `-- tried:` note ({}). Start a fresh session (`/clear`, or a new `claude`) to continue: it reads the note from .fable/LEDGER.md instead of this failure-polluted context.",
        crate::hook::printable(&first.label(), 120)
    ))
}

/// The I/O edge for the Stop hook: the session's demand from its streak state.
pub fn exit_for(ledger: &Ledger, fable_dir: &std::path::Path, session: &str) -> Option<String> {
    let sid = crate::session_state::sanitize_sid(session)?;
    let state = crate::session_state::read_streak(fable_dir, &sid)?;
    exit_message(ledger, state.demand.as_ref())
}

/// The restart was let through: the demand is spent (a resumed session, or one the user
/// simply goes on with, meets the open-cards rule again). Best effort.
pub fn spend(fable_dir: &std::path::Path, session: &str) {
    if let Some(sid) = crate::session_state::sanitize_sid(session) {
        let _ = crate::session_state::update_streak(fable_dir, &sid, |s| s.demand = None);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::discipline::ledger::parse;

    const NOTE: &str = "lexer rewrite (same error); unknown: the fixture encoding";

    #[test]
    fn only_a_note_written_after_the_demand_is_the_restart() {
        let with_note = parse(&format!("- [ ] 1. fix the parser\n  -- tried: {NOTE}\n"));
        let demand = Demand {
            tried: vec![],
            key: "cargo test".into(),
        };
        assert!(exit_message(&with_note, Some(&demand)).is_some_and(|m| m.contains("fresh session")));
        // No demand: a note is no pass.
        assert!(exit_message(&with_note, None).is_none());
        // The note already existed when the demand came: not the restart.
        let old = Demand {
            tried: vec![fingerprint(NOTE)],
            key: String::new(),
        };
        assert!(exit_message(&with_note, Some(&old)).is_none());
        // A hollow note, or one on a closed card, opens nothing.
        let hollow = parse("- [ ] 1. fix the parser\n  -- tried: x\n");
        assert!(exit_message(&hollow, Some(&demand)).is_none());
        let closed = parse(&format!("- [x] 1. fix -- evidence: `make` -> ok\n  -- tried: {NOTE}\n"));
        assert!(restarted(&closed, Some(&demand)).is_empty());
    }
}
