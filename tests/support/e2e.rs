//! What the end-to-end tests read back from a session, in one place: the texts sent to
//! the model, the CLI's final output, whether a Stop block said something, and the Bash
//! step that writes the ledger as an agent would.

#![allow(dead_code)]

use super::harness::Outcome;

/// The new user content of each main-loop request, in order (a Stop block is the next).
pub fn texts(o: &Outcome) -> Vec<String> {
    o.main_requests().iter().map(Outcome::sent_text).collect()
}

/// What the CLI printed as its result.
pub fn result(o: &Outcome) -> String {
    std::fs::read_to_string(o.out.join("claude.stdout")).unwrap_or_default()
}

/// True when a Stop block fable sent back to the model says `needle`.
pub fn blocked_with(o: &Outcome, needle: &str) -> bool {
    texts(o)
        .iter()
        .any(|t| t.contains("Stop hook feedback") && t.contains(needle))
}

/// A Bash step writing the ledger with `lines` (one card per line), as the agent would.
pub fn ledger_step(lines: &[&str]) -> String {
    let quoted: Vec<String> = ["# Ledger", ""]
        .iter()
        .chain(lines)
        .map(|l| shell_words::quote(l).into_owned())
        .collect();
    format!("printf '%s\\n' {} > .fable/LEDGER.md", quoted.join(" "))
}
