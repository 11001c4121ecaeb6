//! A retry that ran on fewer operands than the failing command: `ruff check src/` after
//! `ruff check src/ tests/` reported findings in `tests/`, `pytest tests/test_a.py` after
//! `pytest tests/test_a.py tests/test_b.py` failed in `test_b.py`, `git add a.txt` after
//! `git add a.txt missing.txt` said `missing.txt` matched nothing.
//!
//! Why: read on its flags alone, such a retry changed nothing, so it was the same command
//! passing, a plain retry, which counts as evidence that the failure clears by itself. It
//! is not the same command: it is the command without an operand. Whether dropping it is
//! a fix depends on what the failure said of it:
//!
//! - the failure said it was not there (`did not match any files`, `No such file`): the
//!   operand was wrong, and dropping it is the fix (`without:<v>`);
//! - the failure reported its findings *in* it (`tests/test_b.py:3: AssertionError`): the
//!   part that failed is simply no longer checked. The command passes with the failure
//!   still there: unsafe ([`DROPPED_WHAT_FAILED`]), a blocked candidate of its own.
//!
//! Only a retry whose operands are all the failing command's own: one that names another
//! operand in place of the dropped one made a different change (another file).

use crate::learn::text::command_norm::Segment;

/// The safety name of a retry that stopped running on the operand its failure was in.
pub const DROPPED_WHAT_FAILED: &str = "dropped_what_failed";

/// The failing command's operands the retry ran without, when it ran on nothing else:
/// flags and their values aside (a flag dropped is its own change), the program and its
/// action kept by both.
pub fn dropped(fail: &Segment, retry: &Segment) -> Vec<String> {
    // The program and its action's words are no operands.
    let skip = |s: &Segment| 1 + s.action.split(' ').filter(|w| !w.is_empty()).count();
    let (fail_words, retry_words) = (&fail.words, &retry.words);
    if fail.action != retry.action || fail_words.len() < skip(fail) || retry_words.len() < skip(retry) {
        return Vec::new();
    }
    let fail_ops_of = &fail_words[skip(fail)..];
    let retry_ops_of = &retry_words[skip(retry)..];
    let operand = |w: &String| !w.is_empty() && !w.starts_with('-');
    // A file or a folder (`tests/`, `a.py`): an unknown program's first word may be its
    // subcommand (`ruff check`), which is no operand to keep or drop.
    let path = |w: &String| operand(w) && (w.contains('/') || w.contains('.')) && !w.contains(char::is_whitespace);
    // A value of a flag the retry dropped goes with the flag (`-o out`).
    let valued: Vec<&String> = fail_words
        .windows(2)
        .filter(|p| p[0].starts_with('-') && !p[0].contains('=') && !retry_words.contains(&p[0]))
        .map(|p| &p[1])
        .collect();
    let fail_ops: Vec<&String> = fail_ops_of.iter().filter(|w| operand(w)).collect();
    let new_operand = retry_ops_of.iter().any(|w| operand(w) && !fail_ops.contains(&w));
    if new_operand {
        return Vec::new();
    }
    let out: Vec<String> = fail_ops
        .into_iter()
        .filter(|w| path(w) && !retry_ops_of.contains(w) && !valued.contains(w))
        .cloned()
        .collect();
    // Something must stay: a retry with no operand left ran the tool's default instead.
    let kept = retry_ops_of.iter().any(|w| path(w) && fail_ops_of.contains(w));
    if kept {
        out
    } else {
        Vec::new()
    }
}

/// Did the failure report its findings in one of the `dropped` operands (the operand, or a
/// path under it, named in the text: `tests/test_b.py:3:` for `tests/`), without saying
/// it was missing?
pub fn drops_what_failed(fail_tail: &str, dropped: &[String]) -> bool {
    if dropped.is_empty() || crate::learn::text::said_missing::operand(fail_tail) {
        return false;
    }
    dropped.iter().any(|d| names_path(fail_tail, d.trim_end_matches('/')))
}

/// Is `path` named in `text` as itself or as the folder of a path (`tests` in
/// `tests/test_b.py:3:`): no path character before it, and after it a `/`, a `:`, a
/// blank, a quote, or the end?
pub(crate) fn names_path(text: &str, path: &str) -> bool {
    if path.len() < 2 {
        return false;
    }
    let path_char = |c: char| c.is_alphanumeric() || matches!(c, '_' | '.' | '/' | '-');
    text.match_indices(path).any(|(at, _)| {
        let before = text[..at].chars().next_back();
        let after = text[at + path.len()..].chars().next();
        (before.is_none_or(|c| !path_char(c)) || text[..at].ends_with("./"))
            && after.is_none_or(|c| matches!(c, '/' | ':' | '\'' | '"' | ')' | ',') || c.is_whitespace())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dropped(fail: &str, retry: &str) -> Vec<String> {
        use crate::learn::text::command_norm::normalize;
        let (f, r) = (normalize(fail), normalize(retry));
        super::dropped(f.primary().unwrap(), r.primary().unwrap())
    }

    #[test]
    fn the_operands_a_retry_ran_without() {
        assert_eq!(dropped("ruff check src/ tests/", "ruff check src/"), vec!["tests/"]);
        assert_eq!(
            dropped("pytest -q tests/a.py tests/b.py", "pytest -q tests/a.py"),
            vec!["tests/b.py"]
        );
        assert!(
            dropped("ruff check src/ tests/", "ruff check src/ lib/").is_empty(),
            "another operand"
        );
        assert!(
            dropped("gcc -o app main.c", "gcc main.c").is_empty(),
            "a flag's value goes with it"
        );
        assert!(
            dropped("ruff check src/", "ruff check").is_empty(),
            "nothing kept: the default"
        );
        assert!(dropped("ruff check src/", "ruff check --fix src/").is_empty());
    }

    #[test]
    fn dropping_where_the_failure_was_is_unsafe_dropping_what_was_missing_is_not() {
        let lint = "tests/test_x.py:1:8: F401 [*] `os` imported but unused\nFound 1 error.";
        assert!(drops_what_failed(lint, &["tests/".into()]));
        assert!(drops_what_failed(lint, &["tests/test_x.py".into()]));
        let pytest = "FAILED tests/test_b.py::test_parse - AssertionError: 2 != 3";
        assert!(drops_what_failed(pytest, &["tests/test_b.py".into()]));
        let missing = "fatal: pathspec 'missing.txt' did not match any files";
        assert!(!drops_what_failed(missing, &["missing.txt".into()]));
        assert!(!drops_what_failed(lint, &["src/".into()]), "not where it failed");
        assert!(!drops_what_failed(lint, &["test".into()]), "a part of a name");
    }
}
