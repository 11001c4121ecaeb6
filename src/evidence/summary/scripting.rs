//! Ruby and PHP runners: RSpec, Minitest (and test-unit), PHPUnit.

use super::counts::{count_of, lines, tally, Found, Summary};

/// RSpec: `12 examples, 1 failure, 2 pending[, 1 error occurred outside of examples]`.
pub(super) fn rspec(tail: &str) -> Option<Found> {
    if !tail.contains(" example") || !tail.contains(" failure") {
        return None;
    }
    const WORDS: &[&str] = &[
        "example",
        "examples",
        "failure",
        "failures",
        "pending",
        "error occurred outside of examples",
        "errors occurred outside of examples",
    ];
    lines(tail)
        .filter_map(|(at, line)| {
            let parts = tally(line, ",")?;
            let first = parts.first()?.1;
            let shaped = matches!(first, "example" | "examples")
                && parts.get(1).is_some_and(|(_, w)| w.starts_with("failure"))
                && parts.iter().all(|(_, w)| WORDS.contains(w));
            shaped.then_some(())?;
            let examples = count_of(&parts, &["example", "examples"]);
            let failed = count_of(&parts, &["failure", "failures"]);
            let pending = count_of(&parts, &["pending"]);
            let summary = Summary {
                passed: Some(examples.saturating_sub(failed + pending)),
                failed: Some(failed),
                skipped: Some(pending),
                errors: Some(count_of(&parts, &[WORDS[5], WORDS[6]])),
            };
            Some(Found { at, summary })
        })
        .last()
}

/// Minitest: `12 runs, 30 assertions, 1 failures, 0 errors, 0 skips`; test-unit:
/// `5 tests, 5 assertions, 0 failures, 0 errors, 0 pendings, 0 omissions, 0 notifications`.
pub(super) fn minitest(tail: &str) -> Option<Found> {
    if !tail.contains(" assertions, ") {
        return None;
    }
    const WORDS: &[&str] = &[
        "runs",
        "tests",
        "assertions",
        "failures",
        "errors",
        "skips",
        "pendings",
        "omissions",
        "notifications",
    ];
    lines(tail)
        .filter_map(|(at, line)| {
            let parts = tally(line, ",")?;
            let shaped = parts.len() >= 5
                && matches!(parts[0].1, "runs" | "tests")
                && parts[1].1 == "assertions"
                && parts.iter().all(|(_, w)| WORDS.contains(w));
            shaped.then_some(())?;
            let runs = parts[0].0;
            let failed = count_of(&parts, &["failures"]);
            let errors = count_of(&parts, &["errors"]);
            let skipped = count_of(&parts, &["skips", "pendings", "omissions"]);
            let summary = Summary {
                passed: Some(runs.saturating_sub(failed + errors + skipped)),
                failed: Some(failed),
                skipped: Some(skipped),
                errors: Some(errors),
            };
            Some(Found { at, summary })
        })
        .last()
}

/// PHPUnit: `OK (12 tests, 30 assertions)` or, when anything is off,
/// `Tests: 12, Assertions: 30, Errors: 1, Failures: 1, Skipped: 2.`
pub(super) fn phpunit(tail: &str) -> Option<Found> {
    if !tail.contains(" assertion") && !tail.contains("Assertions: ") {
        return None;
    }
    lines(tail)
        .filter_map(|(at, line)| {
            Some(Found {
                at,
                summary: phpunit_ok(line).or_else(|| phpunit_counts(line))?,
            })
        })
        .last()
}

fn phpunit_ok(line: &str) -> Option<Summary> {
    let list = line.strip_prefix("OK (")?.strip_suffix(')')?;
    let parts = tally(list, ",")?;
    let shaped =
        parts.len() == 2 && matches!(parts[0].1, "test" | "tests") && matches!(parts[1].1, "assertion" | "assertions");
    shaped.then_some(Summary {
        passed: Some(parts[0].0),
        failed: Some(0),
        skipped: Some(0),
        errors: Some(0),
    })
}

fn phpunit_counts(line: &str) -> Option<Summary> {
    let list = line.strip_prefix("Tests: ")?.strip_suffix('.')?;
    let mut fields = list.split(", ");
    let tests: u64 = fields.next()?.parse().ok()?;
    let (mut failed, mut errors, mut skipped, mut assertions) = (0u64, 0u64, 0u64, false);
    for field in fields {
        let (key, n) = field.split_once(": ")?;
        let n: u64 = n.parse().ok()?;
        match key {
            "Assertions" => assertions = true,
            "Failures" => failed += n,
            "Errors" => errors += n,
            "Skipped" | "Incomplete" => skipped += n,
            "Warnings" | "Risky" | "Deprecations" | "PHPUnit Deprecations" | "Notices" => {}
            _ => return None,
        }
    }
    assertions.then_some(Summary {
        passed: Some(tests.saturating_sub(failed + errors + skipped)),
        failed: Some(failed),
        skipped: Some(skipped),
        errors: Some(errors),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rspec_errors_outside_examples() {
        let s = rspec("0 examples, 0 failures, 1 error occurred outside of examples\n")
            .unwrap()
            .summary;
        assert_eq!((s.passed, s.errors), (Some(0), Some(1)));
        assert!(s.shows_failure());
        assert_eq!(rspec("3 examples of failure, sadly\n"), None);
    }

    #[test]
    fn test_unit_line() {
        let s = minitest("5 tests, 9 assertions, 1 failures, 0 errors, 1 pendings, 0 omissions, 0 notifications\n");
        let s = s.unwrap().summary;
        assert_eq!((s.passed, s.failed, s.skipped), (Some(3), Some(1), Some(1)));
        assert_eq!(minitest("we ran 2 assertions, 3 failures\n"), None);
    }

    #[test]
    fn phpunit_lines() {
        let s = phpunit("Tests: 6, Assertions: 5, Failures: 1, Skipped: 1, Incomplete: 1.\n")
            .unwrap()
            .summary;
        assert_eq!((s.passed, s.failed, s.skipped), (Some(3), Some(1), Some(2)));
        assert_eq!(phpunit("OK (1 test, 1 assertion)\n").unwrap().summary.passed, Some(1));
        assert_eq!(phpunit("Tests: 3, Assertions: many.\n"), None);
    }
}
