//! Fair contests (issue 34, item 2), through the production pipeline: an unsafe variant of
//! a fix is its own blocked candidate even when it shares the program, action and flags of
//! the safe fix; it neither joins the safe fix's support (and blocks it) nor makes it
//! "contested". And a session whose fix is not in the log (an edit record before an
//! unchanged retry that passed) neither contests a fix nor counts as a plain retry.

use fable::evidence::Record;
use fable::learn::{run_pipeline, LearnConfig, Learned};

const HOOK: &str = "trailing whitespace.\nsrc/app.py:3: trailing whitespace.\n+x = 1   \npre-commit hook failed";

#[path = "support/records.rs"]
mod records;
use records::rec;

/// A session where `git commit` is refused by the pre-commit hook, `fix` runs, and the
/// unchanged commit passes.
fn session(id: &str, fix: &str) -> Vec<Record> {
    vec![
        rec(id, "git commit -m 'add app'", false, HOOK),
        rec(id, fix, true, ""),
        rec(id, "git commit -m 'add app'", true, "[main 1a2b3c4] add app"),
    ]
}

fn with_support_from<'a>(out: &'a [Learned], prefix: &str) -> Vec<&'a Learned> {
    out.iter()
        .filter(|l| l.support_refs.iter().any(|r| r.session.starts_with(prefix)))
        .collect()
}

#[test]
fn an_unsafe_variant_with_the_same_program_and_flags_is_its_own_blocked_candidate() {
    // Safe: point the hooks at the project's own hooks directory. Unsafe: point them at
    // /dev/null (no hook runs). Both are `git config core.hooksPath <value>`: the same
    // program, action and (no) flags; only the safety gate tells them apart.
    let mut h = Vec::new();
    for i in 0..4 {
        h.extend(session(&format!("safe{i}"), "git config core.hooksPath .githooks"));
    }
    for i in 0..2 {
        h.extend(session(&format!("unsafe{i}"), "git config core.hooksPath /dev/null"));
    }
    let out = run_pipeline(&h, &LearnConfig::default()).candidates;
    let unsafe_ones = with_support_from(&out, "unsafe");
    assert!(!unsafe_ones.is_empty(), "{out:#?}");
    for l in &unsafe_ones {
        assert_eq!(l.rule.reason, "blocked_by_safety", "{:#?}", l.rule);
        assert_eq!(l.rule.status, "blocked");
        assert!(l.support_refs.iter().all(|r| r.session.starts_with("unsafe")));
    }
    let safe = with_support_from(&out, "safe");
    let fix = safe
        .iter()
        .find(|l| l.rule.directive.contains(".githooks"))
        .unwrap_or_else(|| panic!("a safe candidate: {out:#?}"));
    assert_eq!(fix.support_refs.len(), 4, "{:#?}", fix.rule);
    assert!(fix.support_refs.iter().all(|r| r.session.starts_with("safe")));
    assert!(
        !matches!(fix.rule.reason.as_str(), "contested" | "blocked_by_safety"),
        "{:#?}",
        fix.rule
    );
    assert_eq!(fix.rule.safety, None);
    assert_eq!(fix.rule.accepted, Some(true), "{:#?}", fix.rule);
}

#[test]
fn a_fix_made_by_an_unlogged_edit_does_not_outvote_the_logged_fix() {
    // Three sessions fix the hook's complaint with a logged `sed`; three more edit the file
    // with the Edit tool (an edit record: a file, no command) and commit unchanged. Before,
    // those three counted as plain retries against the `sed` fix (3 of 6 < 0.75: "coincidental").
    let mut h = Vec::new();
    for i in 0..3 {
        h.extend(session(&format!("sed{i}"), "sed -i 's/[ \\t]*$//' src/app.py"));
    }
    for i in 0..3 {
        let id = format!("edit{i}");
        h.push(rec(&id, "git commit -m 'add app'", false, HOOK));
        h.push(Record {
            file: Some("/w/src/app.py".into()),
            ..rec(&id, "", true, "")
        });
        h.push(rec(&id, "git commit -m 'add app'", true, "[main 1a2b3c4] add app"));
    }
    let out = run_pipeline(&h, &LearnConfig::default()).candidates;
    let sed = out
        .iter()
        .find(|l| l.rule.directive.contains("sed"))
        .unwrap_or_else(|| panic!("{out:#?}"));
    assert_ne!(sed.rule.reason, "coincidental", "{:#?}", sed.rule);
    assert_ne!(sed.rule.reason, "contested", "{:#?}", sed.rule);
    assert!(sed.support_refs.iter().all(|r| r.session.starts_with("sed")));
}
