//! Counts an evidence note states ("12 passed", "0 failed") against what the run printed.
//!
//! A card claiming "12 passed" was accepted when the logged run showed 3. When the note
//! states a count and the newest record of the cited command carries a recognised
//! summary (`evidence::summary`) with that count, the two must agree. A count the summary
//! does not carry, or a run whose format is unknown, changes nothing: only a
//! contradiction blocks.

use crate::evidence::summary::Summary;

/// Which count a note states.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Count {
    Passed,
    Failed,
    Skipped,
    Errors,
}

impl Count {
    fn name(self) -> &'static str {
        match self {
            Count::Passed => "passed",
            Count::Failed => "failed",
            Count::Skipped => "skipped",
            Count::Errors => "errors",
        }
    }

    fn of(self, s: &Summary) -> Option<u64> {
        match self {
            Count::Passed => s.passed,
            Count::Failed => s.failed,
            Count::Skipped => s.skipped,
            Count::Errors => s.errors,
        }
    }
}

/// The words a count may be stated with, in the order tried (a longer form before its
/// prefix), and the count each names.
const WORDS: [(&str, Count); 11] = [
    ("passed", Count::Passed),
    ("passing", Count::Passed),
    ("pass", Count::Passed),
    ("failed", Count::Failed),
    ("failing", Count::Failed),
    ("failures", Count::Failed),
    ("failure", Count::Failed),
    ("skipped", Count::Skipped),
    ("ignored", Count::Skipped),
    ("errors", Count::Errors),
    ("error", Count::Errors),
];

fn is_word(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// `s` after one or more whitespace characters at its start, if it has any.
fn after_space(s: &str) -> Option<&str> {
    let rest = s.trim_start();
    (rest.len() < s.len()).then_some(rest)
}

/// The count word `s` starts with (any case), ending at a word boundary, and the rest.
fn count_word(s: &str) -> Option<(Count, &str)> {
    WORDS.iter().find_map(|(w, kind)| {
        let head = s.get(..w.len())?;
        let rest = &s[w.len()..];
        (head.eq_ignore_ascii_case(w) && !rest.chars().next().is_some_and(is_word)).then_some((*kind, rest))
    })
}

/// The counts a note states, outside backticks, in order: a number of at most nine digits
/// standing alone, whitespace, an optional `test`/`tests`, and a count word ("12 passed",
/// "3 tests failed", "1 skipped"). Hand-written rather than a regex: the close guard reads
/// every cited card's note, and compiling a case-insensitive Unicode pattern cost more
/// than the rest of its decision.
pub fn stated(note: &str) -> Vec<(Count, u64)> {
    // Backticked spans are commands, not claims.
    let prose: String = note.split('`').step_by(2).collect::<Vec<_>>().join(" ");
    let mut out = Vec::new();
    let mut at = 0;
    while let Some(off) = prose[at..].find(|c: char| c.is_ascii_digit()) {
        let start = at + off;
        let digits = prose[start..]
            .find(|c: char| !c.is_ascii_digit())
            .map_or(prose.len(), |n| start + n);
        at = digits;
        let alone = !prose[..start].chars().next_back().is_some_and(is_word);
        if !alone || digits - start > 9 {
            continue;
        }
        let Some(mut rest) = after_space(&prose[digits..]) else {
            continue;
        };
        for t in ["tests", "test"] {
            if let Some(r) = rest
                .get(..t.len())
                .filter(|h| h.eq_ignore_ascii_case(t))
                .and_then(|_| after_space(&rest[t.len()..]))
            {
                rest = r;
                break;
            }
        }
        if let (Some((kind, tail)), Ok(n)) = (count_word(rest), prose[start..digits].parse()) {
            out.push((kind, n));
            at = prose.len() - tail.len();
        }
    }
    out
}

/// The first stated count the summary contradicts, as a message.
pub fn contradiction(cited: &str, stated: &[(Count, u64)], summary: &Summary) -> Option<String> {
    stated.iter().find_map(|(kind, n)| {
        let shown = kind.of(summary)?;
        (shown != *n).then(|| {
            format!(
                "the note says {n} {}, but the newest run of `{cited}` shows {shown} {} — state what the run showed, or run it again",
                kind.name(),
                kind.name()
            )
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_outside_backticks_are_read() {
        assert_eq!(
            stated("`cargo test` -> 12 passed, 0 failed"),
            vec![(Count::Passed, 12), (Count::Failed, 0)]
        );
        assert_eq!(
            stated("`pytest -q` → 3 tests passed; 1 skipped"),
            vec![(Count::Passed, 3), (Count::Skipped, 1)]
        );
        assert!(stated("`make test 12 passed` ran").is_empty());
        assert!(stated("screenshot shows the header").is_empty());
        assert_eq!(
            stated("12 Passed, 2 FAILURES and 1 error; 4 tests ignored"),
            vec![
                (Count::Passed, 12),
                (Count::Failed, 2),
                (Count::Errors, 1),
                (Count::Skipped, 4)
            ]
        );
        // Not a count: part of a word or a longer number, no space, or another word.
        assert!(stated("v2 passed").is_empty());
        assert!(stated("1234567890 passed").is_empty());
        assert!(stated("12passed").is_empty());
        assert!(stated("3 passes, 4 errorless").is_empty());
        assert!(stated("3 tests").is_empty());
        assert_eq!(stated("3 test passed"), vec![(Count::Passed, 3)]);
    }

    #[test]
    fn only_a_contradiction_counts() {
        let s = Summary {
            passed: Some(3),
            failed: Some(0),
            skipped: None,
            errors: None,
        };
        assert!(contradiction("pytest", &[(Count::Passed, 3), (Count::Failed, 0)], &s).is_none());
        assert!(
            contradiction("pytest", &[(Count::Skipped, 9)], &s).is_none(),
            "not carried: no claim checked"
        );
        let m = contradiction("pytest", &[(Count::Passed, 12)], &s).unwrap();
        assert!(m.contains("12 passed") && m.contains("shows 3 passed"), "{m}");
    }
}
