//! The gitleaks rule set (`redact_rules`, generated) applied to a record's text.
//!
//! Why gitleaks: its ~220 provider shapes are maintained upstream against real leaks, which a
//! hand-written list never keeps up with. Why this shape: a hook process writes one record
//! and exits, so every compiled regex is paid for by that one record. A rule's regex is
//! therefore compiled only when one of its lower-case keywords occurs in the text (gitleaks
//! uses the keywords the same way, as a prefilter), and its allowlists only when it matched.
//! The semantics follow gitleaks: the secret is `secretGroup`, else the first non-empty
//! group, else the match; a secret below the rule's entropy, or caught by an allowlist or a
//! stopword, is left alone. Only the secret is masked, so `token = "[REDACTED]"` still reads.
//!
//! The regexes run on bytes with Unicode off: `\w`, `\d`, `\s`, `\b` are ASCII in Go's RE2
//! too, and `(?i)` folding only ASCII matters for no secret format. That halves compilation
//! (a Unicode-folded `(?i)[\w.=-]{10,150}` is large): a keyword-laden record costs about half
//! a millisecond of regex work instead of one and a half.

use crate::evidence::redact_rules::{GitleaksRule, GLOBAL_ALLOW, GLOBAL_STOPWORDS, RULES};
use regex::bytes::Regex;
use std::ops::Range;
use std::sync::OnceLock;

/// A rule's compiled regex and, compiled on its first match, its allowlists.
struct Compiled {
    re: Regex,
    allow: OnceLock<[Option<Regex>; 3]>,
}

static CACHE: [OnceLock<Option<Compiled>>; RULES.len()] = [const { OnceLock::new() }; RULES.len()];

/// A byte regex, ASCII semantics, with room for gitleaks' bounded repetitions (`{250,}`).
fn build(source: &str) -> Option<Regex> {
    if source.is_empty() {
        return None;
    }
    regex::bytes::RegexBuilder::new(source)
        .unicode(false)
        .size_limit(1 << 24)
        .build()
        .ok()
}

fn compiled(i: usize) -> Option<&'static Compiled> {
    CACHE[i]
        .get_or_init(|| {
            build(RULES[i].regex).map(|re| Compiled {
                re,
                allow: OnceLock::new(),
            })
        })
        .as_ref()
}

fn global_allow() -> Option<&'static Regex> {
    static RE: OnceLock<Option<Regex>> = OnceLock::new();
    RE.get_or_init(|| build(GLOBAL_ALLOW)).as_ref()
}

/// Shannon entropy in bits per character (byte), as gitleaks computes it.
pub fn entropy(s: &[u8]) -> f64 {
    let mut counts = [0usize; 256];
    for &b in s {
        counts[b as usize] += 1;
    }
    let n = s.len() as f64;
    counts
        .iter()
        .filter(|&&c| c > 0)
        .map(|&c| {
            let p = c as f64 / n;
            -p * p.log2()
        })
        .sum()
}

/// Whether a candidate `secret` (inside `whole`, the match, inside `text`) is a real one.
fn is_secret(rule: &GitleaksRule, c: &Compiled, text: &[u8], whole: Range<usize>, secret: &[u8]) -> bool {
    if rule.entropy > 0.0 && entropy(secret) <= rule.entropy {
        return false;
    }
    let lower = String::from_utf8_lossy(secret).to_ascii_lowercase();
    if GLOBAL_STOPWORDS.iter().chain(rule.stopwords).any(|w| lower.contains(w)) {
        return false;
    }
    if global_allow().is_some_and(|re| re.is_match(secret)) {
        return false;
    }
    let [on_secret, on_match, on_line] = c.allow.get_or_init(|| {
        [
            build(rule.allow_secret),
            build(rule.allow_match),
            build(rule.allow_line),
        ]
    });
    let line_start = text[..whole.start]
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(0, |i| i + 1);
    let line_end = text[whole.end..]
        .iter()
        .position(|&b| b == b'\n')
        .map_or(text.len(), |i| whole.end + i);
    let hit = |re: &Option<Regex>, s: &[u8]| re.as_ref().is_some_and(|re| re.is_match(s));
    !(hit(on_secret, secret) || hit(on_match, &text[whole.clone()]) || hit(on_line, &text[line_start..line_end]))
}

/// The byte ranges of `text` that rule `i` says are secrets.
fn secret_spans(i: usize, text: &[u8], spans: &mut Vec<Range<usize>>) {
    let rule = &RULES[i];
    let Some(c) = compiled(i) else { return };
    for caps in c.re.captures_iter(text) {
        let whole = caps.get(0).expect("group 0 always participates");
        let secret = if rule.secret_group > 0 {
            caps.get(rule.secret_group)
        } else {
            caps.iter().skip(1).flatten().find(|g| !g.is_empty())
        }
        .unwrap_or(whole);
        if !secret.is_empty() && is_secret(rule, c, text, whole.range(), secret.as_bytes()) {
            spans.push(secret.range());
        }
    }
}

/// `text` with every gitleaks secret replaced by `mask`, or `None` when none was found.
/// `lower` is `text` lower-cased (ASCII), which the caller already has for its own needles.
pub fn mask_secrets(text: &str, lower: &str, mask: &str) -> Option<String> {
    let mut spans = Vec::new();
    let pairs = crate::evidence::bigrams::Bigrams::of(lower);
    for (i, rule) in RULES.iter().enumerate() {
        if rule.keywords.iter().any(|k| pairs.contains(lower, k)) {
            secret_spans(i, text.as_bytes(), &mut spans);
        }
    }
    if spans.is_empty() {
        return None;
    }
    // A byte match could in principle end inside a character: widen to whole characters
    // (masking more is the safe side). Overlapping findings merge into one masked run.
    for r in &mut spans {
        while !text.is_char_boundary(r.start) {
            r.start -= 1;
        }
        while !text.is_char_boundary(r.end) {
            r.end += 1;
        }
    }
    spans.sort_by_key(|r| (r.start, std::cmp::Reverse(r.end)));
    let mut out = String::with_capacity(text.len());
    let mut at = 0;
    for r in spans {
        if r.end <= at {
            continue;
        }
        out.push_str(&text[at..r.start.max(at)]);
        if r.start >= at {
            out.push_str(mask);
        }
        at = r.end;
    }
    out.push_str(&text[at..]);
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_gitleaks_rule_compiles() {
        let mut bad = Vec::new();
        for (i, r) in RULES.iter().enumerate() {
            if compiled(i).is_none() {
                bad.push(format!("{}: {:?}", r.id, regex::bytes::Regex::new(r.regex).err()));
            }
            for a in [r.allow_secret, r.allow_match, r.allow_line] {
                if !a.is_empty() && build(a).is_none() {
                    bad.push(format!("{} allowlist: {:?}", r.id, regex::bytes::Regex::new(a).err()));
                }
            }
            assert!(r.keywords.iter().all(|k| *k == k.to_ascii_lowercase()), "{}", r.id);
            assert!(!r.keywords.is_empty(), "{} has no keyword to gate it", r.id);
        }
        assert!(global_allow().is_some(), "the global allowlist does not compile");
        assert!(
            bad.is_empty(),
            "{} rules do not compile:\n{}",
            bad.len(),
            bad.join("\n")
        );
    }

    #[test]
    fn masks_only_the_secret_group() {
        let t = "export STRIPE=sk_live_4eC39HqLyjWDarjtT1zdp7dc and more";
        let out = mask_secrets(t, &t.to_ascii_lowercase(), "[REDACTED]").unwrap();
        assert_eq!(out, "export STRIPE=[REDACTED] and more");
    }

    #[test]
    fn entropy_and_allowlists_keep_placeholders() {
        for t in [
            "aws_access_key_id = AKIAIOSFODNN7EXAMPLE",
            "api_key = ${API_KEY}",
            "token: aaaaaaaaaaaaaaaa",
        ] {
            assert_eq!(mask_secrets(t, &t.to_ascii_lowercase(), "[REDACTED]"), None, "{t}");
        }
    }
}
