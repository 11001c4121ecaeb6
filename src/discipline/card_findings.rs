//! The close guard's findings over the ledger and the evidence index: open cards,
//! deferrals without a reason, closed cards without substantive evidence, citations the
//! sealed log does not corroborate and counts a note states against its cited run.
//!
//! Pure: the ledger and the index are read by the close guard (`close_guard::decide`);
//! `lint` and `status` show the same findings without blocking anything.

use crate::discipline::corroborate::{self, Index};
use crate::discipline::ledger::{self, Card, CardState, Ledger, NoteKind};
use crate::discipline::{prose_cite, stated_counts};

/// How many cards a block lists.
pub const LIST_MAX: usize = 12;

/// Lists open cards with the three legitimate exits.
pub fn open_cards_message(ledger: &Ledger) -> Option<String> {
    let open: Vec<&Card> = ledger.open_cards().collect();
    if open.is_empty() {
        return None;
    }
    let mut s = format!(
        "fable: {} open card(s) in .fable/LEDGER.md (titles quoted from the repository):\n",
        open.len()
    );
    for c in open.iter().take(LIST_MAX) {
        s.push_str(&format!("  - [ ] {}\n", c.label()));
    }
    if open.len() > LIST_MAX {
        s.push_str(&format!("  … and {} more\n", open.len() - LIST_MAX));
    }
    s.push_str(
        "Three legitimate exits:\n  1. finish it, verify it, and mark it `- [x] … -- evidence: <command you ran and its result>`\n  2. defer it: `- [~] … -- deferred: <reason>`\n  3. if the user moved you to unrelated work, add a line `PAUSED: <reason>`\nDo not invent completion.",
    );
    Some(s)
}

/// True when a `- [~]` card says why (at least 3 non-space characters).
pub fn has_deferral_reason(c: &Card) -> bool {
    c.notes_of(NoteKind::Deferred)
        .any(|n| n.body.chars().filter(|ch| !ch.is_whitespace()).count() >= 3)
}

/// Closed cards without a substantive evidence note.
pub fn missing_evidence(ledger: &Ledger) -> Vec<&Card> {
    ledger.done_cards().filter(|c| !c.has_substantive_evidence()).collect()
}

/// Every citation on closed cards that the log does not corroborate, with its message.
pub fn uncorroborated<'a>(ledger: &'a Ledger, index: &Index) -> Vec<(&'a Card, String)> {
    uncorroborated_in(ledger, index, &|_| true, &|_| true)
}

/// [`uncorroborated`] over the closed cards `in_scope` keeps.
///
/// `is_program` says whether a backticked span that no record matches names a program
/// that exists (`program::exists`): when it does not, the span is prose (`add`, `None`).
pub fn uncorroborated_in<'a>(
    ledger: &'a Ledger,
    index: &Index,
    in_scope: &dyn Fn(&Card) -> bool,
    is_program: &dyn Fn(&str) -> bool,
) -> Vec<(&'a Card, String)> {
    let mut out = Vec::new();
    for card in ledger.done_cards().filter(|c| in_scope(c)) {
        for cited in card.citations() {
            let verdict = index.verdict(&cited);
            if verdict == corroborate::Verdict::NeverRan && !is_program(&cited) {
                continue;
            }
            if let Some(msg) = corroborate::explain(&cited, &verdict) {
                out.push((card, msg));
            }
        }
        // A runner named without backticks is checked too; naming one that never ran
        // asks for the command that did.
        for cited in prose_cite::prose_citations(card) {
            let msg = match index.verdict(&cited) {
                corroborate::Verdict::NeverRan => Some(format!(
                    "the note names `{cited}`, but no logged run matches it — cite the command you ran, in backticks, exactly as it ran"
                )),
                v => corroborate::explain(&cited, &v),
            };
            if let Some(msg) = msg {
                out.push((card, msg));
            }
        }
        // Counts a note states must agree with the run it cites (when the run's summary
        // carries them).
        for note in card.notes_of(NoteKind::Evidence) {
            let stated = stated_counts::stated(&note.body);
            if stated.is_empty() {
                continue;
            }
            let spans = ledger::backtick_spans(&note.body).into_iter();
            for span in spans.chain(prose_cite::prose_command(&note.body)) {
                let summary = index.newest(&span).filter(|r| r.passed()).and_then(|r| r.summary);
                if let Some(msg) = summary.and_then(|s| stated_counts::contradiction(&span, &stated, &s)) {
                    out.push((card, msg));
                }
            }
        }
    }
    out
}

/// All commands cited on closed cards.
pub fn all_citations(ledger: &Ledger) -> Vec<String> {
    citations_in(ledger, &|_| true)
}

/// The commands cited on the closed cards `in_scope` keeps.
pub fn citations_in(ledger: &Ledger, in_scope: &dyn Fn(&Card) -> bool) -> Vec<String> {
    let mut v: Vec<String> = ledger
        .done_cards()
        .filter(|c| in_scope(c))
        .flat_map(|c| c.citations().into_iter().chain(prose_cite::prose_citations(c)))
        .collect();
    v.sort();
    v.dedup();
    v
}

/// Every finding that stands in the way of this stop, one section per kind, all at once
/// (a block that names only the first kind sends the agent round the loop once per kind).
/// `in_scope` picks the closed cards to check: those closed this round, when the round's
/// start is known.
pub fn findings(
    ledger: &Ledger,
    index: &Index,
    in_scope: &dyn Fn(&Card) -> bool,
    is_program: &dyn Fn(&str) -> bool,
) -> Vec<String> {
    let mut out = Vec::new();
    if !ledger.is_light() {
        if let Some(m) = open_cards_message(ledger) {
            out.push(m);
        }
        // A deferral is an exit from the open-cards rule only when it says why.
        let bare: Vec<&Card> = ledger
            .cards
            .iter()
            .filter(|c| c.state == CardState::Deferred && !has_deferral_reason(c))
            .collect();
        if !bare.is_empty() {
            let mut s = String::from("fable: deferred card(s) without a reason:\n");
            for c in bare.iter().take(LIST_MAX) {
                s.push_str(&format!("  - [~] {}\n", c.label()));
            }
            s.push_str("Add `-- deferred: <why, and what it waits for>` to each, or reopen it as `- [ ]`.");
            out.push(s);
        }
    }
    let missing: Vec<&Card> = missing_evidence(ledger).into_iter().filter(|c| in_scope(c)).collect();
    if !missing.is_empty() {
        let mut s = String::from("fable: closed card(s) without evidence:\n");
        for c in missing.iter().take(LIST_MAX) {
            s.push_str(&format!("  - [x] {}\n", c.label()));
        }
        s.push_str(
            "Add `-- evidence: <what you ran and what it showed>` to each (e.g. `-- evidence: \\`cargo test\\` -> 42 passed`), or reopen it as `- [ ]`. Adjectives (\"done\", \"works\") are not evidence.",
        );
        out.push(s);
    }
    let bad = uncorroborated_in(ledger, index, in_scope, is_program);
    if !bad.is_empty() {
        let mut s = String::from("fable: cited evidence is not backed by the evidence log:\n");
        for (card, msg) in bad.iter().take(LIST_MAX) {
            s.push_str(&format!("  {}\n    {msg}\n", card.label()));
        }
        s.push_str("A citation must match a logged command exactly, and its newest run must have passed.");
        out.push(s);
    }
    out
}

/// The pure part of the guard over every closed card: all findings as one message.
/// `index` is `None` when there is nothing to corroborate against (an empty index).
pub fn check(ledger: &Ledger, index: Option<&Index>) -> Option<String> {
    let empty = Index::default();
    let f = findings(ledger, index.unwrap_or(&empty), &|_| true, &|_| true);
    (!f.is_empty()).then(|| f.join("\n\n"))
}
