//! Rust: `cargo test` (one `test result:` line per test binary, summed), compile errors
//! from any cargo command, and `cargo nextest`'s single `Summary` line.

use super::counts::{count_of, lines, num, regex, tally, Found, Summary};
use std::collections::BTreeMap;

/// `cargo test`, `cargo build`/`check`/`clippy` and bare `rustc`.
///
/// Test result lines are taken only at column 0: nextest indents the libtest output it
/// captures (its own `Summary` line is the authority there) and `git log` indents commit
/// messages that quote a result.
pub(super) fn cargo(tail: &str) -> Option<Found> {
    let gated = tail.contains("test result: ")
        || tail.contains("error: test failed")
        || tail.contains("error: doctest failed")
        || tail.contains(" targets failed:")
        || tail.contains(" target failed:")
        || tail.contains("could not compile")
        || tail.contains("error: aborting due to");
    if !gated {
        return None;
    }
    let (mut at, mut tests, mut any_result) = (None, Summary::default(), false);
    let (mut failed_binaries, mut test_failed_lines, mut targets_failed) = (0u64, 0u64, 0u64);
    // Per crate, the largest error count: `(lib)` and `(lib test)` report the same errors.
    let mut by_crate: BTreeMap<&str, u64> = BTreeMap::new();
    let mut aborted = 0u64;
    // A test binary that announced tests and has no result line yet: the output was cut
    // (Claude Code keeps only the first 30,000 characters; `| head` keeps less).
    let mut unfinished = false;
    for (offset, line) in lines(tail) {
        if let Some(n) = running_count(line) {
            unfinished = n > 0;
            continue;
        }
        // Each regex is compiled only once a line starts with its literal prefix.
        if line.starts_with("test result: ") {
            let re = regex!(
                r"^test result: (ok|FAILED)\. ([0-9]+) passed; ([0-9]+) failed; ([0-9]+) ignored; [0-9]+ measured; [0-9]+ filtered out"
            );
            let Some(c) = re.and_then(|re| re.captures(line)) else {
                continue;
            };
            any_result = true;
            unfinished = false;
            failed_binaries += u64::from(&c[1] == "FAILED");
            tests = tests.add(Summary {
                passed: num(&c, 2),
                failed: num(&c, 3),
                skipped: num(&c, 4),
                errors: None,
            });
        } else if line.starts_with("error: test failed, to rerun pass")
            || line.starts_with("error: doctest failed, to rerun pass")
        {
            test_failed_lines += 1;
        } else if let Some(n) = targets_failed_line(line) {
            // `--no-fail-fast` closes with `error: 2 targets failed:` and their names: the
            // count stands even when `| tail -5` cut every `FAILED` result line above it.
            targets_failed = targets_failed.max(n);
        } else if line.starts_with("error: could not compile `") {
            let re =
                regex!(r"^error: could not compile `([^`]+)`(?: \([^)]*\))?(?: due to ([0-9]+ )?previous errors?)?");
            let Some(c) = re.and_then(|re| re.captures(line)) else {
                continue;
            };
            let n = c
                .get(2)
                .map_or(Some(1), |m| m.as_str().trim().parse().ok())
                .unwrap_or(1);
            let worst = by_crate.entry(c.get(1).map_or("", |m| m.as_str())).or_default();
            *worst = (*worst).max(n);
        } else if line.starts_with("error: aborting due to ") {
            let re = regex!(r"^error: aborting due to ([0-9]+ )?previous errors?");
            let Some(c) = re.and_then(|re| re.captures(line)) else {
                continue;
            };
            aborted += c.get(1).and_then(|m| m.as_str().trim().parse().ok()).unwrap_or(1);
        } else {
            continue;
        }
        at = Some(offset);
    }
    // A binary that crashed (signal, abort) prints `error: test failed` with no result line;
    // a failed target whose result line was cut off counts the same way.
    let crashed = test_failed_lines.max(targets_failed).saturating_sub(failed_binaries);
    let compile_errors = if by_crate.is_empty() {
        aborted
    } else {
        by_crate.values().sum()
    };
    let errors = crashed + compile_errors;
    // Cut mid-binary: the counts so far are not the run's. Failures seen stand; without
    // any, the run's counts are unknown (a lib with 0 tests must not read as "ran 0").
    if unfinished && errors == 0 && tests.failed.unwrap_or(0) == 0 {
        return None;
    }
    let summary = if any_result {
        Summary {
            errors: Some(errors),
            ..tests
        }
    } else if errors > 0 {
        Summary {
            errors: Some(errors),
            ..Summary::default()
        }
    } else {
        return None;
    };
    Some(Found { at: at?, summary })
}

/// `running 3 tests` / `running 1 test` (libtest, at column 0) → 3 / 1.
fn running_count(line: &str) -> Option<u64> {
    let rest = line.strip_prefix("running ")?;
    let n = rest.strip_suffix(" tests").or_else(|| rest.strip_suffix(" test"))?;
    n.parse().ok()
}

/// `error: 2 targets failed:` / `error: 1 target failed:` (cargo test `--no-fail-fast`) → 2 / 1.
fn targets_failed_line(line: &str) -> Option<u64> {
    let rest = line.strip_prefix("error: ")?;
    let (n, rest) = rest.split_once(' ')?;
    matches!(rest, "target failed:" | "targets failed:").then_some(())?;
    n.parse().ok()
}

/// `cargo nextest run`: `Summary [ 1.2s] 12 tests run: 11 passed, 1 failed, 0 skipped`,
/// with optional parentheticals (`3 passed (1 slow)`) and, when cancelled, `3/5 tests run`.
pub(super) fn nextest(tail: &str) -> Option<Found> {
    if !tail.contains("Summary [") {
        return None;
    }
    let (at, list) = lines(tail)
        .filter(|(_, line)| line.trim_start().starts_with("Summary ["))
        .filter_map(|(at, line)| {
            let re = regex!(r"^\s*Summary \[\s*[0-9.]+m?s\] [0-9]+(?:/[0-9]+)? tests? run: (.+)$")?;
            Some((at, re.captures(line)?.get(1)?.as_str()))
        })
        .last()?;
    let list = without_parentheticals(list);
    let parts = tally(&list, ",")?;
    let summary = Summary {
        passed: Some(count_of(&parts, &["passed"])),
        failed: Some(count_of(&parts, &["failed", "timed out"])),
        skipped: Some(count_of(&parts, &["skipped"])),
        errors: Some(count_of(&parts, &["exec failed"])),
    };
    Some(Found { at, summary })
}

/// `3 passed (1 slow), 1 failed` → `3 passed, 1 failed`.
fn without_parentheticals(list: &str) -> String {
    let mut out = String::with_capacity(list.len());
    let mut depth = 0usize;
    for c in list.chars() {
        match c {
            '(' => depth += 1,
            ')' => depth = depth.saturating_sub(1),
            _ if depth == 0 => out.push(c),
            _ => {}
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sums_every_binary_and_counts_a_crashed_one() {
        let tail = "test result: ok. 3 passed; 0 failed; 1 ignored; 0 measured; 0 filtered out; finished in 0.00s\n\
                    error: test failed, to rerun pass `--test it`\n\nCaused by:\n  process didn't exit \
                    successfully: (signal: 11, SIGSEGV: invalid memory reference)\n\
                    test result: FAILED. 1 passed; 2 failed; 0 ignored; 0 measured; 0 filtered out\n\
                    error: test failed, to rerun pass `--lib`\n";
        let s = cargo(tail).unwrap().summary;
        assert_eq!(
            s,
            Summary {
                passed: Some(4),
                failed: Some(2),
                skipped: Some(1),
                errors: Some(1)
            }
        );
    }

    #[test]
    fn compile_errors_count_once_per_crate() {
        let tail = "error: could not compile `a` (lib) due to 2 previous errors\n\
                    error: could not compile `a` (lib test) due to 2 previous errors\n\
                    error: could not compile `b` (bin \"b\") due to 1 previous error; 3 warnings emitted\n";
        assert_eq!(cargo(tail).unwrap().summary.errors, Some(3));
        assert_eq!(
            cargo("error: could not compile `old` due to previous error\n")
                .unwrap()
                .summary
                .errors,
            Some(1)
        );
        assert_eq!(
            cargo("error: aborting due to 4 previous errors\n")
                .unwrap()
                .summary
                .errors,
            Some(4)
        );
    }

    #[test]
    fn a_binary_cut_before_its_result_leaves_the_counts_unknown() {
        let head = "     Running unittests src/lib.rs (target/debug/deps/a-1)\n\nrunning 0 tests\n\n\
                    test result: ok. 0 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.00s\n\n\
                    \x20    Running tests/big.rs (target/debug/deps/big-2)\n\nrunning 900 tests\ntest t001 ... ok\ntest t002 ... ok\n";
        assert_eq!(cargo(head), None);
        let failed = head.replace("running 0 tests", "running 2 tests").replace(
            "test result: ok. 0 passed; 0 failed",
            "test result: FAILED. 1 passed; 1 failed",
        );
        assert!(cargo(&failed).unwrap().summary.shows_failure());
        assert_eq!(running_count("running 1 test"), Some(1));
        assert_eq!(running_count("running late"), None);
    }

    #[test]
    fn failed_targets_and_doctests_count() {
        let tail =
            "\ntest result: ok. 0 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.00s\n\n\
                    error: 1 target failed:\n    `--lib`\n";
        assert_eq!(cargo(tail).unwrap().summary.errors, Some(1));
        let tail = "error: doctest failed, to rerun pass `--doc`\nerror: 2 targets failed:\n    `--lib`\n    `--doc`\n";
        assert_eq!(cargo(tail).unwrap().summary.errors, Some(2));
        assert_eq!(targets_failed_line("error: 3 targets failed:"), Some(3));
        assert_eq!(targets_failed_line("error: many targets failed:"), None);
        assert_eq!(cargo("the deploy failed: see log\n"), None);
    }

    #[test]
    fn indented_results_are_not_cargo_test() {
        assert_eq!(
            cargo("    test result: FAILED. 0 passed; 1 failed; 0 ignored; 0 measured; 0 filtered out\n"),
            None
        );
        assert_eq!(cargo("the test result: was fine\n"), None);
    }

    #[test]
    fn nextest_variants() {
        let s = nextest("     Summary [   2.001s] 3/5 tests run: 2 passed (1 slow), 1 timed out, 2 skipped\n").unwrap();
        assert_eq!(
            s.summary,
            Summary {
                passed: Some(2),
                failed: Some(1),
                skipped: Some(2),
                errors: Some(0)
            }
        );
        assert_eq!(nextest("Summary [ 1s] of the meeting: 3 people\n"), None);
    }
}
