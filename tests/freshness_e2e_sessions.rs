//! Freshness under the real Claude Code CLI, across sessions: a Write edit made in an
//! EARLIER session (after that session's passing run) makes the pass stale for a card
//! closed in the next session. Two real sessions run in one project with the same user
//! state (`Session::next_session`).

mod support;
use support::e2e::calc::{close_card, CALC, RUN, TEST};
use support::e2e::texts;
use support::harness::{available, Session};

#[test]
fn a_write_edit_in_an_earlier_session_makes_its_pass_stale_in_the_next() {
    let Some(claude) = available() else { return };
    // Session 1: a pass, then a Write edit of calc.py; no card, no claim: it may stop.
    let first = Session::new("fresh-sessions-1")
        .file(".fable/LEDGER.md", "# Ledger\n\n- [ ] 1. calc\n")
        .file("calc.py", CALC)
        .file("test_calc.py", TEST);
    let first = first
        .bash(RUN)
        .write("calc.py", "def add(a, b):\n    return a - b\n")
        .bash("printf '%s\\n' '# Ledger' '' 'PAUSED: the user ended the day' '- [ ] 1. calc' > .fable/LEDGER.md")
        .text("Stopping for today.")
        .run(&claude);
    let sent = texts(&first);
    assert_eq!(sent.len(), 4, "session 1 stops at once: {sent:#?}\n{}", first.debug());
    let sid1 = first
        .evidence()
        .iter()
        .find_map(|r| r["session"].as_str().map(str::to_string));
    // Session 2, same project and user state: closes the card on session 1's pass.
    let o = Session::next_session(&first)
        .bash(&close_card())
        .text("All done.")
        .bash("sed -i 's/a - b/a + b/' calc.py")
        .bash(RUN)
        .text("Done after the rerun.")
        .text("SHOULD NOT BE REACHED")
        .run(&claude);
    let sent = texts(&o);
    assert_eq!(sent.len(), 5, "one block, then allowed: {sent:#?}\n{}", o.debug());
    let re = regex::Regex::new(
        r"`python3 -m unittest` passed at \d\d:\d\d:\d\d\.\d\d\d UTC; calc.py changed after it: run it again",
    )
    .unwrap();
    assert!(re.is_match(&sent[2]), "{}", sent[2]);
    let r = o.evidence();
    let sessions: std::collections::BTreeSet<&str> = r.iter().filter_map(|x| x["session"].as_str()).collect();
    assert!(
        sessions.len() >= 2 && sid1.is_some(),
        "two sessions in one log: {sessions:?}"
    );
    assert!(
        r.iter()
            .any(|x| x["session"].as_str() == sid1.as_deref()
                && x["file"].as_str().is_some_and(|f| f.ends_with("/calc.py"))),
        "the Write edit is session 1's: {r:#?}"
    );
}
