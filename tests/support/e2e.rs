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

/// The small Python project the freshness tests change: `calc.py`, a unittest of it, the
/// command that runs it, and the card that cites it.
pub mod calc {
    pub const CALC: &str = "def add(a, b):\n    return a + b\n";
    /// Two tests, so a closed card says "2 passed".
    pub const TEST: &str = "import unittest\nfrom calc import add\n\n\nclass T(unittest.TestCase):\n    def test_add(self):\n        self.assertEqual(add(2, 3), 5)\n\n    def test_zero(self):\n        self.assertEqual(add(0, 0), 0)\n\n\nif __name__ == '__main__':\n    unittest.main()\n";
    pub const RUN: &str = "python3 -m unittest";
    /// The ledger with the one card open.
    pub const OPEN: &str = "# Ledger\n\n- [ ] 1. calc\n";

    /// A Bash step closing the card on [`RUN`], as the agent would.
    pub fn close_card() -> String {
        super::ledger_step(&[&format!("- [x] 1. calc -- evidence: `{RUN}` -> 2 passed")])
    }
}
