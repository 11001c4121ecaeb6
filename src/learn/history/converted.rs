//! The input converted: a step wrote a new file from the failing command's input, and the
//! retry ran on that file instead.
//!
//! Why its own kind of fix: `iconv … f.csv > f.utf8.csv`, `sed -z … data.json >
//! data.clean.json`, `perl -0pe … > x.clean.json` or a Python one-liner are one lesson
//! ("the input needs converting; convert it and run on the result"), whichever program
//! converted it. Keyed by the step's program they were three fixes of one session each,
//! and each other's competitors.

use crate::learn::history::prepared::Prepared;
use crate::learn::text::command_norm::Segment;

/// [`ran_on_written`] for a recovery's fix steps (record index, segment text), read in
/// their normalised records.
pub fn by_steps<'a>(
    fail: &[String],
    retry: &[String],
    steps: impl Iterator<Item = (usize, &'a str)>,
    prep: &Prepared,
) -> bool {
    // Asked of every recovery: the cheap test first, the steps read only when it holds.
    if fail.len() != retry.len() || fail == retry {
        return false;
    }
    let segs: Vec<&Segment> = steps
        .flat_map(|(idx, text)| prep.norms[idx].segments.iter().filter(move |g| g.text() == text))
        .collect();
    ran_on_written(fail, retry, &segs)
}

/// Whether the retry (`retry` words) ran on a file a step (`steps`) wrote from the
/// failing command's (`fail` words) input: one word changed, the new word a step's `>`
/// target (or one of its operands the failing command did not have), and the old word
/// read by that step (one of its operands, or its `<`).
pub fn ran_on_written(fail: &[String], retry: &[String], steps: &[&Segment]) -> bool {
    if fail.len() != retry.len() {
        return false;
    }
    let mut diff = (1..fail.len()).filter(|&i| fail[i] != retry[i]);
    let (Some(i), None) = (diff.next(), diff.next()) else {
        return false;
    };
    let (old, new) = (&fail[i], &retry[i]);
    steps.iter().any(|g| {
        let pairs = || g.redirects.chunks(2).filter(|p| p.len() == 2);
        let wrote = pairs().any(|p| matches!(p[0].as_str(), ">" | ">>") && p[1] == *new)
            || g.words.iter().skip(1).any(|w| w == new) && !fail.contains(new);
        let read =
            pairs().any(|p| p[0] == "<" && p[1] == *old) || g.words.iter().skip(1).any(|w| w.contains(old.as_str()));
        wrote && read
    })
}
