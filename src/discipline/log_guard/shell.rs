//! Just enough shell for the log guard: simple commands, their words, what they write.
//!
//! Not a shell parser. It splits a command line into simple commands at `;`, `&&`, `||`,
//! `|`, `&`, newlines, parentheses and command substitutions (`$(…)` and backticks, also
//! inside double quotes, since `"$(cat key)"` runs `cat key`), removes quotes, and expands
//! the few variables that name fable's paths (`~`, `$HOME`, `$XDG_STATE_HOME`, with
//! `${VAR}` and `${VAR:-default}` forms). Wrappers that run another program (`env`,
//! `sudo`, `xargs`, `nohup`, `timeout`, `find -exec`, …) are looked through. A command
//! built to hide its target (a variable, base64, a script file) gets past it: the guard is
//! a tripwire for what is plain, and the seal and the transcript check stand behind it.

use std::path::Path;

/// One simple command: its words, quotes removed.
pub type Words = Vec<String>;

/// Splits `command` into simple commands.
pub fn segments(command: &str) -> Vec<Words> {
    let mut out: Vec<Words> = Vec::new();
    let mut cur: Words = Vec::new();
    let mut word = String::new();
    let mut in_word = false;
    let mut chars = command.chars().peekable();
    let mut dq = false;
    // Open substitutions and subshells, each with whether a double quote was open
    // around it (`"$(cat key)"`: the quote resumes after the `)`).
    let mut open: Vec<(char, bool)> = Vec::new();
    let flush_word = |word: &mut String, in_word: &mut bool, cur: &mut Words| {
        if *in_word {
            cur.push(std::mem::take(word));
            *in_word = false;
        }
    };
    while let Some(c) = chars.next() {
        if dq {
            match c {
                '"' => dq = false,
                '\\' => {
                    if let Some(n) = chars.next() {
                        word.push(n);
                    }
                }
                '`' => {
                    flush_word(&mut word, &mut in_word, &mut cur);
                    out.push(std::mem::take(&mut cur));
                    open.push(('`', true));
                    dq = false;
                }
                '$' if chars.peek() == Some(&'(') => {
                    chars.next();
                    flush_word(&mut word, &mut in_word, &mut cur);
                    out.push(std::mem::take(&mut cur));
                    open.push(('(', true));
                    dq = false;
                }
                _ => word.push(c),
            }
            continue;
        }
        match c {
            '\'' => {
                in_word = true;
                for n in chars.by_ref() {
                    if n == '\'' {
                        break;
                    }
                    word.push(n);
                }
            }
            '"' => {
                in_word = true;
                dq = true;
            }
            '\\' => {
                in_word = true;
                match chars.next() {
                    Some('\n') | None => {}
                    Some(n) => word.push(n),
                }
            }
            '$' if chars.peek() == Some(&'(') => {
                chars.next();
                flush_word(&mut word, &mut in_word, &mut cur);
                out.push(std::mem::take(&mut cur));
                open.push(('(', false));
            }
            ';' | '|' | '&' | '\n' | '(' | ')' | '`' => {
                // `2>&1`, `&>file`, `>|file`: part of a redirection, not a separator.
                if matches!(c, '&' | '|') && word.ends_with(['>', '<']) {
                    word.push(c);
                    continue;
                }
                if c == '&' && chars.peek() == Some(&'>') {
                    in_word = true;
                    word.push(c);
                    continue;
                }
                flush_word(&mut word, &mut in_word, &mut cur);
                out.push(std::mem::take(&mut cur));
                match c {
                    '(' => open.push(('(', false)),
                    ')' => {
                        if let Some((_, quoted)) = open.pop() {
                            dq = quoted;
                            in_word = quoted;
                        }
                    }
                    '`' => match open.last() {
                        Some(('`', quoted)) => {
                            dq = *quoted;
                            in_word = *quoted;
                            open.pop();
                        }
                        _ => open.push(('`', false)),
                    },
                    _ => {}
                }
            }
            c if c.is_whitespace() => flush_word(&mut word, &mut in_word, &mut cur),
            _ => {
                in_word = true;
                word.push(c);
            }
        }
    }
    flush_word(&mut word, &mut in_word, &mut cur);
    out.push(cur);
    out.retain(|s| !s.is_empty());
    out
}

/// The values the guard expands in words.
#[derive(Debug, Clone, Default)]
pub struct Vars {
    pub home: Option<String>,
    /// `XDG_STATE_HOME` when set, else `$HOME/.local/state`.
    pub state_home: Option<String>,
}

impl Vars {
    /// `word` with `~`, `$HOME` and `$XDG_STATE_HOME` expanded (unknown variables stay).
    pub fn expand(&self, word: &str) -> String {
        let mut w = word.to_string();
        if let Some(h) = &self.home {
            if w == "~" || w.starts_with("~/") {
                w = format!("{h}{}", &w[1..]);
            }
            w = w.replace("${HOME}", h).replace("$HOME", h);
        }
        if let Some(s) = &self.state_home {
            while let Some(at) = w.find("${XDG_STATE_HOME") {
                let Some(end) = w[at..].find('}') else { break };
                w.replace_range(at..at + end + 1, s);
            }
            w = w.replace("$XDG_STATE_HOME", s);
        }
        w
    }
}

/// Programs that run the program named after their own options.
const WRAPPERS: [&str; 14] = [
    "env", "sudo", "command", "exec", "nohup", "nice", "ionice", "time", "stdbuf", "timeout", "setsid", "chronic",
    "unbuffer", "doas",
];

/// The base name of a program word (`/usr/bin/env` → `env`).
pub fn base(word: &str) -> &str {
    Path::new(word).file_name().and_then(|n| n.to_str()).unwrap_or(word)
}

/// The programs a simple command runs, each with its arguments: the command itself after
/// assignments and wrappers, plus what `xargs`, `find -exec`, `parallel` and `watch` run.
pub fn invocations(words: &[String]) -> Vec<&[String]> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < words.len() {
        let w = words[i].as_str();
        let is_assign = w.contains('=')
            && !w.starts_with(['-', '=', '/', '.'])
            && w.find('=')
                .is_some_and(|at| w[..at].chars().all(|c| c.is_ascii_alphanumeric() || c == '_'));
        if is_assign
            || matches!(w, "{" | "}" | "!")
            || w.starts_with(['<', '>'])
            || w.chars().next().is_some_and(|c| c.is_ascii_digit()) && w.contains('>')
        {
            i += 1;
            continue;
        }
        if WRAPPERS.contains(&base(w)) {
            i += 1;
            // The wrapper's options (and `timeout`'s duration, `nice -n N`).
            while i < words.len() {
                let o = words[i].as_str();
                let takes_value = matches!(
                    o,
                    "-n" | "-u" | "-C" | "-g" | "-c" | "-s" | "-k" | "--signal" | "--kill-after"
                );
                if o.starts_with('-') {
                    i += if takes_value { 2 } else { 1 };
                } else if (base(w) == "timeout" && o.chars().next().is_some_and(|c| c.is_ascii_digit()))
                    || (o.contains('=') && !o.starts_with('/'))
                {
                    i += 1;
                } else {
                    break;
                }
            }
            continue;
        }
        break;
    }
    let Some(rest) = words.get(i..).filter(|r| !r.is_empty()) else {
        return out;
    };
    out.push(rest);
    let prog = base(&rest[0]);
    match prog {
        "xargs" | "parallel" | "watch" => {
            // The first word after xargs's own options.
            let mut j = 1;
            while j < rest.len() && rest[j].starts_with('-') {
                let takes = matches!(
                    rest[j].as_str(),
                    "-I" | "-n" | "-P" | "-L" | "-d" | "-E" | "-s" | "-a" | "-n1"
                );
                j += if takes && rest[j].len() == 2 { 2 } else { 1 };
            }
            if j < rest.len() {
                out.extend(invocations(&rest[j..]));
            }
        }
        "find" => {
            if let Some(at) = rest
                .iter()
                .position(|w| matches!(w.as_str(), "-exec" | "-execdir" | "-ok" | "-okdir"))
            {
                if at + 1 < rest.len() {
                    out.extend(invocations(&rest[at + 1..]));
                }
            }
        }
        _ => {}
    }
    out
}

/// The script a shell runs with `-c` (`bash -c 'cat x'`), or `eval`'s words joined.
pub fn inner_script(inv: &[String]) -> Option<String> {
    let prog = base(&inv[0]);
    if prog == "eval" {
        return Some(inv[1..].join(" "));
    }
    if !matches!(prog, "sh" | "bash" | "dash" | "zsh" | "ksh" | "fish" | "busybox") {
        return None;
    }
    let at = inv
        .iter()
        .position(|w| w.starts_with('-') && !w.starts_with("--") && w.contains('c'))?;
    inv.get(at + 1).cloned()
}

/// Programs whose path arguments they write (or delete): all of them.
const WRITE_ALL: [&str; 9] = [
    "mv", "rm", "truncate", "shred", "touch", "chmod", "chown", "tee", "unlink",
];
/// Programs that write only their last path argument (or `-t DIR`): the rest is read.
const WRITE_LAST: [&str; 4] = ["cp", "install", "ln", "rsync"];

/// Whether `prog` changes files it names (for the message: "changes" rather than "runs").
pub fn is_writer(prog: &str) -> bool {
    WRITE_ALL.contains(&prog) || WRITE_LAST.contains(&prog) || matches!(prog, "sed" | "perl" | "dd")
}

/// The targets a simple command plainly writes: redirections, and the path arguments of
/// writer programs (`cp`/`install`/`ln`/`rsync` only their destination, `sed`/`perl`
/// only with `-i`, `dd` only `of=`).
pub fn written_targets(words: &[String]) -> Vec<String> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < words.len() {
        let w = &words[i];
        // `x>file` is a word `x` and a redirection to `file`; `2>&1` writes no file.
        if let Some(at) = w.find('>') {
            let rest = w[at..].trim_start_matches('>').trim_start_matches(['|', '&']);
            if w[at..].starts_with(">&") && rest.chars().all(|c| c.is_ascii_digit() || c == '-') && !rest.is_empty() {
                // a descriptor duplication
            } else if rest.is_empty() {
                if let Some(next) = words.get(i + 1) {
                    out.push(next.clone());
                    i += 1;
                }
            } else {
                out.push(rest.to_string());
            }
        }
        i += 1;
    }
    for inv in invocations(words) {
        let prog = base(&inv[0]);
        let args: Vec<&String> = inv[1..].iter().filter(|a| !a.starts_with(['>', '<'])).collect();
        let paths: Vec<&String> = args.iter().copied().filter(|a| !a.starts_with('-')).collect();
        let in_place = args
            .iter()
            .any(|a| a.starts_with("-i") || a.as_str() == "--in-place" || a.starts_with("-pi"));
        if WRITE_ALL.contains(&prog) {
            out.extend(paths.iter().map(|a| a.to_string()));
        } else if WRITE_LAST.contains(&prog) {
            if let Some(at) = args
                .iter()
                .position(|a| a.as_str() == "-t" || a.as_str() == "--target-directory")
            {
                out.extend(args.get(at + 1).map(|a| a.to_string()));
            } else if let Some(d) = args.iter().find_map(|a| a.strip_prefix("--target-directory=")) {
                out.push(d.to_string());
            } else if let Some(last) = paths.last() {
                out.push(last.to_string());
            }
        } else if matches!(prog, "sed" | "perl") && in_place {
            out.extend(paths.iter().map(|a| a.to_string()));
        } else if prog == "dd" {
            out.extend(args.iter().filter_map(|a| a.strip_prefix("of=")).map(str::to_string));
        }
    }
    out
}

/// Whether `pattern` (one path component, with `*`, `?`, `[…]`) matches `name`.
pub fn glob_component(pattern: &str, name: &str) -> bool {
    fn go(p: &[char], n: &[char]) -> bool {
        match p.first() {
            None => n.is_empty(),
            Some('*') => (0..=n.len()).any(|k| go(&p[1..], &n[k..])),
            Some('?') => !n.is_empty() && go(&p[1..], &n[1..]),
            Some('[') => match p.iter().position(|c| *c == ']') {
                // Any one character: a class is taken as matching what it might.
                Some(end) if end > 1 => !n.is_empty() && go(&p[end + 1..], &n[1..]),
                _ => n.first() == Some(&'[') && go(&p[1..], &n[1..]),
            },
            Some(c) => n.first() == Some(c) && go(&p[1..], &n[1..]),
        }
    }
    let p: Vec<char> = pattern.chars().collect();
    let n: Vec<char> = name.chars().collect();
    go(&p, &n)
}

pub fn has_glob(s: &str) -> bool {
    s.contains(['*', '?', '['])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_at_operators_and_substitutions() {
        let s = segments("echo x|fable-evidence; a && b 2>&1 | tee log");
        assert_eq!(s[0], ["echo", "x"]);
        assert_eq!(s[1], ["fable-evidence"]);
        assert_eq!(s[3], ["b", "2>&1"]);
        let s = segments("echo \"$(cat ~/.local/state/fable/key)\" > /tmp/k");
        assert!(s.iter().any(|w| w == &["cat", "~/.local/state/fable/key"]), "{s:?}");
        let s = segments("git commit -m 'fix fable-evidence; again'");
        assert_eq!(s, [["git", "commit", "-m", "fix fable-evidence; again"]]);
    }

    #[test]
    fn wrappers_are_looked_through() {
        let w = |s: &str| segments(s).remove(0);
        let progs = |s: &str| {
            invocations(&w(s))
                .iter()
                .map(|i| base(&i[0]).to_string())
                .collect::<Vec<_>>()
        };
        assert_eq!(progs("env -i A=1 /x/fable-evidence"), ["fable-evidence"]);
        assert_eq!(progs("sudo -u me timeout 5 fable-close-guard"), ["fable-close-guard"]);
        assert_eq!(progs("xargs -0 -I {} fable-evidence {}"), ["xargs", "fable-evidence"]);
        assert_eq!(progs("xargs -0 fable-evidence"), ["xargs", "fable-evidence"]);
        assert_eq!(progs("find . -name x -exec rm {} ;"), ["find", "rm"]);
        assert_eq!(inner_script(&w("bash -c 'cat key'")).as_deref(), Some("cat key"));
    }

    #[test]
    fn targets() {
        let t = |s: &str| written_targets(&segments(s).remove(0));
        assert_eq!(t("cp .fable/evidence.jsonl /tmp/b.jsonl"), ["/tmp/b.jsonl"]);
        assert_eq!(t("cp -t .fable a b"), [".fable"]);
        assert_eq!(t("mv a b"), ["a", "b"]);
        assert_eq!(t("cargo test 2>&1"), Vec::<String>::new());
        assert_eq!(t("echo x>>f"), ["f"]);
        assert_eq!(t("echo x &> f"), ["f"]);
    }

    #[test]
    fn globs() {
        assert!(glob_component("*", "fable"));
        assert!(glob_component("fa*", "fable"));
        assert!(glob_component(".*", ".local"));
        assert!(glob_component("f[a-z]ble", "fable"));
        assert!(!glob_component("x*", "fable"));
    }
}
