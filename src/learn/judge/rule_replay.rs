//! Replay: a candidate's trigger against the whole history, as the seeds define it.
//!
//! - *prevented*: failures the trigger matches at ≥ threshold;
//! - *broken*: successes **in the rule's own domain** matched at ≥ threshold + margin
//!   (cross-domain coincidence never counts — seed 000's Fix 2);
//! - *near-misses*: same-domain successes in the band [threshold, threshold + margin).
//!
//! Verdict order (seed 000, #724): no signal → inconclusive (`no_signal`); broken >
//! prevented → fail (`blocked_by_broken`); near-misses > limit (2) → inconclusive
//! (`blocked_by_near_miss`); otherwise pass.
//!
//! A failure of *another* domain counts as prevented only when it shares an anchor and its
//! text is genuinely alike (IDF-weighted lexical overlap ≥ [`CROSS_DOMAIN_LEXICAL`]): a
//! `kubectl rollout` timeout rule does not prevent a `redis-cli` timeout just because both
//! say "timeout", but a paraphrased non-fast-forward under an unknown command still counts.
//!
//! Cost: a candidate is scored only against failures of its domain or sharing one of its
//! anchors, and successes of its domain ([`Index`]); nothing is quadratic in the history.

use crate::learn::history::episodes::Prepared;
use crate::learn::history::records::Records;
use crate::learn::matching::matcher::{score, TriggerSpec};
use std::collections::{HashMap, HashSet};

/// Lexical overlap a cross-domain failure needs to count as prevented.
pub const CROSS_DOMAIN_LEXICAL: f64 = 0.5;

/// Records indexed by domain (every segment's domain) and failures by anchor.
#[derive(Debug, Default)]
pub struct Index {
    pub fail_by_domain: HashMap<String, Vec<usize>>,
    pub ok_by_domain: HashMap<String, Vec<usize>>,
    pub fail_by_anchor: HashMap<String, Vec<usize>>,
    /// Cluster id of each failure record (`u32::MAX` for successes).
    pub cluster_of: Vec<u32>,
    /// Distinct failure clusters per domain.
    pub clusters_in_domain: HashMap<String, usize>,
}

impl Index {
    pub fn new<H: Records + ?Sized>(history: &H, prep: &Prepared) -> Index {
        let mut ix = Index {
            cluster_of: vec![u32::MAX; history.len()],
            ..Index::default()
        };
        let mut cluster_ids: HashMap<String, u32> = HashMap::new();
        let mut per_domain: HashMap<String, HashSet<u32>> = HashMap::new();
        for i in 0..history.len() {
            let ok = history.ok(i);
            // A line that swallowed its status (`… || true`) says nothing of whether its
            // command passed: no success a trigger can be wrong on, no failure either.
            if ok && crate::learn::history::swallowed::swallows(history.cmd(i)) {
                continue;
            }
            let mut domains: Vec<&str> = prep.norms[i].segments.iter().map(|s| s.domain.as_str()).collect();
            domains.sort_unstable();
            domains.dedup();
            let map = if ok {
                &mut ix.ok_by_domain
            } else {
                &mut ix.fail_by_domain
            };
            for d in &domains {
                map.entry(d.to_string()).or_default().push(i);
            }
            if !ok {
                for a in &prep.sigs[i].anchors {
                    ix.fail_by_anchor.entry(a.clone()).or_default().push(i);
                }
                let key = prep.cluster_key(i);
                let next = cluster_ids.len() as u32;
                let id = *cluster_ids.entry(key).or_insert(next);
                ix.cluster_of[i] = id;
                per_domain
                    .entry(prep.norms[i].domain().to_string())
                    .or_default()
                    .insert(id);
            }
        }
        ix.clusters_in_domain = per_domain.into_iter().map(|(d, s)| (d, s.len())).collect();
        ix
    }

    /// Failures worth scoring for a trigger: its domain's, plus any sharing an anchor.
    pub fn failure_pool(&self, spec: &TriggerSpec) -> Vec<usize> {
        let mut v: Vec<usize> = Vec::new();
        for d in spec.replay_domains() {
            v.extend(self.fail_by_domain.get(d).into_iter().flatten());
        }
        for a in &spec.anchors {
            if let Some(x) = self.fail_by_anchor.get(a) {
                v.extend_from_slice(x);
            }
        }
        v.sort_unstable();
        v.dedup();
        v
    }
}

/// Replay counts with the records behind them.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Replay {
    pub prevented: Vec<usize>,
    pub broken: Vec<usize>,
    pub near_misses: Vec<usize>,
}

/// Scores a trigger against the history.
pub fn replay(spec: &TriggerSpec, prep: &Prepared, ix: &Index, threshold: f64, margin: f64) -> Replay {
    let mut out = Replay::default();
    for i in ix.failure_pool(spec) {
        let v = &prep.views[i];
        if score(spec, v, &prep.idf) < threshold {
            continue;
        }
        let same_domain = v.actions.iter().any(|(d, _)| spec.in_domain(d));
        if same_domain
            || crate::learn::matching::matcher::lexical(&spec.terms, &v.terms, &prep.idf) >= CROSS_DOMAIN_LEXICAL
        {
            out.prevented.push(i);
        }
    }
    // A trigger's own domain is read in place (no copy of its successes); a cross-program
    // trigger's domains are united, a record run by two of its programs counted once.
    let domains = spec.replay_domains();
    let mut seen: HashSet<usize> = HashSet::new();
    for d in &domains {
        for &i in ix.ok_by_domain.get(*d).into_iter().flatten() {
            if domains.len() > 1 && !seen.insert(i) {
                continue;
            }
            let s = score(spec, &prep.views[i], &prep.idf);
            if s >= threshold + margin {
                out.broken.push(i);
            } else if s >= threshold {
                out.near_misses.push(i);
            }
        }
    }
    if domains.len() > 1 {
        out.broken.sort_unstable();
        out.near_misses.sort_unstable();
    }
    out
}

/// Replay verdict.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    Pass,
    Fail,
    Inconclusive,
}

impl Verdict {
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Pass => "pass",
            Verdict::Fail => "fail",
            Verdict::Inconclusive => "inconclusive",
        }
    }
}

/// The verdict and its reason, in the seeds' order.
pub fn verdict(prevented: u64, broken: u64, near_misses: u64, near_miss_limit: u64) -> (Verdict, &'static str) {
    if prevented == 0 && broken == 0 {
        (Verdict::Inconclusive, "no_signal")
    } else if broken > prevented {
        (Verdict::Fail, "blocked_by_broken")
    } else if near_misses > near_miss_limit {
        (Verdict::Inconclusive, "blocked_by_near_miss")
    } else {
        (Verdict::Pass, "pass")
    }
}

/// prevented / (prevented + broken); `None` when both are 0.
pub fn precision(prevented: u64, broken: u64) -> Option<f64> {
    let n = prevented + broken;
    (n > 0).then(|| prevented as f64 / n as f64)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::evidence::Record;
    use crate::learn::history::episodes::tests::rec;
    use crate::learn::matching::compiled_trigger::spec_from_text;
    use crate::learn::matching::matcher::{DEFAULT_MARGIN, DEFAULT_THRESHOLD};

    #[test]
    fn verdict_paths() {
        assert_eq!(verdict(0, 0, 0, 2), (Verdict::Inconclusive, "no_signal"));
        assert_eq!(verdict(0, 0, 5, 2), (Verdict::Inconclusive, "no_signal"));
        assert_eq!(verdict(1, 2, 0, 2), (Verdict::Fail, "blocked_by_broken"));
        assert_eq!(verdict(0, 1, 0, 2), (Verdict::Fail, "blocked_by_broken"));
        assert_eq!(verdict(3, 1, 3, 2), (Verdict::Inconclusive, "blocked_by_near_miss"));
        assert_eq!(verdict(3, 3, 2, 2), (Verdict::Pass, "pass"));
        assert_eq!(verdict(1, 0, 0, 2), (Verdict::Pass, "pass"));
        assert_eq!(precision(0, 0), None);
        assert_eq!(precision(3, 1), Some(0.75));
    }

    /// A spec scored against a hand-made view, to place a success exactly in the band.
    #[test]
    fn margin_band_near_miss_not_broken() {
        let h = vec![
            rec(
                "a",
                "npm start",
                false,
                "Error: listen EADDRINUSE: address already in use :::3000",
            ),
            rec("b", "npm start", true, "EADDRINUSE"),
        ];
        let prep = Prepared::new(&h);
        let ix = Index::new(&h, &prep);
        let mut vocab = prep.vocab.clone();
        let spec = spec_from_text("`npm start` fails with EADDRINUSE", "npm", &mut vocab);
        let s = score(&spec, &prep.views[1], &prep.idf);
        // Find a threshold that puts the success at threshold + 0.05.
        let th = s - 0.05;
        let r = replay(&spec, &prep, &ix, th, DEFAULT_MARGIN);
        assert_eq!(r.near_misses, vec![1], "at threshold + 0.05 it is a near-miss");
        assert!(r.broken.is_empty());
        let r2 = replay(&spec, &prep, &ix, s - 0.10, DEFAULT_MARGIN);
        assert_eq!(r2.broken, vec![1], "at threshold + margin it is broken");
    }

    #[test]
    fn cross_domain_success_never_counts() {
        let h = vec![
            rec("a", "git push", false, "! [rejected] main -> main (non-fast-forward)"),
            // Same words, other domain: not a same-domain success.
            rec(
                "b",
                "echo '! [rejected] main -> main (non-fast-forward)'",
                true,
                "! [rejected] main -> main (non-fast-forward)",
            ),
            rec("c", "git status", true, "nothing to commit, working tree clean"),
        ];
        let (r, prep, spec) = rejected_push_replayed(&h);
        assert_eq!(r.prevented, vec![0]);
        assert!(r.broken.is_empty() && r.near_misses.is_empty(), "{r:?}");
        // The echo success does score high: only the domain gate keeps it out.
        assert!(score(&spec, &prep.views[1], &prep.idf) >= DEFAULT_THRESHOLD + DEFAULT_MARGIN);
    }

    /// A line that swallowed its status (`git push || true`) "passed" with the failure in
    /// its output: no success a trigger is wrong on. The same output from a plain pass is.
    #[test]
    fn a_swallowed_pass_is_no_success() {
        let rejected = "! [rejected] main -> main (non-fast-forward)";
        let h = vec![
            rec("a", "git push", false, rejected),
            rec("b", "git push || true", true, rejected),
            rec("c", "git push origin main", true, rejected),
        ];
        let (r, _, _) = rejected_push_replayed(&h);
        assert_eq!(r.prevented, vec![0]);
        assert_eq!(r.broken, vec![2], "{r:?}");
    }

    /// The rule "`git push` is rejected as non-fast-forward" replayed against `h` at the
    /// default threshold and margin.
    fn rejected_push_replayed(h: &[Record]) -> (Replay, Prepared, TriggerSpec) {
        let prep = Prepared::new(h);
        let ix = Index::new(h, &prep);
        let mut vocab = prep.vocab.clone();
        let spec = spec_from_text("`git push` is rejected as non-fast-forward", "git", &mut vocab);
        let r = replay(&spec, &prep, &ix, DEFAULT_THRESHOLD, DEFAULT_MARGIN);
        (r, prep, spec)
    }
}
