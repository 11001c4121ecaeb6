//! The generic gate on a short error line (`generic_min_terms` and the specificity test of
//! `learn::matching::specificity`): an anchorless three-term failure text fixed alike in
//! several sessions, firing on its own class only, is specific enough; thinner is still
//! generic. Through the production pipeline, learned rules only.

use fable::learn::{run_pipeline, LearnConfig, LearnOutcome};

#[path = "support/records.rs"]
mod records;
use records::rec;

/// Four sessions run a cargo plugin that is not installed, then what it wrapped.
fn plugin_sessions(text: &str) -> LearnOutcome {
    let mut h = Vec::new();
    for (s, sub) in [("a", "test"), ("b", "check"), ("c", "test"), ("d", "test")] {
        h.push(rec(s, &format!("cargo watch -x {sub}"), false, text));
        h.push(rec(s, &format!("cargo {sub}"), true, "ok"));
    }
    let cfg = LearnConfig {
        packs: Vec::new(),
        ..LearnConfig::default()
    };
    run_pipeline(&h, &cfg)
}

#[test]
fn a_short_error_line_fixed_alike_in_four_sessions_is_specific_enough() {
    // A three-term trigger (here ``no command `watch` ``; in the dev half's history
    // cargo's ``error: no such command: <q>`` counts three) fixed alike by four sessions,
    // none contested, no plain retry, firing on nothing else: specific to its tool. Before
    // the specificity test it stood as generic (under four terms).
    let out = plugin_sessions("no command `watch`");
    let r = &out.candidates[0].rule;
    assert_ne!(r.reason, "generic", "{r:#?}");
    assert_eq!(r.accepted, Some(true), "{r:#?}");
    // A thinner text is still generic: a rule on it would fire on anything saying it.
    let out = plugin_sessions("error: `watch`");
    assert_eq!(out.candidates[0].rule.reason, "generic");
}
