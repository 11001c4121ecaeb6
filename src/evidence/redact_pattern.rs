//! One hand-written secret pattern and the keyword gate that keeps its regex uncompiled.
//!
//! A hook process writes one record and exits, so every regex it compiles is paid for by that
//! one record; compiling all patterns up front costs milliseconds, more than the whole hook
//! budget. A pattern is therefore tried only when one of its literal needles occurs in the
//! (lower-cased) text — or, for a format with no literal to hang on (a `.pgpass` line is
//! `host:port:db:user:password`), when a cheap byte scan says the text has that shape.

use regex::bytes::{Captures, Regex};
use std::borrow::Cow;
use std::sync::OnceLock;

pub struct Pattern {
    /// Lower-case literals, one of which any match must contain — or, for a form that is a
    /// secret only in its context (`-u a:b` after `curl`), that the text must contain.
    needles: &'static [&'static str],
    /// A cheap shape test on the lower-cased text, for formats without a literal needle.
    gate: Option<fn(&str) -> bool>,
    source: &'static str,
    /// Replacement; `${1}`-style groups keep the non-secret prefix.
    with: &'static str,
    /// A match this says is no secret is left as it is (`PWD=/home/x` is a directory).
    keep: Option<fn(&Captures) -> bool>,
    re: OnceLock<Option<Regex>>,
}

impl Pattern {
    pub const fn new(needles: &'static [&'static str], source: &'static str, with: &'static str) -> Pattern {
        Pattern {
            needles,
            gate: None,
            source,
            with,
            keep: None,
            re: OnceLock::new(),
        }
    }

    /// Also tried when `gate` says the (lower-cased) text has the shape.
    pub const fn gated(mut self, gate: fn(&str) -> bool) -> Pattern {
        self.gate = Some(gate);
        self
    }

    /// Matches for which `keep` is true are not replaced.
    pub const fn keeping(mut self, keep: fn(&Captures) -> bool) -> Pattern {
        self.keep = Some(keep);
        self
    }

    /// The keyword gate: whether this pattern's regex may match `lower` (lower-cased text,
    /// `pairs` its byte pairs). False means the regex is not even compiled.
    pub fn opens(&self, lower: &str, pairs: &crate::evidence::bigrams::Bigrams) -> bool {
        self.needles.iter().any(|n| pairs.contains(lower, n)) || self.gate.is_some_and(|g| g(lower))
    }

    pub fn regex(&self) -> Option<&Regex> {
        self.re
            .get_or_init(|| regex::bytes::RegexBuilder::new(self.source).unicode(false).build().ok())
            .as_ref()
    }

    #[cfg(test)]
    pub fn needles(&self) -> &'static [&'static str] {
        self.needles
    }

    #[cfg(test)]
    pub fn source(&self) -> &'static str {
        self.source
    }
}

/// Applies every pattern whose gate opens to `text`; `lower` is `text` lower-cased (ASCII).
pub fn apply(patterns: &[Pattern], text: &str, mut lower: String) -> String {
    let mut out = Cow::Borrowed(text.as_bytes());
    let mut pairs = crate::evidence::bigrams::Bigrams::of(&lower);
    for p in patterns {
        if !p.opens(&lower, &pairs) {
            continue;
        }
        let Some(re) = p.regex() else { continue };
        if !re.is_match(&out) {
            continue;
        }
        let replaced = re.replace_all(&out, |c: &Captures| {
            let mut dst = Vec::new();
            if p.keep.is_some_and(|k| k(c)) {
                dst.extend_from_slice(&c[0]);
            } else {
                c.expand(p.with.as_bytes(), &mut dst);
            }
            dst
        });
        if replaced[..] != out[..] {
            out = Cow::Owned(replaced.into_owned());
            lower = String::from_utf8_lossy(&out).to_ascii_lowercase();
            pairs = crate::evidence::bigrams::Bigrams::of(&lower);
        }
    }
    match out {
        Cow::Borrowed(_) => text.to_string(),
        // Every pattern starts and ends its match on an ASCII byte or runs over whole
        // non-ASCII characters, so this stays UTF-8; lossy is only the fail-safe.
        Cow::Owned(bytes) => {
            String::from_utf8(bytes).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
        }
    }
}
