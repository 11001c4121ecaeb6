//! A pipeline retried with another of its stages' options changed: `find src -name '*.py'
//! | xargs wc -l` after `… | xargs -0 wc -l` failed, `ls *.log | xargs -I{} mv {} archive/`
//! after `… | xargs mv {} archive/`.
//!
//! Why: a failure's command is read through one segment, the pipeline's first (the steps
//! after it filter what it printed), and a retry is found by that segment. When the change
//! was in a later stage, the failing segment came back word for word and the retry was
//! judged a *plain* retry: a failure that cleared by itself, evidence against every fix of
//! its class. It is not the same command line. When the line is the same pipeline (the
//! same programs in the same order) and what changed in the other stages is options only
//! (flags added or dropped, a value right after a flag added), the change is an options
//! change like any other ([`crate::learn::history::fix_key::OPTIONS`]).

use crate::learn::text::command_norm::CmdNorm;

/// The options the retry line `retry` changed in the stages of the failing line `fail`
/// other than its failing one (`at`): flags added, and `without:<flag>` for flags dropped.
/// `None` unless both are one pipeline of the same programs, the failing stage unchanged,
/// and every other change an option.
pub fn changed_elsewhere(fail: &CmdNorm, retry: &CmdNorm, at: usize) -> Option<Vec<String>> {
    let (f, r) = (&fail.segments, &retry.segments);
    if f.len() < 2 || f.len() != r.len() || f.iter().zip(r).any(|(a, b)| a.program != b.program) {
        return None;
    }
    let mut out = Vec::new();
    for (i, (a, b)) in f.iter().zip(r).enumerate() {
        if a.words == b.words {
            continue;
        }
        if i == at {
            return None;
        }
        out.extend(option_change(&a.words, &b.words)?);
    }
    (!out.is_empty()).then_some(out)
}

/// The words of one stage's change when it is options only: every word the retry added a
/// flag or the value right after an added flag, every word it dropped a flag.
fn option_change(fail: &[String], retry: &[String]) -> Option<Vec<String>> {
    let mut out = Vec::new();
    let mut after_added_flag = false;
    for w in retry {
        if fail.contains(w) {
            after_added_flag = false;
            continue;
        }
        if w.starts_with('-') {
            out.push(w.clone());
            after_added_flag = true;
        } else if after_added_flag {
            after_added_flag = false;
        } else {
            return None;
        }
    }
    for w in fail.iter().filter(|w| !retry.contains(w)) {
        if !w.starts_with('-') {
            return None;
        }
        out.push(format!("without:{w}"));
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::learn::text::command_norm::normalize;

    fn changed(fail: &str, retry: &str) -> Option<Vec<String>> {
        changed_elsewhere(&normalize(fail), &normalize(retry), 0)
    }

    #[test]
    fn another_stages_options_changed() {
        assert_eq!(
            changed(
                "find src -name '*.py' | xargs -0 wc -l",
                "find src -name '*.py' | xargs wc -l"
            ),
            Some(vec!["without:-0".to_string()])
        );
        assert_eq!(
            changed(
                "ls *.log | xargs mv {} archive/",
                "ls *.log | xargs -I{} mv {} archive/"
            ),
            Some(vec!["-I{}".to_string()])
        );
        assert_eq!(
            changed(
                "find . -name '*.csv' | xargs cp {} backup/",
                "find . -name '*.csv' | xargs -I {} cp {} backup/"
            ),
            Some(vec!["-I".to_string()])
        );
    }

    #[test]
    fn anything_else_is_not() {
        // The same line: a plain retry.
        assert_eq!(changed("ls | xargs -0 wc", "ls | xargs -0 wc"), None);
        // An operand of another stage changed: not options.
        assert_eq!(changed("ls | grep foo", "ls | grep bar"), None);
        // Another program in the pipeline.
        assert_eq!(changed("ls | xargs -0 wc", "ls | xargs -0 du"), None);
        // Another shape.
        assert_eq!(changed("ls | xargs -0 wc", "ls | sort | xargs -0 wc"), None);
        // The failing stage changed: the retry's own change, read elsewhere.
        assert_eq!(
            changed("find . -name x | xargs -0 wc", "find . -name x -print0 | xargs -0 wc"),
            None
        );
        // One command, no pipeline.
        assert_eq!(changed("wc -l a", "wc a"), None);
    }
}
