//! Re-judging rules that already exist (stored, imported, or probes of the recurrence
//! measure) against a history: the same replay and gates as a fresh candidate, with the
//! support found again from the rule's own key.
//!
//! Why apart from [`crate::learn::pipeline`]: a fresh candidate knows its episodes; a
//! stored rule knows only its text, key and programs, and must find its support again.

use crate::evidence::Record;
use crate::learn::history::episodes::{self, Episode, Outcome, Prepared};
use crate::learn::judge::assess::*;
use crate::learn::judge::config::*;
use crate::learn::judge::rule::{Rule, SupportRef};
use crate::learn::judge::rule_replay::Index;
use crate::learn::judge::wilson::min_sample_for;
use crate::learn::matching::compiled_trigger::spec_from_text;
use crate::learn::matching::matcher;
use crate::learn::propose::candidates::backticked;

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
            r.onto_spec(&mut spec);
            if let Some(sig) = &r.signature {
                let mut t = vocab.query(&format!("{} {}", r.trigger, sig));
                spec.terms.append(&mut t);
                spec.terms.sort_unstable();
                spec.terms.dedup();
                let label = vocab.query(&format!("{} {}", spec.domain, spec.action));
                spec.failure_terms = matcher::failure_terms(&spec.terms, &label);
            }
            let cmds = if r.directive_cmds.is_empty() {
                backticked(&r.directive)
            } else {
                r.directive_cmds.clone()
            };
            // Support: local episodes whose failure this rule's own key/cluster covers (for
            // a rule across programs, a cluster of one of its programs saying its text).
            let support: Vec<&Episode> = match r.key.as_deref().and_then(|k| k.split("||").next()) {
                Some(cluster) => eps
                    .iter()
                    .filter(|e| {
                        let own = prep.cluster_key(e.fail_idx);
                        e.outcome != Outcome::Flaky
                            && (own == cluster
                                || crate::learn::propose::cross_program::member(
                                    cluster,
                                    &own,
                                    &r.domains,
                                    &prep.sigs[e.fail_idx].anchors,
                                    &prep.sigs[e.fail_idx].template,
                                ))
                    })
                    .collect(),
                None => Vec::new(),
            };
            let mut member_clusters: Vec<String> = if r.domains.is_empty() {
                Vec::new()
            } else {
                support.iter().map(|e| prep.cluster_key(e.fail_idx)).collect()
            };
            member_clusters.sort();
            member_clusters.dedup();
            let subj = Subject {
                spec: &spec,
                directive: &r.directive,
                directive_cmds: &cmds,
                directive_action: None,
                support,
                member_clusters: &member_clusters,
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
