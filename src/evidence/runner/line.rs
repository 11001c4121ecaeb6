//! The light shell reading behind `runner`: a command line as simple commands with the
//! operator after each, and what hides a command's exit status or output.

use super::Mask;

/// A simple command of a parsed line: its words (unquoted) and what joins it to the next.
#[derive(Debug, Default)]
pub(super) struct Simple {
    pub(super) words: Vec<String>,
    /// Standard output goes to `/dev/null`.
    pub(super) devnull: bool,
    /// The operator after it: `|`, `&&`, `||`, `;`, `&`, or "" at the end.
    pub(super) next: &'static str,
}

/// Splits a line into simple commands: quotes are honoured, `$(…)` and backticks are
/// kept inside their word, redirections are read for `/dev/null` and dropped.
pub(super) fn parse_line(line: &str) -> Vec<Simple> {
    let line = without_heredocs(line);
    let line = line.as_ref();
    let mut out = Vec::new();
    let mut cur = Simple::default();
    let mut word = String::new();
    let mut in_word = false;
    let mut redirect: Option<bool> = None; // Some(stdout?) while the target is read
    let chars: Vec<char> = line.chars().collect();
    let mut i = 0;
    let end_word = |cur: &mut Simple, word: &mut String, in_word: &mut bool, redirect: &mut Option<bool>| {
        if !*in_word {
            return;
        }
        let w = std::mem::take(word);
        *in_word = false;
        match redirect.take() {
            Some(stdout) => cur.devnull |= stdout && w == "/dev/null",
            None => {
                let w = w.trim_matches(|c| c == '(' || c == ')' || c == '{' || c == '}');
                if !w.is_empty() {
                    cur.words.push(w.to_string());
                }
            }
        }
    };
    while i < chars.len() {
        let c = chars[i];
        match c {
            '\'' => {
                in_word = true;
                i += 1;
                while i < chars.len() && chars[i] != '\'' {
                    word.push(chars[i]);
                    i += 1;
                }
            }
            '"' => {
                in_word = true;
                i += 1;
                while i < chars.len() && chars[i] != '"' {
                    if chars[i] == '\\' && i + 1 < chars.len() {
                        i += 1;
                    }
                    word.push(chars[i]);
                    i += 1;
                }
            }
            '\\' if i + 1 < chars.len() => {
                in_word = true;
                word.push(chars[i + 1]);
                i += 1;
            }
            '$' if chars.get(i + 1) == Some(&'(') => {
                // A command substitution stays one word.
                in_word = true;
                let mut depth = 0;
                while i < chars.len() {
                    word.push(chars[i]);
                    match chars[i] {
                        '(' => depth += 1,
                        ')' => {
                            depth -= 1;
                            if depth == 0 {
                                break;
                            }
                        }
                        _ => {}
                    }
                    i += 1;
                }
            }
            ' ' | '\t' => end_word(&mut cur, &mut word, &mut in_word, &mut redirect),
            '>' | '<' => {
                // `2>&1`, `>/dev/null`, `&>x`, `1>>x`: the fd is what the word held so far.
                let fd = if in_word && word.chars().all(|c| c.is_ascii_digit()) {
                    std::mem::take(&mut word)
                } else {
                    end_word(&mut cur, &mut word, &mut in_word, &mut redirect);
                    String::new()
                };
                in_word = false;
                let both = fd.is_empty() && i > 0 && chars[i - 1] == '&';
                let stdout = c == '>' && (fd.is_empty() || fd == "1" || both);
                while chars.get(i + 1).is_some_and(|&n| n == '>' || n == '|') {
                    i += 1;
                }
                if chars.get(i + 1) == Some(&'&') {
                    i += 1;
                    // `>&2`, `2>&1`: a duplication, no file to read. `>& file` names one.
                    if chars.get(i + 1).is_some_and(|n| n.is_ascii_digit() || *n == '-') {
                        i += 2;
                        continue;
                    }
                }
                redirect = Some(stdout);
            }
            '|' | '&' | ';' | '\n' => {
                let op: &'static str = match (c, chars.get(i + 1)) {
                    ('|', Some('|')) => "||",
                    ('&', Some('&')) => "&&",
                    ('|', Some('&')) => "|",
                    ('&', Some('>')) => {
                        // `&>/dev/null`: the `>` arm reads it.
                        end_word(&mut cur, &mut word, &mut in_word, &mut redirect);
                        i += 1;
                        let stdout = true;
                        if chars.get(i + 1) == Some(&'>') {
                            i += 1;
                        }
                        redirect = Some(stdout);
                        i += 1;
                        continue;
                    }
                    ('|', _) => "|",
                    ('&', _) => "&",
                    _ => ";",
                };
                end_word(&mut cur, &mut word, &mut in_word, &mut redirect);
                if op.len() == 2 || (c == '|' && chars.get(i + 1) == Some(&'&')) {
                    i += 1;
                }
                cur.next = op;
                if !cur.words.is_empty() || cur.devnull {
                    out.push(std::mem::take(&mut cur));
                } else if let Some(last) = out.last_mut() {
                    // `x; ; y` or a leading operator: keep the stronger separator.
                    last.next = op;
                }
                redirect = None;
            }
            '#' if !in_word => {
                // A comment runs to the end of the line.
                while i + 1 < chars.len() && chars[i + 1] != '\n' {
                    i += 1;
                }
            }
            _ => {
                in_word = true;
                word.push(c);
            }
        }
        i += 1;
    }
    end_word(&mut cur, &mut word, &mut in_word, &mut redirect);
    if !cur.words.is_empty() {
        out.push(cur);
    }
    out
}

/// The line without here-document bodies: `cat > t.sh <<'EOF'` … `EOF` writes text,
/// and a `pytest` line inside it runs nothing.
fn without_heredocs(line: &str) -> std::borrow::Cow<'_, str> {
    if !line.contains("<<") {
        return std::borrow::Cow::Borrowed(line);
    }
    let mut out = String::with_capacity(line.len());
    let mut pending: std::collections::VecDeque<(String, bool)> = Default::default();
    for l in line.split('\n') {
        if let Some((delim, dash)) = pending.front() {
            let body = if *dash { l.trim_start_matches('\t') } else { l };
            if body.trim_end() == delim {
                pending.pop_front();
            }
            continue;
        }
        let mut rest = l;
        while let Some(at) = rest.find("<<") {
            rest = &rest[at + 2..];
            if let Some(r) = rest.strip_prefix('<') {
                rest = r; // `<<<` is a here-string, no body
                continue;
            }
            let dash = rest.starts_with('-');
            let word = rest.trim_start_matches('-').trim_start();
            let word = word.trim_start_matches(['\'', '"', '\\']);
            let delim: String = word
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect();
            if !delim.is_empty() {
                pending.push_back((delim, dash));
            }
        }
        out.push_str(l);
        out.push('\n');
    }
    std::borrow::Cow::Owned(out)
}

/// `set -o pipefail`, `set -euo pipefail`, `shopt -so pipefail`.
pub(super) fn sets_pipefail(words: &[String]) -> bool {
    matches!(words.first().map(String::as_str), Some("set" | "shopt")) && words.iter().any(|w| w == "pipefail")
}

/// What hides the status of the command at `i` in `list`: its own `/dev/null`, a pipe
/// into a later stage, or a `||` / `;` after its pipeline.
pub(super) fn mask_of(list: &[Simple], i: usize, pipefail: bool) -> Option<Mask> {
    if list[i].devnull {
        return Some(Mask::DevNull);
    }
    let name = |s: &Simple| {
        let w: Vec<&str> = s.words.iter().take(2).map(String::as_str).collect();
        w.join(" ")
    };
    if list[i].next == "|" {
        if let Some(stage) = list.get(i + 1) {
            let into = stage.words.first().map_or("", |w| w.rsplit('/').next().unwrap_or(w));
            // `| tee log` keeps every line; the status is still tee's.
            return Some(Mask::Piped {
                into: into.to_string(),
                pipefail,
            });
        }
    }
    // The end of the runner's pipeline, then what follows it.
    let mut j = i;
    while list[j].next == "|" && j + 1 < list.len() {
        j += 1;
    }
    match (list[j].next, list.get(j + 1)) {
        ("||", Some(next)) => return Some(Mask::OrElse { then: name(next) }),
        (";" | "&", Some(next)) => return Some(Mask::Then { then: name(next) }),
        ("&", None) => return Some(Mask::Background),
        _ => {}
    }
    // The start of its pipeline, then what comes before it.
    let mut k = i;
    while k > 0 && list[k - 1].next == "|" {
        k -= 1;
    }
    (k > 0 && list[k - 1].next == "||").then(|| Mask::MayNotRun {
        after: name(&list[k - 1]),
    })
}
