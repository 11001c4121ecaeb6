//! Who a learned lesson stands on: the sessions that found the fix (its sources) and the
//! sessions that met the failure (its recurrence), judged end to end (its own file: the
//! pipeline's tests are at their size limit).

use crate::learn::judge::config::LearnConfig;
use crate::learn::pipeline::run_pipeline;

/// A session that knew the fix counts toward an anchorless failure's recurrence, never as a
/// source of its lesson.
#[test]
fn a_one_shot_recovery_counts_for_recurrence_not_as_a_source() {
    // A failure with no anchor needs three sessions: the extra one shows the text
    // recurs. A session that knew the fix (`stash && retry`) met the same failure, so
    // it counts for recurrence; the lesson still stands on two that found the fix.
    let overwritten = "error: The following untracked working tree files would be overwritten by checkout:\n\tnotes.md\nPlease move or remove them before you switch branches.\nAborting";
    use crate::learn::history::episodes::tests::rec;
    let session = |s: &str, one_shot: bool| {
        let mut v = vec![rec(s, "git checkout topic", false, overwritten)];
        if one_shot {
            v.push(rec(
                s,
                "git stash -u && git checkout topic",
                true,
                "Switched to branch 'topic'",
            ));
        } else {
            v.push(rec(s, "git stash push -u", true, "Saved working directory"));
            v.push(rec(s, "git checkout topic", true, "Switched to branch 'topic'"));
        }
        v
    };
    let history = |shapes: &[bool]| -> Vec<crate::evidence::Record> {
        shapes
            .iter()
            .enumerate()
            .flat_map(|(i, &one_shot)| session(&format!("u{i}"), one_shot))
            .collect()
    };
    let reason = |shapes: &[bool]| {
        let out = run_pipeline(
            &history(shapes),
            &LearnConfig {
                packs: Vec::new(),
                ..LearnConfig::default()
            },
        );
        let fix = &out
            .candidates
            .iter()
            .find(|l| l.rule.directive.contains("git stash"))
            .unwrap();
        assert!(fix.rule.trigger.contains("would be overwritten"), "{:#?}", fix.rule);
        fix.rule.reason.clone()
    };
    assert_eq!(reason(&[false, false, true, true]), "pass");
    // Two sessions only: the text has not recurred enough.
    assert_eq!(reason(&[false, false]), "self_resolved");
    // One session found the fix, three knew it: no lesson stands on one.
    assert_eq!(reason(&[false, true, true, true]), "self_resolved");
}
