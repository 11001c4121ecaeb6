//! Claims of success in prose, and the commands that can back them.
//!
//! "All tests pass now." ends many sessions in which nothing was run. At Stop, a final
//! message that claims tests, a build or a check succeeded needs a sealed passing run of
//! such a command in this session. Claims are found by their parts in any common phrasing
//! (`claim_phrases`); plans, conditions, questions and negations are not claims.

/// What a claim is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Tests,
    Build,
    Lint,
}

impl Kind {
    pub fn name(self) -> &'static str {
        match self {
            Kind::Tests => "tests",
            Kind::Build => "a build",
            Kind::Lint => "a check",
        }
    }
}

/// What a command checks, when it is a known runner: the program and subcommand words.
pub fn runner_kind(cmd: &str) -> Option<Kind> {
    let words: Vec<&str> = cmd
        .split_whitespace()
        .skip_while(|w| w.contains('=') && !w.starts_with('-'))
        .filter(|w| !w.starts_with('-'))
        .collect();
    let prog = words.first().map(|w| w.rsplit('/').next().unwrap_or(w))?;
    let sub = words.get(1).copied().unwrap_or("");
    let kind = match (prog, sub) {
        ("cargo", "test" | "nextest")
        | ("go", "test")
        | ("pytest" | "tox" | "nox" | "jest" | "vitest" | "mocha" | "rspec" | "ctest" | "phpunit", _) => Kind::Tests,
        ("python" | "python3", "unittest" | "pytest") => Kind::Tests,
        ("npm" | "pnpm" | "yarn" | "bun", "test" | "t") => Kind::Tests,
        ("npm" | "pnpm" | "yarn" | "bun", "run") if words.get(2).is_some_and(|w| w.contains("test")) => Kind::Tests,
        ("make" | "just", t) if t.contains("test") || t == "check" => Kind::Tests,
        ("mvn" | "gradle" | "./gradlew" | "gradlew", "test" | "verify" | "check") => Kind::Tests,
        ("cargo", "build" | "check") | ("go", "build") | ("make" | "just", _) | ("tsc", _) => Kind::Build,
        ("npm" | "pnpm" | "yarn", "run") if words.get(2).is_some_and(|w| w.contains("build")) => Kind::Build,
        ("mvn" | "gradle" | "./gradlew" | "gradlew", _) => Kind::Build,
        ("cargo", "clippy" | "fmt")
        | ("go", "vet")
        | ("eslint" | "ruff" | "mypy" | "flake8" | "pylint" | "shellcheck" | "golangci-lint", _) => Kind::Lint,
        ("npm" | "pnpm" | "yarn", "run") if words.get(2).is_some_and(|w| w.contains("lint")) => Kind::Lint,
        _ => return None,
    };
    Some(kind)
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
        assert_eq!(runner_kind("npx eslint ."), None);
        assert_eq!(runner_kind("ls"), None);
        assert_eq!(runner_kind("echo all tests pass"), None);
        assert!(backs("cargo test", Kind::Build));
        assert!(!backs("cargo build", Kind::Tests));
        assert!(backs("cargo clippy -- -D warnings", Kind::Lint));
    }
}
