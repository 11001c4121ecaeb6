//! A failing command's own operands, echoed in its error in the GNU shape `prog: NAME:
//! message` (`grep: src: Is a directory`, `ls: build: No such file or directory`), are
//! masked as `<path>` before the signature is taken.
//!
//! Why: the name is the session's own word, like a quoted name or a path with a slash
//! (both masked already), but a bare name has neither mark. Unmasked, `grep: src: …` and
//! `grep: lib: …` were four failure classes of one session each, below the recurrence
//! minimum. The same masking runs where a live failure is matched against the rules
//! ([`crate::learn::rules_inject`]), so a rule learned here fires there.
//!
//! Only a word the command itself passed is masked, and only between `: ` and `:`: an
//! operand that happens to be an ordinary word (`git commit -m error`) is not masked in
//! `error: …` or anywhere else.

use std::borrow::Cow;

/// The tail with the command's echoed operands masked; borrowed when there is none.
/// A line that only repeats the command's own words (curl prints the URL under `curl: (3)
/// bad range in URL`) and the pointer line under it (`    ^`) are dropped: they are the
/// session's text, and kept they became the failure's signature in place of the error.
pub fn masked<'a>(cmd: &str, tail: &'a str) -> Cow<'a, str> {
    let echo = |l: &str| {
        let l = l.trim();
        l.len() >= 8 && cmd.contains(l) || !l.is_empty() && l.chars().all(|c| matches!(c, '^' | '~' | ' '))
    };
    let mut out = if tail.lines().any(echo) && tail.lines().any(|l| !l.trim().is_empty() && !echo(l)) {
        Cow::Owned(tail.lines().filter(|l| !echo(l)).collect::<Vec<_>>().join("\n"))
    } else {
        Cow::Borrowed(tail)
    };
    for word in operands(cmd) {
        let needle = format!(": {word}:");
        if out.contains(&needle) {
            out = Cow::Owned(out.replace(&needle, ": <path>:"));
        }
    }
    out
}

/// The words a command passed to its programs: not a program, a flag, an assignment or
/// a shell operator; quotes stripped; names only (letters, digits, `._/@+~-`), two
/// characters or more.
fn operands(cmd: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut program_next = true;
    for raw in cmd.split_whitespace() {
        if matches!(raw, "&&" | "||" | "|" | ";" | "&") {
            program_next = true;
            continue;
        }
        let w = raw.trim_matches(|c| c == '\'' || c == '"');
        let first = std::mem::replace(&mut program_next, false);
        if first || w.len() < 2 || w.starts_with('-') || w.contains('=') || raw.ends_with(';') {
            // A word ending in `;` ends its segment: the next word is a program.
            program_next = raw.ends_with(';');
            if first && w.contains('=') && !w.starts_with('-') {
                // `VAR=v cmd`: the assignment is no program; the program is still to come.
                program_next = true;
            }
            continue;
        }
        if w.chars().all(|c| c.is_ascii_alphanumeric() || "._/@+~-".contains(c)) {
            out.push(w);
        }
    }
    out.sort_unstable_by_key(|w| std::cmp::Reverse(w.len()));
    out.dedup();
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_operand_echoed_as_gnu_tools_do_is_masked() {
        assert_eq!(
            masked("grep -n TODO src", "grep: src: Is a directory"),
            "grep: <path>: Is a directory"
        );
        assert_eq!(
            masked("cd build && make", "bash: line 1: cd: build: No such file or directory"),
            "bash: line 1: cd: <path>: No such file or directory"
        );
        assert_eq!(
            masked("FOO=1 ls -l docs", "ls: docs: No such file or directory"),
            "ls: <path>: No such file or directory"
        );
    }

    #[test]
    fn the_commands_own_words_echoed_and_their_pointer_are_dropped() {
        let cmd = r#"curl -sS "http://127.0.0.1:2071/search?ids=[1,2]""#;
        let tail = "curl: (3) bad range in URL position 36:\nhttp://127.0.0.1:2071/search?ids=[1,2]\n                                   ^\n";
        assert_eq!(masked(cmd, tail), "curl: (3) bad range in URL position 36:");
        // An output of echoes only keeps them: there is nothing else to read.
        assert_eq!(masked("echo hello-world", "hello-world\n"), "hello-world\n");
    }

    #[test]
    fn nothing_else_is_masked() {
        // The program is no operand: `pyhton` stays (which command is missing is the class).
        assert_eq!(
            masked("pyhton x.py", "bash: line 1: pyhton: command not found"),
            "bash: line 1: pyhton: command not found"
        );
        // An operand that is an ordinary word is masked only where it is echoed as a name.
        let t = "error: pathspec did not match\nerror: something";
        assert!(matches!(masked("git commit -m error", t), Cow::Borrowed(_)));
        // A flag's value after `=` is no operand; nor is a one-letter word.
        assert_eq!(
            masked("tar -C x --file=a.tar", "tar: x: Cannot open"),
            "tar: x: Cannot open"
        );
        assert_eq!(operands("tar --file=a.tar -C out"), vec!["out"]);
    }
}
