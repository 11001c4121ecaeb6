//! What the shell hands a program for each word of a line: quotes removed, and where it
//! expands them, `~` and `$NAME` marked as expanded.
//!
//! Why: a retry that only changed quoting looks unchanged once quotes are stripped
//! (`"~/data.csv"` → `~/data.csv`), yet the program received another argument: the quoted
//! `~` reached it as a literal tilde (`No such file or directory: '~/data.csv'`), the bare
//! one as the home directory. Reading each word as the shell does tells the two apart, and
//! tells that `"$HOME/data.csv"` and `~/data.csv` are one fix.

/// Marks a place the shell expanded, followed by the variable's name (`HOME` for `~`).
const EXPANDED: char = '\u{1}';

/// One word of a line: as typed, and as the program received it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Word {
    pub typed: String,
    pub value: String,
}

/// The words of a line as the shell splits them. Unterminated quotes end the line.
pub fn words(line: &str) -> Vec<Word> {
    let mut out = Vec::new();
    let mut typed = String::new();
    let mut value = String::new();
    let mut started = false;
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            c if c.is_whitespace() => {
                if started {
                    out.push(Word {
                        typed: std::mem::take(&mut typed),
                        value: std::mem::take(&mut value),
                    });
                    started = false;
                }
                continue;
            }
            '\'' => {
                typed.push(c);
                for q in chars.by_ref() {
                    typed.push(q);
                    if q == '\'' {
                        break;
                    }
                    value.push(q);
                }
            }
            '"' => {
                typed.push(c);
                while let Some(q) = chars.next() {
                    typed.push(q);
                    match q {
                        '"' => break,
                        '\\' => {
                            if let Some(&n) = chars.peek() {
                                typed.push(n);
                                chars.next();
                                if !matches!(n, '"' | '\\' | '$' | '`') {
                                    value.push('\\');
                                }
                                value.push(n);
                            }
                        }
                        '$' => variable(&mut chars, &mut typed, &mut value),
                        _ => value.push(q),
                    }
                }
            }
            '\\' => {
                typed.push(c);
                if let Some(n) = chars.next() {
                    typed.push(n);
                    value.push(n);
                }
            }
            '$' => {
                typed.push(c);
                variable(&mut chars, &mut typed, &mut value);
            }
            // A tilde expands at the start of a word.
            '~' if !started => {
                typed.push(c);
                value.push(EXPANDED);
                value.push_str("HOME");
            }
            _ => {
                typed.push(c);
                value.push(c);
            }
        }
        started = true;
    }
    if started {
        out.push(Word { typed, value });
    }
    out
}

/// After a `$`: a variable's name, bare or in braces, read as expanded; anything else is
/// a literal dollar.
fn variable(chars: &mut std::iter::Peekable<std::str::Chars>, typed: &mut String, value: &mut String) {
    let braced = chars.peek() == Some(&'{');
    if braced {
        typed.push('{');
        chars.next();
    }
    let mut name = String::new();
    while let Some(&n) = chars.peek() {
        if n.is_ascii_alphanumeric() || n == '_' {
            name.push(n);
            typed.push(n);
            chars.next();
        } else {
            break;
        }
    }
    if braced && chars.peek() == Some(&'}') {
        typed.push('}');
        chars.next();
    }
    if name.is_empty() {
        value.push('$');
    } else {
        value.push(EXPANDED);
        value.push_str(&name);
    }
}

/// The value with what a shell would expand in it, were it not quoted: a literal `~` at
/// its start read as the home directory, a literal `$NAME` as the variable.
fn as_if_expanded(value: &str) -> String {
    let mut out = String::new();
    let mut chars = value.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '~' if out.is_empty() => {
                out.push(EXPANDED);
                out.push_str("HOME");
            }
            '$' if chars
                .peek()
                .is_some_and(|n| n.is_ascii_alphabetic() || *n == '_' || *n == '{') =>
            {
                let mut typed = String::new();
                variable(&mut chars, &mut typed, &mut out);
            }
            _ => out.push(c),
        }
    }
    out
}

/// The words of the retry the shell now expands where the failing line had them
/// literal, and nothing else changed: `"~/x.csv"` → `~/x.csv`, `"~/x.csv"` →
/// `"$HOME/x.csv"`, `'$HOME/x'` → `"$HOME/x"`. Each as the retry typed it.
pub fn now_expanded(fail_line: &str, retry_line: &str) -> Vec<String> {
    let (f, r) = (words(fail_line), words(retry_line));
    if f.len() != r.len() {
        return Vec::new();
    }
    let mut out = Vec::new();
    for (a, b) in f.iter().zip(&r) {
        if a.value == b.value {
            continue;
        }
        if a.value.contains(EXPANDED) || as_if_expanded(&a.value) != b.value {
            return Vec::new();
        }
        out.push(b.typed.clone());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quotes_keep_a_tilde_and_single_quotes_a_variable() {
        let v = |l: &str| words(l).into_iter().map(|w| w.value).collect::<Vec<_>>();
        assert_eq!(v("cat \"~/a b\""), vec!["cat", "~/a b"]);
        assert_eq!(v("cat ~/a"), vec!["cat", "\u{1}HOME/a"]);
        assert_eq!(
            v("cat \"$HOME/a\" '$HOME/b' ${HOME}/c"),
            vec!["cat", "\u{1}HOME/a", "$HOME/b", "\u{1}HOME/c"]
        );
        assert_eq!(v("x --path=~/a a~b"), vec!["x", "--path=~/a", "a~b"]);
        // A dollar no name follows is a dollar; a positional parameter expands.
        assert_eq!(
            v("echo 'it''s' \\~ \"a\\\"b\" 5$ $1"),
            vec!["echo", "its", "~", "a\"b", "5$", "\u{1}1"]
        );
    }

    #[test]
    fn a_retry_the_shell_now_expands() {
        assert_eq!(
            now_expanded("python3 r.py --input \"~/x.csv\"", "python3 r.py --input ~/x.csv"),
            vec!["~/x.csv"]
        );
        assert_eq!(
            now_expanded("python3 r.py \"~/x.csv\" -n", "python3 r.py \"$HOME/x.csv\" -n"),
            vec!["\"$HOME/x.csv\""]
        );
        assert_eq!(now_expanded("cat '$HOME/a'", "cat \"$HOME/a\""), vec!["\"$HOME/a\""]);
    }

    #[test]
    fn no_expansion_is_no_such_retry() {
        // Unchanged, another file, another length, or the retry made it literal.
        assert!(now_expanded("cat \"~/a\"", "cat \"~/a\"").is_empty());
        assert!(now_expanded("cat \"~/a\"", "cat ~/b").is_empty());
        assert!(now_expanded("cat \"~/a\"", "cat -n ~/a").is_empty());
        assert!(now_expanded("cat ~/a", "cat \"~/a\"").is_empty());
        assert!(now_expanded("cat a", "cat 'a'").is_empty());
    }
}
