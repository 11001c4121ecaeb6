//! Counts an evidence note states ("12 passed", "0 failed") against what the run printed.
//!
//! A card claiming "12 passed" was accepted when the logged run showed 3. When the note
//! states a count and the newest record of the cited command carries a recognised
//! summary (`evidence::summary`) with that count, the two must agree. A count the summary
//! does not carry, or a run whose format is unknown, changes nothing: only a
//! contradiction blocks.

use crate::evidence::summary::Summary;
use regex::Regex;
use std::sync::OnceLock;

/// Which count a note states.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Count {
    Passed,
    Failed,
    Skipped,
    Errors,
}

impl Count {
    fn name(self) -> &'static str {
        match self {
            Count::Passed => "passed",
            Count::Failed => "failed",
            Count::Skipped => "skipped",
            Count::Errors => "errors",
        }
    }

    fn of(self, s: &Summary) -> Option<u64> {
        match self {
            Count::Passed => s.passed,
            Count::Failed => s.failed,
            Count::Skipped => s.skipped,
            Count::Errors => s.errors,
        }
    }
}

/// The counts a note states, outside backticks, in order.
pub fn stated(note: &str) -> Vec<(Count, u64)> {
    static RE: OnceLock<Regex> = OnceLock::new();
    let re = RE.get_or_init(|| {
        Regex::new(
            r"(?i)\b(\d{1,9})\s+(?:tests?\s+)?(passed|passing|pass|failed|failing|failures?|skipped|ignored|errors?)\b",
        )
        .expect("count pattern compiles")
    });
    // Backticked spans are commands, not claims.
    let prose: String = note.split('`').step_by(2).collect::<Vec<_>>().join(" ");
    if !prose.bytes().any(|b| b.is_ascii_digit()) {
        return Vec::new();
    }
    re.captures_iter(&prose)
        .filter_map(|c| {
            let n = c[1].parse().ok()?;
            let kind = match c[2].to_ascii_lowercase().as_str() {
                "passed" | "passing" | "pass" => Count::Passed,
                "failed" | "failing" | "failure" | "failures" => Count::Failed,
                "skipped" | "ignored" => Count::Skipped,
                _ => Count::Errors,
            };
            Some((kind, n))
        })
        .collect()
}

/// The first stated count the summary contradicts, as a message.
pub fn contradiction(cited: &str, stated: &[(Count, u64)], summary: &Summary) -> Option<String> {
    stated.iter().find_map(|(kind, n)| {
        let shown = kind.of(summary)?;
        (shown != *n).then(|| {
            format!(
                "the note says {n} {}, but the newest run of `{cited}` shows {shown} {} — state what the run showed, or run it again",
                kind.name(),
                kind.name()
            )
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_outside_backticks_are_read() {
        assert_eq!(
            stated("`cargo test` -> 12 passed, 0 failed"),
            vec![(Count::Passed, 12), (Count::Failed, 0)]
        );
        assert_eq!(
            stated("`pytest -q` → 3 tests passed; 1 skipped"),
            vec![(Count::Passed, 3), (Count::Skipped, 1)]
        );
        assert!(stated("`make test 12 passed` ran").is_empty());
        assert!(stated("screenshot shows the header").is_empty());
    }

    #[test]
    fn only_a_contradiction_counts() {
        let s = Summary {
            passed: Some(3),
            failed: Some(0),
            skipped: None,
            errors: None,
        };
        assert!(contradiction("pytest", &[(Count::Passed, 3), (Count::Failed, 0)], &s).is_none());
        assert!(
            contradiction("pytest", &[(Count::Skipped, 9)], &s).is_none(),
            "not carried: no claim checked"
        );
        let m = contradiction("pytest", &[(Count::Passed, 12)], &s).unwrap();
        assert!(m.contains("12 passed") && m.contains("shows 3 passed"), "{m}");
    }
}
