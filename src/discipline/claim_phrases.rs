//! Claims of success in prose, in the words agents really use.
//!
//! A phrase list misses the next wording ("the suite is green", "all twelve tests pass",
//! "Ran 12 tests, OK"), so a claim is found by its parts instead: a **subject** (tests, the
//! suite, the build, lint, clippy, a backticked runner) followed closely by a **success
//! predicate** (pass, green, clean, succeeds, compiles) in the same clause, or a stated
//! count that says a run succeeded ("12 passed", "21/21", "no failures"). What makes the
//! same words a plan, a condition, a question or a negation is checked per clause:
//! "once the tests pass", "make sure all tests pass", "not all tests pass yet", "do the
//! tests pass?" and "keeps the existing tests passing" claim nothing.
//!
//! The corpus in `tests/data/claims/phrases.tsv` (claims, non-claims, near-misses) is the
//! contract; `tests/claim_phrases.rs` counts false positives and misses.

use crate::discipline::claims::Kind;
use crate::discipline::stated_counts::{self, Count};

/// A success claim found in a text.
#[derive(Debug, Clone, PartialEq)]
pub struct Claim {
    pub kind: Kind,
    /// The words that make the claim, as written (for messages).
    pub phrase: String,
    /// The counts the text states ("12 passed", "Ran 12 tests"), to agree with the run.
    pub counts: Vec<(Count, u64)>,
}

/// Words that name what a claim is about.
fn subject(w: &str) -> Option<Kind> {
    Some(match w {
        "tests" | "test" | "suite" | "suites" | "specs" | "spec" | "unittests" | "testsuite" | "everything"
        | "checks" | "ci" | "pytest" | "jest" | "vitest" | "unittest" | "rspec" => Kind::Tests,
        "build" | "builds" | "compilation" | "compile" | "code" | "crate" | "project" | "workspace" | "binary" => {
            Kind::Build
        }
        "lint" | "linter" | "linting" | "lints" | "clippy" | "eslint" | "ruff" | "mypy" | "flake8" | "pylint"
        | "typecheck" | "type-check" | "types" | "fmt" | "rustfmt" | "formatting" | "shellcheck" => Kind::Lint,
        _ => return None,
    })
}

/// Predicates that state success, and whether they need a subject before them.
fn success(w: &str) -> bool {
    matches!(
        w,
        "pass"
            | "passes"
            | "passed"
            | "passing"
            | "green"
            | "clean"
            | "cleanly"
            | "succeed"
            | "succeeds"
            | "succeeded"
            | "successful"
            | "compiles"
            | "builds"
            | "ok"
            | "type-checks"
            | "typechecks"
            | "warning-free"
    )
}

/// Filler that may stand between a subject and its predicate ("tests are all passing now").
fn filler(w: &str) -> bool {
    matches!(
        w,
        "is" | "are"
            | "was"
            | "were"
            | "all"
            | "now"
            | "still"
            | "again"
            | "fully"
            | "also"
            | "both"
            | "completely"
            | "successfully"
            | "and"
            | "the"
            | "entire"
            | "whole"
            | "full"
            | "suite"
            | "unit"
            | "integration"
            | "new"
            | "existing"
            | "every"
            | "each"
            | "single"
            | "test"
            | "tests"
            | "run"
            | "runs"
            | "'s"
    )
}

/// Words that negate what follows in their clause.
fn negator(w: &str) -> bool {
    matches!(
        w,
        "not"
            | "no"
            | "never"
            | "none"
            | "nothing"
            | "neither"
            | "nor"
            | "cannot"
            | "without"
            | "fail"
            | "fails"
            | "failed"
            | "failing"
            | "broken"
    ) || w.ends_with("n't")
}

/// Words that make a following claim a plan, a condition, a wish or a description of
/// what code keeps doing.
fn conditional(w: &str) -> bool {
    matches!(
        w,
        "if" | "once"
            | "until"
            | "when"
            | "whether"
            | "unless"
            | "make"
            | "making"
            | "ensure"
            | "ensures"
            | "so"
            | "to"
            | "should"
            | "will"
            | "would"
            | "might"
            | "may"
            | "could"
            | "can"
            | "must"
            | "verify"
            | "check"
            | "confirm"
            | "keep"
            | "keeps"
            | "keeping"
            | "kept"
            | "expect"
            | "expected"
            | "need"
            | "needs"
            | "want"
            | "hope"
            | "try"
            | "trying"
            | "after"
            | "before"
            | "let's"
            | "whenever"
            | "see"
            | "supposed"
            | "let"
            | "get"
            | "got"
            | "getting"
    )
}

/// Splits a text into clauses: sentence ends, semicolons, line breaks and "but".
fn clauses(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = 0;
    let b = text.as_bytes();
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        let end_here = match c {
            b'\n' | b';' => true,
            // A full stop ends a sentence only before a space or the end ("0.11s" stays).
            b'.' | b'!' | b'?' => i + 1 >= b.len() || b[i + 1].is_ascii_whitespace(),
            _ => false,
        };
        if end_here {
            // Keep a question mark with its clause: a question claims nothing.
            let to = if c == b'?' { i + 1 } else { i };
            out.push(&text[start..to]);
            start = i + 1;
        }
        i += 1;
    }
    out.push(&text[start..]);
    out.into_iter()
        .flat_map(|c| c.split(" but "))
        .flat_map(|c| c.split(" and "))
        .filter(|c| !c.trim().is_empty())
        .collect()
}

/// Lower-cased words of a clause; a backticked runner command becomes one subject word.
fn words(clause: &str) -> Vec<String> {
    let mut out = Vec::new();
    for (i, part) in clause.split('`').enumerate() {
        if i % 2 == 1 {
            let kind = crate::discipline::claims::runner_kind(
                crate::evidence::command_key::strip_cd(part.trim()).map_or(part.trim(), |(_, r)| r),
            );
            out.push(match kind {
                Some(Kind::Tests) => "tests".to_string(),
                Some(Kind::Build) => "build".to_string(),
                Some(Kind::Lint) => "lint".to_string(),
                None => "`code`".to_string(),
            });
            continue;
        }
        for w in part.split(|c: char| !(c.is_alphanumeric() || c == '\'' || c == '-' || c == '’')) {
            let w = w
                .trim_matches(|c| c == '\'' || c == '-' || c == '’')
                .to_lowercase()
                .replace('’', "'");
            if !w.is_empty() {
                out.push(w);
            }
        }
    }
    out
}

/// The first subject-and-predicate claim in one clause, as (kind, subject index, predicate index).
fn in_clause(ws: &[String]) -> Option<(Kind, usize, usize)> {
    for (i, w) in ws.iter().enumerate() {
        let Some(mut kind) = subject(w) else { continue };
        // The predicate: within a few filler words after the subject.
        let mut j = i + 1;
        while j < ws.len() && j <= i + 5 && (filler(&ws[j]) || ws[j].chars().all(|c| c.is_ascii_digit())) {
            j += 1;
        }
        let Some(p) = ws.get(j) else { continue };
        if !success(p) {
            continue;
        }
        // "the code compiles", "it builds": the predicate names the kind.
        if matches!(p.as_str(), "compiles" | "builds") {
            kind = Kind::Build;
        }
        if matches!(p.as_str(), "type-checks" | "typechecks") {
            kind = Kind::Lint;
        }
        // A negation anywhere before the predicate in this clause, or a plan or condition
        // shortly before the subject, makes it no claim.
        let before = &ws[..i];
        if ws[..j].iter().any(|w| negator(w)) {
            continue;
        }
        if before.iter().rev().take(6).any(|w| conditional(w)) {
            continue;
        }
        // "passing yet", "pass locally?" — the clause's own tail may still negate.
        // A past state ("was green before my change") is no claim about the code now.
        let tail: Vec<&str> = ws[j + 1..].iter().take(3).map(String::as_str).collect();
        if tail
            .iter()
            .any(|w| matches!(*w, "yet" | "before" | "earlier" | "previously" | "yesterday") || negator(w))
        {
            continue;
        }
        // "the test passes a value to add()": a verb with an object, not a result.
        if matches!(p.as_str(), "pass" | "passes" | "passed" | "passing")
            && tail.first().is_some_and(|w| {
                matches!(
                    *w,
                    "a" | "an"
                        | "the"
                        | "this"
                        | "that"
                        | "these"
                        | "those"
                        | "its"
                        | "their"
                        | "it"
                        | "them"
                        | "through"
                        | "along"
                )
            })
        {
            continue;
        }
        return Some((kind, i, j));
    }
    // "compiles cleanly", "builds cleanly" with a pronoun subject ("it compiles").
    for (j, w) in ws.iter().enumerate() {
        if matches!(w.as_str(), "compiles" | "type-checks" | "typechecks")
            && !ws[..j].iter().any(|w| negator(w) || conditional(w))
        {
            let kind = if w == "compiles" { Kind::Build } else { Kind::Lint };
            return Some((kind, j, j));
        }
    }
    None
}

/// The success claim in `text` that asks the most (tests over a build over lint), with
/// every count the text states.
pub fn find(text: &str) -> Option<Claim> {
    find_all(text).into_iter().next()
}

/// Every kind of success `text` claims, tests first, then a build, then lint; the stated
/// counts go with the first.
pub fn find_all(text: &str) -> Vec<Claim> {
    let mut found: Vec<(Kind, String)> = Vec::new();
    let mut counts = Vec::new();
    for clause in clauses(text) {
        let questioned = clause.trim_end().ends_with('?');
        let ws = words(clause);
        let clause_counts = stated_counts::stated(clause);
        // Counts in a negated, conditional or questioned clause are not results.
        let hedged = questioned
            || ws.first().is_some_and(|w| conditional(w))
            || ws.iter().any(|w| w == "not" || w.ends_with("n't") || w == "yet");
        if hedged {
            continue;
        }
        // The clause as written names the claim in messages ("All tests pass now").
        let written = || {
            let t = clause.trim().trim_end_matches(['.', '!', ',']);
            crate::evidence::head_chars(t, 80).to_string()
        };
        let claim = match in_clause(&ws) {
            Some((kind, _, _)) => Some((kind, written())),
            None if stated_counts::states_success(&clause_counts) => Some((Kind::Tests, written())),
            None => None,
        };
        if let Some((kind, phrase)) = claim {
            if !found.iter().any(|(k, _)| *k == kind) {
                found.push((kind, phrase));
            }
        }
        counts.extend(clause_counts);
    }
    let rank = |k: Kind| match k {
        Kind::Tests => 0,
        Kind::Build => 1,
        Kind::Lint => 2,
    };
    found.sort_by_key(|(k, _)| rank(*k));
    found
        .into_iter()
        .enumerate()
        .map(|(n, (kind, phrase))| Claim {
            kind,
            phrase,
            counts: if n == 0 {
                std::mem::take(&mut counts)
            } else {
                Vec::new()
            },
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn subject_and_predicate() {
        let c = find("Done. All twelve tests pass now.").unwrap();
        assert_eq!(c.kind, Kind::Tests);
        assert_eq!(c.counts, vec![(Count::Passed, 12)]);
        assert_eq!(find("The build is green.").unwrap().kind, Kind::Build);
        assert_eq!(find("clippy is clean").unwrap().kind, Kind::Lint);
        assert_eq!(find("It compiles cleanly.").unwrap().kind, Kind::Build);
        assert!(find("`cargo test` passes").is_some());
    }

    #[test]
    fn plans_negations_questions() {
        for t in [
            "Once the tests pass I will commit.",
            "not all tests pass yet",
            "Do the tests pass?",
            "The change keeps the existing tests passing.",
            "The tests don't pass.",
            "I could not get the build to succeed.",
        ] {
            assert!(find(t).is_none(), "{t}: {:?}", find(t));
        }
    }
}
