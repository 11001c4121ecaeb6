//! Does a failure's text say a file or a name was not there?
//!
//! Why its own file: two judgements of a recovery turn on it, and they must read "missing"
//! alike. A step that wrote a file the failure said was missing created it (no input
//! overwritten, [`crate::learn::history::fix_safety`]); an operand the failure said matched
//! nothing, dropped by the retry, was a wrong operand, not a check's finding hidden
//! ([`crate::learn::history::narrowed`]).

/// The file was not there: "No such file", `ENOENT`, "does not exist", "cannot open".
pub fn file(tail: &str) -> bool {
    [
        "No such file",
        "not found",
        "ENOENT",
        "does not exist",
        "Could not open",
        "cannot open",
    ]
    .iter()
    .any(|m| tail.contains(m))
}

/// An operand was not there: [`file`], or the words tools say it of an operand with
/// (`pathspec … did not match any files`, `cannot access`).
pub fn operand(tail: &str) -> bool {
    file(tail)
        || ["did not match", "cannot access", "file or directory not found"]
            .iter()
            .any(|m| tail.contains(m))
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_file_or_an_operand_said_missing() {
        assert!(super::file("cat: a.txt: No such file or directory"));
        assert!(!super::file("fatal: pathspec 'a.txt' did not match any files"));
        assert!(super::operand("fatal: pathspec 'a.txt' did not match any files"));
        assert!(!super::operand("tests/test_a.py:1:8: F401 `os` imported but unused"));
    }
}
