//! The learning pipeline and the SessionEnd hook (`fable-learn`).
//!
//! [`run_pipeline`] is the one pure entry point — no I/O — used by `fable rules extract`,
//! the SessionEnd hook and the field test alike:
//! records → [`Prepared`] (normalised once) → [`episodes`] → [`candidates`] (clustered,
//! deduplicated) → [`rule_replay`](crate::learn::judge::rule_replay) + gates → ranked rules (formats.md §3).
//!
//! **Accepted vs promoted.** Two different questions, answered separately:
//! - *accepted* (`accepted: true`, what the field test counts): replay verdict `pass` and
//!   no gate blocked it — trusted evidence, safe directive, not generic, directive
//!   evidence not negative, not contested, and its support is a valid source (below).
//! - *promotable* (and auto-promoted when the policy is on): accepted **and** the Wilson
//!   lower bound of precision ≥ `promote_lower_bound` (0.5 → at least 4 clean prevented
//!   failures; `min_sample` in each rule says how many the bound implies). A rule seen
//!   once is never injected into a live project's sessions on its own.
//!
//! **Sources** (`directive_source`, and `origin`: `learned`, `pack:core`, `extractor`).
//! Every rule says where its directive came from; the field test counts accepted rules
//! per source and runs with and without the pack.
//! - `fix` / `variant` — *learned*: the steps (or added flags) after which the failing
//!   action succeeded in this history. Accepted only when ≥ `min_sessions_self_resolved`
//!   (2) sessions are a *source* of it: their fix agrees with the directive and it was
//!   not a one-shot recovery (`fix && retry` as the very next command: the agent already
//!   knew — CauterRule's "recovered near-miss", counted by replay but nobody's lesson).
//!   ≥ `min_sessions_variant` (3) for a variant (otherwise a flaky-style retry). When
//!   the failure has no anchor, ≥ `min_sessions_unanchored` (3) sessions support it,
//!   one-shot ones included: that count shows the text recurs, and a session that knew
//!   the fix met the same failure. Otherwise `self_resolved`.
//! - `pack` — the curated core pack ([`crate::learn::propose::core_pack`], `"packs": ["core"]`,
//!   on by default): a hand-written remedy for the cluster's anchor, supported by the
//!   cluster's unresolved failures, replay-tested against this history and gated like any
//!   rule. It may stand on one session (its directive is not learned from that session,
//!   so it cannot carry that session's mistakes), and it never decides a learned rule's
//!   acceptance: an unresolved failure in the class no longer demotes a learned fix.
//! - `template` — the generic fallback for unresolved failures with no pack remedy ("do
//!   not retry unchanged"): learned from unresolved failures alone, so it needs ≥ 2
//!   sessions (`single_session`); a single unresolved failure never makes an accepted
//!   rule on its own.
//! - `extractor` — an external extractor's proposal, same gates.
//!
//! **Support and contest** (what a rule is learned from). A candidate is (failure
//! cluster, directive); its `support` is the episodes consistent with that directive,
//! and the field test counts a trajectory for a rule only through them.
//! - *Fix directives* come only from a fix after which the failing action (same domain
//!   and action) succeeded — a recovered episode ([`candidates`]). What a session tried
//!   before moving on is never a directive, and a session that only looked (`pip list`,
//!   `git log`) and moved on is no one's support. Support of a fix directive: the
//!   cluster's episodes whose fix agrees with it (same step, the directive's flags
//!   included; `git pull --no-rebase` does not agree with `git pull --rebase`). An unsafe
//!   fix (`git push --force`, `chmod 777`, `curl … | sh`, deleting a database) is its own
//!   candidate, blocked by the safety gate.
//! - *Pack and template directives* are supported by **unresolved** failures: nothing
//!   succeeded after them, or — for a pack remedy only — the session tried a safe fix of
//!   its own that never made the action succeed. Not unresolved: a typo corrected
//!   (`pyhton` → `python3`), the remedy itself taken (`git add`, commit after a merge
//!   conflict), a failure nested inside another failure's recovery. They never take
//!   self-resolved support (replay counts those as prevented).
//! - *Contested* (`contested`): over the failure class's recovered episodes — every
//!   working fix the safety gate allows; an unsafe fix (force-push, `chmod 777`) is its
//!   own blocked candidate and does not compete — the directive must agree with at least
//!   `contested_share` (3/4: three agreeing fixes for every competing one) when there
//!   are ≥ 2 recovered episodes with ≥ 2 distinct fixes; a lone session that did
//!   otherwise contests no fix two sessions agree on ([`crate::learn::judge::assess::contested`]). A template that names a command
//!   (`git pull --rebase`) is judged the same way; one naming none is not comparable.
//!   The class ([`candidates::failure_class`]) is the anchor across tools for an
//!   environment condition (EADDRINUSE from `http.server` and from `node`), the program
//!   for a program-scoped anchor (`command not found`, permission denied, ENOENT) or no
//!   anchor, else the anchor within the domain (`conflict` in git and in pip differ).
//!   The price: a history that also holds merge (`--no-rebase`) sessions makes "push
//!   rejected as non-fast-forward → `git pull --rebase`" contested, and no rule is
//!   accepted for it; force-push sessions no longer do (they only block themselves).
//! - *Generic*: a trigger without an anchor is generic unless its directive is an
//!   observed fix and its failure text has ≥ `generic_min_terms` terms, or fewer terms
//!   but a failure term of its own and a replay that fires on its own class only
//!   ([`crate::learn::matching::specificity`]); it then needs the unanchored recurrence
//!   above. An anchorless template is always generic.
//!
//! - *Coincidental* (`coincidental`): a learned fix whose class's failures also cleared
//!   on a plain retry (literally unchanged, nothing state-changing between) needs the
//!   same three-to-one share over the class's recoveries *and* those plain retries (a fix
//!   that acted on the failing command — a step on its files, or the command itself
//!   changed — only needs more cures than plain retries:
//!   [`crate::learn::propose::necessity`]); a
//!   directive whose step only looks (`fsck`, `help`, `list`, `status`) is no fix at all
//!   (inspection steps are never fix steps, [`crate::learn::text::inspection`]).
//!
//! Reason precedence: `blocked_by_trust`, `blocked_by_safety`, `generic`,
//! `directive_fails`, `contested`, `coincidental`, `self_resolved`, then the replay reasons (`no_signal`,
//! `blocked_by_broken`, `blocked_by_near_miss`), `unrecovered` (a grind nothing fixed:
//! [`crate::learn::judge::grind`]), then `min_sample` (below the promotion bound), else `pass`.

use crate::evidence::Record;
use crate::learn::history::episodes::{self, Outcome, Prepared};
use crate::learn::history::records::{History, Records};
use crate::learn::judge::assess::*;
use crate::learn::judge::config::*;
use crate::learn::judge::rule::Learned;
use crate::learn::judge::rule_replay::Index;
use crate::learn::judge::wilson::min_sample_for;
use crate::learn::matching::matcher::{self, TriggerSpec};
use crate::learn::outcome::*;
use crate::learn::propose::candidates;
use crate::learn::propose::extractor::extractor_candidates;
use crate::learn::propose::extractor::Proposer;

/// Runs the whole pipeline on a history (oldest first). Pure: no I/O, deterministic.
pub fn run_pipeline(history: &[Record], cfg: &LearnConfig) -> LearnOutcome {
    run_pipeline_with(history, cfg, None)
}

/// As [`run_pipeline`], with an optional extractor that may propose one extra candidate
/// per cluster; its candidates go through the same replay and gates.
pub fn run_pipeline_with(history: &[Record], cfg: &LearnConfig, proposer: Option<Proposer>) -> LearnOutcome {
    run_prepared(history, &Prepared::new(history), cfg, proposer)
}

/// As [`run_pipeline_with`], on a [`History`] read as it streamed (its normalisation
/// built beside it): the same outcome as on the records it was built from.
pub fn run_history(history: &History, cfg: &LearnConfig, proposer: Option<Proposer>) -> LearnOutcome {
    run_prepared(history, &history.prep, cfg, proposer)
}

fn run_prepared<H: Records + ?Sized>(
    history: &H,
    prep: &Prepared,
    cfg: &LearnConfig,
    proposer: Option<Proposer>,
) -> LearnOutcome {
    let eps = episodes::extract(history, prep, cfg.window);
    let mut cands = candidates::build(&eps, prep, cfg.core_pack());
    let stands_alone = |c: &candidates::Candidate, sessions: usize| {
        let variant = matches!(
            c.source,
            candidates::DirectiveSource::Variant | candidates::DirectiveSource::Substitution
        );
        sessions as u64 >= sessions_needed(variant, !c.anchors.is_empty(), cfg)
    };
    let across = crate::learn::propose::cross_program::merge(&cands, &eps, prep, stands_alone);
    let texts = crate::learn::propose::one_program::merge(&cands, &eps, prep, stands_alone);
    cands.extend(across);
    cands.extend(texts);
    if let Some(p) = proposer {
        cands.extend(extractor_candidates(&cands, &eps, history, prep, p));
    }
    let cands = candidates::dedup(cands);
    let ix = Index::new(history, prep);
    let mut vocab = prep.vocab.clone();
    let mut learned: Vec<Learned> = cands
        .iter()
        .map(|c| {
            let terms = vocab.query(&format!("{} {}", c.trigger, c.template));
            let label = vocab.query(&format!("{} {} {}", c.label, c.domain, c.action));
            let spec = TriggerSpec {
                domain: c.domain.clone(),
                action: c.action.clone(),
                anchors: c.anchors.clone(),
                actions: c.actions.clone(),
                failure_terms: matcher::failure_terms(&terms, &label),
                terms,
                domains: c.domains.clone(),
                alternatives: crate::learn::propose::one_program::alternative_specs(c, &mut vocab),
            };
            assess_candidate(c, &spec, &eps, history, prep, &ix, cfg)
        })
        .collect();
    rank(&mut learned);
    crate::learn::judge::same_lesson::fold(&mut learned);
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
            // Two spellings of one lesson tie on all of these: the more common first.
            .then(b.spelt_so.cmp(&a.spelt_so))
            .then(a.rule.key.cmp(&b.rule.key))
    });
    for (i, l) in learned.iter_mut().enumerate() {
        l.rule.id = format!("C-{}", i + 1);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::learn::history::episodes::tests::rec;
    use crate::learn::judge::rule::DirectiveEvidence;
    use crate::learn::propose::extractor::{EpisodeBrief, Proposal};

    /// `n` sessions named `{prefix}{i}`, each a failure and then one passing command.
    fn fail_then(n: usize, prefix: &str, fail: (&str, &str), then: (&str, &str)) -> Vec<Record> {
        (0..n)
            .flat_map(|i| {
                let s = format!("{prefix}{i}");
                [rec(&s, fail.0, false, fail.1), rec(&s, then.0, true, then.1)]
            })
            .collect()
    }

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
    fn single_self_resolved_is_not_accepted_but_single_unresolved_is_with_the_pack() {
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
        // Accepted, but nothing ever got past it: no standing rule.
        assert_eq!((top.reason.as_str(), top.status.as_str()), ("unrecovered", "candidate"));
        assert!(top.directive.contains("git pull --rebase"), "{}", top.directive);
        // … and that is the core pack's rule, said so; learned-only, it accepts nothing.
        assert_eq!(top.directive_source.as_deref(), Some("pack"));
        assert_eq!(top.origin.as_deref(), Some("pack:core"));
        let none = run_pipeline(&open, &learned_only());
        assert!(none.candidates.iter().all(|l| l.rule.accepted == Some(false)));
        assert_eq!(none.candidates[0].rule.reason, "single_session");
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
    fn one_poisoned_session_does_not_contest_the_safe_fix() {
        // Two sessions fixed it with `git pull --rebase`, one poisoned session with a
        // force-push. The force-push is its own blocked candidate; it does not compete
        // (before: 2 of 3 working fixes < 3/4 → `contested`, nothing accepted).
        let mut h = nff_sessions(2, "git pull --rebase");
        let mut force = nff_sessions(1, "git push --force origin main");
        for r in &mut force {
            r.session = "poison".into();
        }
        h.extend(force);
        let out = run_pipeline(&h, &LearnConfig::default());
        let rebase = find(&out, "git pull --rebase");
        assert_eq!(rebase.rule.accepted, Some(true), "{:#?}", rebase.rule);
        assert!(rebase.support_refs.iter().all(|r| r.session != "poison"));
        let poisoned: Vec<&Learned> = out
            .candidates
            .iter()
            .filter(|l| l.support_refs.iter().any(|r| r.session == "poison"))
            .collect();
        assert!(!poisoned.is_empty());
        assert!(poisoned
            .iter()
            .all(|l| l.rule.accepted == Some(false) && l.rule.reason == "blocked_by_safety"));
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
    fn one_session_that_did_otherwise_contests_no_fix_two_agree_on() {
        // Two `git pull --rebase` sessions, one `--no-rebase`: rebase is the lesson, the
        // lone merge is taught nothing.
        let mut h = nff_sessions(2, "git pull --rebase");
        let mut merge = nff_sessions(1, "git pull --no-rebase");
        for r in &mut merge {
            r.session = "merge".into();
        }
        h.extend(merge.clone());
        let out = run_pipeline(&h, &learned_only());
        assert_eq!(
            find(&out, "git pull --rebase").rule.accepted,
            Some(true),
            "{:#?}",
            out.candidates
        );
        assert_ne!(find(&out, "--no-rebase").rule.accepted, Some(true));
        // A second merge session: two against two, contested, nothing taught.
        for r in &mut merge {
            r.session = "merge2".into();
        }
        h.extend(merge);
        let out = run_pipeline(&h, &learned_only());
        assert_eq!(find(&out, "git pull --rebase").rule.reason, "contested");
        assert!(out.candidates.iter().all(|l| l.rule.accepted != Some(true)));
    }

    fn learned_only() -> LearnConfig {
        LearnConfig {
            packs: Vec::new(),
            ..LearnConfig::default()
        }
    }

    #[test]
    fn learned_fix_stands_apart_from_the_pack() {
        let mut h = nff_sessions(3, "git pull --rebase");
        h.push(rec(
            "open",
            "git push",
            false,
            " ! [rejected] main -> main (non-fast-forward)",
        ));
        for cfg in [LearnConfig::default(), learned_only()] {
            let out = run_pipeline(&h, &cfg);
            // The learned rule: three sessions fixed it this way; the unresolved failure
            // in the same class does not demote it, with or without the pack.
            let fix = find(&out, "run `git pull --rebase`, then retry");
            assert_eq!(fix.rule.accepted, Some(true), "{:#?}", fix.rule);
            assert_eq!(fix.rule.directive_source.as_deref(), Some("fix"));
            assert_eq!(fix.rule.origin.as_deref(), Some("learned"));
            let pack = out
                .candidates
                .iter()
                .find(|l| l.rule.directive_source.as_deref() == Some("pack"));
            if cfg.core_pack() {
                let t = pack.expect("the core pack's rule");
                assert_eq!(t.rule.origin.as_deref(), Some("pack:core"));
                assert_eq!(t.rule.accepted, Some(true), "{:#?}", t.rule);
                assert_eq!(t.support_refs.len(), 1);
                assert_eq!(t.support_refs[0].session, "open");
                // The self-resolved sessions are evidence: replay counts them as prevented.
                assert_eq!(t.rule.prevented, 4);
            } else {
                assert!(pack.is_none());
                // The open failure alone makes no accepted rule.
                let open: Vec<&Learned> = out
                    .candidates
                    .iter()
                    .filter(|l| l.support_refs.iter().any(|r| r.session == "open"))
                    .collect();
                assert!(open.iter().all(|l| l.rule.accepted == Some(false)), "{open:#?}");
            }
        }
    }

    #[test]
    fn one_shot_recoveries_are_not_a_source() {
        // `fix && retry` as the very next command, in every session: the agent already
        // knew; replay counts them, but they are nobody's lesson.
        let h = fail_then(
            3,
            "q",
            ("git push origin feature", " ! [rejected] non-fast-forward"),
            ("git pull --rebase && git push", "Everything up-to-date"),
        );
        let out = run_pipeline(&h, &learned_only());
        let fix = find(&out, "git pull --rebase");
        assert_eq!(fix.rule.reason, "self_resolved", "{:#?}", fix.rule);
        assert_eq!(fix.rule.prevented, 3);
        // The same fix as a step of its own, then the retry: a lesson.
        let out = run_pipeline(&nff_sessions(3, "git pull --rebase"), &learned_only());
        assert_eq!(find(&out, "git pull --rebase").rule.accepted, Some(true));
    }

    #[test]
    fn variant_retry_needs_three_sessions() {
        let mk = |n: usize| {
            fail_then(
                n,
                "v",
                ("kubectl apply -f deploy.yaml", "error: no matches for kind"),
                ("kubectl apply --server-side -f deploy.yaml", "created"),
            )
        };
        let two = run_pipeline(&mk(2), &LearnConfig::default());
        assert_eq!(find(&two, "--server-side").rule.reason, "self_resolved");
        let three = run_pipeline(&mk(3), &LearnConfig::default());
        assert_eq!(find(&three, "--server-side").rule.accepted, Some(true));
    }

    #[test]
    fn moved_on_exploration_is_not_a_lesson() {
        let h = fail_then(
            3,
            "m",
            ("python src/train.py", "ModuleNotFoundError: No module named 'pandas'"),
            ("pip list", "numpy"),
        );
        let out = run_pipeline(&h, &LearnConfig::default());
        assert!(
            out.candidates.iter().all(|l| l.rule.accepted != Some(true)),
            "{:#?}",
            out.candidates
        );
    }

    const LOCK: &str = "fatal: Unable to create '/w/.git/index.lock': File exists.\n\nAnother git process seems to be running in this repository";

    /// `n` sessions `{prefix}{i}`: `git commit` fails on the lock, `between` runs, the
    /// retry passes.
    fn lock_sessions(n: usize, prefix: &str, between: &str) -> Vec<Record> {
        (0..n)
            .flat_map(|i| {
                let s = format!("{prefix}{i}");
                [
                    rec(&s, "git commit -m wip", false, LOCK),
                    rec(&s, between, true, "ok"),
                    rec(&s, "git commit -m wip", true, "[main 1a2b] wip"),
                ]
            })
            .collect()
    }

    #[test]
    fn plain_retries_count_against_a_fix() {
        // Alone, three sessions that ran `git gc` before the retry would make a rule …
        let gc = lock_sessions(3, "gc", "git gc --prune=now");
        let out = run_pipeline(&gc, &learned_only());
        assert_eq!(find(&out, "git gc").rule.accepted, Some(true), "{:#?}", out.candidates);
        // … but the same failure cleared on a plain retry in three other sessions: `git
        // gc` was coincidence (the lock was simply released).
        let mut h = gc;
        h.extend(lock_sessions(3, "plain", "git status"));
        let out = run_pipeline(&h, &learned_only());
        let r = &find(&out, "git gc").rule;
        assert_eq!((r.reason.as_str(), r.accepted), ("coincidental", Some(false)), "{r:#?}");
    }

    #[test]
    fn an_inspection_step_is_not_a_fix() {
        // `git fsck` between the lock failure and the retry only looked: no fix directive.
        let h = lock_sessions(4, "f", "git fsck");
        let out = run_pipeline(&h, &learned_only());
        assert!(
            out.candidates.iter().all(|l| !l.rule.directive.contains("fsck")),
            "{:#?}",
            out.candidates
        );
        assert!(out.candidates.iter().all(|l| l.rule.accepted != Some(true)));
        assert_eq!(out.flaky, 4);
    }

    #[test]
    fn reassess_imported_rule() {
        let h = nff_sessions(5, "git pull --rebase");
        let out = run_pipeline(&h, &LearnConfig::default());
        let mut r = out.candidates[0].rule.clone();
        r.origin = Some("pack:x".into());
        r.support.clear();
        let again = crate::learn::reassess::reassess(&[r], &h, &LearnConfig::default());
        assert_eq!(again[0].prevented, 5);
        assert_eq!(again[0].verdict, "pass");
        assert_eq!(again[0].support.len(), 5);
    }
}
