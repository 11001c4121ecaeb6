//! Text → terms for the matcher ([`crate::learn::matching::matcher`]): lower-cased, split on anything
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

/// FNV-1a: a fast hash for the short strings of a vocabulary (terms, tokens). Not
/// DoS-resistant, which is fine here: the keys are the project's own log text, and the
/// default SipHash was a measurable share of learning time on 100k records.
#[derive(Default, Clone, Copy)]
pub struct Fnv(u64);

impl std::hash::Hasher for Fnv {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        let mut h = if self.0 == 0 { 0xcbf2_9ce4_8422_2325 } else { self.0 };
        for b in bytes {
            h ^= u64::from(*b);
            h = h.wrapping_mul(0x0100_0000_01b3);
        }
        self.0 = h;
    }
}

/// A `HashMap`/`HashSet` hasher built on [`Fnv`].
pub type FnvBuild = std::hash::BuildHasherDefault<Fnv>;

/// Terms of a text: masked, lower-cased, split on non-alphanumerics, stop-words dropped,
/// stemmed; each once, in first-seen order. A word seen before is skipped before it is
/// stemmed again (error text repeats its words).
pub fn terms(text: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut seen_raw: std::collections::HashSet<String, FnvBuild> = Default::default();
    let mut seen: std::collections::HashSet<String, FnvBuild> = Default::default();
    for raw in text.split(|c: char| !c.is_alphanumeric()) {
        if raw.len() < 2 {
            continue;
        }
        let lw = raw.to_lowercase();
        if seen_raw.contains(&lw) {
            continue;
        }
        let keep = !(crate::learn::text::tables::on(crate::learn::text::tables::Table::StopWords)
            && STOP.contains(&lw.as_str())
            || lw.chars().all(|c| c.is_ascii_digit()));
        if keep {
            let s = stem(&lw);
            if !seen.contains(&s) {
                seen.insert(s.clone());
                out.push(s);
            }
        }
        seen_raw.insert(lw);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_term_once_in_first_seen_order() {
        assert_eq!(
            terms("Rejected: rejects the push, rejected again; push"),
            vec!["reject", "push"]
        );
        assert_eq!(
            terms("the 42 x push"),
            vec!["push"],
            "stop-words, numbers, one-letter words"
        );
    }
}
