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
    // A flag's value echoed whole (`fatal: unknown date format iso-8601` for
    // `--date=iso-8601`): the session's own word, like a quoted name.
    for value in flag_values(cmd) {
        if out.contains(value) {
            if let Some(t) = mask_token(&out, value) {
                out = Cow::Owned(t);
            }
        }
    }
    // A long flag of the command echoed as the subject of a diagnostic, `--name:` (argparse's
    // `error: argument --since: expected one argument`): the session's own option, as its
    // value is. Only so: a help listing the tool prints (`npm error   --ignore-scripts`)
    // names the tool's options, not the session's.
    // Every subject starts ` --`: an output without one asks for no flag list.
    if out.contains(" --") {
        for flag in long_flags(cmd) {
            let subject = format!(" {flag}:");
            if out.contains(&subject) {
                out = Cow::Owned(out.replace(&subject, " <q>:"));
            }
        }
    }
    out
}

/// The long flags a command gave (`--since` of `--since -7d` or `--since=-7d`): a name of
/// three characters or more after the dashes.
fn long_flags(cmd: &str) -> Vec<&str> {
    let mut out: Vec<&str> = cmd
        .split_whitespace()
        .map(|w| w.trim_matches(|c| c == '\'' || c == '"'))
        .filter_map(|w| w.strip_prefix("--").map(|_| w.split('=').next().unwrap_or(w)))
        .filter(|f| f.len() >= 5 && f[2..].chars().all(|c| c.is_ascii_alphanumeric() || c == '-'))
        .collect();
    out.sort_unstable_by_key(|f| std::cmp::Reverse(f.len()));
    out.dedup();
    out
}

/// The values a command gave its flags: after `=` (`--date=iso-8601`) or the word after a
/// flag (`--date epoch`); three characters or more, no blank, not a flag.
fn flag_values(cmd: &str) -> Vec<&str> {
    let words: Vec<&str> = cmd.split_whitespace().collect();
    let mut out = Vec::new();
    for (i, w) in words.iter().enumerate() {
        if !w.starts_with('-') {
            continue;
        }
        let v = match w.split_once('=') {
            Some((_, v)) => v,
            None => match words.get(i + 1) {
                Some(n) if !n.starts_with('-') && !matches!(*n, "&&" | "||" | "|" | ";") => n,
                _ => continue,
            },
        };
        let v = v.trim_matches(|c| c == '\'' || c == '"');
        if v.len() >= 3 && !v.contains(char::is_whitespace) {
            out.push(v);
        }
    }
    out
}

/// `text` with every whole-token occurrence of `value` (bounded by blanks, quotes,
/// brackets or `:,`) made `<q>`; `None` when there is none. Never a line's first word: that
/// is who speaks (`error:`, `make:`), not the session's value (`git commit -m error`).
fn mask_token(text: &str, value: &str) -> Option<String> {
    let before = |c: Option<char>| c.is_some_and(|c| c != '\n' && (c.is_whitespace() || "'\"`(".contains(c)));
    let after = |c: Option<char>| c.is_none_or(|c| c.is_whitespace() || "'\"`):,".contains(c));
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    let mut any = false;
    while let Some(at) = rest.find(value) {
        let end = at + value.len();
        let whole = before(rest[..at].chars().next_back()) && after(rest[end..].chars().next());
        out.push_str(&rest[..at]);
        out.push_str(if whole { "<q>" } else { &rest[at..end] });
        any |= whole;
        rest = &rest[end..];
    }
    out.push_str(rest);
    any.then_some(out)
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
    fn a_long_flag_echoed_bare_is_masked() {
        assert_eq!(
            masked(
                "python3 tools/report.py --since -7d",
                "report.py: error: argument --since: expected one argument"
            ),
            "report.py: error: argument <q>: expected one argument"
        );
        // Not a longer flag that starts with it, nor a flag the command did not give, nor
        // the tool's own listing of its options.
        assert_eq!(
            masked("tool --since 3", "error: --since-epoch: and --until: conflict"),
            "error: --since-epoch: and --until: conflict"
        );
        assert_eq!(
            masked(
                "npm ci --ignore-scripts",
                "npm error   --ignore-scripts\nnpm error [--ignore-scripts]"
            ),
            "npm error   --ignore-scripts\nnpm error [--ignore-scripts]"
        );
    }

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
    fn a_flags_value_echoed_whole_is_masked() {
        assert_eq!(
            masked("git log -3 --date=iso-8601", "fatal: unknown date format iso-8601\n"),
            "fatal: unknown date format <q>\n"
        );
        assert_eq!(
            masked("git show --date epoch HEAD", "fatal: unknown date format epoch"),
            "fatal: unknown date format <q>"
        );
        // Inside a longer word it is not the value.
        assert_eq!(masked("make -j abc", "abcdef failed"), "abcdef failed");
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
