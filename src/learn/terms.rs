//! Text → terms for the matcher ([`crate::learn::matcher`]): lower-cased, split on anything
//! not alphanumeric, stop-words dropped, stemmed.
//!
//! Why apart: the matcher is about scoring; what counts as a term (the stop-list, the
//! stemmer) is its own decision, tested on its own, and used by the extractor too.

pub(crate) const STOP: &[&str] = &[
    "a", "an", "the", "and", "or", "to", "of", "in", "on", "at", "for", "with", "by", "from", "is", "are", "was",
    "were", "be", "been", "it", "its", "as", "this", "that", "these", "those", "when", "before", "after", "if", "then",
    "than", "so", "do", "does", "did", "not", "no", "you", "your", "we", "our", "i", "me", "my", "there", "here",
    "some", "any", "all", "into", "out", "up", "n", "q", "path", "url", "hash", "dur", "again", "first", "run",
    "fails", "fail", "failed", "failing", "error", "errors", "because", "has", "have", "had", "e", "s", "t",
];

/// A light, deterministic suffix stemmer (English inflections only). Chosen over a full
/// Snowball stemmer to add no dependency: error text is short and technical, and the
/// inflections that matter (`rejected`, `conflicts`, `timed`, `installing`) are all suffixes.
pub fn stem(w: &str) -> String {
    let w = w.to_lowercase();
    if w.len() <= 4 || w.chars().any(|c| c.is_ascii_digit()) {
        return w;
    }
    for (suf, rep) in [
        ("ational", "ate"),
        ("ization", "ize"),
        ("ies", "y"),
        ("ing", ""),
        ("ed", ""),
        ("es", ""),
        ("ly", ""),
        ("s", ""),
    ] {
        if let Some(base) = w.strip_suffix(suf) {
            if base.len() >= 3 && !(suf == "s" && base.ends_with('s')) {
                let mut b = format!("{base}{rep}");
                // "rejected" → "reject", "stopped" → "stop".
                let bytes = b.as_bytes();
                let last = bytes.last().copied().unwrap_or(b'a');
                if rep.is_empty()
                    && bytes.len() >= 2
                    && last == bytes[bytes.len() - 2]
                    && !matches!(last, b'l' | b's' | b'z' | b'a' | b'e' | b'i' | b'o' | b'u')
                {
                    b.pop();
                }
                return b;
            }
        }
    }
    w
}

/// Terms of a text: masked, lower-cased, split on non-alphanumerics, stop-words dropped, stemmed.
pub fn terms(text: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for raw in text.split(|c: char| !c.is_alphanumeric()) {
        if raw.len() < 2 {
            continue;
        }
        let lw = raw.to_lowercase();
        if STOP.contains(&lw.as_str()) || lw.chars().all(|c| c.is_ascii_digit()) {
            continue;
        }
        let s = stem(&lw);
        if !out.contains(&s) {
            out.push(s);
        }
    }
    out
}
