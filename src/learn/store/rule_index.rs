//! A small index of the rule store, kept in `.fable/state/rules.index`, so the hooks that
//! show promoted rules (SessionStart, a failure) parse only the rules they show or match
//! instead of the whole store: 3.5 M instructions for a 151 KB store of 200 rules, the
//! largest single cost of a fail-streak failure and of `fable-inject`.
//!
//! What it holds, for each rule of the store whose status is `promoted` and that carries
//! a seal (the rules the hooks consider), in store order: the byte span of the rule's
//! object in `rules.json`, its domain, and a fingerprint of its seal; and the order
//! SessionStart lists them in. The hooks read the store's bytes, parse only the spans they
//! need, and check every parsed rule against its entry (status, domain, seal).
//!
//! Why it can be trusted although `.fable/` is writable by the agent:
//! - it is bound to the store's identity (device, inode, size, mtime and ctime to the
//!   nanosecond, checked on the open file before and after the read): any write to the
//!   store, an edit in place included, changes its ctime, which no unprivileged process
//!   can set back, so an index made for other bytes is stale and ignored;
//! - it is authenticated with the user's key (HMAC, as rule seals and evidence records),
//!   over the project's `.fable/` path: only fable on this machine writes a valid one,
//!   and only from a store it parsed whole ([`write`] is called with the parsed rules),
//!   so an index exists only for a store the full parse accepts;
//! - each shown rule's own seal is still checked on the bytes parsed from the span, as on
//!   the full path.
//!
//! Anything else — no index, a stale, malformed or forged one, a span that does not parse
//! into the rule its entry names — and the caller parses the store whole, as before.
//! What is left: a write landing within the same clock tick (a few ms) as fable's own
//! save leaves the ctime unchanged; the index then describes fable's bytes, and a rule is
//! shown only if its span still parses to a promoted rule with the same seal.

use crate::evidence::seal::Key;
use std::cmp::Ordering;
use std::io::Read;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

/// The index file, under `.fable/` (in `state/`, which `.fable/.gitignore` keeps local).
pub fn path(fable_dir: &Path) -> PathBuf {
    fable_dir.join("state").join("rules.index")
}

const MAGIC: &str = "fable-rule-index 2";

/// What the index needs of one rule of the store (built by [`crate::learn::judge::rule::Rule::head`]).
#[derive(Debug, Clone, Copy)]
pub struct Head<'a> {
    pub id: &'a str,
    pub domain: &'a str,
    pub status: &'a str,
    pub seal: Option<&'a str>,
    pub prevented: u64,
    pub rank: Option<f64>,
    /// The anchors the failure hook matches the rule with, when known without compiling
    /// its trigger ([`match_anchors`]).
    pub match_anchors: Option<&'a [String]>,
}

/// The anchors a rule is matched with, as `rules_inject::ranked` takes them: the rule's
/// own when it has some, else its compiled trigger's; `None` when they are empty or would
/// need the trigger compiled (an older seal). A trigger with anchors that shares none of
/// a failure's scores at most [`crate::learn::matching::matcher::NO_ANCHOR_CAP`], so
/// the failure hook passes over such a rule without parsing it.
pub fn match_anchors<'a>(anchors: &'a [String], compiled: Option<&'a [String]>) -> Option<&'a [String]> {
    let a = if anchors.is_empty() { compiled? } else { anchors };
    (!a.is_empty()).then_some(a)
}

/// Anchors as the index writes them: each in hex, comma-separated; `*` for none known.
fn anchors_field(anchors: Option<&[String]>) -> String {
    match anchors {
        Some(a) => a.iter().map(|x| hex(x)).collect::<Vec<_>>().join(","),
        None => "*".into(),
    }
}

/// A record's anchors in the index's spelling, for [`Entry::anchored_apart`].
pub fn hexed(anchors: &[String]) -> Vec<String> {
    anchors.iter().map(|a| hex(a)).collect()
}

impl Head<'_> {
    /// The rules the hooks consider: promoted, with a seal (whether it was made here is
    /// checked when the rule is about to be shown).
    pub fn listed(&self) -> bool {
        self.status == "promoted" && self.seal.is_some()
    }
}

/// SessionStart's order: the rules that prevented the most failures first, then the best
/// ranked, then by id. One function for the full path and the index, so they agree.
pub fn session_cmp(a: (u64, Option<f64>, &str), b: (u64, Option<f64>, &str)) -> Ordering {
    b.0.cmp(&a.0)
        .then(
            b.1.unwrap_or(0.0)
                .partial_cmp(&a.1.unwrap_or(0.0))
                .unwrap_or(Ordering::Equal),
        )
        .then(a.2.cmp(b.2))
}

/// The fingerprint of a seal an entry keeps: a span that parses into a rule with another
/// seal is not the rule the index was made for.
pub fn seal_print(seal: &str) -> u64 {
    crate::fingerprint::fnv1a(seal.as_bytes())
}

/// Device, inode, size, mtime and ctime (seconds, nanoseconds) of the store file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Identity([i64; 7]);

impl Identity {
    pub fn of(m: &std::fs::Metadata) -> Identity {
        Identity([
            m.dev() as i64,
            m.ino() as i64,
            m.size() as i64,
            m.mtime(),
            m.mtime_nsec(),
            m.ctime(),
            m.ctime_nsec(),
        ])
    }
}

/// One listed rule: where its object lies in the store's bytes, its domain, seal print
/// and match anchors.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    pub start: usize,
    pub end: usize,
    pub domain: String,
    pub seal: u64,
    /// The rule's [`match_anchors`] as written ([`anchors_field`]): compared in that
    /// spelling, never decoded.
    pub anchors: String,
}

impl Entry {
    /// Whether the rule has match anchors and none of them is among a record's
    /// (`hexed`, from [`hexed`]).
    pub fn anchored_apart(&self, hexed: &[String]) -> bool {
        self.anchors != "*" && !self.anchors.split(',').any(|a| hexed.iter().any(|h| h == a))
    }
}

/// A verified index for the bytes read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Index {
    /// The listed rules, in store order.
    pub entries: Vec<Entry>,
    /// Indices into `entries` in SessionStart's order ([`session_cmp`]).
    pub order: Vec<usize>,
}

/// The store as one read saw it.
pub struct Snapshot {
    pub bytes: Vec<u8>,
    /// The store's identity, when it held still during the read (else no index is used
    /// or written for these bytes).
    pub identity: Option<Identity>,
    /// A valid index for exactly these bytes, if there is one.
    pub index: Option<Index>,
}

/// Reads `rules.json` through the `.fable/` door and its index when it is valid for the
/// bytes read. `Ok(None)` when there is no store. `scope` is the canonical `.fable/` path
/// (`rule_seal::scope`), which the index MAC binds to as rule seals do.
pub fn read(fable_dir: &Path, key: &Key, scope: &Path) -> std::io::Result<Option<Snapshot>> {
    let store = fable_dir.join("rules.json");
    let Some(mut b) = crate::fable_dir::open_read(&store, crate::fable_dir::Kind::Document)? else {
        return Ok(None);
    };
    if b.too_large {
        // As `fable_dir::read`: refused, not cut (the full path fails the same way).
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            "rule store too large",
        ));
    }
    let before = Identity::of(&b.reader.get_ref().metadata()?);
    let mut bytes = Vec::with_capacity(b.len + 1);
    b.reader.read_to_end(&mut bytes)?;
    let after = Identity::of(&b.reader.get_ref().metadata()?);
    let identity = (before == after).then_some(before);
    let index = identity.and_then(|id| {
        let text = crate::fable_dir::read(&path(fable_dir), crate::fable_dir::Kind::State).ok()??;
        parse(&text, key, scope, id, bytes.len())
    });
    Ok(Some(Snapshot { bytes, identity, index }))
}

/// Verifies and parses an index file: `None` unless its MAC is this key's for this
/// project, it names exactly `id`, and every span and order position is in range.
fn parse(text: &[u8], key: &Key, scope: &Path, id: Identity, len: usize) -> Option<Index> {
    let text = std::str::from_utf8(text).ok()?;
    let (mac, body) = text.split_once('\n')?;
    if !key.verify_fields(scope, &[MAGIC, body], mac) {
        return None;
    }
    let mut lines = body.lines();
    (lines.next()? == MAGIC).then_some(())?;
    let ident: Vec<i64> = numbers(lines.next()?.strip_prefix("store ")?)?;
    (ident.as_slice() == id.0.as_slice()).then_some(())?;
    let domains: Option<Vec<String>> = lines
        .next()?
        .strip_prefix("domains")?
        .split_ascii_whitespace()
        .map(unhex)
        .collect();
    let domains = domains?;
    let order: Vec<usize> = numbers(lines.next()?.strip_prefix("order")?)?;
    let mut entries = Vec::new();
    for line in lines {
        let mut f = line.split(' ');
        let start: usize = f.next()?.parse().ok()?;
        let n: usize = f.next()?.parse().ok()?;
        let domain = domains.get(f.next()?.parse::<usize>().ok()?)?.clone();
        let seal = u64::from_str_radix(f.next()?, 16).ok()?;
        let anchors = f.next()?.to_string();
        let end = start.checked_add(n)?;
        if f.next().is_some() || n == 0 || end > len {
            return None;
        }
        entries.push(Entry {
            start,
            end,
            domain,
            seal,
            anchors,
        });
    }
    if order.len() != entries.len() || order.iter().any(|&i| i >= entries.len()) {
        return None;
    }
    Some(Index { entries, order })
}

fn numbers<T: std::str::FromStr>(s: &str) -> Option<Vec<T>> {
    s.split_ascii_whitespace().map(|x| x.parse().ok()).collect()
}

/// A domain as hex (`-` when empty), so any text fits one space-separated field.
fn hex(s: &str) -> String {
    if s.is_empty() {
        return "-".into();
    }
    s.bytes().map(|b| format!("{b:02x}")).collect()
}

fn unhex(s: &str) -> Option<String> {
    if s == "-" {
        return Some(String::new());
    }
    if !s.len().is_multiple_of(2) {
        return None;
    }
    let bytes: Option<Vec<u8>> = (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(s.get(i..i + 2)?, 16).ok())
        .collect();
    String::from_utf8(bytes?).ok()
}

/// The byte spans of the top-level array's elements in JSON text the full parse accepted.
fn element_spans(b: &[u8]) -> Vec<(usize, usize)> {
    let (mut depth, mut in_str, mut start) = (0usize, false, 0usize);
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if in_str {
            // Most of a store is string text: run to the next quote or backslash.
            match b[i..].iter().position(|&c| c == b'"' || c == b'\\') {
                Some(k) if b[i + k] == b'\\' => i += k + 2,
                Some(k) => {
                    in_str = false;
                    i += k + 1;
                }
                None => break,
            }
            continue;
        }
        match c {
            b'"' => in_str = true,
            b'[' | b'{' => {
                if depth == 1 {
                    start = i;
                }
                depth += 1;
            }
            b']' | b'}' => {
                depth = depth.saturating_sub(1);
                if depth == 1 {
                    out.push((start, i + 1));
                }
            }
            _ => {}
        }
        i += 1;
    }
    out
}

/// The index text for store bytes whose full parse gave `heads` (one per rule, in store
/// order); `None` when the bytes are not what the heads came from.
pub fn build(bytes: &[u8], heads: &[Head], id: Identity, key: &Key, scope: &Path) -> Option<String> {
    std::str::from_utf8(bytes).ok()?;
    let spans = element_spans(bytes);
    if spans.len() != heads.len() {
        return None;
    }
    let listed: Vec<usize> = (0..heads.len()).filter(|&i| heads[i].listed()).collect();
    let mut order: Vec<usize> = (0..listed.len()).collect();
    order.sort_by(|&a, &b| {
        let (a, b) = (&heads[listed[a]], &heads[listed[b]]);
        session_cmp((a.prevented, a.rank, a.id), (b.prevented, b.rank, b.id))
    });
    // Each domain once (a store has a handful), entries name it by position.
    let mut domains: Vec<&str> = Vec::new();
    let mut domain_of = Vec::with_capacity(listed.len());
    for &i in &listed {
        let d = heads[i].domain;
        let at = domains.iter().position(|x| *x == d).unwrap_or_else(|| {
            domains.push(d);
            domains.len() - 1
        });
        domain_of.push(at);
    }
    use std::fmt::Write;
    let mut body = String::with_capacity(64 + 40 * listed.len());
    let _ = write!(body, "{MAGIC}\nstore");
    for x in id.0 {
        let _ = write!(body, " {x}");
    }
    body.push_str("\ndomains");
    for d in &domains {
        let _ = write!(body, " {}", hex(d));
    }
    body.push_str("\norder");
    for i in &order {
        let _ = write!(body, " {i}");
    }
    for (k, &i) in listed.iter().enumerate() {
        let (s, e) = spans[i];
        let seal = seal_print(heads[i].seal.unwrap_or(""));
        let anchors = anchors_field(heads[i].match_anchors);
        let _ = write!(body, "\n{s} {} {} {seal:016x} {anchors}", e - s, domain_of[k]);
    }
    let mac = key.mac_fields(scope, &[MAGIC, &body]);
    Some(format!("{mac}\n{body}"))
}

/// Writes the index for store bytes read with identity `id` whose full parse gave
/// `heads`. Best effort: the index is a cache, any failure leaves the full path.
pub fn write(fable_dir: &Path, bytes: &[u8], heads: &[Head], id: Identity, key: &Key, scope: &Path) {
    if let Some(text) = build(bytes, heads, id, key, scope) {
        let _ = crate::fable_dir::replace_atomically(&path(fable_dir), text.as_bytes(), false);
    }
}

/// After the store's save wrote `bytes`: the index for them, under the user's existing
/// key (none is created here; without one no hook shows a rule anyway).
pub fn after_save(fable_dir: &Path, bytes: &[u8], heads: &[Head]) {
    let Some(key) = crate::evidence::seal::existing_key(|k| std::env::var(k).ok()) else {
        return;
    };
    let Ok(m) = std::fs::symlink_metadata(fable_dir.join("rules.json")) else {
        return;
    };
    if m.is_file() && m.len() == bytes.len() as u64 {
        let scope = fable_dir.canonicalize().unwrap_or_else(|_| fable_dir.to_path_buf());
        write(fable_dir, bytes, heads, Identity::of(&m), &key, &scope);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spans_are_the_top_level_elements() {
        let text = br#"[
  {"id": "a", "s": "x]}{\"[", "p": {"q": [1, {"r": 2}]}},
  {"id": "b", "t": "ends in a backslash \\", "u": "\u005c\"}"},
  {"id": "c"}
]
"#;
        let spans = element_spans(text);
        assert_eq!(spans.len(), 3);
        let first: serde_json::Value = serde_json::from_slice(&text[spans[0].0..spans[0].1]).unwrap();
        assert_eq!(first["s"], "x]}{\"[");
        let second: serde_json::Value = serde_json::from_slice(&text[spans[1].0..spans[1].1]).unwrap();
        assert_eq!(second["t"], "ends in a backslash \\");
        assert_eq!(&text[spans[2].0..spans[2].1], br#"{"id": "c"}"#);
    }

    #[test]
    fn domains_round_trip_through_hex() {
        for d in ["", "git", "a b\nc", "ü"] {
            assert_eq!(unhex(&hex(d)).as_deref(), Some(d));
        }
        assert_eq!(unhex("6"), None);
        assert_eq!(unhex("zz"), None);
    }
}
