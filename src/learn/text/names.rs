//! The session's own names in an output — a quoted word, a path, a file name — found by a
//! scan of the bytes, no regex: the anchor extractor reads an output with them blanked
//! ([`crate::learn::text::signature::anchors`]), on the failure hook's path.
//!
//! Why: a word the session chose is no failure class (`omitting directory 'fixtures'` is
//! no missing pytest fixture, `class ReportJob is public … ReportJob.java` no condition
//! named `ReportJob`). The signature's masks find the same things for the template, but a
//! second regex pass for the anchors cost ~1% of a fail-streak failure (callgrind, debug
//! build); this scan costs a walk over the text.

/// A quote's possible closers (GNU's `name' closes a backquote with an apostrophe).
fn closers(open: char) -> Option<&'static [char]> {
    match open {
        '\'' => Some(&['\'']),
        '"' => Some(&['"']),
        '`' => Some(&['`', '\'']),
        '‘' => Some(&['’']),
        _ => None,
    }
}

/// Byte spans of quoted words: a quote closed before any whitespace (a quoted *message*,
/// with spaces, keeps its words).
fn quoted(text: &str) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut i = 0;
    while let Some(c) = text[i..].chars().next() {
        let after = i + c.len_utf8();
        if let Some(close) = closers(c) {
            let end = text[after..]
                .char_indices()
                .find(|&(_, d)| d.is_whitespace() || close.contains(&d));
            if let Some((j, d)) = end.filter(|&(_, d)| close.contains(&d)) {
                let stop = after + j + d.len_utf8();
                out.push((i, stop));
                i = stop;
                continue;
            }
        }
        i = after;
    }
    out
}

/// Is a token a path (`src/lib.rs`, `./x`) or a file name (`ReportJob.java`, `x.tar.gz`)?
fn is_name(tok: &str) -> bool {
    if !tok.chars().any(char::is_alphanumeric) {
        return false;
    }
    if tok.contains('/') {
        return true;
    }
    let Some((stem, ext)) = tok.split_once('.') else {
        return false;
    };
    let word = |s: &str| !s.is_empty() && s.chars().all(|c| c.is_alphanumeric() || c == '_' || c == '-');
    word(stem)
        && ext.split('.').all(|e| {
            e.len() <= 5
                && e.starts_with(|c: char| c.is_ascii_alphabetic())
                && e.chars().all(|c| c.is_ascii_alphanumeric())
        })
}

/// The text with its names blanked, and the names; `None` when it names nothing.
pub fn blanked(text: &str) -> Option<(String, Vec<&str>)> {
    let mut spans = quoted(text);
    let delimiter = |c: char| c.is_whitespace() || ":,;()[]{}<>=|\"'`‘’".contains(c);
    let mut start = None;
    for (i, c) in text.char_indices().chain(std::iter::once((text.len(), ' '))) {
        match (delimiter(c), start) {
            (false, None) => start = Some(i),
            (true, Some(s)) => {
                if is_name(&text[s..i]) && !spans.iter().any(|&(a, b)| a <= s && i <= b) {
                    spans.push((s, i));
                }
                start = None;
            }
            _ => {}
        }
    }
    if spans.is_empty() {
        return None;
    }
    spans.sort_unstable();
    let mut out = String::with_capacity(text.len());
    let mut names = Vec::with_capacity(spans.len());
    let mut at = 0;
    for (a, b) in spans {
        if a < at {
            continue;
        }
        out.push_str(&text[at..a]);
        out.push(' ');
        names.push(&text[a..b]);
        at = b;
    }
    out.push_str(&text[at..]);
    Some((out, names))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quoted_words_paths_and_file_names_are_names() {
        let (t, n) = blanked("cp: -r not specified; omitting directory 'fixtures'").unwrap();
        assert_eq!(
            (t.as_str(), n),
            ("cp: -r not specified; omitting directory  ", vec!["'fixtures'"])
        );
        let (_, n) = blanked("error[E0432]: unresolved import `crate::foo`\n --> src/lib.rs:3:5").unwrap();
        assert_eq!(n, ["`crate::foo`", "src/lib.rs"]);
        let (_, n) = blanked("find: paths must precede expression: `b.log' and `a'").unwrap();
        assert_eq!(n, ["`b.log'", "`a'"]);
        let (_, n) = blanked("x.java:1: error: class ReportJob is public, in a file named ReportJob.java").unwrap();
        assert_eq!(n, ["x.java", "ReportJob.java"]);
        // A quoted message keeps its words; a sentence's full stop and a version are no names.
        assert!(blanked("error: 'timed out' while reading. Stop.").is_none());
        assert!(blanked("requires rustc 1.70.0 or newer").is_none());
        assert!(blanked("").is_none());
        assert!(blanked("unterminated 'quote and ‘ünï’").is_some());
    }
}
