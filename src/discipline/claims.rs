//! Claims of success in prose, and the commands that can back them.
//!
//! "All tests pass now." ends many sessions in which nothing was run. At Stop, a final
//! message that claims tests, a build or a check succeeded needs a sealed passing run of
//! such a command in this session. The phrase list is small on purpose (English only):
//! a false alarm costs the agent a rerun, so each phrase must be a claim, not a plan
//! ("once the tests pass", "to make the build succeed" are not claims: a phrase preceded
//! by a conditional word does not count).

/// What a claim is about (defined with the runner classification).
pub use crate::evidence::runner::Kind;

/// Claim phrases (lower case) and what they claim.
const PHRASES: &[(&str, Kind)] = &[
    ("all tests pass", Kind::Tests),
    ("all tests are passing", Kind::Tests),
    ("all tests passed", Kind::Tests),
    ("tests pass now", Kind::Tests),
    ("tests are passing", Kind::Tests),
    ("tests now pass", Kind::Tests),
    ("the tests pass", Kind::Tests),
    ("all green", Kind::Tests),
    ("test suite passes", Kind::Tests),
    ("build succeeds", Kind::Build),
    ("build passes", Kind::Build),
    ("builds cleanly", Kind::Build),
    ("build is green", Kind::Build),
    ("compiles cleanly", Kind::Build),
    ("lint is clean", Kind::Lint),
    ("lint passes", Kind::Lint),
    ("no lint errors", Kind::Lint),
    ("type-checks cleanly", Kind::Lint),
    ("clippy is clean", Kind::Lint),
];

/// Words that make a following phrase a plan or a condition, not a claim.
const CONDITIONAL: &[&str] = &[
    "if", "once", "until", "when", "whether", "unless", "make", "ensure", "so", "to", "should", "will", "would",
    "might", "verify", "check", "confirm",
];

/// The first claim in a message, with the phrase as written.
pub fn claim(message: &str) -> Option<(Kind, String)> {
    let lower = message.to_lowercase();
    for (phrase, kind) in PHRASES {
        let mut from = 0;
        while let Some(at) = lower[from..].find(phrase).map(|i| i + from) {
            from = at + phrase.len();
            let before: Vec<&str> = lower[..at]
                .rsplit(['.', '!', '?', '\n'])
                .next()
                .unwrap_or("")
                .split(|c: char| !c.is_alphanumeric() && c != '\'')
                .filter(|w| !w.is_empty())
                .collect();
            let negated = before
                .iter()
                .rev()
                .take(3)
                .any(|w| matches!(*w, "not" | "don't" | "doesn't" | "no"));
            let planned = before.iter().rev().take(4).any(|w| CONDITIONAL.contains(w));
            let after = lower[from..].trim_start();
            let questioned = after.starts_with('?');
            if !negated && !planned && !questioned {
                return Some((*kind, message.get(at..at + phrase.len()).unwrap_or(phrase).to_string()));
            }
        }
    }
    None
}

/// What a command checks, when it is a known runner (see `evidence::runner`).
pub fn runner_kind(cmd: &str) -> Option<Kind> {
    crate::evidence::runner::kind(cmd)
}

/// True when a passing run of `cmd` backs a claim of `kind`: a test run backs a build
/// claim too (it built), any runner backs a check claim only if it is a check or tests.
pub fn backs(cmd: &str, kind: Kind) -> bool {
    match (runner_kind(cmd), kind) {
        (Some(k), want) if k == want => true,
        (Some(Kind::Tests), Kind::Build) => true,
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn claims_are_found_and_plans_are_not() {
        for m in [
            "All tests pass now.",
            "Done — the build succeeds and all tests pass.",
            "I fixed the parser; tests are passing.",
            "Clippy is clean.",
        ] {
            assert!(claim(m).is_some(), "{m}");
        }
        for m in [
            "Once the tests pass I will commit.",
            "Run the suite to make sure all tests pass.",
            "The tests do not pass yet: 2 failures remain.",
            "Should I check whether all tests pass?",
            "I could not get the build to pass.",
            "Here is the summary of the refactor.",
            "Do all tests pass?",
        ] {
            assert!(claim(m).is_none(), "{m}");
        }
        assert_eq!(claim("Build succeeds.").unwrap().0, Kind::Build);
    }

    #[test]
    fn runners_and_what_they_back() {
        assert_eq!(runner_kind("cargo test --workspace"), Some(Kind::Tests));
        assert_eq!(runner_kind("RUST_LOG=1 cargo test"), Some(Kind::Tests));
        assert_eq!(runner_kind("python3 -m pytest -q"), Some(Kind::Tests));
        assert_eq!(runner_kind("npm run test:unit"), Some(Kind::Tests));
        assert_eq!(runner_kind("cargo build --release"), Some(Kind::Build));
        assert_eq!(runner_kind("npx eslint ."), Some(Kind::Lint));
        assert_eq!(runner_kind("ls"), None);
        assert_eq!(runner_kind("echo all tests pass"), None);
        assert!(backs("cargo test", Kind::Build));
        assert!(!backs("cargo build", Kind::Tests));
        assert!(backs("cargo clippy -- -D warnings", Kind::Lint));
    }
}
