//! JavaScript and TypeScript: jest, vitest, mocha, `node --test` (TAP and spec
//! reporters), `tsc` and eslint. Every format here is a fixed shape of counts, parsed by
//! hand after a literal gate.

use super::counts::{count_of, lines, tally, Found, Summary};

/// jest: `Tests:       1 failed, 1 skipped, 2 passed, 4 total` (zero categories left out).
/// A suite that fails to load counts no failed test, only `Test Suites: 1 failed`: that
/// becomes an error.
pub(super) fn jest(tail: &str) -> Option<Found> {
    if !tail.contains("Tests:") {
        return None;
    }
    let (mut suites_failed, mut best) = (0, None);
    for (at, line) in lines(tail) {
        if let Some(list) = line.strip_prefix("Test Suites:") {
            suites_failed = jest_list(list).map_or(0, |p| count_of(&p, &["failed"]));
        } else if let Some(parts) = line.strip_prefix("Tests:").and_then(jest_list) {
            let failed = count_of(&parts, &["failed"]);
            let summary = Summary {
                passed: Some(count_of(&parts, &["passed"])),
                failed: Some(failed),
                skipped: Some(count_of(&parts, &["skipped", "todo", "pending"])),
                errors: Some(if failed == 0 { suites_failed } else { 0 }),
            };
            best = Some(Found { at, summary });
        }
    }
    best
}

/// `1 failed, 2 passed, 3 total` → the parts; `None` unless it ends in `N total`.
fn jest_list(list: &str) -> Option<Vec<(u64, &str)>> {
    const WORDS: &[&str] = &["failed", "passed", "skipped", "todo", "pending", "total", "obsolete"];
    let parts = tally(list, ",")?;
    (parts.last()?.1 == "total" && parts.iter().all(|(_, w)| WORDS.contains(w))).then_some(parts)
}

/// vitest: `Test Files  1 failed (1)`, `Tests  1 failed | 2 passed | 1 skipped (4)`, then
/// `Errors  1 error` for unhandled errors; a file that fails to load with no test failing
/// is an error too.
pub(super) fn vitest(tail: &str) -> Option<Found> {
    if !tail.contains("Tests  ") {
        return None;
    }
    let (mut files_failed, mut best): (u64, Option<Found>) = (0, None);
    for (at, line) in lines(tail) {
        let line = line.trim();
        if let Some(parts) = line.strip_prefix("Test Files  ").and_then(vitest_list) {
            files_failed = count_of(&parts, &["failed"]);
        } else if let Some(parts) = line.strip_prefix("Tests  ").and_then(vitest_list) {
            let failed = count_of(&parts, &["failed"]);
            let summary = Summary {
                passed: Some(count_of(&parts, &["passed"])),
                failed: Some(failed),
                skipped: Some(count_of(&parts, &["skipped", "todo"])),
                errors: Some(if failed == 0 { files_failed } else { 0 }),
            };
            best = Some(Found { at, summary });
        } else if let Some(found) = best.as_mut().filter(|f| at > f.at) {
            // The Errors line belongs to the block whose Tests line it follows.
            let Some(parts) = line.strip_prefix("Errors  ").and_then(|r| tally(r, ",")) else {
                continue;
            };
            let n = count_of(&parts, &["error", "errors"]);
            found.summary.errors = Some(found.summary.errors.unwrap_or(0) + n);
            found.at = at;
        }
    }
    best
}

/// `1 failed | 2 passed (3)` → the parts.
fn vitest_list(list: &str) -> Option<Vec<(u64, &str)>> {
    const WORDS: &[&str] = &["failed", "passed", "skipped", "todo", "expected fail"];
    let (list, total) = list.trim().rsplit_once(" (")?;
    total.strip_suffix(')')?.parse::<u64>().ok()?;
    let parts = tally(list, "|")?;
    parts.iter().all(|(_, w)| WORDS.contains(w)).then_some(parts)
}

/// mocha: `  12 passing (40ms)`, then `  2 pending` and `  1 failing` when non-zero.
pub(super) fn mocha(tail: &str) -> Option<Found> {
    if !tail.contains(" passing (") {
        return None;
    }
    let all: Vec<(usize, &str)> = lines(tail).collect();
    let i = all.iter().rposition(|(_, l)| mocha_count(l, "passing").is_some())?;
    let (mut at, line) = all[i];
    let passed = mocha_count(line, "passing")?;
    let (mut pending, mut failing) = (0, 0);
    for &(offset, line) in all[i + 1..].iter().take(2) {
        if let Some(n) = mocha_count(line, "pending") {
            pending = n;
        } else if let Some(n) = mocha_count(line, "failing") {
            failing = n;
        } else {
            break;
        }
        at = offset;
    }
    let summary = Summary {
        passed: Some(passed),
        failed: Some(failing),
        skipped: Some(pending),
        errors: None,
    };
    Some(Found { at, summary })
}

/// `  12 passing (40ms)` / `  2 pending` / `  1 failing`: exactly two spaces of indent.
fn mocha_count(line: &str, word: &str) -> Option<u64> {
    let rest = line.strip_prefix("  ")?;
    let (n, rest) = rest.split_once(' ')?;
    let rest = rest.strip_prefix(word)?;
    let ok = if word == "passing" {
        let d = rest.strip_prefix(" (")?.strip_suffix(')')?;
        let unit = d.trim_start_matches(|c: char| c.is_ascii_digit() || c == '.');
        d.len() > unit.len() && matches!(unit, "ms" | "s" | "m" | "h")
    } else {
        rest.is_empty()
    };
    ok.then(|| n.parse().ok())?
}

/// `node --test`: the closing block `# tests 5`, `# pass 3`, `# fail 1`, `# cancelled 0`,
/// `# skipped 1`, `# todo 0` (TAP; the spec reporter prefixes `ℹ`). tape's `# pass  2`
/// has the same meaning. Cancelled tests fail the run: they count as errors.
pub(super) fn node_test(tail: &str) -> Option<Found> {
    if !tail.contains("# pass ") && !tail.contains("ℹ pass ") {
        return None;
    }
    let all: Vec<(usize, &str)> = lines(tail).collect();
    let i = all
        .iter()
        .rposition(|(_, l)| tap_count(l).is_some_and(|(k, _)| k == "pass"))?;
    let before = tap_block(all[..i].iter().rev());
    let after = tap_block(all[i..].iter());
    let get = |key: &str| {
        before
            .iter()
            .chain(&after)
            .find(|(_, k, _)| *k == key)
            .map(|(_, _, n)| *n)
    };
    let failed = get("fail")?;
    let summary = Summary {
        passed: get("pass"),
        failed: Some(failed),
        skipped: Some(get("skipped").or(get("skip")).unwrap_or(0) + get("todo").unwrap_or(0)),
        errors: Some(get("cancelled").unwrap_or(0)),
    };
    let at = after.last().map_or(all[i].0, |(at, _, _)| *at);
    Some(Found { at, summary })
}

/// The run of consecutive count lines `lines` starts with.
fn tap_block<'a>(lines: impl Iterator<Item = &'a (usize, &'a str)>) -> Vec<(usize, &'a str, u64)> {
    lines
        .map_while(|&(at, l)| tap_count(l).map(|(k, n)| (at, k, n)))
        .collect()
}

/// `# pass 3` / `ℹ pass 3` → ("pass", 3); `duration_ms` takes a fraction and is kept as 0.
fn tap_count(line: &str) -> Option<(&str, u64)> {
    let rest = line.strip_prefix("# ").or_else(|| line.strip_prefix("ℹ "))?;
    let mut words = rest.split_whitespace();
    let (key, value, end) = (words.next()?, words.next()?, words.next());
    end.is_none().then_some(())?;
    const KEYS: &[&str] = &[
        "tests",
        "suites",
        "pass",
        "fail",
        "cancelled",
        "skipped",
        "skip",
        "todo",
    ];
    if key == "duration_ms" {
        value.parse::<f64>().ok()?;
        return Some((key, 0));
    }
    KEYS.contains(&key).then(|| Some((key, value.parse().ok()?)))?
}

/// `tsc`: `Found 3 errors in 2 files.`, `Found 1 error in a.ts:1`, `Found 0 errors.
/// Watching for file changes.`; without `--pretty` it prints no such line, so the
/// `file(1,14): error TS2322:` lines are counted. `Found N errors.` alone is ordinary
/// English, so it is believed only from `tsc` itself or beside `error TS` lines.
pub(super) fn tsc(cmd: &str, tail: &str) -> Option<Found> {
    let ts_lines = tail.contains("error TS");
    if !ts_lines && !tail.contains("Watching for file changes") && !cmd.contains("tsc") {
        return None;
    }
    let (mut found, mut counted, mut last_ts) = (None, 0u64, None);
    for (at, line) in lines(tail) {
        if let Some(n) = tsc_found(line) {
            found = Some((at, n));
            counted = 0;
        } else if line.contains("): error TS") || line.contains(" - error TS") {
            counted += 1;
            last_ts = Some(at);
        }
    }
    let (at, errors) = match (found, last_ts) {
        (Some((f, _)), Some(t)) if t > f => (t, counted),
        (Some((f, n)), _) => (f, n),
        (None, Some(t)) => (t, counted),
        (None, None) => return None,
    };
    let summary = Summary {
        errors: Some(errors),
        ..Summary::default()
    };
    Some(Found { at, summary })
}

fn tsc_found(line: &str) -> Option<u64> {
    let (n, rest) = line.strip_prefix("Found ")?.split_once(' ')?;
    let rest = rest.strip_prefix("errors").or_else(|| rest.strip_prefix("error"))?;
    let shaped = rest.is_empty() || rest.starts_with(" in ") || rest.starts_with(". ") || rest == ".";
    shaped.then(|| n.parse().ok())?
}

/// eslint: `✖ 5 problems (3 errors, 2 warnings)`. Warnings do not fail a lint run.
pub(super) fn eslint(tail: &str) -> Option<Found> {
    if !tail.contains("✖ ") || !tail.contains(" problem") {
        return None;
    }
    lines(tail)
        .filter_map(|(at, line)| {
            let rest = line.strip_prefix("✖ ")?;
            let (head, counts) = rest.split_once(" (")?;
            let (_, word) = head.split_once(' ')?;
            matches!(word, "problem" | "problems").then_some(())?;
            let parts = tally(counts.strip_suffix(')')?, ",")?;
            let errors = count_of(&parts, &["error", "errors"]);
            let summary = Summary {
                errors: Some(errors),
                ..Summary::default()
            };
            Some(Found { at, summary })
        })
        .last()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn jest_suite_that_fails_to_load_is_an_error() {
        let s = jest("Test Suites: 1 failed, 1 total\nTests:       0 total\n")
            .unwrap()
            .summary;
        assert_eq!((s.failed, s.errors), (Some(0), Some(1)));
        assert_eq!(jest("Tests: 4, Assertions: 4, Failures: 1.\n"), None);
    }

    #[test]
    fn vitest_unhandled_errors() {
        let s = vitest(" Test Files  1 passed (1)\n      Tests  2 passed (2)\n     Errors  1 error\n");
        assert_eq!(s.unwrap().summary.errors, Some(1));
        let s = vitest(" Test Files  1 failed (1)\n      Tests  no tests\n").map(|f| f.summary);
        assert_eq!(s, None, "no Tests counts: nothing to anchor on");
    }

    #[test]
    fn mocha_needs_its_shape() {
        assert_eq!(
            mocha("  0 passing (2ms)\n  3 failing\n").unwrap().summary.failed,
            Some(3)
        );
        assert_eq!(mocha("    3 passing (4ms)\n"), None);
        assert_eq!(mocha("  cars passing (fast)\n"), None);
    }

    #[test]
    fn tap_block_from_tape() {
        let s = node_test("1..3\n# tests 3\n# pass  2\n# fail  1\n").unwrap().summary;
        assert_eq!((s.passed, s.failed), (Some(2), Some(1)));
        assert_eq!(node_test("# pass the salt\n"), None);
    }

    #[test]
    fn tsc_needs_its_context() {
        assert_eq!(tsc("make", "Found 2 errors.\n"), None);
        assert_eq!(tsc("npx tsc", "Found 2 errors.\n").unwrap().summary.errors, Some(2));
        assert_eq!(
            tsc("npm run build", "Found 0 errors. Watching for file changes.\n")
                .unwrap()
                .summary
                .errors,
            Some(0)
        );
        assert_eq!(tsc("npx tsc", "Found errors in the config file\n"), None);
    }

    #[test]
    fn eslint_line() {
        assert_eq!(
            eslint("✖ 1 problem (1 error, 0 warnings)\n").unwrap().summary.errors,
            Some(1)
        );
        assert_eq!(eslint("✖ 3 problems remain unsolved\n"), None);
    }
}
