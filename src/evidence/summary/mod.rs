//! **What the output says**: the counts a test, build or lint tool printed in its closing
//! summary, read from a record's `tail`.
//!
//! A piped run (`cargo test 2>&1 | tail -5`) exits 0 while its output says `1 failed`; the
//! exit status alone calls that a pass. [`parse`] reads the summary line(s) instead.
//!
//! Conservative by design: only fixed summary shapes are recognised (counts in a known
//! order with known words), at the column the tool prints them, so prose such as
//! "retrying failed request" or an indented commit message quoting a result gives `None`.
//! When several tools' summaries are in one tail (`cargo test && npm test`), the one that
//! ends latest wins. Runs inside the evidence hook on every Bash call: each family is
//! gated by a literal `contains` before any line is looked at, and the few regexes compile
//! once per process, only behind their gate.
//!
//! Families: `rust` (cargo test, compile errors, nextest), `python` (pytest,
//! unittest), `js` (jest, vitest, mocha, node:test, tsc, eslint), `compiled` (go test,
//! CTest, Maven, Gradle), `scripting` (RSpec, Minitest, PHPUnit); `counts` holds the
//! [`Summary`] value and shared helpers.

mod compiled;
mod counts;
mod js;
mod python;
mod rust;
mod scripting;

pub use counts::Summary;

/// The summary of the LAST recognised summary line(s) in `tail` (the output's end), or
/// `None` for unknown formats. `cmd` is only a hint, for a line that would otherwise be
/// too plain to trust (`Found 2 errors.` is believed from `tsc`); the tail is the
/// authority.
pub fn parse(cmd: &str, tail: &str) -> Option<Summary> {
    let plain;
    let tail = if tail.contains('\x1b') {
        plain = counts::strip_ansi(tail);
        plain.as_str()
    } else {
        tail
    };
    let found = [
        rust::cargo(tail),
        rust::nextest(tail),
        python::pytest(tail),
        python::unittest(tail),
        js::jest(tail),
        js::vitest(tail),
        js::mocha(tail),
        js::node_test(tail),
        js::tsc(cmd, tail),
        js::eslint(tail),
        compiled::go_test(tail),
        compiled::ctest(tail),
        compiled::jvm(tail),
        scripting::rspec(tail),
        scripting::minitest(tail),
        scripting::phpunit(tail),
    ];
    // `max_by_key` keeps the last of equal keys; offsets of different lines never tie.
    found.into_iter().flatten().max_by_key(|f| f.at).map(|f| f.summary)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn counts(passed: u64, failed: u64, skipped: u64, errors: u64) -> Option<Summary> {
        Some(Summary {
            passed: Some(passed),
            failed: Some(failed),
            skipped: Some(skipped),
            errors: Some(errors),
        })
    }

    #[test]
    fn piped_cargo_test_shows_the_failure() {
        let tail = "test result: FAILED. 2 passed; 1 failed; 1 ignored; 0 measured; 0 filtered out; \
                    finished in 0.11s\n\nerror: test failed, to rerun pass `--lib`\n";
        let s = parse("cargo test 2>&1 | tail -5", tail).unwrap();
        assert_eq!(Some(s), counts(2, 1, 1, 0));
        assert!(s.shows_failure());
    }

    #[test]
    fn prose_is_not_a_summary() {
        for tail in [
            "2026-12-03 WARN retrying failed request (attempt 2)\n",
            "3 tests failed on CI yesterday, 12 passed after the fix\n",
            "all tests passed\n",
            "Build failed: see log\n",
            "BUILD FAILED in staging, 2 failed checks\n",
            "Found 3 errors in the logs\n",
            "# pass the butter\n",
            "  2 passing cars (fast)\n",
            "Ran 3 tests in my head\nOK\n",
            "ok  everything is fine\nFAIL: not really\n",
            "",
        ] {
            assert_eq!(parse("make", tail), None, "{tail:?}");
        }
    }

    #[test]
    fn only_cargo_shaped_lines_reach_a_regex() {
        let uses = || counts::REGEX_USES.with(|n| n.get());
        let before = uses();
        for tail in [
            "2026-12-03 WARN retrying failed request (attempt 2)\ntest results are in\n",
            "===== 3 failed, 12 passed, 1 skipped in 0.12s =====\n",
            "Tests:       1 failed, 11 passed, 12 total\n",
            "error: could not find `Cargo.toml`\nerror: test failed to start\n",
        ] {
            parse("x", tail);
        }
        assert_eq!(uses(), before, "a regex was asked for");
        parse(
            "cargo test",
            "test result: ok. 1 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out\n",
        );
        assert_eq!(uses(), before + 1);
    }

    #[test]
    fn the_latest_summary_wins() {
        let tail = "test result: ok. 3 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out\n\
                    Tests:       1 failed, 2 passed, 3 total\n";
        assert_eq!(parse("cargo test && npx jest", tail), counts(2, 1, 0, 0));
        let tail = "Tests:       1 failed, 2 passed, 3 total\n\
                    test result: ok. 3 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out\n";
        assert_eq!(parse("npx jest; cargo test", tail), counts(3, 0, 0, 0));
    }

    #[test]
    fn colour_and_carriage_returns_are_ignored() {
        let tail = "\x1b[2m      Tests \x1b[22m \x1b[1m\x1b[31m1 failed\x1b[39m\x1b[22m\x1b[2m | \x1b[22m\
                    \x1b[1m\x1b[32m2 passed\x1b[39m\x1b[22m\x1b[90m (3)\x1b[39m\n";
        assert_eq!(parse("npx vitest run", tail), counts(2, 1, 0, 0));
        let tail = "progress 10%\rprogress 100%\r===== 1 passed in 0.01s =====\r\n";
        assert_eq!(parse("pytest", tail), counts(1, 0, 0, 0));
    }

    #[test]
    fn shows_failure_reads_failed_and_errors() {
        assert!(!Summary::default().shows_failure());
        assert!(Summary {
            errors: Some(1),
            ..Summary::default()
        }
        .shows_failure());
        assert!(!Summary {
            passed: Some(3),
            failed: Some(0),
            ..Summary::default()
        }
        .shows_failure());
    }

    #[test]
    fn serialises_compactly() {
        let s = Summary {
            passed: Some(3),
            failed: Some(0),
            ..Summary::default()
        };
        assert_eq!(serde_json::to_string(&s).unwrap(), r#"{"passed":3,"failed":0}"#);
        assert_eq!(serde_json::from_str::<Summary>("{}").unwrap(), Summary::default());
    }
}
