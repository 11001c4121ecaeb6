//! Issue 30: a rule learned from a grind that nothing fixed is not a standing rule.
//! Five sessions each had `git push` rejected three times and never got past it: the
//! pipeline keeps the candidate (accepted, counted) but never promotes it, so SessionStart
//! and the failure hook never show it. One later pass in one supporting session — however
//! long after the failure — is a recovery, and the rule may stand again.

use fable::evidence::Record;
use fable::learn::Rule;
use fable::learn::{run_pipeline, LearnConfig, LearnOutcome};

#[path = "support/records.rs"]
mod records;
use records::rec;

const REJECTED: &str = " ! [rejected] main -> main (non-fast-forward)";

fn pack(o: &LearnOutcome) -> Rule {
    o.candidates
        .iter()
        .find(|l| l.rule.directive_source.as_deref() == Some("pack"))
        .expect("the pack's candidate")
        .rule
        .clone()
}

fn grind() -> Vec<Record> {
    (0..15)
        .map(|i| rec(&format!("g{}", i / 3), "git push", false, REJECTED))
        .collect()
}

#[test]
fn a_grind_nothing_fixed_is_not_a_standing_rule() {
    let out = run_pipeline(&grind(), &LearnConfig::default());
    assert!(!out.candidates.is_empty());
    for l in &out.candidates {
        assert_ne!(l.rule.status, "promoted", "{:#?}", l.rule);
    }
    let p = pack(&out);
    assert_eq!(
        (p.reason.as_str(), p.status.as_str()),
        ("unrecovered", "candidate"),
        "{p:#?}"
    );
}

#[test]
fn a_later_pass_in_one_supporting_session_is_a_recovery() {
    let mut h = grind();
    h.extend((0..20).map(|i| rec("g0", &format!("echo step {i}"), true, "")));
    h.push(rec("g0", "git push", true, "   abc..def  main -> main"));
    let p = pack(&run_pipeline(&h, &LearnConfig::default()));
    assert_ne!(p.reason, "unrecovered", "{p:#?}");
}
