//! A retry whose exit status its own line swallows: `ruff check src/ || true`, `make; exit
//! 0`, `jq … f.json 2>/dev/null || :`. The record says the line passed; the command may
//! have failed exactly as before. The shortest path to a green run, and no proof of a fix.
//!
//! Why apart from [`crate::learn::history::recovery_form`]: the recovery forms say *what
//! changed*; this says whether the pass can be believed at all. Read as the same command
//! passing, such a session was a plain retry, which counts as evidence that the failure
//! clears by itself and so contests every real fix of its class. Read here, it is a
//! recovery whose fix is the swallowing, and the safety gate blocks it
//! ([`crate::learn::history::fix_safety`]): its own blocked candidate, seen in the report,
//! never a lesson.
//!
//! Only a no-op after the operator swallows: `true`, `:`, `exit 0`, `return 0`, and after
//! `||` an `echo`/`printf` (a message in place of the failure). A real fallback (`npm ci ||
//! npm install`) is another command that may fail: not swallowing. After `;` an `echo` is
//! left alone: `make; echo "exit $?"` reports the status it hides.

/// How every swallowing is keyed and said: one lesson however spelt.
pub const SWALLOWED: &str = "|| true";

/// The safety name of a recovery whose pass its line swallowed.
pub const FAILURE_MASKED: &str = "failure_masked";

/// Does the line end by swallowing the status of what ran before (`… || true`)?
pub fn swallows(line: &str) -> bool {
    // Most lines have neither operator: no parse for them (the replay asks of every pass).
    if !line.contains("||") && !line.contains(';') {
        return false;
    }
    let words = words_of(line);
    // The last operator at the top level, and what follows it.
    let Some(op) = words
        .iter()
        .rposition(|w| matches!(w.as_str(), "||" | ";" | "&&" | "|"))
    else {
        return false;
    };
    let after: Vec<&str> = words[op + 1..].iter().map(String::as_str).collect();
    let no_op = no_op(&after);
    match words[op].as_str() {
        "||" => no_op || matches!(after.first(), Some(&("echo" | "printf"))),
        ";" => no_op,
        _ => false,
    }
}

/// A command that does nothing and cannot fail: `true`, `:`, `exit 0`, `return 0`.
pub fn no_op(words: &[&str]) -> bool {
    matches!(
        words,
        ["true" | ":" | "/bin/true" | "/usr/bin/true"] | ["exit" | "return", "0"]
    )
}

/// Did the retry's line swallow a status the failing line did not (`cmd || true` after
/// `cmd`)? A swallowing the failing line already had is not the retry's doing.
pub fn swallowed_by_retry(fail_line: &str, retry_line: &str) -> bool {
    swallows(retry_line) && !swallows(fail_line)
}

/// The line's words with its operators apart, quotes honoured (`x||true` is `x || true`),
/// redirections dropped (`2>/dev/null || true`).
fn words_of(line: &str) -> Vec<String> {
    let chars: Vec<char> = line.chars().collect();
    let mut spaced = String::with_capacity(line.len() + 8);
    let mut quote = None::<char>;
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let next = chars.get(i + 1).copied();
        match (quote, c, next) {
            (None, '\'', _) | (None, '"', _) => quote = Some(c),
            (Some(q), _, _) if q == c => quote = None,
            (None, '|', Some('|')) | (None, '&', Some('&')) => {
                spaced.push_str(&format!(" {c}{c} "));
                i += 2;
                continue;
            }
            (None, ';', _) | (None, '|', _) => {
                spaced.push_str(&format!(" {c} "));
                i += 1;
                continue;
            }
            _ => {}
        }
        spaced.push(c);
        i += 1;
    }
    let words = shell_words::split(&spaced).unwrap_or_else(|_| spaced.split_whitespace().map(str::to_string).collect());
    words.into_iter().filter(|w| !is_redirection(w)).collect()
}

/// `2>/dev/null`, `>/dev/null`, `2>&1`, `&>log`: where output goes, not what runs.
fn is_redirection(w: &str) -> bool {
    let w = w.trim_start_matches(|c: char| c.is_ascii_digit() || c == '&');
    w.starts_with('>') || w.starts_with('<')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_no_op_after_the_operator_swallows_the_status() {
        for line in [
            "ruff check src/ || true",
            "ruff check src/||true",
            "jq -c 'map(select(.l | test(\"MIT\")))' pkgs.json 2>/dev/null || true",
            "jq '.[] | .id' users.json || :",
            "make; exit 0",
            "make ; true",
            "pytest -q || echo 'tests failed, moving on'",
            "cd web && npm test || printf 'skip\\n'",
            "cargo test || exit 0",
        ] {
            assert!(swallows(line), "{line}");
        }
    }

    #[test]
    fn a_fallback_a_report_or_a_pipe_does_not_swallow() {
        for line in [
            "ruff check src/",
            "npm ci || npm install",
            "make; echo \"exit $?\"",
            "make && echo done",
            "pytest | tail -5",
            "echo 'a || true'",
            "grep -q x f || exit 1",
            "true",
        ] {
            assert!(!swallows(line), "{line}");
        }
    }
}
