//! A line that only warns: `*** WARNING : deprecated key derivation used.` (openssl),
//! `warning: unused variable` (rustc, gcc), `npm warn deprecated …`, `W: …` (apt).
//!
//! Why: a warning printed before the error reads as an error line and, first among them,
//! became the failure's signature: dev9's `openssl enc -d` failures were all "deprecated
//! key derivation used", said of every decryption with the old defaults, failing or not,
//! while the failure was `bad decrypt`. When a failure's lines hold something besides
//! warnings, the warnings are no part of what failed; a failure that printed only warnings
//! keeps them (a `-Werror` build fails on its warning).

/// Whether a line says it is a warning by its first word (`WARNING`, `warn`, `W:`, after
/// any `*`, `!` or blanks), or by the word after a tool's or location's prefix
/// (`gcc: warning: …`, `src/a.c:3:5: warning: …`, `npm warn …`).
pub fn is_warning(line: &str) -> bool {
    let l = line.trim_start_matches(|c: char| c == '*' || c == '!' || c.is_whitespace());
    // Asked of every error line at the hook: no allocation.
    let word_is_warning = |w: &str| {
        let w = w.trim_end_matches(':');
        ["warning", "warn", "w"].iter().any(|k| w.eq_ignore_ascii_case(k))
    };
    let first = l.split([' ', ':']).next().unwrap_or("");
    if word_is_warning(first) && (first.len() > 1 || l.starts_with("W:")) {
        return true;
    }
    // A tool's name, then the level (`npm warn …`, `pnpm WARN …`).
    let mut words = l.split(' ');
    let tool = words.next().is_some_and(|w| w.chars().all(|c| c.is_ascii_lowercase()));
    if tool && words.next().is_some_and(|w| w.len() > 1 && word_is_warning(w)) {
        return true;
    }
    // After `prog: ` or `file:line:col: `, the level and its colon (`gcc: warning: …`).
    l.split_once(": ").is_some_and(|(_, rest)| {
        let second = rest.split([' ', ':']).next().unwrap_or("");
        second.len() > 1 && word_is_warning(second) && rest[second.len()..].starts_with(':')
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_line_that_only_warns_is_known_by_its_level_word() {
        assert!(is_warning("*** WARNING : deprecated key derivation used."));
        assert!(is_warning("warning: unused variable: `x`"));
        assert!(is_warning("src/a.c:3:5: warning: implicit declaration of function 'f'"));
        assert!(is_warning("gcc: warning: -pipe ignored because -save-temps specified"));
        assert!(is_warning(
            "npm warn deprecated inflight@1.0.6: This module is not supported"
        ));
        assert!(is_warning("W: Some index files failed to download."));
        // Errors, and lines that only mention a warning.
        assert!(!is_warning("bad decrypt"));
        assert!(!is_warning(
            "error: could not compile `app` due to 1 previous error; 2 warnings emitted"
        ));
        assert!(!is_warning("src/a.c:3:5: error: 'x' undeclared"));
        assert!(!is_warning("cc1: all warnings being treated as errors"));
        assert!(!is_warning("Warnings as errors: 3"));
    }
}
