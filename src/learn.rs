//! The learning pipeline and the SessionEnd hook (`fable-learn`).
//!
//! [`run_pipeline`] is the one pure entry point — no I/O — used by `fable rules extract`,
//! the SessionEnd hook and the field test alike:
//! records → [`Prepared`] (normalised once) → [`episodes`] → [`candidates`] (clustered,
//! deduplicated) → [`rule_replay`] + gates → ranked rules (formats.md §3).
//!
//! **Accepted vs promoted.** Two different questions, answered separately:
//! - *accepted* (`accepted: true`, what the field test counts): replay verdict `pass` and
//!   no gate blocked it — trusted evidence, safe directive, not generic, directive
//!   evidence not negative, not contested, and its support is a valid source (below).
//!   One unresolved failure can make an accepted template rule: a failure the agent
//!   could not get past is exactly where a standing rule pays.
//! - *promotable* (and auto-promoted when the policy is on): accepted **and** the Wilson
//!   lower bound of precision ≥ `promote_lower_bound` (0.5 → at least 4 clean prevented
//!   failures; `min_sample` in each rule says how many the bound implies). A rule seen
//!   once is never injected into a live project's sessions on its own.
//!
//! **Support, sources and contest** (what a rule is learned from). A candidate is
//! (failure cluster, directive); its `support` is the episodes consistent with that
//! directive, and the field test counts a trajectory for a rule only through them.
//! - *Fix directives* come only from a fix after which the failing action (same domain
//!   and action) succeeded — a recovered episode ([`candidates`]). What a session tried
//!   before moving on is never a directive, and a session that only looked (`pip list`,
//!   `git log`) and moved on is no one's support. Support of a fix directive: the
//!   cluster's episodes whose fix agrees with it (same step, the directive's flags
//!   included; `git pull --no-rebase` does not agree with `git pull --rebase`). An unsafe
//!   fix (`git push --force`, `chmod 777`, `curl … | sh`, deleting a database) is its own
//!   candidate, blocked by the safety gate, and a competing fix for the others.
//! - *Template directives* (the remedy table by anchor, else "do not retry unchanged")
//!   are supported by **unresolved** failures: nothing succeeded after them, or — for a
//!   known remedy only — the session tried a safe fix of its own that never made the
//!   action succeed. Not unresolved: a typo corrected (`pyhton` → `python3`), the
//!   remedy itself taken (`git add`, commit after a merge conflict), a failure nested
//!   inside another failure's recovery. A template never takes self-resolved support.
//! - *Self-resolved* episodes (recovered, or moved on after a fix proven in the cluster)
//!   show the agent already knew the fix: replay counts them as prevented and directive
//!   evidence measures them, but they are a *source* only when the same fix recurs in
//!   ≥ `min_sessions_self_resolved` (2) sessions — ≥ `min_sessions_variant` (3) when the
//!   fix is the failing command retried with other flags or arguments (otherwise a
//!   flaky-style retry), ≥ `min_sessions_unanchored` (3) when the failure has no anchor —
//!   **and** the cluster has no unresolved failure. When it has, the unresolved ones are
//!   the support (of the template) and the self-resolved ones only corroborate
//!   (`self_resolved`). An attempt that included every step of a fix proven in the
//!   cluster does not make the cluster "unresolved".
//! - *Recurrence*: so a rule accepted from self-resolved support always spans ≥ 2
//!   sessions that agree with its directive. A template supported by unresolved failures
//!   may stand on one session: that is the case a standing rule pays for (the CauterRule
//!   golden corpus holds one unresolved trajectory per class; its replay refs are
//!   prevented failures, not support), and the template's directive is not learned from
//!   the session, so it cannot carry that session's mistakes.
//! - *Contested* (`contested`): over the failure class's recovered episodes — every
//!   working fix, unsafe ones included — the directive must agree with at least
//!   `contested_share` (3/4: three agreeing fixes for every competing one) when there
//!   are ≥ 2 recovered episodes with ≥ 2 distinct fixes. A template that names a command
//!   (`git pull --rebase`) is judged the same way; one naming none is not comparable.
//!   The class ([`candidates::failure_class`]) is the anchor across tools for an
//!   environment condition (EADDRINUSE from `http.server` and from `node`), the program
//!   for a program-scoped anchor (`command not found`, permission denied, ENOENT) or no
//!   anchor, else the anchor within the domain (`conflict` in git and in pip differ).
//!   The price, measured: a history that also holds force-push or merge sessions makes
//!   "push rejected as non-fast-forward → `git pull --rebase`" contested, and no rule is
//!   accepted for it.
//! - *Generic*: a trigger without an anchor is generic unless its directive is an
//!   observed fix and its failure text has ≥ `generic_min_terms` terms (then it needs the
//!   unanchored recurrence above); an anchorless template is always generic.
//!
//! Reason precedence: `blocked_by_trust`, `blocked_by_safety`, `generic`,
//! `directive_fails`, `contested`, `self_resolved`, then the replay reasons (`no_signal`,
//! `blocked_by_broken`, `blocked_by_near_miss`), then `min_sample` (accepted but below the
//! promotion bound), else `pass`.

use crate::candidates::{self, Candidate, DirectiveAction, DirectiveSource};
use crate::directive_evidence;
use crate::episodes::{self, Episode, Outcome, Prepared};
use crate::error::{IoContext, Result};
use crate::evidence::Record;
use crate::hook::{Answer, HookInput};
use crate::journal::{Journal, Rotation};
use crate::matcher::{spec_from_text, TriggerSpec, DEFAULT_MARGIN, DEFAULT_THRESHOLD};
use crate::origin_trust::{directive_in_untrusted, lowest, Trust};
use crate::project::Project;
use crate::rule_replay::{self, precision, Index, Verdict};
use crate::rules::{self, DirectiveEvidence, Rule, Store};
use crate::runner::{HookEnv, HookResult};
use crate::safety;
use crate::wilson::{min_sample_for, round3, wilson};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, HashSet};
use std::path::Path;
use std::time::{Duration, Instant};

/// Every knob of the pipeline. Read from `.fable/learn.json` when present (any subset of
/// fields; the rest default).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct LearnConfig {
    /// Match threshold ([`crate::matcher`] documents the calibration).
    pub threshold: f64,
    /// A same-domain success counts as broken only at ≥ threshold + margin.
    pub margin: f64,
    /// More near-misses than this → inconclusive.
    pub near_miss_limit: u64,
    /// Promotion needs the Wilson lower bound of precision ≥ this.
    pub promote_lower_bound: f64,
    /// Sessions a self-resolved failure must recur in (with the same fix) before it is a
    /// lesson.
    pub min_sessions_self_resolved: u64,
    /// Sessions a *variant* retry (the failing command again with added flags or other
    /// arguments) must recur in before it is a lesson rather than a flaky-style retry.
    pub min_sessions_variant: u64,
    /// A directive must agree with at least this share of its failure cluster's recovered
    /// episodes, else it is `contested` (rebase vs merge vs force).
    pub contested_share: f64,
    /// A trigger matching more than this share of its domain's failure clusters …
    pub generic_share: f64,
    /// … and at least this many of them, is generic.
    pub generic_min_clusters: u64,
    /// A trigger without an anchor is generic unless its failure text has at least this
    /// many distinct terms.
    pub generic_min_terms: usize,
    /// Sessions a self-resolved lesson on an anchorless failure (a masked error line)
    /// must recur in.
    pub min_sessions_unanchored: u64,
    /// Look-ahead (records of the same session) for outcomes and directive evidence.
    pub window: usize,
    /// Apply the promotion policy automatically (promotable → promoted).
    pub auto_promote: bool,
    /// Most candidates kept (best ranked first).
    pub max_candidates: usize,
}

impl Default for LearnConfig {
    fn default() -> Self {
        LearnConfig {
            threshold: DEFAULT_THRESHOLD,
            margin: DEFAULT_MARGIN,
            near_miss_limit: 2,
            promote_lower_bound: 0.5,
            min_sessions_self_resolved: 2,
            min_sessions_variant: 3,
            contested_share: 0.75,
            generic_share: 0.5,
            generic_min_clusters: 3,
            generic_min_terms: 4,
            min_sessions_unanchored: 3,
            window: episodes::WINDOW,
            auto_promote: true,
            max_candidates: 500,
        }
    }
}

/// A reference to one evidence record: its session, its index in the history given to
/// the pipeline, and its timestamp. Printed as `session#index@ts` in `support`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SupportRef {
    pub session: String,
    pub index: usize,
    pub ts: String,
}

impl SupportRef {
    pub fn to_support(&self) -> String {
        format!("{}#{}@{}", self.session, self.index, self.ts)
    }
}

/// One assessed candidate: the rule plus what the field test needs beyond §3.
#[derive(Debug, Clone, Serialize)]
pub struct Learned {
    pub rule: Rule,
    /// The failures it was learned from (one per episode: the first failing attempt).
    pub support_refs: Vec<SupportRef>,
    /// The failures replay says it prevents.
    pub prevented_refs: Vec<SupportRef>,
    /// Same-domain successes it would break (≥ threshold + margin).
    pub broken_refs: Vec<SupportRef>,
    /// Same-domain successes in the near-miss band.
    pub near_miss_refs: Vec<SupportRef>,
    /// Episode outcomes of its support (`recovered`, `moved_on`, `unresolved`).
    pub outcomes: BTreeMap<String, u64>,
}

/// Everything the pipeline found.
#[derive(Debug, Clone, Serialize)]
pub struct LearnOutcome {
    pub records: usize,
    pub episodes: usize,
    pub flaky: usize,
    /// Candidates, best ranked first (recall-weighted).
    pub candidates: Vec<Learned>,
    /// Clean prevented failures the promotion bound implies (null when unreachable).
    pub min_sample: Option<u64>,
    pub config: LearnConfig,
}

/// A trigger/directive proposed by an external extractor for one cluster.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct Proposal {
    pub trigger: String,
    pub directive: String,
}

/// What an external extractor sees of a cluster (JSON on its stdin).
#[derive(Debug, Clone, Serialize)]
pub struct EpisodeBrief {
    pub domain: String,
    pub action: String,
    pub command: String,
    pub output: String,
    pub signature: String,
    pub anchors: Vec<String>,
    pub followups: Vec<String>,
    pub outcome: String,
}

/// An external proposer of `{trigger, directive}` for a cluster (see [`command_proposer`]).
pub type Proposer<'a> = &'a dyn Fn(&EpisodeBrief) -> Option<Proposal>;

/// Runs the whole pipeline on a history (oldest first). Pure: no I/O, deterministic.
pub fn run_pipeline(history: &[Record], cfg: &LearnConfig) -> LearnOutcome {
    run_pipeline_with(history, cfg, None)
}

/// As [`run_pipeline`], with an optional extractor that may propose one extra candidate
/// per cluster; its candidates go through the same replay and gates.
pub fn run_pipeline_with(history: &[Record], cfg: &LearnConfig, proposer: Option<Proposer>) -> LearnOutcome {
    let prep = Prepared::new(history);
    let eps = episodes::extract(history, &prep, cfg.window);
    let mut cands = candidates::build(&eps, &prep);
    if let Some(p) = proposer {
        cands.extend(extractor_candidates(&cands, &eps, history, &prep, p));
    }
    let cands = candidates::dedup(cands);
    let ix = Index::new(history, &prep);
    let mut vocab = prep.vocab.clone();
    let mut learned: Vec<Learned> = cands
        .iter()
        .map(|c| {
            let spec = TriggerSpec {
                domain: c.domain.clone(),
                action: c.action.clone(),
                anchors: c.anchors.clone(),
                terms: vocab.query(&format!("{} {}", c.trigger, c.template)),
            };
            assess_candidate(c, &spec, &eps, history, &prep, &ix, cfg)
        })
        .collect();
    rank(&mut learned);
    learned.truncate(cfg.max_candidates);
    LearnOutcome {
        records: history.len(),
        episodes: eps.len(),
        flaky: eps.iter().filter(|e| e.outcome == Outcome::Flaky).count(),
        candidates: learned,
        min_sample: min_sample_for(cfg.promote_lower_bound),
        config: cfg.clone(),
    }
}

fn rank(learned: &mut [Learned]) {
    learned.sort_by(|a, b| {
        let key = |l: &Learned| {
            (
                l.rule.accepted == Some(true),
                l.rule.rank.unwrap_or(0.0),
                l.rule.sessions.unwrap_or(0),
            )
        };
        let (ka, kb) = (key(a), key(b));
        kb.0.cmp(&ka.0)
            .then(kb.1.partial_cmp(&ka.1).unwrap_or(std::cmp::Ordering::Equal))
            .then(kb.2.cmp(&ka.2))
            .then(a.rule.key.cmp(&b.rule.key))
    });
    for (i, l) in learned.iter_mut().enumerate() {
        l.rule.id = format!("C-{}", i + 1);
    }
}

fn refs(history: &[Record], idxs: &[usize]) -> Vec<SupportRef> {
    idxs.iter()
        .map(|&i| SupportRef {
            session: history[i].session.clone(),
            index: i,
            ts: history[i].ts.clone(),
        })
        .collect()
}

fn outcome_name(o: Outcome) -> &'static str {
    match o {
        Outcome::Recovered => "recovered",
        Outcome::Flaky => "flaky",
        Outcome::MovedOn => "moved_on",
        Outcome::Unresolved => "unresolved",
    }
}

/// What the gates look at, whatever the rule's origin.
struct Subject<'a> {
    spec: &'a TriggerSpec,
    directive: &'a str,
    directive_cmds: &'a [String],
    directive_action: Option<&'a DirectiveAction>,
    /// Episodes it was learned from (empty for an imported rule).
    support: Vec<&'a Episode>,
    /// Sources and contest (see the module doc).
    origin: Origin,
}

/// Where a subject's support came from, for the source gates (module doc).
#[derive(Debug, Clone, Copy, Default)]
struct Origin {
    /// The fix it came from was unsafe.
    unsafe_fix: Option<&'static str>,
    /// A variant retry (added flags / other arguments).
    variant: bool,
    /// The directive comes from a fix observed in the history (steps or variant).
    observed_fix: bool,
    /// A template directive: its support is unresolved failures by construction.
    template: bool,
    /// The failure cluster has unresolved failures.
    class_unresolved: bool,
    /// (recovered episodes agreeing with the directive, recovered episodes, distinct
    /// working fixes) of the cluster; `None` when not comparable.
    contest: Option<(usize, usize, usize)>,
}

struct Assessment {
    replay: rule_replay::Replay,
    verdict: Verdict,
    reason: &'static str,
    accepted: bool,
    promotable: bool,
    trust: Trust,
    safety: Option<&'static str>,
    evidence: Option<DirectiveEvidence>,
    precision: Option<f64>,
    wilson: Option<(f64, f64)>,
    rank: f64,
    sessions: u64,
}

fn assess(s: &Subject, history: &[Record], prep: &Prepared, ix: &Index, cfg: &LearnConfig) -> Assessment {
    let r = rule_replay::replay(s.spec, prep, ix, cfg.threshold, cfg.margin);
    let (p, b, n) = (
        r.prevented.len() as u64,
        r.broken.len() as u64,
        r.near_misses.len() as u64,
    );
    let (verdict, replay_reason) = rule_replay::verdict(p, b, n, cfg.near_miss_limit);
    let prec = precision(p, b);
    let wil = wilson(p, p + b);

    // Trust: lowest of the evidence, and the directive must not come from outside text the
    // agent saw in the same session before the fix.
    let mut evidence_idx: Vec<usize> = s.support.iter().flat_map(|e| e.evidence()).collect();
    evidence_idx.sort_unstable();
    evidence_idx.dedup();
    let mut trust = lowest(evidence_idx.iter().map(|&i| prep.trust[i]));
    if trust == Trust::Trusted && !s.directive_cmds.is_empty() {
        let mut seen: HashSet<usize> = HashSet::new();
        let mut tails: Vec<&str> = Vec::new();
        for e in &s.support {
            let (slot, pos) = prep.position[e.fail_idx];
            let idxs = &prep.sessions[slot].1;
            let until = e
                .retry_idx
                .map(|k| prep.position[k].1)
                .unwrap_or(pos + cfg.window)
                .min(idxs.len());
            for &k in &idxs[..until] {
                if prep.trust[k] == Trust::Untrusted && seen.insert(k) {
                    tails.push(&history[k].tail);
                }
            }
        }
        if directive_in_untrusted(s.directive_cmds, &tails) {
            trust = Trust::Untrusted;
        }
    }
    let safety = safety::check(std::iter::once(s.directive).chain(s.directive_cmds.iter().map(String::as_str)))
        .or(s.origin.unsafe_fix);

    // Generic: no anchor, or matching a large share of the domain's failure clusters.
    let matched: HashSet<u32> = r
        .prevented
        .iter()
        .filter(|&&i| prep.norms[i].domain() == s.spec.domain)
        .map(|&i| ix.cluster_of[i])
        .collect();
    let domain_clusters = ix.clusters_in_domain.get(&s.spec.domain).copied().unwrap_or(0) as f64;
    // An anchorless trigger is generic unless it carries an observed fix and its failure
    // text is not thin: a quoted, masked error line ("fatal: unable to auto-detect email
    // address") fixed the same way in several sessions is specific enough (it then needs
    // `min_sessions_unanchored` sessions, below). A template without an anchor is advice
    // from nothing: generic.
    let generic = (s.spec.anchors.is_empty() && (!s.origin.observed_fix || s.spec.terms.len() < cfg.generic_min_terms))
        || (matched.len() as u64 >= cfg.generic_min_clusters
            && domain_clusters > 0.0
            && matched.len() as f64 / domain_clusters > cfg.generic_share);

    let evidence = s
        .directive_action
        .map(|a| directive_evidence::measure(&r.prevented, a, history, prep, cfg.window));
    let sessions: HashSet<&str> = s.support.iter().map(|e| history[e.fail_idx].session.as_str()).collect();
    let o = &s.origin;
    // Contested: the cluster's working fixes disagree and this directive has no clear
    // majority of them (unsafe fixes count as competing evidence too).
    let contested = o.contest.is_some_and(|(covered, recovered, keys)| {
        recovered >= 2 && keys >= 2 && (covered as f64) < cfg.contested_share * recovered as f64 - 1e-9
    });
    // Self-resolved support is a source only when the same fix recurs across sessions and
    // the class has no unresolved failures (those would be the support instead).
    let need = if o.variant {
        cfg.min_sessions_variant
    } else {
        cfg.min_sessions_self_resolved
    };
    let need = if s.spec.anchors.is_empty() {
        need.max(cfg.min_sessions_unanchored)
    } else {
        need
    };
    let self_resolved = !o.template
        && !s.support.is_empty()
        && s.support
            .iter()
            .all(|e| matches!(e.outcome, Outcome::Recovered | Outcome::MovedOn))
        && (o.class_unresolved || (sessions.len() as u64) < need);

    let gate = if trust == Trust::Untrusted {
        Some("blocked_by_trust")
    } else if safety.is_some() {
        Some("blocked_by_safety")
    } else if generic {
        Some("generic")
    } else if evidence.is_some_and(|e| e.negative()) {
        Some("directive_fails")
    } else if contested {
        Some("contested")
    } else if self_resolved {
        Some("self_resolved")
    } else {
        None
    };
    let accepted = gate.is_none() && verdict == Verdict::Pass;
    let bound_ok = wil.is_some_and(|(lo, _)| lo >= cfg.promote_lower_bound);
    let promotable = accepted && bound_ok;
    let reason = gate.unwrap_or(if verdict != Verdict::Pass {
        replay_reason
    } else if !bound_ok {
        "min_sample"
    } else {
        "pass"
    });
    // Recall-weighted ranking (seed 000, #731): F2 of precision and recall over the
    // domain's failures.
    let domain_failures = ix.fail_by_domain.get(&s.spec.domain).map(Vec::len).unwrap_or(0).max(1) as f64;
    let recall = (p as f64 / domain_failures).min(1.0);
    let pr = prec.unwrap_or(0.0);
    let rank = if pr + recall > 0.0 {
        5.0 * pr * recall / (4.0 * pr + recall)
    } else {
        0.0
    };
    Assessment {
        replay: r,
        verdict,
        reason,
        accepted,
        promotable,
        trust,
        safety,
        evidence,
        precision: prec.map(round3),
        wilson: wil.map(|(a, b)| (round3(a), round3(b))),
        rank: round3(rank),
        sessions: sessions.len() as u64,
    }
}

fn status_for(a: &Assessment, cfg: &LearnConfig) -> &'static str {
    if matches!(a.reason, "blocked_by_trust" | "blocked_by_safety") {
        "blocked"
    } else if a.promotable && cfg.auto_promote {
        "promoted"
    } else {
        "candidate"
    }
}

#[allow(clippy::too_many_arguments)]
fn assess_candidate(
    c: &Candidate,
    spec: &TriggerSpec,
    eps: &[Episode],
    history: &[Record],
    prep: &Prepared,
    ix: &Index,
    cfg: &LearnConfig,
) -> Learned {
    let support: Vec<&Episode> = c.episodes.iter().map(|&i| &eps[i]).collect();
    let subj = Subject {
        spec,
        directive: &c.directive,
        directive_cmds: &c.directive_cmds,
        directive_action: c.directive_action.as_ref(),
        support: support.clone(),
        origin: Origin {
            unsafe_fix: c.unsafe_fix,
            variant: c.source == DirectiveSource::Variant,
            observed_fix: matches!(c.source, DirectiveSource::Fix | DirectiveSource::Variant),
            template: c.source == DirectiveSource::Template,
            class_unresolved: c.class_unresolved,
            contest: c
                .covered
                .map(|cov| (cov, c.recovered_in_cluster, c.fix_keys_in_cluster)),
        },
    };
    let a = assess(&subj, history, prep, ix, cfg);
    let fail_idx: Vec<usize> = support.iter().map(|e| e.fail_idx).collect();
    let support_refs = refs(history, &fail_idx);
    let mut outcomes: BTreeMap<String, u64> = BTreeMap::new();
    for e in &support {
        *outcomes.entry(outcome_name(e.outcome).to_string()).or_default() += 1;
    }
    let rule = Rule {
        id: String::new(),
        domain: c.domain.clone(),
        trigger: c.trigger.clone(),
        directive: c.directive.clone(),
        status: status_for(&a, cfg).to_string(),
        verdict: a.verdict.as_str().to_string(),
        reason: a.reason.to_string(),
        prevented: a.replay.prevented.len() as u64,
        broken: a.replay.broken.len() as u64,
        near_misses: a.replay.near_misses.len() as u64,
        precision: a.precision,
        wilson: a.wilson,
        support: support_refs.iter().map(SupportRef::to_support).collect(),
        action: Some(c.action.clone()),
        anchors: c.anchors.clone(),
        signature: Some(c.template.clone()),
        key: Some(c.key.clone()),
        accepted: Some(a.accepted),
        promotable: Some(a.promotable),
        trust: Some(a.trust.as_str().to_string()),
        safety: a.safety.map(str::to_string),
        directive_evidence: a.evidence,
        directive_source: Some(c.source.as_str().to_string()),
        directive_cmds: c.directive_cmds.clone(),
        sessions: Some(a.sessions),
        min_sample: min_sample_for(cfg.promote_lower_bound),
        rank: Some(a.rank),
        origin: Some(
            if c.source == DirectiveSource::Extractor {
                "extractor"
            } else {
                "learned"
            }
            .to_string(),
        ),
        provenance: None,
        created: None,
        updated: None,
    };
    Learned {
        rule,
        support_refs,
        prevented_refs: refs(history, &a.replay.prevented),
        broken_refs: refs(history, &a.replay.broken),
        near_miss_refs: refs(history, &a.replay.near_misses),
        outcomes,
    }
}

/// Re-assesses existing rules (stored or imported) against a history: replay and every
/// gate run again; support becomes the local failures they prevent. Ids, status (except
/// that a gate may now block) and provenance are the caller's to keep.
pub fn reassess(rules: &[Rule], history: &[Record], cfg: &LearnConfig) -> Vec<Rule> {
    let prep = Prepared::new(history);
    let ix = Index::new(history, &prep);
    let eps = episodes::extract(history, &prep, cfg.window);
    let mut vocab = prep.vocab.clone();
    rules
        .iter()
        .map(|r| {
            let mut spec = spec_from_text(&r.trigger, &r.domain, &mut vocab);
            if !r.anchors.is_empty() {
                spec.anchors = r.anchors.clone();
            }
            if let Some(a) = &r.action {
                spec.domain = r.domain.clone();
                spec.action = a.clone();
            }
            if let Some(sig) = &r.signature {
                let mut t = vocab.query(&format!("{} {}", r.trigger, sig));
                spec.terms.append(&mut t);
                spec.terms.sort_unstable();
                spec.terms.dedup();
            }
            let cmds = if r.directive_cmds.is_empty() {
                backticked(&r.directive)
            } else {
                r.directive_cmds.clone()
            };
            // Support: local episodes whose failure this rule's own key/cluster covers.
            let support: Vec<&Episode> = match r.key.as_deref().and_then(|k| k.split("||").next()) {
                Some(cluster) => eps
                    .iter()
                    .filter(|e| e.outcome != Outcome::Flaky && prep.cluster_key(e.fail_idx) == cluster)
                    .collect(),
                None => Vec::new(),
            };
            let subj = Subject {
                spec: &spec,
                directive: &r.directive,
                directive_cmds: &cmds,
                directive_action: None,
                support,
                origin: Origin::default(),
            };
            let a = assess(&subj, history, &prep, &ix, cfg);
            let mut out = r.clone();
            out.verdict = a.verdict.as_str().into();
            out.reason = a.reason.into();
            out.prevented = a.replay.prevented.len() as u64;
            out.broken = a.replay.broken.len() as u64;
            out.near_misses = a.replay.near_misses.len() as u64;
            out.precision = a.precision;
            out.wilson = a.wilson;
            out.accepted = Some(a.accepted);
            out.promotable = Some(a.promotable);
            out.trust = Some(a.trust.as_str().into());
            out.safety = a.safety.map(str::to_string);
            out.rank = Some(a.rank);
            out.min_sample = min_sample_for(cfg.promote_lower_bound);
            if out.support.is_empty() || out.origin.as_deref().is_some_and(|o| o.starts_with("pack")) {
                out.support = refs(history, &a.replay.prevented)
                    .iter()
                    .map(SupportRef::to_support)
                    .collect();
            }
            if status_for(&a, cfg) == "blocked" {
                out.status = "blocked".into();
            }
            out
        })
        .collect()
}

/// The backticked snippets of a text (commands a directive names).
pub fn backticked(text: &str) -> Vec<String> {
    text.split('`')
        .skip(1)
        .step_by(2)
        .map(str::to_string)
        .filter(|s| !s.trim().is_empty())
        .collect()
}

fn extractor_candidates(
    base: &[Candidate],
    eps: &[Episode],
    history: &[Record],
    prep: &Prepared,
    proposer: Proposer,
) -> Vec<Candidate> {
    let mut seen: HashSet<&str> = HashSet::new();
    let mut out = Vec::new();
    for c in base {
        if !seen.insert(c.cluster.as_str()) {
            continue;
        }
        let Some(&ei) = c.episodes.first() else { continue };
        let e = &eps[ei];
        let f = &history[e.fail_idx];
        let brief = EpisodeBrief {
            domain: c.domain.clone(),
            action: c.action.clone(),
            command: f.cmd.clone(),
            output: f.tail.clone(),
            signature: c.template.clone(),
            anchors: c.anchors.clone(),
            followups: prep
                .after(e.fail_idx, 5)
                .iter()
                .map(|&k| history[k].cmd.clone())
                .collect(),
            outcome: outcome_name(e.outcome).to_string(),
        };
        let Some(p) = proposer(&brief) else { continue };
        if p.trigger.trim().is_empty() || p.directive.trim().is_empty() {
            continue;
        }
        let anchors = crate::signature::anchors(&p.trigger);
        let norm_dir: String = crate::matcher::terms(&p.directive).join(" ");
        out.push(Candidate {
            key: format!("{}||x:{}", c.cluster, norm_dir),
            cluster: c.cluster.clone(),
            domain: c.domain.clone(),
            action: c.action.clone(),
            label: c.label.clone(),
            anchors,
            template: c.template.clone(),
            trigger: p.trigger.trim().to_string(),
            directive: p.directive.trim().to_string(),
            source: DirectiveSource::Extractor,
            directive_cmds: backticked(&p.directive),
            directive_action: None,
            episodes: base
                .iter()
                .filter(|o| o.cluster == c.cluster)
                .flat_map(|o| o.episodes.clone())
                .collect(),
            unsafe_fix: None,
            recovered_in_cluster: c.recovered_in_cluster,
            fix_keys_in_cluster: c.fix_keys_in_cluster,
            covered: None,
            class_unresolved: c.class_unresolved,
            remedy_known: false,
        });
    }
    out
}

/// Runs an external extractor command (`sh -c CMD`, the brief as JSON on stdin, a
/// `{trigger, directive}` JSON object expected on stdout). Any failure → no proposal.
pub fn command_proposer(cmd: &str, timeout: Duration) -> impl Fn(&EpisodeBrief) -> Option<Proposal> + '_ {
    move |brief| {
        use std::io::Write;
        use std::process::{Command, Stdio};
        use wait_timeout::ChildExt;
        let mut child = Command::new("sh")
            .arg("-c")
            .arg(cmd)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .ok()?;
        let input = serde_json::to_string(brief).ok()?;
        if let Some(mut stdin) = child.stdin.take() {
            let _ = stdin.write_all(input.as_bytes());
        }
        match child.wait_timeout(timeout).ok()? {
            Some(_) => {}
            None => {
                let _ = child.kill();
                let _ = child.wait();
                return None;
            }
        }
        let mut out = String::new();
        use std::io::Read;
        child.stdout.take()?.read_to_string(&mut out).ok()?;
        serde_json::from_str::<Proposal>(out.trim()).ok()
    }
}

// ---------------------------------------------------------------- I/O edges

/// The learning config of a project: `.fable/learn.json` if present, else defaults.
pub fn load_config(fable_dir: &Path) -> Result<LearnConfig> {
    let path = fable_dir.join("learn.json");
    match std::fs::read_to_string(&path) {
        Ok(s) => serde_json::from_str(&s).map_err(|source| crate::error::Error::BadJson { path, source }),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(LearnConfig::default()),
        Err(e) => Err(crate::error::Error::io(&path, e)),
    }
}

/// The project's whole evidence history (every generation, oldest first).
pub fn load_history(project: &Project) -> Result<Vec<Record>> {
    let j = Journal::new(&project.fable_dir, Rotation::from_lookup(|k| std::env::var(k).ok()));
    Ok(j.read_all()?.records)
}

/// Merges a pipeline outcome into the store. Returns (new ids, promoted ids).
pub fn store_outcome(store: &Store, outcome: &LearnOutcome) -> Result<(Vec<String>, Vec<String>)> {
    let now = crate::evidence::now_ts();
    store.update(|rules| {
        let before: HashSet<String> = rules
            .iter()
            .filter(|r| r.status == "promoted")
            .map(|r| r.id.clone())
            .collect();
        let fresh: Vec<Rule> = outcome.candidates.iter().map(|l| l.rule.clone()).collect();
        let added = rules::merge(rules, fresh, &now);
        let promoted: Vec<String> = rules
            .iter()
            .filter(|r| r.status == "promoted" && !before.contains(&r.id))
            .map(|r| r.id.clone())
            .collect();
        Ok((added, promoted))
    })
}

/// The SessionEnd cursor: how many records the last run had seen.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct Cursor {
    pub records: usize,
    pub last_ts: Option<String>,
    pub ran_at: Option<String>,
    pub ms: Option<u64>,
    pub note: Option<String>,
    /// Name and size of every log file at the last run: when they are unchanged there is
    /// nothing new, and the hook answers without reading the log at all.
    #[serde(default)]
    pub files: Vec<(String, u64)>,
}

/// Name and size of each evidence file, oldest generation first: a cheap "anything new?"
/// (an append grows the live file; a rotation renames and starts a new one).
pub fn log_fingerprint(project: &Project) -> Vec<(String, u64)> {
    let j = Journal::new(&project.fable_dir, Rotation::from_lookup(|k| std::env::var(k).ok()));
    j.files()
        .iter()
        .filter_map(|p| {
            let name = p.file_name()?.to_string_lossy().into_owned();
            Some((name, std::fs::metadata(p).ok()?.len()))
        })
        .collect()
}

fn cursor_path(fable_dir: &Path) -> std::path::PathBuf {
    fable_dir.join("state").join("learn.json")
}

pub fn load_cursor(fable_dir: &Path) -> Cursor {
    std::fs::read_to_string(cursor_path(fable_dir))
        .ok()
        .and_then(|s| serde_json::from_str(&s).ok())
        .unwrap_or_default()
}

fn save_cursor(fable_dir: &Path, c: &Cursor) -> Result<()> {
    let p = cursor_path(fable_dir);
    let dir = p.parent().unwrap_or(fable_dir);
    std::fs::create_dir_all(dir).at(dir)?;
    let s = serde_json::to_string_pretty(c).map_err(|e| crate::error::Error::msg(e.to_string()))?;
    rules::write_atomic(&p, s.as_bytes())
}

/// Default time budget of the SessionEnd run (`FABLE_LEARN_BUDGET_MS`).
pub const DEFAULT_BUDGET_MS: u64 = 3000;

/// The SessionEnd hook: when records arrived since the last run, run the pipeline over
/// the whole history (replay needs all of it), merge candidates into the store and apply
/// the promotion policy. Bounded in time: a run that exceeds the budget writes nothing
/// but the cursor note. Never blocks: always exit 0.
pub fn decide(input: &HookInput, env: &HookEnv) -> HookResult {
    let Some(project) = env.project(input) else {
        return Ok(Answer::allow());
    };
    let budget = Duration::from_millis(env.var_u64("FABLE_LEARN_BUDGET_MS", DEFAULT_BUDGET_MS));
    let note = learn_project(&project, budget)?;
    Ok(Answer::allow().with_note(format!("[fable] fable-learn: {note}")))
}

/// One bounded learning run for a project; returns a one-line summary.
pub fn learn_project(project: &Project, budget: Duration) -> Result<String> {
    let start = Instant::now();
    let mut cursor = load_cursor(&project.fable_dir);
    let files = log_fingerprint(project);
    if !files.is_empty() && files == cursor.files {
        return Ok("no new evidence".into());
    }
    let cfg = load_config(&project.fable_dir)?;
    let history = load_history(project)?;
    // A rotation can shrink the history below the cursor: then everything is new again.
    if history.len() == cursor.records && cursor.last_ts.as_deref() == history.last().map(|r| r.ts.as_str()) {
        cursor.files = files;
        save_cursor(&project.fable_dir, &cursor)?;
        return Ok("no new evidence".into());
    }
    let outcome = run_pipeline(&history, &cfg);
    let elapsed = start.elapsed();
    cursor.ran_at = Some(crate::evidence::now_ts());
    cursor.ms = Some(elapsed.as_millis() as u64);
    if elapsed > budget {
        cursor.note = Some(format!(
            "over budget ({} ms > {} ms): nothing written",
            elapsed.as_millis(),
            budget.as_millis()
        ));
        save_cursor(&project.fable_dir, &cursor)?;
        return Ok(cursor.note.clone().unwrap_or_default());
    }
    let (added, promoted) = store_outcome(&Store::new(&project.fable_dir), &outcome)?;
    cursor.records = history.len();
    cursor.last_ts = history.last().map(|r| r.ts.clone());
    cursor.files = files;
    cursor.note = None;
    save_cursor(&project.fable_dir, &cursor)?;
    Ok(format!(
        "{} records, {} candidates ({} new), {} newly promoted",
        history.len(),
        outcome.candidates.len(),
        added.len(),
        promoted.len()
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::episodes::tests::rec;

    fn nff_sessions(n: usize, fix: &str) -> Vec<Record> {
        let mut h = Vec::new();
        for i in 0..n {
            let s = format!("s{i}");
            h.push(rec(
                &s,
                "git status",
                true,
                "On branch main\nnothing to commit, working tree clean",
            ));
            h.push(rec(
                &s,
                "git push origin main",
                false,
                " ! [rejected]        main -> main (fetch first)\nerror: failed to push some refs",
            ));
            h.push(rec(&s, fix, true, "ok"));
            h.push(rec(&s, "git push origin main", true, "   abc..def  main -> main"));
        }
        h
    }

    #[test]
    fn recurring_recovered_failure_is_promoted() {
        let out = run_pipeline(&nff_sessions(5, "git pull --rebase"), &LearnConfig::default());
        let top = &out.candidates[0].rule;
        assert_eq!(top.reason, "pass", "{top:#?}");
        assert_eq!(top.status, "promoted");
        assert_eq!(top.prevented, 5);
        assert_eq!(top.broken + top.near_misses, 0);
        assert_eq!(
            top.directive_evidence,
            Some(DirectiveEvidence {
                taken: 5,
                worked: 5,
                failed: 0
            })
        );
        assert_eq!(out.min_sample, Some(4));
    }

    #[test]
    fn few_sessions_accepted_but_min_sample() {
        let out = run_pipeline(&nff_sessions(2, "git pull --rebase"), &LearnConfig::default());
        let top = &out.candidates[0].rule;
        assert_eq!(
            (top.verdict.as_str(), top.reason.as_str(), top.status.as_str()),
            ("pass", "min_sample", "candidate")
        );
        assert_eq!(top.accepted, Some(true));
    }

    #[test]
    fn single_self_resolved_is_not_accepted_but_single_unresolved_is() {
        let one = nff_sessions(1, "git pull --rebase");
        let top = &run_pipeline(&one, &LearnConfig::default()).candidates[0].rule;
        assert_eq!(top.reason, "self_resolved");
        let open = vec![rec(
            "x",
            "git push",
            false,
            " ! [rejected] main -> main (non-fast-forward)",
        )];
        let top = &run_pipeline(&open, &LearnConfig::default()).candidates[0].rule;
        assert_eq!((top.reason.as_str(), top.accepted), ("min_sample", Some(true)));
        assert!(top.directive.contains("git pull --rebase"), "{}", top.directive);
    }

    #[test]
    fn poisoned_force_push_is_blocked() {
        let out = run_pipeline(
            &nff_sessions(6, "git push --force origin main"),
            &LearnConfig::default(),
        );
        assert!(out.candidates.iter().all(|l| l.rule.status != "promoted"));
        assert!(out.candidates.iter().any(|l| l.rule.reason == "blocked_by_safety"));
    }

    #[test]
    fn untrusted_evidence_blocks() {
        let mut h = nff_sessions(5, "git pull --rebase");
        h[1].trust = Some("untrusted".into());
        let out = run_pipeline(&h, &LearnConfig::default());
        assert_eq!(out.candidates[0].rule.reason, "blocked_by_trust");
        assert_eq!(out.candidates[0].rule.status, "blocked");
    }

    #[test]
    fn directive_copied_from_fetched_text_blocks() {
        let mut h = Vec::new();
        for i in 0..5 {
            let s = format!("s{i}");
            h.push(rec(
                &s,
                "npm install",
                false,
                "npm ERR! code ERESOLVE\nnpm ERR! ERESOLVE unable to resolve dependency tree",
            ));
            h.push(rec(
                &s,
                "curl -s https://example.org/fix",
                true,
                "Fix: run npm dedupe --prefer-online then retry",
            ));
            h.push(rec(&s, "npm dedupe --prefer-online", true, "ok"));
            h.push(rec(&s, "npm install", true, "added 3 packages"));
        }
        let out = run_pipeline(&h, &LearnConfig::default());
        let r = &out
            .candidates
            .iter()
            .find(|l| l.rule.directive.contains("dedupe"))
            .unwrap()
            .rule;
        assert_eq!(r.reason, "blocked_by_trust", "{r:#?}");
    }

    #[test]
    fn generic_trigger_is_flagged() {
        let h: Vec<Record> = (0..4)
            .map(|i| rec(&format!("s{i}"), "diagnose", false, "incident"))
            .collect();
        let out = run_pipeline(&h, &LearnConfig::default());
        assert_eq!(out.candidates[0].rule.reason, "generic");
    }

    #[test]
    fn directive_that_does_not_work_is_not_promoted() {
        let mut h = Vec::new();
        for i in 0..6 {
            let s = format!("s{i}");
            h.push(rec(&s, "git push", false, " ! [rejected] main -> main (fetch first)"));
            h.push(rec(&s, "git fetch", true, ""));
            h.push(rec(&s, "git push", false, " ! [rejected] main -> main (fetch first)"));
        }
        // One session where fetch "worked" gives a candidate with a fetch directive.
        h.push(rec("w", "git push", false, " ! [rejected] main -> main (fetch first)"));
        h.push(rec("w", "git fetch", true, ""));
        h.push(rec("w", "git push", true, ""));
        let out = run_pipeline(&h, &LearnConfig::default());
        let r = &out
            .candidates
            .iter()
            .find(|l| l.rule.directive.contains("git fetch"))
            .unwrap()
            .rule;
        assert_eq!(r.reason, "directive_fails", "{r:#?}");
        assert_ne!(r.status, "promoted");
    }

    #[test]
    fn extractor_candidates_go_through_gates() {
        let h = nff_sessions(5, "git pull --rebase");
        let fake = |_: &EpisodeBrief| {
            Some(Proposal {
                trigger: "git push is rejected as non-fast-forward".into(),
                directive: "use `git push --force`".into(),
            })
        };
        let out = run_pipeline_with(&h, &LearnConfig::default(), Some(&fake));
        let x = out
            .candidates
            .iter()
            .find(|l| l.rule.origin.as_deref() == Some("extractor"))
            .unwrap();
        assert_eq!(x.rule.reason, "blocked_by_safety");
    }

    fn find<'a>(out: &'a LearnOutcome, part: &str) -> &'a Learned {
        out.candidates
            .iter()
            .find(|l| l.rule.directive.contains(part))
            .unwrap_or_else(|| panic!("no rule with {part}: {:#?}", out.candidates))
    }

    #[test]
    fn support_is_only_the_episodes_fixed_the_directive_way() {
        let mut h = nff_sessions(4, "git pull --rebase");
        let mut force = nff_sessions(1, "git push --force origin main");
        for r in &mut force {
            r.session = "poison".into();
        }
        h.extend(force);
        let out = run_pipeline(&h, &LearnConfig::default());
        let rebase = find(&out, "git pull --rebase");
        assert!(rebase.support_refs.iter().all(|r| r.session != "poison"));
        assert_eq!(rebase.support_refs.len(), 4);
        // 4 of 5 working fixes agree (≥ 3/4): not contested, accepted.
        assert_eq!(rebase.rule.accepted, Some(true), "{:#?}", rebase.rule);
        let f = out
            .candidates
            .iter()
            .find(|l| l.support_refs.iter().any(|r| r.session == "poison"))
            .unwrap();
        assert_eq!(f.rule.reason, "blocked_by_safety");
    }

    #[test]
    fn contested_fixes_accept_nothing() {
        let mut h = nff_sessions(3, "git pull --rebase");
        for (i, fix) in [
            "git pull --no-rebase",
            "git pull --no-rebase",
            "git push --force origin main",
        ]
        .iter()
        .enumerate()
        {
            let mut more = nff_sessions(1, fix);
            for r in &mut more {
                r.session = format!("other{i}");
            }
            h.extend(more);
        }
        let out = run_pipeline(&h, &LearnConfig::default());
        assert!(
            out.candidates.iter().all(|l| l.rule.accepted != Some(true)),
            "{:#?}",
            out.candidates
        );
        assert_eq!(find(&out, "git pull --rebase").rule.reason, "contested");
        assert_eq!(find(&out, "--no-rebase").rule.reason, "contested");
    }

    #[test]
    fn self_resolved_corroborates_when_the_class_has_unresolved_failures() {
        let mut h = nff_sessions(3, "git pull --rebase");
        h.push(rec(
            "open",
            "git push",
            false,
            " ! [rejected] main -> main (non-fast-forward)",
        ));
        let out = run_pipeline(&h, &LearnConfig::default());
        let fix = find(&out, "run `git pull --rebase`, then retry");
        assert_eq!(fix.rule.reason, "self_resolved");
        assert_eq!(fix.rule.accepted, Some(false));
        let t = out
            .candidates
            .iter()
            .find(|l| l.rule.directive_source.as_deref() == Some("template"))
            .unwrap();
        assert_eq!(t.rule.accepted, Some(true), "{:#?}", t.rule);
        assert_eq!(t.support_refs.len(), 1);
        assert_eq!(t.support_refs[0].session, "open");
        // The self-resolved sessions are evidence: replay counts them as prevented.
        assert_eq!(t.rule.prevented, 4);
    }

    #[test]
    fn variant_retry_needs_three_sessions() {
        let mk = |n: usize| {
            let mut h = Vec::new();
            for i in 0..n {
                let s = format!("v{i}");
                h.push(rec(
                    &s,
                    "kubectl apply -f deploy.yaml",
                    false,
                    "error: no matches for kind",
                ));
                h.push(rec(&s, "kubectl apply --server-side -f deploy.yaml", true, "created"));
            }
            h
        };
        let two = run_pipeline(&mk(2), &LearnConfig::default());
        assert_eq!(find(&two, "--server-side").rule.reason, "self_resolved");
        let three = run_pipeline(&mk(3), &LearnConfig::default());
        assert_eq!(find(&three, "--server-side").rule.accepted, Some(true));
    }

    #[test]
    fn moved_on_exploration_is_not_a_lesson() {
        let mut h = Vec::new();
        for i in 0..3 {
            let s = format!("m{i}");
            h.push(rec(
                &s,
                "python src/train.py",
                false,
                "ModuleNotFoundError: No module named 'pandas'",
            ));
            h.push(rec(&s, "pip list", true, "numpy"));
        }
        let out = run_pipeline(&h, &LearnConfig::default());
        assert!(
            out.candidates.iter().all(|l| l.rule.accepted != Some(true)),
            "{:#?}",
            out.candidates
        );
    }

    #[test]
    fn reassess_imported_rule() {
        let h = nff_sessions(5, "git pull --rebase");
        let out = run_pipeline(&h, &LearnConfig::default());
        let mut r = out.candidates[0].rule.clone();
        r.origin = Some("pack:x".into());
        r.support.clear();
        let again = reassess(&[r], &h, &LearnConfig::default());
        assert_eq!(again[0].prevented, 5);
        assert_eq!(again[0].verdict, "pass");
        assert_eq!(again[0].support.len(), 5);
    }
}
