//! Claims of success in prose, and the commands that can back them.
//!
//! "All tests pass now." ends many sessions in which nothing was run. At Stop, a final
//! message that claims tests, a build or a check succeeded needs a sealed passing run of
//! such a command in this session. Claims are found by their parts in any common phrasing
//! (`claim_phrases`); plans, conditions, questions and negations are not claims.

/// What a claim is about (defined with the runner classification).
pub use crate::evidence::runner::Kind;

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
