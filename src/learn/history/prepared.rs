//! Every record normalised once ([`Prepared`]), built one record at a time.
//!
//! Commands repeat (`git status`, `cargo test` hundreds of times a day) and so do their
//! normalised forms, signatures and matcher views: each distinct one is held once
//! ([`Interned`]) and a record holds four bytes per column. A distinct command is
//! normalised once, not once per run of it. The values are the ones a per-record build
//! gives (the same functions on the same inputs), so every stage reads the same thing.

use crate::evidence::Record;
use crate::learn::history::origin_trust::{Classifier, Trust};
use crate::learn::matching::matcher::{record_text, Idf, RecordView, Vocab};
use crate::learn::text::command_norm::{normalize, CmdNorm};
use crate::learn::text::signature::{signature, Signature};
use std::collections::HashMap;
use std::hash::Hash;

/// A column of values where equal values are stored once: `column[i]` is record `i`'s.
#[derive(Debug)]
pub struct Interned<T> {
    ids: Vec<u32>,
    values: Vec<T>,
}

impl<T> Default for Interned<T> {
    fn default() -> Self {
        Interned {
            ids: Vec::new(),
            values: Vec::new(),
        }
    }
}

impl<T> std::ops::Index<usize> for Interned<T> {
    type Output = T;
    fn index(&self, i: usize) -> &T {
        &self.values[self.ids[i] as usize]
    }
}

impl<T> Interned<T> {
    /// Records in the column.
    pub fn len(&self) -> usize {
        self.ids.len()
    }

    pub fn is_empty(&self) -> bool {
        self.ids.is_empty()
    }

    /// Distinct values held.
    pub fn distinct(&self) -> usize {
        self.values.len()
    }

    fn push_id(&mut self, id: u32) {
        self.ids.push(id);
    }

    fn add(&mut self, v: T) -> u32 {
        self.values.push(v);
        (self.values.len() - 1) as u32
    }
}

/// Finds the id of a value by a key, making it on first sight.
fn id_for<K: Hash + Eq, T>(col: &mut Interned<T>, seen: &mut HashMap<K, u32>, key: K, make: impl FnOnce() -> T) -> u32 {
    if let Some(&id) = seen.get(&key) {
        return id;
    }
    let id = col.add(make());
    seen.insert(key, id);
    id
}

/// Every record normalised once: command, signature, matcher view, trust; plus the
/// per-session record order and the history-wide IDF.
#[derive(Debug, Default)]
pub struct Prepared {
    pub norms: Interned<CmdNorm>,
    pub sigs: Interned<Signature>,
    pub views: Interned<RecordView>,
    pub trust: Vec<Trust>,
    pub vocab: Vocab,
    pub idf: Idf,
    /// Session id → indices of its records, in history order.
    pub sessions: Vec<(String, Vec<usize>)>,
    /// Record index → (session slot, position in that session).
    pub position: Vec<(usize, usize)>,
    /// Failing records whose error lines hold anchors beyond the signature's
    /// ([`crate::learn::text::signature::signature_and_beyond`]), with those anchors: the
    /// coincidence test's classes. Only records with some (most have none: no memory per
    /// record).
    pub beyond: HashMap<usize, Vec<String>>,
    /// Anchorless failure texts (lowercased templates) that say the same thing as
    /// another but for one name → their anti-unified text
    /// ([`crate::learn::history::same_text`]); built once the whole history is seen.
    pub same_text: HashMap<String, String>,
    /// Failing records whose error names another step of the command as the one that
    /// failed, with that step's domain ([`crate::learn::text::failing_program`]); sparse.
    pub named: HashMap<usize, String>,
    /// Failing records whose failing segment is not the main one: its index among the
    /// record's segments ([`crate::learn::text::failing_program::failing_segment`]); sparse.
    pub failing_at: HashMap<usize, usize>,
    /// Program → the initials of the strict long switches its commands gave (`curl`:
    /// `f`, from `--fail`), read once per distinct command
    /// ([`crate::learn::history::strictness::strict_initials`]).
    pub strict_initials: HashMap<String, Vec<char>>,
}

impl Prepared {
    /// Normalises a history (oldest first). Linear in its size.
    pub fn new(history: &[Record]) -> Prepared {
        let mut b = PreparedBuilder::default();
        for r in history {
            b.push(r);
        }
        b.finish()
    }

    /// The segment of record `i` that failed: the step its error names, else its main
    /// segment ([`crate::learn::text::failing_program::failing_segment`]).
    pub fn failing(&self, i: usize) -> Option<&crate::learn::text::command_norm::Segment> {
        self.failing_index(i).and_then(|k| self.norms[i].segments.get(k))
    }

    /// Where in record `i`'s line the failing segment stands ([`Prepared::failing`]): the
    /// step its error names, else the main segment's place (`CmdNorm::primary`).
    pub fn failing_index(&self, i: usize) -> Option<usize> {
        match self.failing_at.get(&i) {
            Some(&k) => Some(k),
            None => self.norms[i].primary_index(),
        }
    }

    /// The segment of a retry (record `retry`) that ran the failing program of record
    /// `fail` again, else the retry's main segment.
    pub fn retry_of(&self, fail: usize, retry: usize) -> Option<&crate::learn::text::command_norm::Segment> {
        let program = self.failing(fail).map(|s| s.program.as_str());
        let n = &self.norms[retry];
        n.segments
            .iter()
            .find(|s| Some(s.program.as_str()) == program)
            .or_else(|| n.primary())
    }

    /// The records of `i`'s session after `i`, at most `window` of them.
    pub fn after(&self, i: usize, window: usize) -> &[usize] {
        let (slot, pos) = self.position[i];
        let idxs = &self.sessions[slot].1;
        let end = (pos + 1 + window).min(idxs.len());
        &idxs[(pos + 1).min(end)..end]
    }

    /// Cluster key of a failure record: its failure class — the tool (domain) and the
    /// failure signature (primary anchor, or the masked template when it has no anchor),
    /// not the subcommand. Texts that differ in one bare name (`*** PREFIX is not set`,
    /// `*** VERSION is not set`) are one class ([`crate::learn::history::same_text`]). `cargo build`, `cargo test` and `cargo check` failing with the
    /// same "could not find `Cargo.toml`" are one class (before, four one-session
    /// clusters, each below the recurrence minimum); so are `git status`/`log`/`pull`
    /// outside a repository and `git checkout`/`git switch` over local changes.
    pub fn cluster_key(&self, i: usize) -> String {
        let n = &self.norms[i];
        let s = &self.sigs[i];
        let domain = self.named.get(&i).map_or(n.domain(), String::as_str);
        match s.primary() {
            Some(a) => format!("{domain}|{a}"),
            None => {
                let t = s.template.to_lowercase();
                match self.same_text.get(&t) {
                    Some(g) => format!("{domain}|tpl:{g}"),
                    None => format!("{domain}|tpl:{t}"),
                }
            }
        }
    }
}

/// The key a matcher view is known by: it is a function of the command's normal form,
/// the outcome and the signature (its terms come from the label and the template).
type ViewKey = (u32, bool, String, Vec<String>);

/// Builds a [`Prepared`] one record at a time (oldest first).
#[derive(Default)]
pub struct PreparedBuilder {
    prep: Prepared,
    norm_of: HashMap<String, u32>,
    sig_of: HashMap<(String, Vec<String>), u32>,
    view_of: HashMap<ViewKey, u32>,
    slot_of: HashMap<String, usize>,
    classifier: Classifier,
}

impl PreparedBuilder {
    /// Normalises the next record; returns its trust.
    pub fn push(&mut self, r: &Record) -> Trust {
        let p = &mut self.prep;
        let i = p.position.len();
        let norm = match self.norm_of.get(r.cmd.as_str()) {
            Some(&id) => id,
            None => {
                let n = normalize(&r.cmd);
                for g in &n.segments {
                    for c in crate::learn::history::strictness::strict_initials(g) {
                        let v = p.strict_initials.entry(g.program.clone()).or_default();
                        if !v.contains(&c) {
                            v.push(c);
                        }
                    }
                }
                let id = p.norms.add(n);
                self.norm_of.insert(r.cmd.clone(), id);
                id
            }
        };
        p.norms.push_id(norm);
        let (s, cut) = if r.ok {
            (signature(&r.output()), Vec::new())
        } else {
            let mut tail = crate::learn::text::operand_echo::masked(&r.cmd, &r.output()).into_owned();
            if crate::learn::text::wrappers::timed_out(&r.cmd, r.exit) {
                tail.push_str("\ntimeout: the command timed out");
            }
            crate::learn::text::signature::signature_and_beyond(&tail)
        };
        let n = &p.norms.values[norm as usize];
        // Every record is a document of the IDF, seen or not.
        let terms = p.vocab.add_doc(&record_text(n, &s));
        let view = id_for(
            &mut p.views,
            &mut self.view_of,
            (norm, r.ok, s.template.clone(), s.anchors.clone()),
            || RecordView::new(n, &s, terms, r.ok),
        );
        p.views.push_id(view);
        // Only failures need their template later (clusters, triggers): keep memory
        // linear in failures, not in output size.
        let sig = if r.ok { Signature::default() } else { s };
        let sig = id_for(
            &mut p.sigs,
            &mut self.sig_of,
            (sig.template.clone(), sig.anchors.clone()),
            || sig,
        );
        p.sigs.push_id(sig);
        if !cut.is_empty() {
            p.beyond.insert(i, cut);
        }
        if let Some(d) =
            crate::learn::text::failing_program::named_domain(&r.cmd, n, &p.sigs.values[sig as usize].template)
        {
            p.named.insert(i, d);
            let template = &p.sigs.values[sig as usize].template;
            if let Some(k) = crate::learn::text::failing_program::named_segment(n, template) {
                p.failing_at.insert(i, k);
            }
        }
        let slot = match self.slot_of.get(r.session.as_str()) {
            Some(&s) => s,
            None => {
                p.sessions.push((r.session.clone(), Vec::new()));
                self.slot_of.insert(r.session.clone(), p.sessions.len() - 1);
                p.sessions.len() - 1
            }
        };
        p.position.push((slot, p.sessions[slot].1.len()));
        p.sessions[slot].1.push(i);
        let t = self.classifier.push(r);
        p.trust.push(t);
        t
    }

    pub fn finish(self) -> Prepared {
        let mut p = self.prep;
        p.idf = p.vocab.idf();
        let texts: Vec<String> = p
            .sigs
            .values
            .iter()
            .filter(|s| s.primary().is_none())
            .map(|s| s.template.to_lowercase())
            .collect();
        p.same_text = crate::learn::history::same_text::merged(texts.iter().map(String::as_str));
        for (_, idxs) in &mut p.sessions {
            idxs.shrink_to_fit();
        }
        p
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rec(session: &str, cmd: &str, ok: bool, tail: &str) -> Record {
        let exit = Some(if ok { 0 } else { 1 });
        Record::new("2026-01-01T00:00:00.000Z", session, "/w", cmd, exit, ok, tail)
    }

    #[test]
    fn each_distinct_form_is_held_once_and_read_per_record() {
        let mut h = Vec::new();
        for i in 0..300 {
            let s = format!("s{}", i / 30);
            h.push(rec(&s, "git status", true, "On branch main"));
            h.push(rec(
                &s,
                "cargo test",
                i % 7 != 0,
                "error[E0432]: unresolved import `crate::x`",
            ));
        }
        let p = Prepared::new(&h);
        assert_eq!(p.norms.len(), 600);
        assert_eq!(p.norms.distinct(), 2);
        for (i, r) in h.iter().enumerate() {
            assert_eq!(p.norms[i].canonical, normalize(&r.cmd).canonical);
            assert_eq!(p.views[i].ok, r.ok);
            // A success keeps no signature; a failure keeps its own.
            assert_eq!(p.sigs[i].anchors.is_empty(), r.ok, "record {i}");
        }
        assert!(p.views.distinct() <= 3, "{}", p.views.distinct());
        assert_eq!(p.sessions.len(), 10);
        assert_eq!(p.after(0, 3), &[1, 2, 3]);
    }

    #[test]
    fn failures_whose_texts_differ_in_one_bare_name_are_one_cluster() {
        let h = vec![
            rec("a", "make install", false, "Makefile:2: *** PREFIX is not set.  Stop."),
            rec("b", "make release", false, "Makefile:2: *** VERSION is not set.  Stop."),
            rec("c", "make deploy", false, "Makefile:9: *** missing separator.  Stop."),
            rec(
                "d",
                "git pull --rebase",
                false,
                "error: cannot pull with rebase: You have unstaged changes.\nerror: Please commit or stash them.",
            ),
            rec(
                "e",
                "git rebase main",
                false,
                "error: cannot rebase: You have unstaged changes.\nerror: Please commit or stash them.",
            ),
        ];
        let p = Prepared::new(&h);
        assert_eq!(p.cluster_key(0), p.cluster_key(1), "one cause, two names");
        assert!(p.cluster_key(0).contains("<name> is not set"), "{}", p.cluster_key(0));
        assert_ne!(p.cluster_key(0), p.cluster_key(2), "another message");
        assert_eq!(p.cluster_key(3), p.cluster_key(4), "one cause worded by two commands");
        // Streamed or not, the same clusters: the merge is made once the history is seen.
        let mut b = PreparedBuilder::default();
        for r in &h {
            b.push(r);
        }
        let q = b.finish();
        assert!((0..h.len()).all(|i| q.cluster_key(i) == p.cluster_key(i)));
    }
}
