//! A one-pass prefilter for many literal needles: which byte pairs occur in a text.
//!
//! Redaction gates ~220 gitleaks rules and 32 hand-written patterns on ~320 literal
//! keywords. Testing each with `str::contains` builds a searcher per keyword per text, which
//! cost more than the rest of a short record's redaction (and ran for every citation the
//! close guard looks up). One pass records the text's byte pairs in a 64 Kib bitmap; a
//! needle whose first or last pair is absent cannot occur, so `contains` runs only for the
//! few needles that might. Exact: it never says no to a needle that occurs.

/// The byte pairs present in one text.
pub struct Bigrams {
    bits: Box<[u64; 1024]>,
}

impl Bigrams {
    pub fn of(text: &str) -> Bigrams {
        let mut bits = Box::new([0u64; 1024]);
        for w in text.as_bytes().windows(2) {
            let i = (usize::from(w[0]) << 8) | usize::from(w[1]);
            bits[i >> 6] |= 1 << (i & 63);
        }
        Bigrams { bits }
    }

    fn has(&self, a: u8, b: u8) -> bool {
        let i = (usize::from(a) << 8) | usize::from(b);
        self.bits[i >> 6] & (1 << (i & 63)) != 0
    }

    /// False only when `needle` cannot occur in the text (a needle under two bytes: true).
    pub fn may_contain(&self, needle: &str) -> bool {
        let n = needle.as_bytes();
        n.len() < 2 || self.has(n[0], n[1]) && self.has(n[n.len() - 2], n[n.len() - 1])
    }

    /// `text` (the one these bigrams are of) contains `needle`: the prefilter, then the test.
    pub fn contains(&self, text: &str, needle: &str) -> bool {
        self.may_contain(needle) && text.contains(needle)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn never_misses_a_needle_that_occurs() {
        let text = "curl -h authorization: bearer xyz && export aws_key=1";
        let b = Bigrams::of(text);
        for n in ["curl", "bearer", "aws_", "=1", "x", "", "authorization: "] {
            assert!(b.contains(text, n), "{n}");
        }
        for n in ["ghp_", "sk_live", "xoxb", "zz"] {
            assert!(!b.contains(text, n), "{n}");
        }
        assert!(!b.may_contain("ghp_"), "its first pair is absent");
    }
}
