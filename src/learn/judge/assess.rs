//! One candidate (or stored rule) through replay and every gate: support, sources,
//! contest, status and the reason precedence (documented in [`crate::learn::pipeline`]).

use crate::learn::history::episodes::{Episode, Outcome, Prepared};
use crate::learn::history::origin_trust::{directive_in_untrusted, lowest, Trust};
use crate::learn::history::records::Records;
use crate::learn::judge::config::*;
use crate::learn::judge::directive_evidence;
use crate::learn::judge::rule::{DirectiveEvidence, Rule};
use crate::learn::judge::rule::{Learned, SupportRef};
use crate::learn::judge::rule_replay::{self, precision, Index, Verdict};
use crate::learn::judge::wilson::{min_sample_for, round3, wilson};
use crate::learn::matching::matcher::TriggerSpec;
use crate::learn::propose::candidates::{Candidate, DirectiveAction, DirectiveSource};
use crate::learn::propose::extractor::outcome_name;
use crate::learn::text::safety;
use std::collections::{BTreeMap, HashSet};

/// What the gates look at, whatever the rule's origin.
pub(crate) struct Subject<'a> {
    pub(crate) spec: &'a TriggerSpec,
    pub(crate) directive: &'a str,
    pub(crate) directive_cmds: &'a [String],
    pub(crate) directive_action: Option<&'a DirectiveAction>,
    /// Episodes it was learned from (empty for an imported rule).
    pub(crate) support: Vec<&'a Episode>,
    /// Sources and contest (see the module doc).
    pub(crate) origin: Origin,
    /// A class across programs: the clusters it unites (empty otherwise).
    pub(crate) member_clusters: &'a [String],
}

/// Where a subject's support came from, for the source gates (module doc).
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Origin {
    /// The fix it came from was unsafe.
    pub(crate) unsafe_fix: Option<&'static str>,
    /// A variant retry (added flags / other arguments).
    pub(crate) variant: bool,
    /// The directive comes from a fix observed in the history (steps or variant).
    pub(crate) observed_fix: bool,
    /// A template or pack directive: its support is unresolved failures by construction.
    pub(crate) template: bool,
    /// A curated pack's directive (not learned from this history, so it needs no
    /// recurrence of its own: replay and the gates judge it).
    pub(crate) pack: bool,
    /// (recovered episodes agreeing with the directive, recovered episodes, distinct
    /// working fixes) of the cluster; `None` when not comparable.
    pub(crate) contest: Option<(usize, usize, usize)>,
    /// Same-class failures that cleared on a plain retry ([`crate::learn::propose::necessity`]).
    pub(crate) cleared_plainly: usize,
    /// Same-class sessions the same kind of fix cured unsafely: evidence of necessity only.
    pub(crate) cured_unsafely: usize,
    /// Every session the fix stands on acted on the failing command's subject.
    pub(crate) targeted: bool,
}

pub(crate) struct Assessment {
    pub(crate) replay: rule_replay::Replay,
    pub(crate) verdict: Verdict,
    pub(crate) reason: &'static str,
    pub(crate) accepted: bool,
    pub(crate) promotable: bool,
    pub(crate) trust: Trust,
    pub(crate) safety: Option<&'static str>,
    pub(crate) evidence: Option<DirectiveEvidence>,
    pub(crate) precision: Option<f64>,
    pub(crate) wilson: Option<(f64, f64)>,
    pub(crate) rank: f64,
    pub(crate) sessions: u64,
}

pub(crate) fn assess<H: Records + ?Sized>(
    s: &Subject,
    history: &H,
    prep: &Prepared,
    ix: &Index,
    cfg: &LearnConfig,
) -> Assessment {
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
    // A fetch retried (`curl -g URL` after `curl URL` failed on its own diagnostic): the
    // page the retry printed came after the fix was chosen and is in no part of the rule,
    // so it does not lower the rule's trust. Every other record does, the retry of any
    // other command included (running a fetched script is the fix's doing).
    let after_fix = |e: &crate::learn::history::episodes::Episode, k: usize| {
        e.retry_idx == Some(k)
            && crate::learn::history::origin_trust::is_fetch(history.cmd(k))
            && crate::learn::history::origin_trust::is_fetch(history.cmd(e.fail_idx))
    };
    let mut evidence_idx: Vec<usize> = s
        .support
        .iter()
        .flat_map(|e| e.evidence().into_iter().filter(move |&k| !after_fix(e, k)))
        .collect();
    evidence_idx.sort_unstable();
    evidence_idx.dedup();
    let mut trust = lowest(evidence_idx.iter().map(|&i| prep.trust[i]));
    if trust == Trust::Trusted && !s.directive_cmds.is_empty() {
        let mut seen: HashSet<usize> = HashSet::new();
        let mut tails: Vec<std::borrow::Cow<'_, str>> = Vec::new();
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
                    tails.push(history.tail(k));
                }
            }
        }
        let tails: Vec<&str> = tails.iter().map(|t| t.as_ref()).collect();
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
        .filter(|&&i| s.spec.in_domain(prep.norms[i].domain()))
        .map(|&i| ix.cluster_of[i])
        .collect();
    let domain_clusters = s
        .spec
        .replay_domains()
        .iter()
        .map(|d| ix.clusters_in_domain.get(*d).copied().unwrap_or(0))
        .sum::<usize>() as f64;
    // A class across programs is one class, though each program's share is a cluster of
    // its own ([`crate::learn::propose::cross_program`]): its members count once.
    let members: HashSet<u32> = if s.member_clusters.is_empty() {
        HashSet::new()
    } else {
        r.prevented
            .iter()
            .filter(|&&i| s.member_clusters.contains(&prep.cluster_key(i)))
            .map(|&i| ix.cluster_of[i])
            .collect()
    };
    let folded = members.len().saturating_sub(1);
    let matched_classes = matched.len().saturating_sub(folded);
    let domain_clusters = (domain_clusters - folded as f64).max(0.0);
    // An anchorless trigger is generic unless it carries an observed fix and its failure
    // text is not thin: a quoted, masked error line ("fatal: unable to auto-detect email
    // address") fixed the same way in several sessions is specific enough (it then needs
    // `min_sessions_unanchored` sessions, below). A template without an anchor is advice
    // from nothing: generic.
    // A thin text is still specific when its replay fired on its own class only
    // ([`crate::learn::matching::specificity`]).
    let thin = s.spec.terms.len() < cfg.generic_min_terms
        && !crate::learn::matching::specificity::thin_but_distinct(s.spec, matched_classes);
    let generic = (s.spec.anchors.is_empty() && (!s.origin.observed_fix || thin))
        || (matched_classes as u64 >= cfg.generic_min_clusters
            && domain_clusters > 0.0
            && matched_classes as f64 / domain_clusters > cfg.generic_share);

    let evidence = s
        .directive_action
        .map(|a| directive_evidence::measure(&r.prevented, a, history, prep, cfg.window));
    let sessions: HashSet<&str> = s.support.iter().map(|e| history.session(e.fail_idx)).collect();
    let o = &s.origin;
    // Contested: the class's working fixes disagree and this directive has no clear
    // majority of them. A fix the safety gate knows is its own blocked candidate and no
    // competitor; one it does not know still competes (the contest is the backstop).
    let contested = o
        .contest
        .is_some_and(|(covered, recovered, keys)| contested(covered, recovered, keys, cfg.contested_share));
    // Self-resolved support is a source only when the same fix recurs across sessions and
    // the class has no unresolved failures (those would be the support instead).
    let need = sessions_needed(o.variant, !s.spec.anchors.is_empty(), cfg);
    // Sessions that are a *source* of the lesson: those that met the failure and then
    // found the fix. A one-shot recovery — the very next command ran the fix and the
    // retry chained (`git pull --rebase && git push`) — shows the agent already knew it:
    // CauterRule's "recovered near-miss" ("retry succeeded; no rule needed"). It still
    // counts as prevented in replay and in directive evidence, but not as a source.
    let source_sessions: HashSet<&str> = s
        .support
        .iter()
        .filter(|e| !e.one_shot(prep))
        .map(|e| history.session(e.fail_idx))
        .collect();
    // A rule learned from history stands on ≥ `need` sessions whose fix agrees with it,
    // whatever else the cluster holds: unresolved failures of the same class no longer
    // demote it (they are the pack's support, and a pack never decides a learned rule).
    // The two parts of `need` ask different things. The sessions a lesson is a source in
    // (found the fix, not one-shot) must reach what an anchored failure needs; the extra
    // session an anchorless failure needs shows its text recurs, and a session that
    // already knew the fix met that same failure, so every supporting session counts
    // toward it (`git stash -u && git switch …` beside two that found the stash).
    let self_resolved = !o.template
        && !s.support.is_empty()
        && s.support
            .iter()
            .all(|e| matches!(e.outcome, Outcome::Recovered | Outcome::MovedOn))
        && ((source_sessions.len() as u64) < sessions_needed(o.variant, true, cfg) || (sessions.len() as u64) < need);
    // The generic fallback ("do not retry unchanged") is learned from unresolved failures
    // alone: one session's failure never makes an accepted rule on its own.
    let single_session = o.template && !o.pack && (sessions.len() as u64) < cfg.min_sessions_self_resolved;

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
    } else if o.observed_fix
        && o.contest.is_some_and(|(cov, rec, _)| {
            // The same change done unsafely also cured the failure: it weighs against
            // coincidence as a cure, never as support.
            let u = o.cured_unsafely;
            crate::learn::propose::necessity::coincidental(
                cov + u,
                rec + u,
                o.cleared_plainly,
                cfg.contested_share,
                o.targeted,
            )
        })
    {
        Some("coincidental")
    } else if self_resolved {
        Some("self_resolved")
    } else if single_session {
        Some("single_session")
    } else {
        None
    };
    let accepted = gate.is_none() && verdict == Verdict::Pass;
    let bound_ok = wil.is_some_and(|(lo, _)| lo >= cfg.promote_lower_bound);
    // Learned from unresolved failures in sessions that never got past them: a grind
    // nothing fixed is no standing rule ([`crate::learn::judge::grind`]).
    let unrecovered = o.template
        && !s.support.is_empty()
        && !crate::learn::judge::grind::any_recovery(
            s.support.iter().map(|e| e.fail_idx).chain(r.prevented.iter().copied()),
            history,
            prep,
        );
    let promotable = accepted && bound_ok && !unrecovered;
    let reason = gate.unwrap_or(if verdict != Verdict::Pass {
        replay_reason
    } else if unrecovered {
        "unrecovered"
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

/// Do a class's working fixes contest a directive that `covered` of its `recovered`
/// recoveries (of `keys` distinct fixes) agree with? Yes when they disagree and it has
/// less than `share` of them (three agreeing fixes for every competing one) — unless the
/// whole competition is one session and the directive stands on two or more.
///
/// Why the exception: at three quarters, one session that did something else blocked a
/// fix two sessions agreed on (2 of 3), though it did not block one three agreed on (3 of
/// 4): a lone dissent decided only where agreement sat at the recurrence minimum. It is
/// still a majority, and the lone fix is never taught (one session is no recurrence).
/// Two dissenting sessions, alike or not, contest as before: the contest stays the
/// backstop against a recurring fix the safety gate does not know, and a real alternative
/// that recurs (rebase against merge) is still no lesson.
pub(crate) fn contested(covered: usize, recovered: usize, keys: usize, share: f64) -> bool {
    let lone_dissent = covered >= 2 && recovered.saturating_sub(covered) == 1;
    recovered >= 2 && keys >= 2 && (covered as f64) < share * recovered as f64 - 1e-9 && !lone_dissent
}

pub(crate) fn status_for(a: &Assessment, cfg: &LearnConfig) -> &'static str {
    if matches!(a.reason, "blocked_by_trust" | "blocked_by_safety") {
        "blocked"
    } else if a.promotable && cfg.auto_promote {
        "promoted"
    } else {
        "candidate"
    }
}

/// How many source sessions a learned fix needs: a variant more than a step (else a
/// flaky-style retry), an unanchored failure more than an anchored one.
pub(crate) fn sessions_needed(variant: bool, anchored: bool, cfg: &LearnConfig) -> u64 {
    let need = if variant {
        cfg.min_sessions_variant
    } else {
        cfg.min_sessions_self_resolved
    };
    if anchored {
        need
    } else {
        need.max(cfg.min_sessions_unanchored)
    }
}

#[allow(clippy::too_many_arguments)]
pub(crate) fn assess_candidate<H: Records + ?Sized>(
    c: &Candidate,
    spec: &TriggerSpec,
    eps: &[Episode],
    history: &H,
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
        member_clusters: &c.member_clusters,
        origin: Origin {
            unsafe_fix: c.unsafe_fix,
            // A substitution is learned like a variant: the same command, done otherwise.
            variant: matches!(c.source, DirectiveSource::Variant | DirectiveSource::Substitution),
            observed_fix: matches!(
                c.source,
                DirectiveSource::Fix | DirectiveSource::Variant | DirectiveSource::Substitution
            ),
            template: matches!(c.source, DirectiveSource::Template | DirectiveSource::Pack),
            pack: c.source == DirectiveSource::Pack,
            contest: c
                .covered
                .map(|cov| (cov, c.recovered_in_cluster, c.fix_keys_in_cluster)),
            cleared_plainly: c.cleared_plainly,
            cured_unsafely: c.cured_unsafely,
            targeted: c.targeted,
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
        domains: c.domains.clone(),
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
        origin: Some(match c.source {
            DirectiveSource::Extractor => "extractor".to_string(),
            DirectiveSource::Pack => format!("pack:{}", crate::learn::propose::core_pack::CORE),
            _ => "learned".to_string(),
        }),
        provenance: None,
        created: None,
        updated: None,
        seal: None,
        compiled: None,
    };
    Learned {
        rule,
        support_refs,
        prevented_refs: refs(history, &a.replay.prevented),
        broken_refs: refs(history, &a.replay.broken),
        near_miss_refs: refs(history, &a.replay.near_misses),
        outcomes,
        spelt_so: c.spelt_so,
    }
}

pub(crate) fn refs<H: Records + ?Sized>(history: &H, idxs: &[usize]) -> Vec<SupportRef> {
    idxs.iter()
        .map(|&i| SupportRef {
            session: history.session(i).to_string(),
            index: i,
            ts: history.ts(i).to_string(),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_lone_dissent_contests_no_fix_two_sessions_agree_on() {
        use super::contested;
        // Three quarters, as before: 3 of 4 stands, 2 of 4 and 3 of 5 are contested.
        assert!(!contested(3, 4, 2, 0.75));
        assert!(contested(2, 4, 2, 0.75));
        assert!(contested(3, 5, 3, 0.75));
        // One session that did something else against two that agree: no contest.
        assert!(!contested(2, 3, 2, 0.75));
        // One against one is a tie, whoever it is; two dissenters contest, alike or not.
        assert!(contested(1, 2, 2, 0.75));
        assert!(contested(2, 4, 3, 0.75));
        // One fix only, or one recovery: nothing to contest.
        assert!(!contested(2, 2, 1, 0.75));
        assert!(!contested(1, 1, 1, 0.75));
    }

    use crate::learn::history::episodes::{extract, Prepared, WINDOW};

    #[test]
    fn a_fix_not_in_the_log_is_no_competing_fix() {
        // [`crate::learn::propose::failure_class::tests::edited_history`]: the edit sessions (an
        // unchanged `make`, a `make -B` after an edit record) neither join nor contest the
        // logged `mkdir -p build`, and propose no fix of their own.
        let h = crate::learn::propose::failure_class::tests::edited_history();
        let p = Prepared::new(&h);
        let e = extract(&h, &p, WINDOW);
        let c = crate::learn::propose::candidates::build(&e, &p, false);
        let mkdir = c
            .iter()
            .find(|c| c.directive.contains("mkdir"))
            .expect("the logged fix");
        assert_eq!(
            (mkdir.covered, mkdir.recovered_in_cluster, mkdir.fix_keys_in_cluster),
            (Some(3), 3, 1),
            "{c:#?}"
        );
        assert_eq!(mkdir.episodes.len(), 3, "the edit sessions lend no support");
        assert_eq!(mkdir.cleared_plainly, 1, "only the session that just looked");
        assert!(!c.iter().any(|c| c.key.contains("variant:")), "{c:#?}");
    }
}
