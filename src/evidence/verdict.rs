//! One verdict per record, the gate's, for every screen that shows the log (`fable status`,
//! `fable evidence show`): a screen that called a piped failing `cargo test | tail` "ok"
//! while the gate rightly treated it as failed taught users to distrust both.

use crate::evidence::Record;

/// What a record is, as the close guard weighs it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// A Write/Edit tool call that changed a file.
    Edit,
    /// Launched with `run_in_background`: its result never reached a hook.
    Background,
    /// Passed, and its output shows what it claims.
    Pass,
    /// Exited 0 but proves nothing (`--help`, `--no-run`, no tests ran, output cut).
    Nothing,
    /// Failed: exit status or its own summary.
    Fail,
}

impl Verdict {
    pub fn of(r: &Record) -> Verdict {
        if r.file.is_some() {
            Verdict::Edit
        } else if r.background.is_some() {
            Verdict::Background
        } else if !r.passed() {
            Verdict::Fail
        } else if r.proves() {
            Verdict::Pass
        } else {
            Verdict::Nothing
        }
    }

    /// A four-character label for a terminal column.
    pub fn label(self) -> &'static str {
        match self {
            Verdict::Edit => "edit",
            Verdict::Background => "bg  ",
            Verdict::Pass => "ok  ",
            Verdict::Nothing => "none",
            Verdict::Fail => "FAIL",
        }
    }
}

/// What a record's output shows, for a screen: its parsed summary (all test binaries
/// summed, as the gate reads it) or, without one, its last line.
pub fn shown(r: &Record) -> String {
    match r.summary {
        Some(s) => summary_text(s),
        None => r.tail.lines().last().unwrap_or("").to_string(),
    }
}

/// A summary's counts in words (`3 passed, 1 failed`), the ones its format carries.
pub fn summary_text(s: crate::evidence::summary::Summary) -> String {
    let mut parts = Vec::new();
    for (n, w) in [
        (s.passed, "passed"),
        (s.failed, "failed"),
        (s.skipped, "skipped"),
        (s.errors, "errors"),
    ] {
        if let Some(n) = n {
            parts.push(format!("{n} {w}"));
        }
    }
    parts.join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::evidence::summary::Summary;

    #[test]
    fn the_gate_and_the_screens_agree() {
        let mut piped = Record::new("t", "s", "/p", "cargo test 2>&1 | tail -5", Some(0), true, "x");
        piped.summary = Some(Summary {
            passed: Some(2),
            failed: Some(1),
            ..Summary::default()
        });
        assert_eq!(Verdict::of(&piped), Verdict::Fail);
        assert_eq!(shown(&piped), "2 passed, 1 failed");
        let mut edit = Record::new("t", "s", "/p", "", None, true, "");
        edit.file = Some("/p/a.rs".into());
        assert_eq!(Verdict::of(&edit).label(), "edit");
        let help = Record::new("t", "s", "/p", "cargo test --help", Some(0), true, "Usage: cargo test");
        assert_eq!(Verdict::of(&help), Verdict::Nothing);
    }
}
