//! The [`Summary`] value and the small helpers every tool family's parser shares.
//!
//! Kept apart from `mod.rs` so the family files depend on this file and `mod.rs` depends
//! on them, never the other way round.

use regex::Regex;
use serde::{Deserialize, Serialize};
use std::sync::OnceLock;

/// Counts a test/build/lint tool printed in its closing summary.
///
/// A field is `Some` when the tool's format determines it — including `Some(0)` for a
/// category a tool leaves out when it is zero (pytest, jest and mocha print only non-zero
/// categories) — and `None` when the format does not carry that count at all (go test
/// without `-v` never counts passing tests; mocha has no notion of errors). `errors`
/// holds what is neither a test pass nor a test failure but still sinks the run: compile
/// errors, collection errors, crashed test binaries, lint errors.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Summary {
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub passed: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub failed: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub skipped: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub errors: Option<u64>,
}

impl Summary {
    /// The output itself says the run went wrong, whatever the exit status says
    /// (`cargo test 2>&1 | tail -5` exits with `tail`'s 0).
    pub fn shows_failure(&self) -> bool {
        self.failed.unwrap_or(0) > 0 || self.errors.unwrap_or(0) > 0
    }

    /// Field-wise sum, for tools that print one summary per test binary or module; a count
    /// stays `None` only when neither side carries it.
    pub(super) fn add(self, other: Summary) -> Summary {
        let plus = |a: Option<u64>, b: Option<u64>| match (a, b) {
            (None, None) => None,
            (a, b) => Some(a.unwrap_or(0).saturating_add(b.unwrap_or(0))),
        };
        Summary {
            passed: plus(self.passed, other.passed),
            failed: plus(self.failed, other.failed),
            skipped: plus(self.skipped, other.skipped),
            errors: plus(self.errors, other.errors),
        }
    }
}

/// A summary found in the tail and the byte offset of the last line it rests on: when
/// several tools' summaries appear (`cargo test && npm test`), the latest one wins.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Found {
    pub at: usize,
    pub summary: Summary,
}

/// A regex compiled at most once per process, and only when a line has passed its
/// caller's literal check: compiling costs more than scanning a whole tail by hand, and the
/// hook pays it on every call that reaches it. `None` (never in practice: the patterns are
/// constants under test) keeps the hook fail-open instead of panicking.
pub(super) fn compiled(cell: &'static OnceLock<Option<Regex>>, source: &str) -> Option<&'static Regex> {
    #[cfg(test)]
    REGEX_USES.with(|n| n.set(n.get() + 1));
    cell.get_or_init(|| Regex::new(source).ok()).as_ref()
}

#[cfg(test)]
thread_local! {
    /// How often this thread asked for a regex: the gating test's witness (per thread, so
    /// parallel tests do not disturb it).
    pub(super) static REGEX_USES: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// `static`-backed [`compiled`] in one expression: `regex!(r"^ok$")?`.
macro_rules! regex {
    ($source:expr) => {{
        static CELL: std::sync::OnceLock<Option<regex::Regex>> = std::sync::OnceLock::new();
        $crate::evidence::summary::counts::compiled(&CELL, $source)
    }};
}
pub(super) use regex;

/// Lines with their byte offsets. A carriage return inside a line (progress bars redraw
/// with `\r`) keeps only what was drawn last, which is what a terminal would show.
pub(super) fn lines(text: &str) -> impl Iterator<Item = (usize, &str)> {
    let mut at = 0;
    text.split('\n').map(move |raw| {
        let start = at;
        at += raw.len() + 1;
        let line = raw.strip_suffix('\r').unwrap_or(raw);
        match line.rfind('\r') {
            Some(i) => (start + i + 1, &line[i + 1..]),
            None => (start, line),
        }
    })
}

/// A decimal capture group as a count; absent or overflowing digits are `None`.
pub(super) fn num(caps: &regex::Captures, group: usize) -> Option<u64> {
    caps.get(group)?.as_str().parse().ok()
}

/// Splits `"3 failed, 12 passed, 1 skipped"` on `sep` into `(count, word)` pairs. Any part
/// that is not `<digits> <words>` rejects the whole list: a summary is all counts, and a
/// sentence that merely contains one number must not pass for one.
pub(super) fn tally<'a>(list: &'a str, sep: &str) -> Option<Vec<(u64, &'a str)>> {
    list.split(sep)
        .map(|part| {
            let (n, word) = part.trim().split_once(' ')?;
            let word = word.trim();
            let wordy = !word.is_empty() && word.chars().all(|c| c.is_ascii_lowercase() || c == ' ');
            wordy.then_some(())?;
            Some((n.parse().ok()?, word))
        })
        .collect()
}

/// The count for the first of `words` in a [`tally`], or 0: tools that use such lists
/// leave out zero categories.
pub(super) fn count_of(parts: &[(u64, &str)], words: &[&str]) -> u64 {
    parts.iter().filter(|(_, w)| words.contains(w)).map(|(n, _)| n).sum()
}

/// The output without ANSI colour and cursor sequences (vitest, tsc `--pretty` and Maven
/// colour even when piped). Only called when the text holds an escape byte at all.
pub(super) fn strip_ansi(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '\x1b' {
            out.push(c);
            continue;
        }
        if chars.peek() == Some(&'[') {
            chars.next();
            // Parameters and intermediates, then one final byte in '@'..='~'.
            for c in chars.by_ref() {
                if ('@'..='~').contains(&c) {
                    break;
                }
            }
        } else if matches!(chars.next(), Some('(' | ')')) {
            chars.next(); // a charset designation: ESC ( B
        }
    }
    out
}
