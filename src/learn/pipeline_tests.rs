//! The pipeline's judgement of small histories end to end, where the reason a rule gets
//! depends on stages no single stage's tests see together (its own file: the pipeline's is
//! at its size limit).

use crate::learn::judge::config::LearnConfig;
use crate::learn::pipeline::run_pipeline;

/// Three `gzip -f` cures, one `gzip --force` (blocked), one plain retry: the safe fix is
/// not coincidence, the forced one stays blocked.
#[test]
fn a_cure_done_unsafely_weighs_against_coincidence() {
    let h = crate::learn::propose::fair_contest_tests::gzip_forced_history();
    let out = run_pipeline(&h, &LearnConfig::default());
    let rule = |says: &str| {
        &out.candidates
            .iter()
            .find(|l| l.rule.directive.contains(says))
            .unwrap()
            .rule
    };
    assert_ne!(rule("`-f`").reason, "coincidental", "{:#?}", rule("`-f`"));
    assert_eq!(rule("--force").reason, "blocked_by_safety");
}
