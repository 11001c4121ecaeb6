//! Which spelling a learned rule says, through the whole pipeline: of two spellings of one
//! lesson (both accepted on the same sessions, one folded as `same_lesson`), the one more
//! sessions wrote stands. (Its own file: the pipeline's tests are at their size limit.)

use crate::learn::history::episodes::tests::rec;
use crate::learn::judge::config::LearnConfig;
use crate::learn::pipeline::run_pipeline;

/// `-o f`, `--output f` and `--output=f` (three sessions, one fix key) against `-of` (one
/// session): one option given a value, so both spellings stand on all four sessions and
/// one is folded. Before, the tie went to the fix key's name and the one session's
/// `-opage.html` was said; now the spelling three sessions wrote is.
#[test]
fn of_two_spellings_of_one_lesson_the_more_common_is_said() {
    let says = "render: error: no output file given (use --output)";
    let mut h = Vec::new();
    for (s, fix) in [
        ("a", "render page.md -o page.html"),
        ("b", "render page.md --output page.html"),
        ("c", "render --output=page.html page.md"),
        ("d", "render page.md -opage.html"),
    ] {
        h.push(rec(s, "render page.md", false, says));
        h.push(rec(s, fix, true, ""));
    }
    let out = run_pipeline(&h, &LearnConfig::default());
    let accepted: Vec<&str> = out
        .candidates
        .iter()
        .filter(|l| l.rule.accepted == Some(true))
        .map(|l| l.rule.directive.as_str())
        .collect();
    assert_eq!(accepted.len(), 1, "{:#?}", out.candidates);
    assert!(accepted[0].contains("--output <file>"), "{accepted:?}");
    let folded = out.candidates.iter().find(|l| l.rule.reason == "same_lesson");
    assert!(
        folded.is_some_and(|l| l.rule.directive.contains("-opage.html")),
        "{:#?}",
        out.candidates
    );
}
