//! The offline lexical matcher: how strongly a rule's trigger applies to an evidence record. Deterministic, no
//! model, microseconds per pair (`rule-learning.md` §3.4).
//!
//! **Text → terms.** Lower-case; split on anything not alphanumeric (so `non-fast-forward` → `non fast
//! forward` instead of SQuAD's `nonfastforward`); variable parts are masked first
//! ([`crate::learn::text::signature`]), so numbers, paths, hashes and quoted names never count; a stop-list drops
//! function words; a light suffix stemmer folds `rejected/rejects/rejecting` → `reject`. A record's terms are
//! its command label (`git push`) plus its masked error lines.
//!
//! **Score** in [0, 1]: `0.4·lexical + 0.4·anchor + 0.2·command`, where
//! - *lexical* is the IDF-weighted F2 (recall-weighted) overlap of the trigger's terms with the record's: IDF
//!   comes from the history itself ([`Idf`]), so `git` in a git-heavy log weighs almost nothing and `rebase`
//!   a lot;
//! - *anchor* is 1 when the trigger's primary anchor (error code, class, canonical phrase) is among the
//!   record's anchors, else 0.6 × the share of trigger anchors found;
//! - *command* is 1 for the same domain and action (or another action of its class), 0.6 for the same domain.
//!
//! **Anchors must agree**: when the trigger has anchors and the record shares none, the score is capped at
//! [`NO_ANCHOR_CAP`] (0.30), below any sane threshold. That single rule is what keeps a successful `git
//! status` from ever "breaking" a `git push` rule: the CauterRule failure mode of seed 000, where one shared
//! token made a success count as broken.
//!
//! **Defaults: threshold 0.45, margin 0.10** (so *broken* needs ≥ 0.55 and the near-miss band is [0.45,
//! 0.55)). Calibration (test `matcher::tests::calibration_sweep`, 24 labelled trigger/record pairs written
//! from real git/python/npm/docker/cargo outputs, 12 should-match — rewordings, other names, paraphrases such
//! as "behind its remote counterpart" — and 12 should-not: same-tool successes, same-tool different errors
//! (E0425 vs E0432, E404 vs ERESOLVE, auth failure vs non-fast-forward), cross-domain look-alikes): every
//! threshold in [0.31, 0.51] separates all 24 pairs (precision 1.0, recall 1.0). The negatives top out at the
//! 0.30 anchor cap; the weakest positive is a cross-domain one (`python` trigger vs a `python -m pytest`
//! record, 0.514); the weakest same-domain positive scores 0.616. 0.45 leaves room on both sides, and every
//! same-domain positive also clears 0.55 (threshold + margin): "broken" is reachable only by a success that
//! looks like the failure as strongly as a real recurrence does.

use crate::learn::text::command_norm::CmdNorm;
use crate::learn::text::signature::Signature;
use std::collections::HashMap;

/// Default match threshold (calibrated, see the module documentation).
pub const DEFAULT_THRESHOLD: f64 = 0.45;
/// Default margin a same-domain success must clear above the threshold to count as broken.
pub const DEFAULT_MARGIN: f64 = 0.10;
/// Highest score a record can reach when it shares none of the trigger's anchors.
pub const NO_ANCHOR_CAP: f64 = 0.30;

pub use crate::learn::matching::terms::terms;

/// Interned terms: the matcher works on integer ids.
#[derive(Debug, Default, Clone)]
pub struct Vocab {
    ids: HashMap<String, u32, crate::learn::matching::terms::FnvBuild>,
    df: Vec<u32>,
    docs: u32,
}

impl Vocab {
    /// The id of a term, creating it.
    pub fn intern(&mut self, t: &str) -> u32 {
        if let Some(&i) = self.ids.get(t) {
            return i;
        }
        let i = self.df.len() as u32;
        self.ids.insert(t.to_string(), i);
        self.df.push(0);
        i
    }

    /// The id of a known term.
    pub fn get(&self, t: &str) -> Option<u32> {
        self.ids.get(t).copied()
    }

    /// Interns the terms of a text as one document (counts document frequency).
    pub fn add_doc(&mut self, text: &str) -> Vec<u32> {
        let mut ids: Vec<u32> = terms(text).iter().map(|t| self.intern(t)).collect();
        ids.sort_unstable();
        ids.dedup();
        for &i in &ids {
            self.df[i as usize] += 1;
        }
        self.docs += 1;
        ids
    }

    /// Interns the terms of a query (a trigger) without counting it as a document.
    pub fn query(&mut self, text: &str) -> Vec<u32> {
        let mut ids: Vec<u32> = terms(text).iter().map(|t| self.intern(t)).collect();
        ids.sort_unstable();
        ids.dedup();
        ids
    }

    /// Freezes document frequencies into IDF weights.
    pub fn idf(&self) -> Idf {
        let n = self.docs as f64;
        Idf {
            w: self
                .df
                .iter()
                .map(|&d| ((n + 1.0) / (d as f64 + 1.0)).ln() + 1.0)
                .collect(),
            unseen: (n + 1.0).ln() + 1.0,
        }
    }
}

/// IDF weights learned from the history: `ln((N+1)/(df+1)) + 1`.
#[derive(Debug, Clone, Default)]
pub struct Idf {
    w: Vec<f64>,
    unseen: f64,
}

impl Idf {
    pub fn weight(&self, id: u32) -> f64 {
        match self.w.get(id as usize) {
            Some(&w) => w,
            None => self.unseen.max(1.0),
        }
    }
}

/// What the matcher needs of a record, computed once per record and cached.
#[derive(Debug, Clone, Default)]
pub struct RecordView {
    /// (domain, action) of every segment (a chain `git pull && git push` has two).
    pub actions: Vec<(String, String)>,
    pub anchors: Vec<String>,
    pub terms: Vec<u32>,
    pub ok: bool,
}

impl RecordView {
    pub fn new(norm: &CmdNorm, sig: &Signature, terms: Vec<u32>, ok: bool) -> RecordView {
        RecordView {
            actions: norm
                .segments
                .iter()
                .map(|s| (s.domain.clone(), s.action.clone()))
                .collect(),
            anchors: sig.anchors.clone(),
            terms,
            ok,
        }
    }
}

/// The text a record is matched on: its command label and its masked error lines.
pub fn record_text(norm: &CmdNorm, sig: &Signature) -> String {
    format!("{} {}", norm.label(), sig.template)
}

/// A trigger ready to score: its domain/action/anchors and interned terms.
#[derive(Debug, Clone, Default)]
pub struct TriggerSpec {
    pub domain: String,
    pub action: String,
    pub anchors: Vec<String>,
    /// Other actions of the trigger's failure class (`cargo test`, `cargo check` beside
    /// `cargo build`): the same command to the matcher.
    pub actions: Vec<String>,
    pub terms: Vec<u32>,
    /// Terms of the failure's own text, not of the command label: an anchorless trigger must
    /// share one with a record to score above [`NO_ANCHOR_CAP`] (else every working `git
    /// push` matched on the label alone and filled the near-miss band).
    pub failure_terms: Vec<u32>,
    /// A trigger learned across programs (its `domain` empty): the domains it was seen in,
    /// each its own to the matcher, replay and the hooks.
    pub domains: Vec<String>,
    /// One cause in several texts of one program, each its own trigger
    /// ([`crate::learn::propose::one_program`]): a failure is scored against each and
    /// keeps the best, so a failure saying one of them is not scored against the words of
    /// all (which would halve its score). Empty for a trigger of one text.
    pub alternatives: Vec<TriggerSpec>,
}

impl TriggerSpec {
    /// Whether `d` is the trigger's domain (or one of a cross-program trigger's).
    pub fn in_domain(&self, d: &str) -> bool {
        d == self.domain || self.domains.iter().any(|x| x == d)
    }

    /// The domains replay reads: the trigger's own, or a cross-program trigger's.
    pub fn replay_domains(&self) -> Vec<&str> {
        if self.domains.is_empty() {
            vec![self.domain.as_str()]
        } else {
            self.domains.iter().map(String::as_str).collect()
        }
    }
}

/// The failure-text terms of a trigger: its terms minus those of the command label.
pub fn failure_terms(terms: &[u32], label_terms: &[u32]) -> Vec<u32> {
    terms.iter().copied().filter(|t| !label_terms.contains(t)).collect()
}

fn weighted_sum(ids: &[u32], idf: &Idf) -> f64 {
    ids.iter().map(|&i| idf.weight(i)).sum()
}

fn overlap(a: &[u32], b: &[u32], idf: &Idf) -> f64 {
    // Both sorted and deduplicated.
    let (mut i, mut j, mut s) = (0, 0, 0.0);
    while i < a.len() && j < b.len() {
        match a[i].cmp(&b[j]) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => {
                s += idf.weight(a[i]);
                i += 1;
                j += 1;
            }
        }
    }
    s
}

/// IDF-weighted F2 of trigger terms `t` against record terms `r`.
pub fn lexical(t: &[u32], r: &[u32], idf: &Idf) -> f64 {
    let inter = overlap(t, r, idf);
    if inter <= 0.0 {
        return 0.0;
    }
    let p = inter / weighted_sum(r, idf).max(f64::MIN_POSITIVE);
    let rc = inter / weighted_sum(t, idf).max(f64::MIN_POSITIVE);
    let b2 = 4.0;
    ((1.0 + b2) * p * rc / (b2 * p + rc)).clamp(0.0, 1.0)
}

/// Share of an anchorless trigger's failure text (IDF-weighted) a record must carry to
/// stand in for an anchor. One shared word is not enough: `make help` printing "targets:
/// build check" shares *target* with "No rule to make target", and a `git push -u` success
/// ("branch set up to track") shares two words with "set tracking information".
pub const FAILURE_TEXT_SHARE: f64 = 0.5;

/// Does a record carry enough of the failure text ([`FAILURE_TEXT_SHARE`])?
fn failure_text_shared(failure_terms: &[u32], r: &[u32], idf: &Idf) -> bool {
    let total = weighted_sum(failure_terms, idf);
    total > 0.0 && overlap(failure_terms, r, idf) >= FAILURE_TEXT_SHARE * total - 1e-9
}

/// Whether a trigger with `anchors` cannot reach `threshold` against a record with
/// `record_anchors`: it shares none of them, so [`score`] caps it at [`NO_ANCHOR_CAP`],
/// below any threshold above that cap. The failure hook passes over such rules unbuilt.
pub fn anchors_rule_out(anchors: &[String], record_anchors: &[String], threshold: f64) -> bool {
    threshold > NO_ANCHOR_CAP && !anchors.is_empty() && !anchors.iter().any(|a| record_anchors.contains(a))
}

/// The score of a trigger against a record, in [0, 1] (see the module documentation).
pub fn score(t: &TriggerSpec, r: &RecordView, idf: &Idf) -> f64 {
    if !t.alternatives.is_empty() {
        return t.alternatives.iter().map(|a| score(a, r, idf)).fold(0.0, f64::max);
    }
    let lex = lexical(&t.terms, &r.terms, idf);
    let same_cmd = |(d, a): &(String, String)| t.in_domain(d) && (*a == t.action || t.actions.contains(a));
    let command = if r.actions.iter().any(same_cmd) {
        1.0
    } else if r.actions.iter().any(|(d, _)| t.in_domain(d)) {
        0.6
    } else {
        0.0
    };
    if t.anchors.is_empty() {
        // No anchor to agree on: the failure text stands in for it (a record sharing none
        // of it is only "the same command", never a near-miss).
        let cap = if failure_text_shared(&t.failure_terms, &r.terms, idf) {
            1.0
        } else {
            NO_ANCHOR_CAP
        };
        return (0.7 * lex + 0.3 * command).clamp(0.0, cap);
    }
    let shared = t.anchors.iter().filter(|a| r.anchors.contains(a)).count();
    if shared == 0 {
        return (0.4 * lex + 0.2 * command).min(NO_ANCHOR_CAP);
    }
    let anchor = if r.anchors.contains(&t.anchors[0]) {
        1.0
    } else {
        0.6 * shared as f64 / t.anchors.len() as f64
    };
    (0.4 * lex + 0.4 * anchor + 0.2 * command).clamp(0.0, 1.0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::learn::matching::terms::stem;
    use crate::learn::text::command_norm::normalize;
    use crate::learn::text::signature::signature;

    struct Pair {
        trigger_cmd: &'static str,
        trigger_tail: &'static str,
        cmd: &'static str,
        tail: &'static str,
        ok: bool,
        should: bool,
    }

    const fn p(
        trigger_cmd: &'static str,
        trigger_tail: &'static str,
        cmd: &'static str,
        tail: &'static str,
        ok: bool,
        should: bool,
    ) -> Pair {
        Pair {
            trigger_cmd,
            trigger_tail,
            cmd,
            tail,
            ok,
            should,
        }
    }

    const NFF: &str = " ! [rejected]        main -> main (fetch first)\nerror: failed to push some refs to '../remote.git'\nhint: Updates were rejected because the remote contains work that you do not\nhint: have locally.";
    const MNF: &str = "Traceback (most recent call last):\n  File \"<string>\", line 1, in <module>\nModuleNotFoundError: No module named 'nosuchmod'";

    /// Labelled pairs: the trigger is built from a failure the way the pipeline builds it.
    fn pairs() -> Vec<Pair> {
        vec![
            // should match: the same failure again, reworded or with other names
            p(
                "git push",
                NFF,
                "git push origin main",
                " ! [rejected]        main -> main (non-fast-forward)\nerror: failed to push some refs to 'origin'",
                false,
                true,
            ),
            p(
                "git push",
                NFF,
                "git push",
                "Updates were rejected because the tip of your current branch is behind its remote counterpart",
                false,
                true,
            ),
            p(
                "git push",
                NFF,
                "git push origin feature",
                "remote contains work that you do not have locally",
                false,
                true,
            ),
            p(
                "python3 -c 'import nosuchmod'",
                MNF,
                "python app.py",
                "ModuleNotFoundError: No module named 'requests'",
                false,
                true,
            ),
            p(
                "python3 x.py",
                MNF,
                "python3 -m pytest",
                "E   ModuleNotFoundError: No module named 'yaml'",
                false,
                true,
            ),
            p(
                "npm install",
                "npm ERR! code ERESOLVE\nnpm ERR! ERESOLVE unable to resolve dependency tree",
                "npm install react",
                "npm ERR! code ERESOLVE\nnpm ERR! Could not resolve dependency",
                false,
                true,
            ),
            p(
                "cargo build",
                "error[E0432]: unresolved import `foo::bar`",
                "cargo test",
                "error[E0432]: unresolved import `crate::x`\n --> src/lib.rs:3:5",
                false,
                true,
            ),
            p(
                "npm start",
                "Error: listen EADDRINUSE: address already in use :::3000",
                "node server.js",
                "Error: listen EADDRINUSE: address already in use 127.0.0.1:8080",
                false,
                true,
            ),
            p(
                "docker compose up",
                "Error: port is already allocated",
                "docker compose up -d",
                "Bind for 0.0.0.0:8000 failed: port is already allocated",
                false,
                true,
            ),
            p(
                "git merge feature",
                "CONFLICT (content): Merge conflict in src/a.rs\nAutomatic merge failed",
                "git merge dev",
                "CONFLICT (content): Merge conflict in README.md",
                false,
                true,
            ),
            p(
                "pip install -r requirements.txt",
                "ERROR: Cannot install a==2.0 and b==1.5 because these package versions conflict.",
                "pip install x y",
                "ERROR: Cannot install x==1 and y==3 because these package versions conflict.",
                false,
                true,
            ),
            p(
                "ssh host",
                "Permission denied (publickey).",
                "git clone git@github.com:o/r.git",
                "git@github.com: Permission denied (publickey).\nfatal: Could not read from remote repository.",
                false,
                true,
            ),
            // should not match: successes of the same tool, look-alikes, other domains
            p(
                "git push",
                NFF,
                "git status",
                "On branch main\nnothing to commit, working tree clean",
                true,
                false,
            ),
            p(
                "git push",
                NFF,
                "git push origin main",
                "To ../remote.git\n   1a2b3c4..5d6e7f8  main -> main",
                true,
                false,
            ),
            p(
                "git push",
                NFF,
                "git pull --rebase",
                "Successfully rebased and updated refs/heads/main.",
                true,
                false,
            ),
            p(
                "git push",
                NFF,
                "git push origin main",
                "remote: Invalid username or password.\nfatal: Authentication failed",
                false,
                false,
            ),
            p(
                "python3 x.py",
                MNF,
                "python app.py",
                "SyntaxError: invalid syntax",
                false,
                false,
            ),
            p(
                "python3 x.py",
                MNF,
                "npm start",
                "Error: Cannot find module 'express'",
                false,
                false,
            ),
            p(
                "python3 x.py",
                MNF,
                "pip install nosuchmod",
                "Successfully installed nosuchmod-1.0",
                true,
                false,
            ),
            p(
                "cargo build",
                "error[E0432]: unresolved import `foo::bar`",
                "cargo build",
                "error[E0425]: cannot find value `x` in this scope",
                false,
                false,
            ),
            p(
                "npm install",
                "npm ERR! code ERESOLVE\nnpm ERR! ERESOLVE unable to resolve dependency tree",
                "npm install left-pad",
                "npm ERR! code E404\nnpm ERR! 404 Not Found - GET https://registry.npmjs.org/nosuch",
                false,
                false,
            ),
            p(
                "npm start",
                "Error: listen EADDRINUSE: address already in use :::3000",
                "npm test",
                "Tests: 3 failed, 10 passed",
                false,
                false,
            ),
            p(
                "git merge feature",
                "CONFLICT (content): Merge conflict in src/a.rs",
                "git status",
                "both modified: src/a.rs",
                true,
                false,
            ),
            p(
                "docker compose up",
                "Error: port is already allocated",
                "docker build .",
                "failed to solve: process \"/bin/sh -c make\" did not complete successfully: exit code: 2",
                false,
                false,
            ),
        ]
    }

    fn spec_for(vocab: &mut Vocab, cmd: &str, tail: &str) -> TriggerSpec {
        let n = normalize(cmd);
        let s = signature(tail);
        let text = format!(
            "`{}` {} {}",
            n.label(),
            s.primary()
                .map(crate::learn::text::signature::describe_anchor)
                .unwrap_or_default(),
            s.template
        );
        let terms = vocab.query(&text);
        let label = vocab.query(&n.label());
        TriggerSpec {
            domain: n.domain().to_string(),
            action: n.action().to_string(),
            anchors: s.anchors.clone(),
            actions: Vec::new(),
            failure_terms: failure_terms(&terms, &label),
            terms,
            domains: Vec::new(),
            alternatives: Vec::new(),
        }
    }

    fn scored() -> Vec<(f64, bool)> {
        let ps = pairs();
        let mut vocab = Vocab::default();
        let views: Vec<RecordView> = ps
            .iter()
            .map(|p| {
                let n = normalize(p.cmd);
                let s = signature(p.tail);
                let t = vocab.add_doc(&record_text(&n, &s));
                RecordView::new(&n, &s, t, p.ok)
            })
            .collect();
        let specs: Vec<TriggerSpec> = ps
            .iter()
            .map(|p| spec_for(&mut vocab, p.trigger_cmd, p.trigger_tail))
            .collect();
        let idf = vocab.idf();
        ps.iter()
            .zip(views.iter().zip(specs.iter()))
            .map(|(p, (v, s))| (score(s, v, &idf), p.should))
            .collect()
    }

    #[test]
    fn calibration_sweep() {
        let sc = scored();
        let mut clean = Vec::new();
        for step in 20..=80 {
            let th = step as f64 / 100.0;
            let tp = sc.iter().filter(|(s, y)| *y && *s >= th).count();
            let fp = sc.iter().filter(|(s, y)| !*y && *s >= th).count();
            let pos = sc.iter().filter(|(_, y)| *y).count();
            if tp == pos && fp == 0 {
                clean.push(th);
            }
        }
        eprintln!("clean thresholds: {:?}", clean);
        for (i, (s, y)) in sc.iter().enumerate() {
            eprintln!("pair {i:2} should={y} score={s:.3}");
        }
        assert!(
            clean.contains(&DEFAULT_THRESHOLD),
            "default threshold must separate the calibration pairs"
        );
        // Every same-domain should-match pair also clears threshold + margin (pair 4 is
        // the cross-domain python → pytest one).
        let ps = pairs();
        for (i, (s, y)) in sc.iter().enumerate() {
            let same = normalize(ps[i].trigger_cmd).domain() == normalize(ps[i].cmd).domain();
            if *y && same {
                assert!(*s >= DEFAULT_THRESHOLD + DEFAULT_MARGIN, "pair {i}: {s}");
            }
        }
    }

    #[test]
    fn anchors_must_agree() {
        let mut vocab = Vocab::default();
        let n = normalize("git push");
        let s = signature(NFF);
        let t = vocab.add_doc(&record_text(&n, &s));
        let v = RecordView::new(
            &n,
            &crate::learn::text::signature::Signature::default(),
            t.clone(),
            true,
        );
        let spec = spec_for(&mut vocab, "git push", NFF);
        let idf = vocab.idf();
        // Identical words but no shared anchor: capped.
        assert!(score(&spec, &v, &idf) <= NO_ANCHOR_CAP);
    }

    #[test]
    fn anchorless_trigger_needs_a_failure_text_term() {
        let (cmd, tail) = (
            "git push origin main",
            "remote: upload-pack: quota exceeded for this mirror",
        );
        let mut vocab = Vocab::default();
        let n = normalize(cmd);
        let fail_s = signature(tail);
        let ok_s = signature("To ../remote.git\n   1a2b3c4..5d6e7f8  main -> main");
        let t = vocab.add_doc(&record_text(&n, &fail_s));
        let again = RecordView::new(&n, &fail_s, t, false);
        let t = vocab.add_doc(&record_text(&n, &ok_s));
        let success = RecordView::new(&n, &ok_s, t, true);
        let spec = spec_for(&mut vocab, cmd, tail);
        let idf = vocab.idf();
        // The same failure again shares its text: a match; a plain successful push shares
        // only the label: below the near-miss band; a trigger with no failure text: never.
        assert!(score(&spec, &again, &idf) >= DEFAULT_THRESHOLD + DEFAULT_MARGIN);
        assert!(score(&spec, &success, &idf) <= NO_ANCHOR_CAP);
        let mut bare = spec;
        bare.failure_terms.clear();
        assert!(score(&bare, &again, &idf) <= NO_ANCHOR_CAP);
    }

    #[test]
    fn one_shared_word_is_no_failure_text() {
        // `make help` printing its targets shares *target* with "No rule to make target":
        // it used to score in the near-miss band and block the rule; the same failure for
        // another target still matches.
        let cmd = "make test";
        let tail = "make: *** No rule to make target 'test'.  Stop.";
        let mut vocab = Vocab::default();
        let view = |vocab: &mut Vocab, c: &str, t: &str, ok: bool| {
            let (n, s) = (normalize(c), signature(t));
            let terms = vocab.add_doc(&record_text(&n, &s));
            RecordView::new(&n, &s, terms, ok)
        };
        let listing = view(&mut vocab, "make help", "targets: build check clean", true);
        let again = view(
            &mut vocab,
            "make lint",
            "make: *** No rule to make target 'lint'.  Stop.",
            false,
        );
        let spec = spec_for(&mut vocab, cmd, tail);
        let idf = vocab.idf();
        assert!(score(&spec, &listing, &idf) <= NO_ANCHOR_CAP);
        assert!(score(&spec, &again, &idf) >= DEFAULT_THRESHOLD + DEFAULT_MARGIN);
    }

    #[test]
    fn stemming() {
        assert_eq!(stem("rejected"), "reject");
        assert_eq!(stem("conflicts"), "conflict");
        assert_eq!(stem("installing"), "install");
        assert_eq!(stem("dependencies"), "dependency");
        assert_eq!(stem("stopped"), "stop");
        assert_eq!(stem("class"), "class");
        assert_eq!(terms("non-fast-forward"), vec!["non", "fast", "forward"]);
    }
}
