//! Counts a note or a final message states ("12 passed", "Ran 12 tests", "21/21", "all
//! twelve tests pass", "no failures") against what the run printed.
//!
//! A card claiming "12 passed" was accepted when the logged run showed 3, and the same
//! count said another way (`Ran 12 tests, OK (12/12 green)`, `all twelve tests pass`) was
//! not read at all. Every common phrasing of a count is read here, so the wording an agent
//! picks decides nothing: the run's own summary does. A count the summary does not carry,
//! or a run whose format is unknown, changes nothing: only a contradiction blocks.
//!
//! Descriptions are not counts: "fixed the 2 failing tests" and "2 failures fixed" describe
//! work, "3 tests added" states no result. Hand-written rather than a regex: the close
//! guard reads every cited card's note, and compiling a case-insensitive Unicode pattern
//! cost more than the rest of its decision.

use crate::evidence::summary::Summary;

/// Which count a text states.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Count {
    Passed,
    Failed,
    Skipped,
    Errors,
    /// Tests run in all ("Ran 12 tests", the `12` of `3/12`).
    Total,
}

impl Count {
    fn name(self) -> &'static str {
        match self {
            Count::Passed => "passed",
            Count::Failed => "failed",
            Count::Skipped => "skipped",
            Count::Errors => "errors",
            Count::Total => "tests run",
        }
    }

    fn of(self, s: &Summary) -> Option<u64> {
        match self {
            Count::Passed => s.passed,
            Count::Failed => s.failed,
            Count::Skipped => s.skipped,
            Count::Errors => s.errors,
            // Only when the format counts passes: a total without them would be a guess.
            Count::Total => s
                .passed
                .map(|p| p + s.failed.unwrap_or(0) + s.skipped.unwrap_or(0) + s.errors.unwrap_or(0)),
        }
    }
}

/// The words a count may be stated with, and the count each names.
const WORDS: &[(&str, Count)] = &[
    ("passed", Count::Passed),
    ("passing", Count::Passed),
    ("pass", Count::Passed),
    ("ok", Count::Passed),
    ("green", Count::Passed),
    ("succeeded", Count::Passed),
    ("failed", Count::Failed),
    ("failing", Count::Failed),
    ("failures", Count::Failed),
    ("failure", Count::Failed),
    ("fail", Count::Failed),
    ("skipped", Count::Skipped),
    ("ignored", Count::Skipped),
    ("errors", Count::Errors),
    ("error", Count::Errors),
];

/// Nouns that may stand between a number and its count word ("12 unit tests passed").
const NOUNS: &[&str] = &[
    "test",
    "tests",
    "unit",
    "integration",
    "spec",
    "specs",
    "case",
    "cases",
    "example",
    "examples",
    "check",
    "checks",
    "of",
    "the",
    "them",
    "new",
    "existing",
    "all",
];

/// A word before a count that makes it a description of work, not a result.
const FIX_VERBS: &[&str] = &[
    "fixed",
    "fix",
    "fixes",
    "fixing",
    "resolved",
    "resolves",
    "addressed",
    "repaired",
    "remaining",
    "remove",
    "removed",
    "was",
    "were",
    "had",
    "previously",
];

/// Number words up to ninety-nine (and "hundred"), for "all twelve tests pass".
fn number_word(w: &str) -> Option<u64> {
    const ONES: [&str; 20] = [
        "zero",
        "one",
        "two",
        "three",
        "four",
        "five",
        "six",
        "seven",
        "eight",
        "nine",
        "ten",
        "eleven",
        "twelve",
        "thirteen",
        "fourteen",
        "fifteen",
        "sixteen",
        "seventeen",
        "eighteen",
        "nineteen",
    ];
    const TENS: [&str; 8] = [
        "twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety",
    ];
    if let Some(i) = ONES.iter().position(|o| *o == w) {
        return Some(i as u64);
    }
    if w == "hundred" {
        return Some(100);
    }
    let (tens, ones) = w.split_once('-').unwrap_or((w, ""));
    let t = TENS.iter().position(|x| *x == tens)? as u64 * 10 + 20;
    if ones.is_empty() {
        return Some(t);
    }
    let o = ONES.iter().position(|x| *x == ones).filter(|i| (1..10).contains(i))? as u64;
    Some(t + o)
}

/// One token of prose: a lower-cased word, a number, or a `N/M` fraction.
#[derive(Debug, Clone, PartialEq)]
enum Tok {
    Word(String),
    Num(u64),
    Frac(u64, u64),
}

/// Prose outside backticks as tokens; number words become numbers ("twenty one" too).
fn tokens(text: &str) -> Vec<Tok> {
    let prose: String = text.split('`').step_by(2).collect::<Vec<_>>().join(" ");
    let mut out: Vec<Tok> = Vec::new();
    for raw in prose.split(|c: char| !(c.is_alphanumeric() || c == '/' || c == '-' || c == '\'')) {
        let w = raw
            .trim_matches(|c: char| c == '-' || c == '/' || c == '\'')
            .to_lowercase();
        if w.is_empty() {
            continue;
        }
        if let Some((a, b)) = w.split_once('/') {
            match (a.parse::<u64>(), b.parse::<u64>()) {
                (Ok(a), Ok(b)) if a.to_string().len() <= 9 && b.to_string().len() <= 9 => out.push(Tok::Frac(a, b)),
                _ => out.push(Tok::Word(w)),
            }
            continue;
        }
        if w.chars().all(|c| c.is_ascii_digit()) {
            match w.parse::<u64>() {
                Ok(n) if w.len() <= 9 => out.push(Tok::Num(n)),
                _ => out.push(Tok::Word(w)),
            }
            continue;
        }
        if let Some(n) = number_word(&w) {
            // "twenty one": a tens word then a ones word is one number.
            if let Some(Tok::Num(prev)) = out.last_mut() {
                if *prev >= 20 && *prev % 10 == 0 && *prev < 100 && (1..10).contains(&n) {
                    *prev += n;
                    continue;
                }
            }
            out.push(Tok::Num(n));
            continue;
        }
        out.push(Tok::Word(w));
    }
    out
}

fn word(t: Option<&Tok>) -> Option<&str> {
    match t {
        Some(Tok::Word(w)) => Some(w.as_str()),
        _ => None,
    }
}

fn count_word(w: &str) -> Option<Count> {
    WORDS.iter().find(|(x, _)| *x == w).map(|(_, c)| *c)
}

/// The counts a text states, outside backticks, in order.
pub fn stated(note: &str) -> Vec<(Count, u64)> {
    let toks = tokens(note);
    let mut out = Vec::new();
    let mut i = 0;
    while i < toks.len() {
        let prev = if i > 0 { word(toks.get(i - 1)) } else { None };
        let described = prev.is_some_and(|p| FIX_VERBS.contains(&p));
        match &toks[i] {
            // "Ran 12 tests"
            Tok::Word(w) if w == "ran" => {
                if let (Some(Tok::Num(n)), Some(t)) = (toks.get(i + 1), word(toks.get(i + 2))) {
                    if t == "test" || t == "tests" {
                        out.push((Count::Total, *n));
                        i += 3;
                        continue;
                    }
                }
            }
            // "no failures", "zero errors" (zero is already a number)
            Tok::Word(w) if w == "no" => {
                if let Some(c) = word(toks.get(i + 1)).and_then(count_word) {
                    if matches!(c, Count::Failed | Count::Errors) {
                        out.push((c, 0));
                        i += 2;
                        continue;
                    }
                }
            }
            // "21/21", "12/12 green", "3/12 passed": a fraction is a count only when it is
            // whole or followed by a count word ("step 2/5" is not a result).
            Tok::Frac(a, b) if !described => {
                let next = word(toks.get(i + 1));
                let worded = next.is_some_and(|w| {
                    count_word(w) == Some(Count::Passed) || matches!(w, "tests" | "test" | "specs" | "checks")
                });
                if (a == b && *b > 0) || worded {
                    out.push((Count::Passed, *a));
                    out.push((Count::Total, *b));
                }
            }
            Tok::Num(n) if !described => {
                // "12 of 12 tests pass"
                if word(toks.get(i + 1)) == Some("of") {
                    if let Some(Tok::Num(m)) = toks.get(i + 2) {
                        let mut j = i + 3;
                        while word(toks.get(j)).is_some_and(|w| NOUNS.contains(&w)) {
                            j += 1;
                        }
                        if word(toks.get(j)).and_then(count_word) == Some(Count::Passed) {
                            out.push((Count::Passed, *n));
                            out.push((Count::Total, *m));
                            i = j + 1;
                            continue;
                        }
                    }
                }
                // "12 passed", "3 unit tests failed", "all 21 tests pass"
                let mut j = i + 1;
                while j < i + 4 && word(toks.get(j)).is_some_and(|w| NOUNS.contains(&w) && w != "of") {
                    j += 1;
                }
                if let Some(c) = word(toks.get(j)).and_then(count_word) {
                    // "2 failing tests", "12 passing specs": an adjective describing tests.
                    // "2 failures fixed": work done, not a result.
                    let adjective = word(toks.get(j + 1)).is_some_and(|w| {
                        matches!(w, "test" | "tests" | "spec" | "specs" | "case" | "cases") || FIX_VERBS.contains(&w)
                    });
                    if !adjective {
                        out.push((c, *n));
                        i = j + 1;
                        continue;
                    }
                }
            }
            _ => {}
        }
        i += 1;
    }
    out
}

/// True when the stated counts say the run succeeded: some passed, or none failed.
pub fn states_success(stated: &[(Count, u64)]) -> bool {
    let failed = stated
        .iter()
        .any(|(c, n)| matches!(c, Count::Failed | Count::Errors) && *n > 0);
    !failed && !stated.is_empty()
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

/// True when the summary carries every stated count it can and none disagrees, and it
/// carries at least one of them.
pub fn agrees(stated: &[(Count, u64)], summary: &Summary) -> bool {
    let mut carried = false;
    for (kind, n) in stated {
        match kind.of(summary) {
            Some(shown) if shown != *n => return false,
            Some(_) => carried = true,
            None => {}
        }
    }
    carried
}

/// Whether any stated count can be checked against the summary.
pub fn carries_any(stated: &[(Count, u64)], summary: &Summary) -> bool {
    stated.iter().any(|(k, _)| k.of(summary).is_some())
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
    fn other_phrasings_of_a_count() {
        assert_eq!(
            stated("Ran 12 tests, OK (12/12 green)"),
            vec![(Count::Total, 12), (Count::Passed, 12), (Count::Total, 12)]
        );
        assert_eq!(stated("all twelve tests pass"), vec![(Count::Passed, 12)]);
        assert_eq!(stated("all twenty one tests pass"), vec![(Count::Passed, 21)]);
        assert_eq!(stated("all twenty-one tests pass"), vec![(Count::Passed, 21)]);
        assert_eq!(stated("21/21"), vec![(Count::Passed, 21), (Count::Total, 21)]);
        assert_eq!(stated("no failures"), vec![(Count::Failed, 0)]);
        assert_eq!(stated("0 failures"), vec![(Count::Failed, 0)]);
        assert_eq!(
            stated("12 of 12 tests pass"),
            vec![(Count::Passed, 12), (Count::Total, 12)]
        );
        assert_eq!(stated("12 unit tests passed"), vec![(Count::Passed, 12)]);
    }

    #[test]
    fn descriptions_are_not_counts() {
        for t in [
            "fixed the 2 failing tests",
            "2 failures fixed by the new parser",
            "fixed 2 failures in the parser",
            "3 tests added for the tokenizer",
            "step 2/5 of the migration",
            "phase 1/3",
            "2 tests were failing before the change",
        ] {
            assert!(stated(t).is_empty(), "{t}: {:?}", stated(t));
        }
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
        assert!(contradiction("pytest", &[(Count::Total, 12)], &s).is_some());
        assert!(agrees(&[(Count::Total, 3)], &s));
        assert!(!agrees(&[(Count::Skipped, 3)], &s), "nothing carried: no agreement");
    }
}
