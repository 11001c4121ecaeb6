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

/// Anchors as the index writes them: each in [`anchor_spelling`], comma-separated; `*`
/// for none known.
fn anchors_field(anchors: Option<&[String]>) -> String {
    match anchors {
        Some(a) if !a.is_empty() => a.iter().map(|x| anchor_spelling(x)).collect::<Vec<_>>().join(","),
        _ => "*".into(),
    }
}

/// One anchor as the index spells it, one spelling per anchor and no two alike: as it is
/// when it is made only of `A-Za-z0-9_.:-` (error codes, class names, phrases: half the
/// bytes of hex, and the index is hashed whole at every read), else `%` and its hex.
pub fn anchor_spelling(a: &str) -> String {
    let plain = |b: u8| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b':' | b'-');
    if !a.is_empty() && a.bytes().all(plain) {
        a.to_string()
    } else {
        let mut s = String::from("%");
        s.push_str(&hex(a).replace('-', ""));
        s
    }
}

/// A record's anchors in the index's spelling, for [`Index::anchored_apart`].
pub fn spelled(anchors: &[String]) -> Vec<String> {
    anchors.iter().map(|a| anchor_spelling(a)).collect()
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

/// One listed rule: where its object lies in the store's bytes, its domain (a position
/// in [`Index::domains`]), seal print and match anchors.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    pub start: usize,
    pub end: usize,
    pub domain: usize,
    pub seal: u64,
    /// Where the rule's [`match_anchors`] field ([`anchors_field`]) lies in the index
    /// text: compared in that spelling, never decoded.
    anchors: (usize, usize),
}

/// A verified index for the bytes read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Index {
    /// The store's domains, each once.
    pub domains: Vec<String>,
    /// The listed rules, in store order.
    pub entries: Vec<Entry>,
    /// Indices into `entries` in SessionStart's order ([`session_cmp`]).
    pub order: Vec<usize>,
    /// The index body the entries' anchor fields lie in.
    text: String,
}

impl Index {
    /// An entry's domain.
    pub fn domain(&self, e: &Entry) -> &str {
        self.domains.get(e.domain).map_or("", String::as_str)
    }

    /// Whether an entry's rule has match anchors and none of them is among a record's
    /// (`spelled`, from [`spelled`]).
    pub fn anchored_apart(&self, e: &Entry, spelled: &[String]) -> bool {
        let field = self.text.get(e.anchors.0..e.anchors.1).unwrap_or("*");
        field != "*" && !field.split(',').any(|a| spelled.iter().any(|h| h == a))
    }
}

/// The store as one read saw it.
pub struct Snapshot {
    /// The store's bytes; with a valid index, empty until [`Snapshot::fill`] reads them.
    pub bytes: Vec<u8>,
    /// The store's identity, when it held still during the read (else no index is used
    /// or written for these bytes).
    pub identity: Option<Identity>,
    /// A valid index for the store as opened, if there is one.
    pub index: Option<Index>,
    /// The open store, its bytes not read yet (a valid index was found first).
    unread: Option<crate::fable_dir::Bounded>,
}

impl Snapshot {
    /// Reads the store's bytes behind an index found first ([`read`]); `true` when they
    /// are the bytes the index describes (the store still has the identity the index was
    /// checked against, after the read). On `false`, `bytes` holds what was read (nothing
    /// after a read error, as a failed read was an empty store) for the full parse, and
    /// `identity` is cleared: no index is used or written for them.
    pub fn fill(&mut self) -> bool {
        let Some(mut b) = self.unread.take() else {
            return self.identity.is_some();
        };
        let mut bytes = Vec::with_capacity(b.len + 1);
        let read = b.reader.read_to_end(&mut bytes).is_ok();
        let after = b.reader.get_ref().metadata().ok().map(|m| Identity::of(&m));
        if !read {
            bytes.clear();
        }
        self.bytes = bytes;
        if !read || after != self.identity {
            self.identity = None;
        }
        self.identity.is_some()
    }
}

/// Opens `rules.json` through the `.fable/` door and reads its index when it is valid for
/// the store as opened; the store's bytes are read now only when there is no such index,
/// else when first needed ([`Snapshot::fill`]): a failure whose domain has no rule that
/// could match reads only the index (the store is 151 KB in the bench, the index 8 KB).
/// `Ok(None)` when there is no store. `scope` is the canonical `.fable/` path
/// (`rule_seal::scope`), which the index MAC binds to as rule seals do.
///
/// An index is trusted for a store it was not read beside because it is bound to the
/// store's identity, taken here on the open file (a write moves the ctime); bytes read
/// later are checked against that identity again ([`Snapshot::fill`]).
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
    let index = usize::try_from(before.0[2]).ok().and_then(|len| {
        let text = crate::fable_dir::read(&path(fable_dir), crate::fable_dir::Kind::State).ok()??;
        parse(&text, key, scope, before, len)
    });
    if index.is_some() {
        return Ok(Some(Snapshot {
            bytes: Vec::new(),
            identity: Some(before),
            index,
            unread: Some(b),
        }));
    }
    let mut bytes = Vec::with_capacity(b.len + 1);
    b.reader.read_to_end(&mut bytes)?;
    let after = Identity::of(&b.reader.get_ref().metadata()?);
    let identity = (before == after).then_some(before);
    Ok(Some(Snapshot {
        bytes,
        identity,
        index: None,
        unread: None,
    }))
}

/// Verifies and parses an index file: `None` unless its MAC is this key's for this
/// project, it names exactly `id`, and every span and order position is in range. Read
/// byte by byte, without a `String` per entry: `str::split` and `parse` over 200 entries
/// cost 0.4 M instructions, more than the rest of the read.
fn parse(text: &[u8], key: &Key, scope: &Path, id: Identity, len: usize) -> Option<Index> {
    let text = std::str::from_utf8(text).ok()?;
    let (mac, body) = text.split_once('\n')?;
    if !key.verify_fields(scope, &[MAGIC, body], mac) {
        return None;
    }
    let mut lines = body.as_bytes().split(|&b| b == b'\n');
    (lines.next()? == MAGIC.as_bytes()).then_some(())?;
    let ident: Vec<i64> = numbers(lines.next()?.strip_prefix(b"store")?, |f| {
        let (neg, digits) = match f.strip_prefix(b"-") {
            Some(d) => (true, d),
            None => (false, f),
        };
        let v = i64::try_from(decimal(digits)?).ok()?;
        Some(if neg { -v } else { v })
    })?;
    (ident.as_slice() == id.0.as_slice()).then_some(())?;
    let domains: Vec<String> = numbers(lines.next()?.strip_prefix(b"domains")?, |f| {
        unhex(std::str::from_utf8(f).ok()?)
    })?;
    let order: Vec<usize> = numbers(lines.next()?.strip_prefix(b"order")?, decimal)?;
    let mut entries = Vec::with_capacity(order.len());
    for line in lines {
        let mut f = line.split(|&b| b == b' ');
        let start = decimal(f.next()?)?;
        let n = decimal(f.next()?)?;
        let domain = decimal(f.next()?)?;
        let seal = hex64(f.next()?)?;
        let field = f.next()?;
        // Where the field lies in `body` (it is a sub-slice of it).
        let from = field.as_ptr() as usize - body.as_ptr() as usize;
        let end = start.checked_add(n)?;
        if f.next().is_some() || n == 0 || end > len || domain >= domains.len() || field.is_empty() {
            return None;
        }
        entries.push(Entry {
            start,
            end,
            domain,
            seal,
            anchors: (from, from + field.len()),
        });
    }
    if order.len() != entries.len() || order.iter().any(|&i| i >= entries.len()) {
        return None;
    }
    Some(Index {
        domains,
        entries,
        order,
        text: body.to_string(),
    })
}

/// The space-separated fields after a line's label, each read by `one`.
fn numbers<T>(rest: &[u8], one: impl Fn(&[u8]) -> Option<T>) -> Option<Vec<T>> {
    if rest.is_empty() {
        return Some(Vec::new());
    }
    rest.strip_prefix(b" ")?.split(|&b| b == b' ').map(one).collect()
}

/// A decimal number as the index writes it: digits only, no sign, no overflow.
fn decimal(f: &[u8]) -> Option<usize> {
    if f.is_empty() || f.len() > 19 {
        return None;
    }
    f.iter().try_fold(0usize, |v, &b| {
        b.is_ascii_digit().then(|| v * 10 + usize::from(b - b'0'))
    })
}

/// Sixteen lower-case hex digits at most, as a seal print is written.
fn hex64(f: &[u8]) -> Option<u64> {
    if f.is_empty() || f.len() > 16 {
        return None;
    }
    f.iter().try_fold(0u64, |v, &b| {
        let d = match b {
            b'0'..=b'9' => b - b'0',
            b'a'..=b'f' => b - b'a' + 10,
            _ => return None,
        };
        Some(v << 4 | u64::from(d))
    })
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

    /// Each entry's domain and match anchors read back as written, whatever their bytes;
    /// a record's anchors are compared in the index's spelling.
    #[test]
    fn domains_and_anchors_read_back() {
        let key = Key::from_bytes([3; 32]);
        let scope = Path::new("/p/.fable");
        let s = |v: &[&str]| v.iter().map(|x| x.to_string()).collect::<Vec<String>>();
        let a = [s(&["E0432", "non-fast-forward"]), s(&["a,b", "", "%41", "ü *"]), s(&[])];
        let heads: Vec<Head> = [
            ("git", Some(&a[0][..])),
            ("", Some(&a[1][..])),
            ("a b\nc", None),
            ("git", Some(&a[2][..])),
        ]
        .iter()
        .enumerate()
        .map(|(i, &(domain, match_anchors))| Head {
            id: ["R-0", "R-1", "R-2", "R-3"][i],
            domain,
            status: "promoted",
            seal: Some("ab"),
            prevented: i as u64,
            rank: None,
            match_anchors,
        })
        .collect();
        let bytes = br#"[{"a": 1}, {"b": [2]}, {"c": "}"}, {"d": 4}]"#;
        let id = Identity([1, 2, bytes.len() as i64, -5, 6, 7, 8]);
        let text = build(bytes, &heads, id, &key, scope).unwrap();
        let ix = parse(text.as_bytes(), &key, scope, id, bytes.len()).expect("reads back");
        assert_eq!(ix.order, vec![3, 2, 1, 0]);
        let doms: Vec<&str> = ix.entries.iter().map(|e| ix.domain(e)).collect();
        assert_eq!(doms, ["git", "", "a b\nc", "git"]);
        assert_eq!(&bytes[ix.entries[2].start..ix.entries[2].end], br#"{"c": "}"}"#);
        let apart = |e: usize, rec: &[&str]| ix.anchored_apart(&ix.entries[e], &spelled(&s(rec)));
        assert!(!apart(0, &["x", "non-fast-forward"]) && !apart(0, &["E0432"]));
        assert!(apart(0, &["E0433", "e0432", "non"]) && apart(0, &[]));
        for one in ["a,b", "", "%41", "ü *"] {
            assert!(!apart(1, &[one]), "{one:?}");
        }
        assert!(apart(1, &["a", "b", "A", "41", "ü", "*"]));
        // No anchors known, or none at all: never apart.
        assert!(!apart(2, &["E0432"]) && !apart(3, &["E0432"]) && !apart(2, &[]));
        // One spelling per anchor, no two alike.
        let all = ["E0432", "a,b", "", "%41", "A", "41", "-", "%", "ü *", "x y"];
        let sp: std::collections::HashSet<String> = all.iter().map(|x| anchor_spelling(x)).collect();
        assert_eq!(sp.len(), all.len());
        assert!(
            sp.iter().all(|x| !x.is_empty() && !x.contains([',', ' ', '*', '\n'])),
            "{sp:?}"
        );
        // Another identity, length or key: no index.
        assert!(parse(
            text.as_bytes(),
            &key,
            scope,
            Identity([1, 2, 3, 4, 5, 6, 7]),
            bytes.len()
        )
        .is_none());
        assert!(parse(text.as_bytes(), &key, scope, id, 10).is_none());
        assert!(parse(text.as_bytes(), &Key::from_bytes([4; 32]), scope, id, bytes.len()).is_none());
    }

    #[test]
    fn numbers_are_read_strictly() {
        assert_eq!(decimal(b"0"), Some(0));
        assert_eq!(decimal(b"1234567890123456789"), Some(1234567890123456789));
        for bad in [&b""[..], b"+1", b"-1", b"1a", b" 1", b"12345678901234567890"] {
            assert_eq!(decimal(bad), None, "{bad:?}");
        }
        assert_eq!(hex64(b"00ff"), Some(255));
        assert_eq!(hex64(b"ffffffffffffffff"), Some(u64::MAX));
        for bad in [&b""[..], b"FF", b"g", b"1ffffffffffffffff"] {
            assert_eq!(hex64(bad), None, "{bad:?}");
        }
        assert_eq!(numbers(b"", decimal), Some(vec![]));
        assert_eq!(numbers(b" 1 22", decimal), Some(vec![1, 22]));
        assert_eq!(numbers(b"1", decimal), None);
        assert_eq!(numbers(b" 1  2", decimal), None);
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
