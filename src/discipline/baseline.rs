//! The round as it began, against the ledger as it is: the bar the agent cannot lower.
//!
//! The ledger lives in the repository, where the agent can `rm` it, rewrite it without
//! its open cards, hide them in a code fence or an unparsed `* [x]`, pad it past its cap,
//! or `rm -rf .fable`. Judged against the file alone, each of those was a silent allowed
//! stop. The round's baseline is kept outside the repository (`round::Snapshot`, in user
//! state, taken at SessionStart), so at Stop:
//!
//! - an open card that vanished — neither closed nor deferred, just gone — blocks, named;
//! - a ledger or `.fable/` deleted, emptied, unreadable or over its cap blocks, naming the
//!   cards it held;
//! - `PAUSED:`, `MODE: light` or `REPLAY: off` written this round is honoured only as far
//!   as it is an exit (no cards closed this round go unchecked, the round's replay still
//!   runs) and is told to the user; a mass deferral is told.
//!
//! Pure: the close guard reads the files and the snapshot.

use crate::discipline::ledger::{CardState, Ledger};
use crate::discipline::round::Snapshot;

/// A card's identity across edits: its number when it has one ("3." of "3. parser"),
/// else its title with whitespace and case folded.
pub fn card_key(title: &str) -> String {
    let t = title.trim();
    if let Some((num, _)) = t.split_once(['.', ')']) {
        if !num.is_empty() && num.len() <= 6 && num.chars().all(|c| c.is_ascii_digit()) {
            return format!("#{num}");
        }
    }
    t.split_whitespace().collect::<Vec<_>>().join(" ").to_lowercase()
}

/// The titles of the cards that were open when the round began and are no card now.
pub fn vanished(snap: &Snapshot, ledger: &Ledger) -> Vec<String> {
    let now: std::collections::BTreeSet<String> = ledger.cards.iter().map(|c| card_key(&c.title)).collect();
    snap.open
        .iter()
        .filter(|t| !now.contains(&card_key(t)))
        .cloned()
        .collect()
}

/// The titles of cards open at the start and deferred now.
pub fn deferred_this_round(snap: &Snapshot, ledger: &Ledger) -> Vec<String> {
    let was_open: std::collections::BTreeSet<String> = snap.open.iter().map(|t| card_key(t)).collect();
    ledger
        .cards
        .iter()
        .filter(|c| c.state == CardState::Deferred && was_open.contains(&card_key(&c.title)))
        .map(|c| c.title.clone())
        .collect()
}

/// How many cards a message lists (the close guard's number).
const LIST_MAX: usize = 12;

/// How many deferrals in one round are told to the user.
pub const MASS_DEFERRAL: usize = 3;

fn list(titles: &[String]) -> String {
    let mut s = String::new();
    for t in titles.iter().take(LIST_MAX) {
        s.push_str(&format!("  - [ ] {}\n", crate::hook::printable(t, 80)));
    }
    if titles.len() > LIST_MAX {
        s.push_str(&format!("  … and {} more\n", titles.len() - LIST_MAX));
    }
    s
}

/// The finding for open cards that vanished.
pub fn vanished_message(titles: &[String]) -> String {
    format!(
        "fable: {} card(s) open when this session began are gone from .fable/LEDGER.md — neither closed nor deferred:\n{}Put each back and close it with evidence, defer it with `-- deferred: <reason>`, or say why it is void (`- [~] … -- deferred: duplicate of …`). Removing a card is not finishing it.",
        titles.len(),
        list(titles)
    )
}

/// The finding for a ledger (or `.fable/`) that is gone or cannot be read, with `why`.
pub fn missing_message(snap: &Snapshot, why: &str) -> String {
    let mut s = format!("fable: {why}. ");
    if snap.open.is_empty() {
        s.push_str("The round began with this project opted in to fable; ");
    } else {
        s.push_str(&format!(
            "When this session began it held {} open card(s):\n{}",
            snap.open.len(),
            list(&snap.open)
        ));
    }
    s.push_str("Restore it (`git checkout -- .fable/LEDGER.md`, or rewrite it with every card), then close or defer each card. A ledger removed mid-session does not end the round.");
    s
}

/// What a directive written this round changes, told to the user (empty when nothing).
pub fn downgrade_notes(snap: &Snapshot, ledger: &Ledger) -> Vec<String> {
    let mut out = Vec::new();
    if snap.replay && !ledger.replay {
        out.push(
            "fable: `REPLAY: on` was switched off during this session; the round's acceptance replay ran anyway (it was on when the round began)"
                .to_string(),
        );
    }
    let deferred = deferred_this_round(snap, ledger);
    if deferred.len() >= MASS_DEFERRAL {
        out.push(format!(
            "fable: {} card(s) were deferred during this session:\n{}",
            deferred.len(),
            list(&deferred).trim_end()
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::discipline::ledger::parse;

    fn snap(text: &str) -> Snapshot {
        Snapshot::of(&parse(text), "t".into())
    }

    #[test]
    fn a_card_removed_fenced_or_misspelled_has_vanished() {
        let s = snap("- [ ] 1. parser\n- [ ] 2. docs\n");
        assert!(vanished(
            &s,
            &parse("- [x] 1. parser -- evidence: x\n- [~] 2. docs -- deferred: later on\n")
        )
        .is_empty());
        assert_eq!(
            vanished(&s, &parse("- [x] 1. parser -- evidence: x\n")),
            vec!["2. docs"]
        );
        assert_eq!(
            vanished(&s, &parse("```\n- [ ] 1. parser\n- [ ] 2. docs\n```\n")).len(),
            2
        );
        assert_eq!(vanished(&s, &parse("* [x] 1. parser\n- [✓] 2. docs\n")).len(), 2);
        assert_eq!(vanished(&s, &parse("")).len(), 2);
        // A title edited but numbered the same is the same card.
        assert!(vanished(&s, &parse("- [ ] 1. the parser\n- [ ] 2. docs and README\n")).is_empty());
    }

    #[test]
    fn unnumbered_cards_match_by_title() {
        let s = snap("- [ ] fix the parser\n");
        assert!(vanished(&s, &parse("- [ ]   Fix  the parser\n")).is_empty());
        assert_eq!(vanished(&s, &parse("- [ ] something else\n")).len(), 1);
    }

    #[test]
    fn replay_switched_off_and_mass_deferral_are_told() {
        let s = snap("REPLAY: on\n- [ ] 1. a\n- [ ] 2. b\n- [ ] 3. c\n");
        let l = parse("- [~] 1. a -- deferred: later\n- [~] 2. b -- deferred: later\n- [~] 3. c -- deferred: later\n");
        let n = downgrade_notes(&s, &l);
        assert_eq!(n.len(), 2, "{n:?}");
        assert!(n[0].contains("REPLAY") && n[1].contains("3 card(s) were deferred"));
    }
}
