//! The session's own names in an output — a quoted word, a path, a file name — found by a
//! scan of the bytes, no regex: the anchor extractor reads an output with them blanked
//! ([`crate::learn::text::signature::anchors`]), on the failure hook's path.
//!
//! Why: a word the session chose is no failure class (`omitting directory 'fixtures'` is
//! no missing pytest fixture, `class ReportJob is public … ReportJob.java` no condition
//! named `ReportJob`). The signature's masks find the same things for the template, but a
//! second regex pass for the anchors cost ~1% of a fail-streak failure (callgrind, debug
//! build); this scan costs a walk over the text.

/// Does `text` hold `word` whole: no path character (letter, digit, `_`, `-`, `.`, `/`)
/// right before or after it, a `.` or `:` that closes a sentence allowed after it
/// (`settings.json` in "open 'settings.json'", `My` in "file 'My':"; not `a.json` inside
/// `data.json`)? `folder_before`: a `/` right before it is allowed too, the name given
/// with its folder (`My` in "can't open file '/home/dev/p/My'"). The one test of "the
/// failure names this word" that the learner and the failure hook share.
pub fn holds_whole(text: &str, word: &str, folder_before: bool) -> bool {
    let path_char = |c: char| c.is_alphanumeric() || matches!(c, '_' | '.' | '/' | '-');
    !word.is_empty()
        && text.match_indices(word).any(|(at, _)| {
            let after = &text[at + word.len()..];
            // A full stop or a colon after the word closes the sentence: no part of it.
            let after = after
                .strip_prefix(['.', ':'])
                .filter(|r| !r.starts_with(path_char))
                .unwrap_or(after);
            let before = text[..at].chars().next_back();
            let before_ok = match before {
                None => true,
                Some('/') => folder_before,
                Some(c) => !path_char(c),
            };
            before_ok && !after.starts_with(path_char)
        })
}

/// The byte length of the quote opening at `i` and its possible closers (GNU's `name'
/// closes a backquote with an apostrophe); `None` when no quote opens there.
fn opening(text: &str, i: usize) -> Option<(usize, &'static [&'static str])> {
    let rest = &text.as_bytes()[i..];
    match rest.first()? {
        b'\'' => Some((1, &["'"])),
        b'"' => Some((1, &["\""])),
        b'`' => Some((1, &["`", "'"])),
        0xE2 if rest.starts_with("‘".as_bytes()) => Some((3, &["’"])),
        _ => None,
    }
}

/// Byte spans of quoted words: a quote closed before any whitespace (a quoted *message*,
/// with spaces, keeps its words). Bytes, not chars: every byte it stops at is ASCII or a
/// whole quote mark, so spans fall on character boundaries.
fn quoted(text: &str) -> Vec<(usize, usize)> {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while let Some(k) = bytes[i..].iter().position(|b| matches!(b, b'\'' | b'"' | b'`' | 0xE2)) {
        let at = i + k;
        i = at + 1;
        let Some((len, close)) = opening(text, at) else {
            continue;
        };
        let body = at + len;
        let mut j = body;
        while j < bytes.len() && !bytes[j].is_ascii_whitespace() {
            if let Some(c) = close.iter().find(|c| bytes[j..].starts_with(c.as_bytes())) {
                out.push((at, j + c.len()));
                i = j + c.len();
                break;
            }
            j += 1;
        }
    }
    out
}

/// The words a text quotes (`mathx` in "unresolved import `mathx`", `@acme/utils` in
/// "Cannot find module '@acme/utils'"), without their quotes: a name the failure pointed
/// at. A quoted message, with spaces, is no word.
pub fn quoted_words(text: &str) -> Vec<&str> {
    quoted(text)
        .into_iter()
        .filter_map(|(a, b)| {
            let (len, _) = opening(text, a)?;
            let inner = text.get(a + len..b)?;
            // The closer is one byte (`'`, `"`, `` ` ``) or the three of `’`.
            let inner = inner
                .strip_suffix('’')
                .or_else(|| inner.strip_suffix(['\'', '"', '`']))
                .unwrap_or(inner);
            (!inner.is_empty()).then_some(inner)
        })
        .collect()
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

/// A byte that ends a token (ASCII only: a multi-byte character never splits one).
fn delimiter(b: u8) -> bool {
    b.is_ascii_whitespace()
        || matches!(
            b,
            b':' | b','
                | b';'
                | b'('
                | b')'
                | b'['
                | b']'
                | b'{'
                | b'}'
                | b'<'
                | b'>'
                | b'='
                | b'|'
                | b'"'
                | b'\''
                | b'`'
        )
}

/// The text with its names blanked, and the names; `None` when it names nothing. Only
/// the tokens around a `/` or a `.` are read as paths or file names.
pub fn blanked(text: &str) -> Option<(String, Vec<&str>)> {
    let bytes = text.as_bytes();
    let mut spans = quoted(text);
    let mut i = 0;
    while let Some(k) = bytes[i..].iter().position(|&b| b == b'/' || b == b'.') {
        let at = i + k;
        let start = bytes[..at].iter().rposition(|&b| delimiter(b)).map_or(0, |p| p + 1);
        let end = bytes[at..]
            .iter()
            .position(|&b| delimiter(b))
            .map_or(bytes.len(), |p| at + p);
        if is_name(&text[start..end]) && !spans.iter().any(|&(a, b)| a <= start && end <= b) {
            spans.push((start, end));
        }
        i = end.max(at + 1);
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
    fn a_word_held_whole_not_inside_a_longer_name() {
        assert!(holds_whole("open 'settings.json'", "settings.json", false));
        assert!(holds_whole(
            "Could not open config/local.json: No such file",
            "config/local.json",
            false
        ));
        assert!(holds_whole(
            "ignored by one of your .gitignore files.",
            ".gitignore",
            false
        ));
        assert!(!holds_whole("open 'data.json'", "a.json", false));
        assert!(!holds_whole("error in my.gitignore.d", ".gitignore", false));
        assert!(
            !holds_whole("can't open file '/w/p/My'", "My", false),
            "a folder before it"
        );
        assert!(holds_whole("can't open file '/w/p/My'", "My", true));
        assert!(!holds_whole("x", "", true));
    }

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
        assert_eq!(blanked("unterminated 'quote and ‘ünï’").unwrap().1, ["‘ünï’"]);
        assert_eq!(blanked("naïve/é.py: x").unwrap().1, ["naïve/é.py"]);
    }
}
