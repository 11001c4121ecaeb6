//! **What a run shows**: whether a logged run proves that tests (or a build, or a check)
//! passed, or only that some command exited 0.
//!
//! `Record::passed` is the exit status corrected by the output's summary; that is what
//! the rule learner wants. Backing a card or a claim needs more, because an agent in a
//! hurry finds runs that exit 0 and test nothing: a filter that matches no test
//! (`python3 -m unittest -k nomatch` → `Ran 0 tests … OK`), `cargo test --no-run`,
//! `cargo test --help`, `make -n test`, or a run whose status and summary never reach the
//! log (`cargo test 2>&1 | head -5`, `make test >/dev/null 2>&1 || true`).
//!
//! The rule, per [`runner::classify`]:
//! - a run that failed (status or summary) shows a failure;
//! - a known runner invoked so that it runs nothing (help, version, list, dry run, build
//!   only) proves nothing;
//! - a known runner whose summary counts zero executed tests proves nothing;
//! - when no summary reached the log: a direct test runner (whose summary we parse) proves
//!   nothing if its output or status was diverted (pipe, `||`, `;`, `/dev/null`); a
//!   wrapper (`make test`, `npm test`) only if its status was hidden or its output
//!   discarded; a build or lint runner only if its status was hidden;
//! - everything else — including every command that is no known runner (`./deploy.sh`) —
//!   keeps the exit-status rule.

use crate::evidence::runner::{self, Kind, Mask};
use crate::evidence::summary::Summary;

/// What a run shows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Shows {
    /// It passed; `tests` is the count of passing tests when the summary gives one.
    Pass { tests: Option<u64> },
    /// It failed: a non-zero or unknown status, or a summary with failures.
    Failed,
    /// The summary says no test was executed. `filtered`: a test-name filter was given.
    NothingRan { filtered: bool },
    /// The invocation runs no test: `does` says what it does instead, `flag` why.
    NotARun { does: &'static str, flag: String },
    /// No summary reached the log and the way it ran hides the status or the output.
    NoSummary { mask: Mask },
}

impl Shows {
    /// True when the run backs a claim that it passed.
    pub fn proves(&self) -> bool {
        matches!(self, Shows::Pass { .. })
    }

    /// One line for the agent: what the run of `cmd` shows and what to run instead.
    /// Empty for a pass.
    pub fn describe(&self, cmd: &str) -> String {
        let short: String = cmd.chars().take(200).collect();
        match self {
            Shows::Pass { .. } => String::new(),
            Shows::Failed => format!("`{short}` failed on its latest run: fix it and run it again until it passes"),
            Shows::NothingRan { filtered: true } => format!(
                "`{short}` ran 0 tests: the filter matched nothing — fix the filter (or drop it) so the tests that back the card run"
            ),
            Shows::NothingRan { filtered: false } => format!(
                "`{short}` ran 0 tests: the runner found none — check that it discovers the tests (paths, file names), then run it again"
            ),
            Shows::NotARun { does, flag } => format!(
                "`{short}` {does} (`{flag}`): it runs no test — run the tests themselves (`{}`) to back a card",
                without_word(cmd, flag)
            ),
            Shows::NoSummary { mask } => {
                let how = match mask {
                    Mask::Piped { into, pipefail: false } if matches!(into.as_str(), "head" | "tail" | "grep") => {
                        "the output was cut before the summary and the pipe hides the exit status"
                    }
                    Mask::Piped { pipefail: true, .. } => "the output was cut before the summary",
                    Mask::Piped { .. } => "the pipe hides the exit status and no summary reached the log",
                    Mask::OrElse { .. } | Mask::Then { .. } => {
                        "what follows hides the exit status and no summary reached the log"
                    }
                    Mask::DevNull => "the output went to /dev/null, so no summary reached the log",
                    Mask::Background => "it ran in the background, so neither its status nor its summary reached the log",
                    Mask::MayNotRun { .. } => "it runs only when the command before `||` fails, so it may not have run",
                };
                format!("`{short}`: {how} — run it without `{}`", mask.shown())
            }
        }
    }
}

/// What a run of `cmd` with this status and summary shows (see the module doc).
pub fn shows(cmd: &str, exit: Option<i64>, ok: bool, summary: Option<Summary>) -> Shows {
    if !ok || exit != Some(0) || summary.is_some_and(|s| s.shows_failure()) {
        return Shows::Failed;
    }
    let r = runner::classify(cmd);
    let Some(kind) = r.kind else {
        return Shows::Pass {
            tests: summary.and_then(|s| s.passed),
        };
    };
    // A summary counting executed tests came from something else on the line that ran
    // them (`cargo test --no-run && ./target/debug/deps/t-…`).
    let ran_some = summary.and_then(|s| executed(&s)).is_some_and(|n| n > 0);
    if let Some(n) = r.not_a_run.filter(|_| !ran_some) {
        return Shows::NotARun {
            does: n.does,
            flag: n.flag,
        };
    }
    match (summary, r.mask) {
        (Some(s), _) if executed(&s) == Some(0) => Shows::NothingRan { filtered: r.filtered },
        (Some(s), _) => Shows::Pass { tests: s.passed },
        (None, Some(mask)) => {
            let diverted = match kind {
                _ if r.direct => true,
                Kind::Tests => mask.hides_status() || mask == Mask::DevNull,
                Kind::Build | Kind::Lint => mask.hides_status(),
            };
            if diverted {
                Shows::NoSummary { mask }
            } else {
                Shows::Pass { tests: None }
            }
        }
        (None, None) => Shows::Pass { tests: None },
    }
}

/// Tests the summary says were executed (passed, failed or errored; skipped ones were
/// not), or `None` when the format does not count passing tests (`go test` without `-v`,
/// linters).
fn executed(s: &Summary) -> Option<u64> {
    let passed = s.passed?;
    Some(passed + s.failed.unwrap_or(0) + s.errors.unwrap_or(0))
}

/// `cmd` without the first whole word `word` (and a `--` left dangling at the end).
fn without_word(cmd: &str, word: &str) -> String {
    let words: Vec<&str> = cmd.split_whitespace().collect();
    let mut out: Vec<&str> = Vec::with_capacity(words.len());
    let mut dropped = false;
    for w in words {
        if !dropped && w == word {
            dropped = true;
            continue;
        }
        out.push(w);
    }
    if out.last() == Some(&"--") {
        out.pop();
    }
    out.join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn counts(passed: u64, failed: u64) -> Option<Summary> {
        Some(Summary {
            passed: Some(passed),
            failed: Some(failed),
            skipped: Some(0),
            errors: Some(0),
        })
    }

    fn ok(cmd: &str, summary: Option<Summary>) -> Shows {
        shows(cmd, Some(0), true, summary)
    }

    #[test]
    fn honest_runs_pass() {
        assert_eq!(ok("cargo test", counts(5, 0)), Shows::Pass { tests: Some(5) });
        assert_eq!(ok("python3 -m unittest", counts(3, 0)), Shows::Pass { tests: Some(3) });
        assert_eq!(
            ok("cargo test 2>&1 | tail -5", counts(2, 0)),
            Shows::Pass { tests: Some(2) }
        );
        assert_eq!(ok("make test", None), Shows::Pass { tests: None });
        assert_eq!(ok("npm test", None), Shows::Pass { tests: None });
        assert_eq!(ok("cargo build", None), Shows::Pass { tests: None });
        assert!(!ok("cargo clippy 2>&1 | tail -3", None).proves());
        assert_eq!(
            ok("set -o pipefail; cargo clippy 2>&1 | tail -3", None),
            Shows::Pass { tests: None }
        );
        assert_eq!(ok("./run-checks.sh", None), Shows::Pass { tests: None });
        assert_eq!(ok("./run-checks.sh | tail -3", None), Shows::Pass { tests: None });
        assert_eq!(ok("./deploy.sh || true", None), Shows::Pass { tests: None });
        // A plain direct run keeps the exit rule when no summary was read.
        assert_eq!(ok("cargo test", None), Shows::Pass { tests: None });
        let go = Summary {
            failed: Some(0),
            errors: Some(0),
            ..Summary::default()
        };
        assert_eq!(ok("go test ./...", Some(go)), Shows::Pass { tests: None });
    }

    #[test]
    fn failures_fail() {
        assert_eq!(shows("cargo test", Some(101), false, None), Shows::Failed);
        assert_eq!(shows("cargo test", None, true, None), Shows::Failed);
        assert_eq!(ok("cargo test 2>&1 | tail -5", counts(2, 1)), Shows::Failed);
    }

    #[test]
    fn nothing_ran() {
        assert_eq!(
            ok("python3 -m unittest -k nomatch", counts(0, 0)),
            Shows::NothingRan { filtered: true }
        );
        assert_eq!(
            ok("cargo test nothing_matches", counts(0, 0)),
            Shows::NothingRan { filtered: true }
        );
        assert_eq!(ok("pytest", counts(0, 0)), Shows::NothingRan { filtered: false });
        assert_eq!(ok("make test", counts(0, 0)), Shows::NothingRan { filtered: false });
        // Not a runner: the exit rule.
        assert!(ok("./deploy.sh", counts(0, 0)).proves());
        let m = ok("python3 -m unittest -k nomatch", counts(0, 0)).describe("python3 -m unittest -k nomatch");
        assert!(m.contains("ran 0 tests: the filter matched nothing"), "{m}");
    }

    #[test]
    fn invocations_that_run_nothing() {
        for cmd in [
            "cargo test --no-run",
            "cargo test --help",
            "python3 -m unittest --help",
            "make -n test",
            "pytest --collect-only",
        ] {
            let s = ok(cmd, None);
            assert!(matches!(s, Shows::NotARun { .. }), "{cmd}: {s:?}");
            assert!(!s.proves());
        }
        assert!(ok("cargo test --no-run && ./target/debug/deps/t-1", counts(3, 0)).proves());
        assert!(!ok("pytest --collect-only", counts(0, 0)).proves());
        let m = ok("cargo test --no-run", None).describe("cargo test --no-run");
        assert_eq!(
            m,
            "`cargo test --no-run` only builds the tests (`--no-run`): it runs no test — run the tests themselves (`cargo test`) to back a card"
        );
        let m = ok("make -n test", None).describe("make -n test");
        assert!(m.contains("(`make test`)"), "{m}");
    }

    #[test]
    fn masked_runs_without_a_summary() {
        let s = ok("cargo test 2>&1 | head -5", None);
        assert!(!s.proves());
        assert_eq!(
            s.describe("cargo test 2>&1 | head -5"),
            "`cargo test 2>&1 | head -5`: the output was cut before the summary and the pipe hides the exit status — run it without `| head`"
        );
        for cmd in [
            "cargo test >/dev/null 2>&1 || true",
            "set -o pipefail; cargo test | head -3",
            "make test || true",
            "make test >/dev/null",
            "npm test; true",
            "cargo build || :",
            "cargo test &",
            "true || cargo test",
        ] {
            assert!(matches!(ok(cmd, None), Shows::NoSummary { .. }), "{cmd}");
        }
        assert!(ok("set -o pipefail; make test | tail -3", None).proves());
        assert!(ok("cargo build >/dev/null", None).proves());
    }
}
