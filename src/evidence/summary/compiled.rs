//! Compiled-language runners: `go test`, CTest, and the JVM builds (Maven surefire,
//! Gradle).

use super::counts::{lines, Found, Summary};

/// `go test`: per-package `ok  \tpkg\t0.1s` / `FAIL\tpkg\t0.1s` / `FAIL\tpkg [build
/// failed]` lines, `--- FAIL: TestX` per failing top-level test (subtests are indented and
/// not counted), and with `-v` also `--- PASS:` / `--- SKIP:`. Go's tab after the status
/// word is required, so prose starting "ok" or "FAIL" is not taken for a package line.
/// Without `-v` go never names passing tests, so `passed`/`skipped` stay unknown.
pub(super) fn go_test(tail: &str) -> Option<Found> {
    if !tail.contains("ok  \t") && !tail.contains("FAIL\t") {
        return None;
    }
    let (mut at, mut packages) = (None, 0u64);
    let (mut pass, mut fail, mut skip, mut verbose) = (0u64, 0u64, 0u64, false);
    let (mut failed_packages, mut broken_packages) = (0u64, 0u64);
    for (offset, line) in lines(tail) {
        if let Some(rest) = line.strip_prefix("ok  \t").or_else(|| line.strip_prefix("?   \t")) {
            packages += u64::from(!rest.is_empty());
        } else if let Some(rest) = line.strip_prefix("FAIL\t") {
            packages += 1;
            failed_packages += 1;
            broken_packages += u64::from(rest.ends_with(" [build failed]") || rest.ends_with(" [setup failed]"));
        } else if line.starts_with("--- FAIL: ") {
            fail += 1;
        } else if line.starts_with("--- PASS: ") {
            (pass, verbose) = (pass + 1, true);
        } else if line.starts_with("--- SKIP: ") {
            (skip, verbose) = (skip + 1, true);
        } else if line.starts_with("=== RUN   ") {
            verbose = true;
        } else if !(packages > 0 && (line == "PASS" || line == "FAIL")) {
            continue;
        }
        at = Some(offset);
    }
    if packages == 0 {
        return None;
    }
    // A package can fail with no failing test: a build error, a panic in init, TestMain.
    let untested = if fail == 0 {
        failed_packages - broken_packages
    } else {
        0
    };
    let summary = Summary {
        passed: verbose.then_some(pass),
        failed: Some(fail),
        skipped: verbose.then_some(skip),
        errors: Some(broken_packages + untested),
    };
    Some(Found { at: at?, summary })
}

/// CTest: `83% tests passed, 2 tests failed out of 12`.
pub(super) fn ctest(tail: &str) -> Option<Found> {
    if !tail.contains("% tests passed, ") {
        return None;
    }
    lines(tail)
        .filter_map(|(at, line)| {
            let (percent, rest) = line.split_once("% tests passed, ")?;
            percent.parse::<u8>().ok()?;
            let (failed, total) = rest.split_once(" failed out of ")?;
            let failed: u64 = failed
                .strip_suffix(" tests")
                .or_else(|| failed.strip_suffix(" test"))?
                .parse()
                .ok()?;
            let total: u64 = total.trim_end().parse().ok()?;
            let summary = Summary {
                passed: Some(total.saturating_sub(failed)),
                failed: Some(failed),
                skipped: None,
                errors: None,
            };
            Some(Found { at, summary })
        })
        .last()
}

/// Maven and Gradle. Surefire prints `Tests run: 5, Failures: 1, Errors: 1, Skipped: 1`
/// once per class (with `, Time elapsed: …`) and once per module after `Results:`; the
/// module lines are summed, the class lines used only when no module line is left in the
/// tail. Gradle prints `5 tests completed, 1 failed, 1 skipped`. `[INFO] BUILD FAILURE` /
/// `BUILD FAILED in 3s` with no failing test counted is one error (compilation, a plugin).
pub(super) fn jvm(tail: &str) -> Option<Found> {
    let gated = tail.contains("Tests run: ") || tail.contains("BUILD ") || tail.contains(" tests completed, ");
    if !gated {
        return None;
    }
    let (mut at, mut modules, mut classes, mut gradle) = (None, None::<Summary>, None::<Summary>, None);
    let mut build_failed = None;
    for (offset, line) in lines(tail) {
        let bare = ["[INFO] ", "[ERROR] ", "[WARNING] "]
            .iter()
            .find_map(|p| line.strip_prefix(p));
        if let Some((s, per_class)) = surefire_line(bare.unwrap_or(line)) {
            let into = if per_class { &mut classes } else { &mut modules };
            *into = Some(into.map_or(s, |sum| sum.add(s)));
        } else if let Some(s) = gradle_line(line) {
            gradle = Some(s);
        } else if let Some(failed) = build_verdict(bare, line) {
            build_failed = Some(failed);
        } else {
            continue;
        }
        at = Some(offset);
    }
    let counts = modules.or(classes).or(gradle);
    let mut summary = match (counts, build_failed) {
        (Some(s), _) => s,
        (None, Some(_)) => Summary {
            errors: Some(0),
            ..Summary::default()
        },
        (None, None) => return None,
    };
    if build_failed == Some(true) && !summary.shows_failure() {
        summary.errors = Some(1);
    }
    Some(Found { at: at?, summary })
}

/// `Tests run: 5, Failures: 1, Errors: 1, Skipped: 1[, Time elapsed: …]` → the counts and
/// whether it is a per-class line.
fn surefire_line(line: &str) -> Option<(Summary, bool)> {
    let rest = line.strip_prefix("Tests run: ")?;
    let mut fields = rest.splitn(5, ", ");
    let run: u64 = fields.next()?.parse().ok()?;
    let mut field = |key: &str| -> Option<u64> { fields.next()?.strip_prefix(key)?.parse().ok() };
    let (failures, errors, skipped) = (field("Failures: ")?, field("Errors: ")?, field("Skipped: ")?);
    let per_class = match fields.next() {
        None => false,
        Some(more) if more.starts_with("Time elapsed: ") => true,
        Some(_) => return None,
    };
    let summary = Summary {
        passed: Some(run.saturating_sub(failures + errors + skipped)),
        failed: Some(failures),
        skipped: Some(skipped),
        errors: Some(errors),
    };
    Some((summary, per_class))
}

/// Gradle: `5 tests completed, 1 failed[, 1 skipped]`.
fn gradle_line(line: &str) -> Option<Summary> {
    let (total, rest) = line
        .split_once(" tests completed, ")
        .or_else(|| line.split_once(" test completed, "))?;
    let total: u64 = total.parse().ok()?;
    let (failed, skipped) = match rest.split_once(", ") {
        Some((f, s)) => (f, Some(s.strip_suffix(" skipped")?.parse::<u64>().ok()?)),
        None => (rest, None),
    };
    let failed: u64 = failed.strip_suffix(" failed")?.parse().ok()?;
    let skip = skipped.unwrap_or(0);
    Some(Summary {
        passed: Some(total.saturating_sub(failed + skip)),
        failed: Some(failed),
        skipped: Some(skip),
        errors: Some(0),
    })
}

/// `[INFO] BUILD SUCCESS` / `[INFO] BUILD FAILURE` (Maven), `BUILD SUCCESSFUL in 2s` /
/// `BUILD FAILED in 2s` (Gradle) → whether the build failed.
fn build_verdict(maven: Option<&str>, line: &str) -> Option<bool> {
    match maven {
        Some("BUILD SUCCESS") => return Some(false),
        Some("BUILD FAILURE") => return Some(true),
        _ => {}
    }
    let (failed, took) = match line.strip_prefix("BUILD SUCCESSFUL in ") {
        Some(took) => (false, took),
        None => (true, line.strip_prefix("BUILD FAILED in ")?),
    };
    // Gradle's duration (`3s`, `1m 5s`), so "BUILD FAILED in staging" is not a verdict.
    let duration = took.split(' ').all(|t| {
        let unit = t.trim_start_matches(|c: char| c.is_ascii_digit());
        unit.len() < t.len() && matches!(unit, "ms" | "s" | "m" | "h")
    });
    duration.then_some(failed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn go_package_that_fails_without_a_failing_test() {
        let tail = "panic: boom in init\nFAIL\texample.com/x\t0.002s\nFAIL\n";
        let s = go_test(tail).unwrap().summary;
        assert_eq!((s.failed, s.errors, s.passed), (Some(0), Some(1), None));
        // Indented subtests are not counted; prose needs go's tab.
        let tail = "--- FAIL: TestA (0.00s)\n    --- FAIL: TestA/sub (0.00s)\nFAIL\nFAIL\tx\t0.1s\n";
        assert_eq!(go_test(tail).unwrap().summary.failed, Some(1));
        assert_eq!(go_test("ok  so it goes\nFAIL to launch\n"), None);
    }

    #[test]
    fn surefire_sums_modules_not_classes() {
        let tail = "[INFO] Tests run: 2, Failures: 0, Errors: 0, Skipped: 0, Time elapsed: 0.1 s - in a.ATest\n\
                    [INFO] Tests run: 2, Failures: 0, Errors: 0, Skipped: 0\n\
                    [ERROR] Tests run: 3, Failures: 1, Errors: 0, Skipped: 1, Time elapsed: 0.1 s <<< FAILURE! - in b.BTest\n\
                    [ERROR] Tests run: 3, Failures: 1, Errors: 0, Skipped: 1\n[INFO] BUILD FAILURE\n";
        let s = jvm(tail).unwrap().summary;
        assert_eq!((s.passed, s.failed, s.skipped), (Some(3), Some(1), Some(1)));
    }

    #[test]
    fn build_verdict_alone() {
        assert_eq!(jvm("[INFO] BUILD FAILURE\n").unwrap().summary.errors, Some(1));
        assert_eq!(jvm("BUILD SUCCESSFUL in 4s\n").unwrap().summary.errors, Some(0));
        assert_eq!(jvm("BUILD FAILED in 1m 5s\n").unwrap().summary.errors, Some(1));
        assert_eq!(jvm("the BUILD FAILURE was fixed\n"), None);
        assert_eq!(jvm("BUILD FAILED in staging\n"), None);
    }

    #[test]
    fn ctest_and_gradle_lines() {
        let s = ctest("83% tests passed, 2 tests failed out of 12\n").unwrap().summary;
        assert_eq!((s.passed, s.failed), (Some(10), Some(2)));
        assert_eq!(gradle_line("1 test completed, 1 failed").unwrap().failed, Some(1));
        assert_eq!(ctest("about 50% tests passed, or so\n"), None);
    }
}
