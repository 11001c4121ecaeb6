//! A retry that kept the failing command's operands but gave it an option that scopes it
//! away from what failed: `git apply --exclude=src/app.py p.patch` after "error: patch
//! failed: src/app.py:3" (the rest of the patch applied, the hunk that did not dropped),
//! `--exclude='src/*'`, `pytest --ignore=tests/test_b.py`, or the opposite spelling, an
//! option that keeps only other parts (`git apply --include=docs/CHANGES.md`).
//!
//! Why: the command then passes with the failure still there, and read on its flags alone
//! the retry is an options change like the real fix (`git apply -3`): one kind of fix, so
//! the shortcut's sessions joined the real fix's group and, being the more common spelling,
//! were said as the lesson. It is unsafe ([`SCOPED_AWAY`]): a blocked candidate of its own.
//!
//! How it is told, without a table of tools: the option's name says it leaves something
//! out (`exclude`, `ignore`, `skip`, `omit`, `deselect`, `without`) and its value is a path
//! the failure named (or a pattern covering one), or the name says it keeps only something
//! (`include`, `only`, `select`) and its value covers no path the failure named. The two
//! short lists are English words, as [`crate::learn::text::check_off`]'s are.

use crate::learn::history::narrowed::names_path;
use crate::learn::text::command_norm::Segment;

/// The safety name of a retry scoped away from what its failure was in.
pub const SCOPED_AWAY: &str = "scoped_away_from_failure";

/// Words of an option's name that leave what follows out.
const LEAVE_OUT: &[&str] = &["exclude", "ignore", "skip", "omit", "deselect", "without"];

/// Words of an option's name that keep only what follows.
const KEEP_ONLY: &[&str] = &["include", "only", "select"];

/// The options the retry added, as (name, value): `--exclude=src/app.py`, `--exclude
/// src/app.py` (the next word, when it is no flag and no operand of the failing command).
fn added_options<'a>(fail: &'a Segment, retry: &'a Segment) -> Vec<(&'a str, &'a str)> {
    let mut out = Vec::new();
    let words = &retry.words;
    for (i, w) in words.iter().enumerate() {
        if !w.starts_with("--") || fail.words.contains(w) {
            continue;
        }
        match w.split_once('=') {
            Some((name, value)) => out.push((name, value)),
            None => {
                if let Some(v) = words
                    .get(i + 1)
                    .filter(|v| !v.starts_with('-') && !fail.words.contains(v))
                {
                    out.push((w.as_str(), v.as_str()));
                }
            }
        }
    }
    out
}

/// Does `value` (a path or a pattern) cover a path the failure's text names? A pattern
/// covers the folder its fixed part names (`src/*` covers `src/app.py`).
fn covers(tail: &str, value: &str) -> bool {
    let value = value.trim_matches(['\'', '"']);
    let fixed = value.split(['*', '?', '[']).next().unwrap_or(value);
    let fixed = fixed.trim_end_matches('/');
    names_path(tail, fixed) || fixed != value && names_path(tail, fixed.rsplit_once('/').map_or(fixed, |(d, _)| d))
}

/// Does the failure's text name a path at all (a word holding a `/` between letters)?
fn names_any_path(tail: &str) -> bool {
    tail.split_whitespace().any(|w| {
        let w = w.trim_matches(|c: char| !c.is_alphanumeric());
        w.split_once('/').is_some_and(|(a, b)| !a.is_empty() && !b.is_empty())
    })
}

/// Did the retry scope the failing command away from what failed (module doc)?
pub fn scopes_away(fail_tail: &str, fail: &Segment, retry: &Segment) -> bool {
    if crate::learn::text::said_missing::operand(fail_tail) {
        return false;
    }
    added_options(fail, retry).into_iter().any(|(name, value)| {
        let words: Vec<String> = name
            .trim_start_matches('-')
            .split(['-', '_'])
            .map(str::to_ascii_lowercase)
            .collect();
        let says = |list: &[&str]| words.iter().any(|w| list.contains(&w.as_str()));
        let pathish = value.contains(['/', '.', '*']);
        pathish
            && (says(LEAVE_OUT) && covers(fail_tail, value)
                || says(KEEP_ONLY)
                    && names_any_path(fail_tail)
                    && !covers(fail_tail, value)
                    && !still_given(fail_tail, retry))
    })
}

/// Does the retry still name, as an operand of its own, a path the failure was in? Then an
/// option that "keeps only" something cannot have kept that path out: `gcc
/// --include=config.h -o app src/main.c` after `src/main.c:3: error: …` forces a header
/// in and compiles the same file.
fn still_given(fail_tail: &str, retry: &Segment) -> bool {
    retry
        .words
        .iter()
        .skip(1)
        .filter(|w| !w.starts_with('-') && w.contains(['/', '.']))
        .any(|w| names_path(fail_tail, w))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::learn::text::command_norm::normalize;

    fn away(fail: &str, tail: &str, retry: &str) -> bool {
        let (f, r) = (normalize(fail), normalize(retry));
        scopes_away(tail, f.primary().unwrap(), r.primary().unwrap())
    }

    const PATCH: &str = "error: patch failed: src/app.py:3\nerror: src/app.py: patch does not apply\n";

    #[test]
    fn leaving_out_what_failed_or_keeping_only_the_rest_is_scoped_away() {
        let fail = "git apply ~/p/fix.patch";
        assert!(away(fail, PATCH, "git apply --exclude=src/app.py ~/p/fix.patch"));
        assert!(away(fail, PATCH, "git apply --exclude='src/*' ~/p/fix.patch"));
        assert!(away(fail, PATCH, "git apply --include=docs/CHANGES.md ~/p/fix.patch"));
        let pytest = "FAILED tests/test_b.py::test_parse - AssertionError: 2 != 3";
        assert!(away("pytest -q", pytest, "pytest -q --ignore=tests/test_b.py"));
        assert!(away(
            "pytest -q",
            pytest,
            "pytest -q --deselect tests/test_b.py::test_parse"
        ));
    }

    #[test]
    fn the_real_fix_and_a_scope_that_keeps_what_failed_are_not() {
        // A header forced in (`--include`), the failing file still compiled: no scope.
        let undeclared = "src/main.c:3:12: error: 'VERSION' undeclared (first use in this function)\n";
        assert!(!away(
            "gcc -o app src/main.c",
            undeclared,
            "gcc --include=config.h -o app src/main.c"
        ));
        assert!(!away(
            "gcc -o app src/main.c",
            undeclared,
            "gcc --include config/defaults.h -o app src/main.c"
        ));
        let fail = "git apply ~/p/fix.patch";
        assert!(!away(fail, PATCH, "git apply -3 ~/p/fix.patch"));
        assert!(!away(fail, PATCH, "git apply --3way ~/p/fix.patch"));
        assert!(!away(fail, PATCH, "git apply --include='src/*' ~/p/fix.patch"));
        assert!(!away(fail, PATCH, "git apply --exclude=docs/CHANGES.md ~/p/fix.patch"));
        // A path the failure said was missing: leaving it out is no shortcut.
        let missing = "error: can't open patch 'src/x.patch': No such file or directory";
        assert!(!away(
            "git apply src/x.patch",
            missing,
            "git apply --exclude=src/x.patch src/y.patch"
        ));
    }
}
