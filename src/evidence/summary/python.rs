//! Python: pytest's closing line (framed in `=` or, with `-q`, bare) and unittest's
//! `Ran N tests` followed by `OK` / `FAILED (…)`. Parsed by hand: both formats are
//! simple, and a regex compile would cost more than the scan on every gated call.

use super::counts::{count_of, lines, tally, Found, Summary};

/// Words pytest may put after a count; anything else and the line is not pytest's.
const PYTEST_WORDS: &[&str] = &[
    "passed",
    "failed",
    "skipped",
    "error",
    "errors",
    "xfailed",
    "xpassed",
    "warning",
    "warnings",
    "deselected",
    "rerun",
];

/// `===== 3 failed, 12 passed, 1 skipped in 0.12s =====`, `2 passed in 0.1s` (`-q`),
/// `no tests ran in 0.01s`. Zero categories are left out by pytest, so they read as 0.
pub(super) fn pytest(tail: &str) -> Option<Found> {
    let gated = tail.contains(" in ")
        && (tail.contains(" passed")
            || tail.contains(" failed")
            || tail.contains(" error")
            || tail.contains(" deselected")
            || tail.contains(" collected"))
        || tail.contains("no tests ran");
    if !gated {
        return None;
    }
    lines(tail)
        .filter_map(|(at, line)| {
            Some(Found {
                at,
                summary: pytest_line(line)?,
            })
        })
        .last()
}

fn pytest_line(line: &str) -> Option<Summary> {
    let framed = line.starts_with('=');
    let body = line.trim_matches(|c| c == '=' || c == ' ');
    // Framed lines end in `=`; bare `-q` lines start at column 0 with the first count.
    if framed != line.ends_with('=') || (!framed && body.len() != line.len()) {
        return None;
    }
    let (list, duration) = body.rsplit_once(" in ")?;
    let seconds = duration.split(" (").next()?; // `75.12s (0:01:15)`
    let seconds = seconds.strip_suffix('s')?;
    (!seconds.is_empty() && seconds.chars().all(|c| c.is_ascii_digit() || c == '.')).then_some(())?;
    // `--collect-only` closes with `6 tests collected in 0.01s`: nothing was executed.
    if list == "no tests ran" || list == "no tests collected" || collected_only(list) {
        return Some(Summary {
            passed: Some(0),
            failed: Some(0),
            skipped: Some(0),
            errors: Some(0),
        });
    }
    let parts = tally(list, ",")?;
    parts.iter().all(|(_, w)| PYTEST_WORDS.contains(w)).then_some(())?;
    Some(Summary {
        passed: Some(count_of(&parts, &["passed"])),
        failed: Some(count_of(&parts, &["failed"])),
        skipped: Some(count_of(&parts, &["skipped"])),
        errors: Some(count_of(&parts, &["error", "errors"])),
    })
}

/// `6 tests collected` / `1 test collected` (pytest `--collect-only`).
fn collected_only(list: &str) -> bool {
    let Some((n, words)) = list.split_once(' ') else {
        return false;
    };
    n.parse::<u64>().is_ok() && matches!(words, "tests collected" | "test collected")
}

/// unittest (and Django's runner): `Ran 12 tests in 0.01s`, a blank line, then `OK`,
/// `OK (skipped=1)`, `FAILED (failures=1, errors=2, skipped=1)` or `NO TESTS RAN`.
pub(super) fn unittest(tail: &str) -> Option<Found> {
    if !tail.contains("Ran ") {
        return None;
    }
    let all: Vec<(usize, &str)> = lines(tail).collect();
    let mut best = None;
    for (i, (_, line)) in all.iter().enumerate() {
        let Some(ran) = ran_count(line) else { continue };
        let verdict = all[i + 1..].iter().find(|(_, l)| !l.trim().is_empty());
        if let Some(&(at, verdict)) = verdict {
            if let Some(summary) = unittest_verdict(ran, verdict) {
                best = Some(Found { at, summary });
            }
        }
    }
    best
}

/// `Ran 12 tests in 0.013s` → 12.
fn ran_count(line: &str) -> Option<u64> {
    let rest = line.strip_prefix("Ran ")?;
    let (n, rest) = rest.split_once(' ')?;
    let rest = rest
        .strip_prefix("tests in ")
        .or_else(|| rest.strip_prefix("test in "))?;
    rest.strip_suffix('s')?.parse::<f64>().ok()?;
    n.parse().ok()
}

fn unittest_verdict(ran: u64, line: &str) -> Option<Summary> {
    let line = line.trim_end();
    let (word, details) = match line.split_once(" (") {
        Some((word, rest)) => (word, rest.strip_suffix(')')?),
        None => (line, ""),
    };
    if !matches!(word, "OK" | "FAILED" | "NO TESTS RAN") {
        return None;
    }
    let (mut failures, mut errors, mut skipped, mut expected) = (0u64, 0u64, 0u64, 0u64);
    for part in details.split(", ").filter(|p| !p.is_empty()) {
        let (key, n) = part.split_once('=')?;
        let n: u64 = n.parse().ok()?;
        match key {
            "failures" | "unexpected successes" => failures += n,
            "errors" => errors += n,
            "skipped" => skipped += n,
            "expected failures" => expected += n,
            _ => return None,
        }
    }
    Some(Summary {
        passed: Some(ran.saturating_sub(failures + errors + skipped + expected)),
        failed: Some(failures),
        skipped: Some(skipped),
        errors: Some(errors),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pytest_lines() {
        let s = pytest_line("=== 1 failed, 2 passed, 3 warnings, 1 error in 75.12s (0:01:15) ===").unwrap();
        assert_eq!((s.passed, s.failed, s.errors), (Some(2), Some(1), Some(1)));
        assert_eq!(pytest_line("4 passed in 0.20s").unwrap().passed, Some(4));
        assert_eq!(pytest_line("=== 2 deselected in 0.01s ===").unwrap().passed, Some(0));
        assert_eq!(
            pytest_line("==== 6 tests collected in 0.01s ====").unwrap().passed,
            Some(0)
        );
        assert_eq!(pytest_line("1 test collected in 0.00s").unwrap().passed, Some(0));
        assert_eq!(pytest_line("6 tests collected somewhere in 2s"), None);
        // Prose that looks the part: an unknown word, a missing frame, an indented line.
        assert_eq!(pytest_line("3 people passed in 2s"), None);
        assert_eq!(pytest_line("=== 3 passed in 0.1s"), None);
        assert_eq!(pytest_line("  3 passed in 0.1s"), None);
        assert_eq!(pytest_line("3 failed in production"), None);
    }

    #[test]
    fn unittest_verdicts() {
        let tail = "Ran 4 tests in 0.002s\n\nFAILED (failures=1, expected failures=1, unexpected successes=1)\n";
        let s = unittest(tail).unwrap().summary;
        assert_eq!((s.passed, s.failed, s.errors), (Some(1), Some(2), Some(0)));
        assert_eq!(
            unittest("Ran 0 tests in 0.000s\n\nNO TESTS RAN\n")
                .unwrap()
                .summary
                .passed,
            Some(0)
        );
        assert_eq!(unittest("Ran 3 tests in 1.0s\n\nOK then, moving on\n"), None);
        assert_eq!(unittest("Ran 3 miles in 20 minutes\nOK\n"), None);
    }
}
