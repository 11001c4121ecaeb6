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
    stem_lower(w.to_lowercase())
}

/// [`stem`] of a word already lower-cased.
fn stem_lower(w: String) -> String {
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
                let mut b = String::with_capacity(base.len() + rep.len());
                b.push_str(base);
                b.push_str(rep);
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

/// The stop-words as a set (built once per process: a hook matching 40 triggers looked
/// each word up in the 85-entry list, a third of what `terms` cost).
fn is_stop(w: &str) -> bool {
    static SET: std::sync::OnceLock<std::collections::HashSet<&'static str, FnvBuild>> = std::sync::OnceLock::new();
    SET.get_or_init(|| STOP.iter().copied().collect()).contains(w)
}

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
        // ASCII lower-cases byte by byte, exactly as `to_lowercase` does it.
        let lw = if raw.is_ascii() {
            raw.to_ascii_lowercase()
        } else {
            raw.to_lowercase()
        };
        if seen_raw.contains(&lw) {
            continue;
        }
        let keep = !(crate::learn::text::tables::on(crate::learn::text::tables::Table::StopWords) && is_stop(&lw)
            || lw.bytes().all(|c| c.is_ascii_digit()));
        if keep {
            // `stem` lower-cases again; for ASCII that changes nothing, so it is skipped.
            let s = if lw.is_ascii() {
                stem_lower(lw.clone())
            } else {
                stem(&lw)
            };
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

    /// The plain definition `terms` is a faster form of.
    fn terms_plain(text: &str) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        let mut seen_raw = std::collections::HashSet::new();
        for raw in text.split(|c: char| !c.is_alphanumeric()) {
            let lw = raw.to_lowercase();
            if raw.len() < 2 || !seen_raw.insert(lw.clone()) {
                continue;
            }
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

    #[test]
    fn the_fast_form_agrees_with_the_plain_one() {
        let texts = [
            "Rejected: rejects the PUSH, rejected again; Push",
            "error[E0432]: unresolved import `crate::foo` in src/lib.rs:3:5",
            "npm ERR! code ERESOLVE\nnpm ERR! ERESOLVE unable to resolve dependency tree",
            "ΣΊΣΥΦΟΣ ΣΊΣΥΦΟΣ İstanbul ISTANBUL Straße STRASSE ﬁle 12 007 x1 ÉCOLE école",
            "Installing installed installs stopped stopping buzzed classes dies ies",
            "",
            "the and of 42 a b",
        ];
        for t in texts {
            assert_eq!(terms(t), terms_plain(t), "{t}");
        }
        // Every row of every corpus (its raw JSON text, escapes and all).
        let mut rows = 0;
        for f in crate::learn::text::mask_engine::corpus_files() {
            for row in std::fs::read_to_string(&f).unwrap_or_default().lines() {
                rows += 1;
                assert_eq!(terms(row), terms_plain(row), "{row}");
            }
        }
        assert!(rows > 1000, "{rows} corpus rows");
        for t in ["REJECTED", "Dependencies", "İİİİİ", "ΣΑΣΑΣ", "ÉTAIENT"] {
            assert_eq!(stem(t), stem(&t.to_lowercase()), "{t}");
        }
    }

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
