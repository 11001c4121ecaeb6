//! Recurrence after promotion: does a rule's failure class come back less often once the
//! rule is in effect? (`rule-learning.md` §2.2 item 3; CauterRule left it "NOT MEASURED".)
//!
//! # Protocol
//!
//! **What is measured.** For a rule, a session *recurs* when at least one of its failures
//! is matched by the rule's trigger. The matching is the pipeline's own replay —
//! [`learn::reassess`] over the whole history, whose `prevented` failures are exactly the
//! failures the trigger matches (same threshold, anchors, domain and cross-domain rules as
//! promotion uses); there is no second matcher. The history is split into a *before* and
//! an *after* part by **session** (a session belongs to the part its first record falls
//! in: rules are injected at session start, so a session that began before the rule
//! existed never saw it). For each part:
//! `rate = sessions with a matched failure / sessions in the part`, with its 95% Wilson
//! interval (`wilson`, no continuity correction). A part with no sessions has
//! rate and interval `null`, never 0. `overall` does the same for "any of the measured
//! rules matched a failure in the session".
//!
//! **Retirement flag.** A rule is `retire_suggested` when its class recurs at least as often
//! after as before (`after.rate ≥ before.rate`), the after part has at least
//! [`MIN_AFTER_SESSIONS`] sessions (4: the smallest sample whose clean Wilson lower bound
//! clears 0.5, the same `min_sample` the promotion bound implies), and the class did recur
//! after (≥ 1 matched session: a class that never shows up again is no evidence against
//! the rule). It is a suggestion: `fable rules recurrence --apply` (live mode only) retires
//! flagged rules (status `retired`, kept in the store, no longer injected). In time-split
//! mode the flag only says the class keeps recurring without a rule; nothing is retired.
//!
//! **Time-split mode** (corpora, or a log without promotion times). Records are ordered
//! by `ts` (stable), sessions by their first timestamp; the first `fraction` of sessions
//! (default 0.5, rounded) is *before*. The production pipeline ([`learn::run_pipeline`])
//! learns from the before part only; the rules it would promote (`promotable`) are
//! measured — if none is promotable, the accepted ones are measured instead and labelled
//! `accepted`, so the table is never silently empty. Note what this can and cannot show:
//! the corpora (and any log recorded without fable's rules) had **no rule in effect** in
//! either part, so the after rate is the *baseline* recurrence of the class, and the
//! before rate is in-sample (the rule was learned from those very sessions, which inflates
//! it). The honest expectation is *no reduction caused by the rule*; any drop is selection
//! (regression to the mean, or the class simply not appearing later), not an effect. The
//! mode measures how often a learned class comes back at all — the ceiling a rule could
//! save — and gives the retirement test its "before" side.
//!
//! **Live mode** (a project's own log, where promoted rules were injected). Each promoted
//! rule gets its own split at its promotion time: the end of the first session after which
//! the pipeline's replay on the evidence up to then makes the rule promotable (what the
//! SessionEnd hook would have done), but never before the rule entered the store
//! (`created`); when replay never makes it promotable (a hand promotion) `created` alone is
//! used. Sessions starting after that moment ran with the rule injected, so a lower after
//! rate is a real, measured effect of the rule — with a Wilson interval to say whether it
//! is more than noise — and a class recurring as often as before earns the retirement flag.

use crate::evidence::Record;
use crate::learn::wilson::{round3, wilson};
use crate::learn::Rule;
use crate::learn::{self, LearnConfig};
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet, HashMap};

/// Fewest sessions the after part needs before a rule may be flagged for retirement.
pub const MIN_AFTER_SESSIONS: usize = 4;

/// Default share of sessions in the before part (time-split mode).
pub const DEFAULT_FRACTION: f64 = 0.5;

/// One part's recurrence: `hit` of `sessions` sessions had a matched failure.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PartRate {
    pub sessions: usize,
    pub hit: usize,
    /// `hit / sessions`; null when the part has no sessions.
    pub rate: Option<f64>,
    /// 95% Wilson interval of the rate; null when the part has no sessions.
    pub wilson: Option<(f64, f64)>,
}

impl PartRate {
    pub fn new(hit: usize, sessions: usize) -> PartRate {
        PartRate {
            sessions,
            hit,
            rate: (sessions > 0).then(|| round3(hit as f64 / sessions as f64)),
            wilson: wilson(hit as u64, sessions as u64).map(|(a, b)| (round3(a), round3(b))),
        }
    }

    fn exact(&self) -> Option<f64> {
        (self.sessions > 0).then(|| self.hit as f64 / self.sessions as f64)
    }
}

/// The retirement test (see the module protocol).
pub fn retire_suggested(before: &PartRate, after: &PartRate, min_after: usize) -> bool {
    match (before.exact(), after.exact()) {
        (Some(b), Some(a)) => after.sessions >= min_after && after.hit > 0 && a >= b,
        _ => false,
    }
}

/// One measured rule.
#[derive(Debug, Clone, Serialize)]
pub struct RuleRecurrence {
    pub id: String,
    pub domain: String,
    pub trigger: String,
    pub directive: String,
    /// `promotable` or `accepted` (time split), `promoted` (live).
    pub label: String,
    /// Live mode: the moment the rule took effect, and where it came from
    /// (`replay` or `created`); null in time-split mode.
    pub promoted_at: Option<String>,
    pub promoted_at_source: Option<String>,
    pub before: PartRate,
    pub after: PartRate,
    /// `after.rate - before.rate`; null when either part has no sessions.
    pub change: Option<f64>,
    pub retire_suggested: bool,
    /// Dedup key (to find the rule in a store).
    pub key: Option<String>,
}

/// The recurrence report.
#[derive(Debug, Clone, Serialize)]
pub struct Recurrence {
    /// `time_split` or `live`.
    pub mode: String,
    /// Time split: the share of sessions in the before part.
    pub fraction: Option<f64>,
    /// Time split: first timestamp of the first after session (null when none).
    pub cut: Option<String>,
    pub sessions_before: usize,
    pub sessions_after: usize,
    pub records_before: usize,
    pub records_after: usize,
    pub min_after_sessions: usize,
    /// What `rules` holds: `promotable`, `accepted` (no rule was promotable), `promoted`
    /// (live), or `none`.
    pub measured: String,
    pub rules: Vec<RuleRecurrence>,
    /// Time split, when nothing was promotable: still say how many were accepted.
    pub promotable_rules: usize,
    pub accepted_rules: usize,
    /// Sessions with a failure any measured rule matches. Live mode splits each session
    /// at the earliest promotion time among the rules.
    pub overall_before: PartRate,
    pub overall_after: PartRate,
    pub retire_suggested: Vec<String>,
    pub note: String,
}

/// Milliseconds since the epoch of an RFC 3339 timestamp; None when it does not parse.
pub fn ts_millis(ts: &str) -> Option<i64> {
    chrono::DateTime::parse_from_rfc3339(ts)
        .ok()
        .map(|d| d.timestamp_millis())
}

/// Records ordered by timestamp (stable; unparseable timestamps first, in their order).
pub fn order_by_ts(history: &[Record]) -> Vec<Record> {
    let mut v: Vec<(Option<i64>, &Record)> = history.iter().map(|r| (ts_millis(&r.ts), r)).collect();
    v.sort_by_key(|(k, _)| *k);
    v.into_iter().map(|(_, r)| r.clone()).collect()
}

/// Sessions with their first timestamp (ms), ordered by it (stable on first appearance).
pub fn session_starts(history: &[Record]) -> Vec<(String, Option<i64>)> {
    let mut first: Vec<(String, Option<i64>)> = Vec::new();
    let mut pos: HashMap<&str, usize> = HashMap::new();
    for r in history {
        let t = ts_millis(&r.ts);
        match pos.get(r.session.as_str()) {
            Some(&i) => {
                if t.is_some() && (first[i].1.is_none() || t < first[i].1) {
                    first[i].1 = t;
                }
            }
            None => {
                pos.insert(&r.session, first.len());
                first.push((r.session.clone(), t));
            }
        }
    }
    first.sort_by_key(|(_, t)| *t);
    first
}

/// The number of sessions in the before part for `n` sessions and a fraction.
pub fn split_count(n: usize, fraction: f64) -> usize {
    let f = if fraction.is_finite() {
        fraction.clamp(0.0, 1.0)
    } else {
        DEFAULT_FRACTION
    };
    ((n as f64 * f).round() as usize).min(n)
}

/// The before sessions (the first `fraction` of sessions by first timestamp).
pub fn early_sessions(history: &[Record], fraction: f64) -> BTreeSet<String> {
    let starts = session_starts(history);
    let k = split_count(starts.len(), fraction);
    starts.into_iter().take(k).map(|(s, _)| s).collect()
}

/// For each rule, the sessions with at least one failure its trigger matches, by the
/// pipeline's own replay over `history`.
pub fn matched_sessions(rules: &[Rule], history: &[Record], cfg: &LearnConfig) -> Vec<BTreeSet<String>> {
    // With its support cleared, a reassessed rule's support is its prevented failures.
    let probes: Vec<Rule> = rules
        .iter()
        .map(|r| {
            let mut r = r.clone();
            r.support.clear();
            r
        })
        .collect();
    learn::reassess(&probes, history, cfg)
        .iter()
        .map(|r| {
            r.support
                .iter()
                .filter_map(|s| support_index(s))
                .filter_map(|i| history.get(i))
                .filter(|rec| !rec.ok)
                .map(|rec| rec.session.clone())
                .collect()
        })
        .collect()
}

/// The history index of a `session#index@ts` support reference.
pub fn support_index(s: &str) -> Option<usize> {
    let (_, rest) = s.rsplit_once('#')?;
    let idx = rest.split('@').next()?;
    idx.parse().ok()
}

fn rate_of(hits: &BTreeSet<String>, part: &BTreeSet<String>) -> PartRate {
    PartRate::new(hits.intersection(part).count(), part.len())
}

fn measure(
    rule: &Rule,
    label: &str,
    hits: &BTreeSet<String>,
    before: &BTreeSet<String>,
    after: &BTreeSet<String>,
) -> RuleRecurrence {
    let b = rate_of(hits, before);
    let a = rate_of(hits, after);
    RuleRecurrence {
        id: rule.id.clone(),
        domain: rule.domain.clone(),
        trigger: rule.trigger.clone(),
        directive: rule.directive.clone(),
        label: label.to_string(),
        promoted_at: None,
        promoted_at_source: None,
        change: b.exact().zip(a.exact()).map(|(b, a)| round3(a - b)),
        retire_suggested: retire_suggested(&b, &a, MIN_AFTER_SESSIONS),
        before: b,
        after: a,
        key: rule.key.clone(),
    }
}

const TIME_SPLIT_NOTE: &str = "Time split: no rule was in effect in either part, so the after rate is the class's baseline recurrence and the before rate is in-sample; no reduction is expected, and none would be an effect of the rule.";
const LIVE_NOTE: &str = "Live: each rule's after part holds sessions that started after it took effect (replayed promotion, not before `created`); a lower after rate is a measured effect.";

/// Time-split mode: learn on the first `fraction` of sessions, measure before and after.
pub fn time_split(history: &[Record], fraction: f64, cfg: &LearnConfig) -> Recurrence {
    let ordered = order_by_ts(history);
    let early = early_sessions(&ordered, fraction);
    let all: BTreeSet<String> = ordered.iter().map(|r| r.session.clone()).collect();
    let late: BTreeSet<String> = all.difference(&early).cloned().collect();
    let before_recs: Vec<Record> = ordered.iter().filter(|r| early.contains(&r.session)).cloned().collect();
    let cut = ordered.iter().find(|r| late.contains(&r.session)).map(|r| r.ts.clone());
    let outcome = learn::run_pipeline(&before_recs, cfg);
    let promotable: Vec<Rule> = outcome
        .candidates
        .iter()
        .filter(|l| l.rule.promotable == Some(true))
        .map(|l| l.rule.clone())
        .collect();
    let accepted: Vec<Rule> = outcome
        .candidates
        .iter()
        .filter(|l| l.rule.accepted == Some(true))
        .map(|l| l.rule.clone())
        .collect();
    let (measured, rules) = if !promotable.is_empty() {
        ("promotable", promotable.clone())
    } else if !accepted.is_empty() {
        ("accepted", accepted.clone())
    } else {
        ("none", Vec::new())
    };
    let hits = matched_sessions(&rules, &ordered, cfg);
    let out: Vec<RuleRecurrence> = rules
        .iter()
        .zip(&hits)
        .map(|(r, h)| measure(r, measured, h, &early, &late))
        .collect();
    let any: BTreeSet<String> = hits.iter().flatten().cloned().collect();
    Recurrence {
        mode: "time_split".into(),
        fraction: Some(fraction),
        cut,
        sessions_before: early.len(),
        sessions_after: late.len(),
        records_before: before_recs.len(),
        records_after: ordered.len() - before_recs.len(),
        min_after_sessions: MIN_AFTER_SESSIONS,
        measured: measured.into(),
        retire_suggested: out
            .iter()
            .filter(|r| r.retire_suggested)
            .map(|r| r.id.clone())
            .collect(),
        rules: out,
        promotable_rules: promotable.len(),
        accepted_rules: accepted.len(),
        overall_before: rate_of(&any, &early),
        overall_after: rate_of(&any, &late),
        note: TIME_SPLIT_NOTE.into(),
    }
}

/// Session-end moments (the last timestamp of each session), ascending and distinct.
fn session_ends(history: &[Record]) -> Vec<i64> {
    let mut last: BTreeMap<&str, i64> = BTreeMap::new();
    for r in history {
        if let Some(t) = ts_millis(&r.ts) {
            let e = last.entry(r.session.as_str()).or_insert(t);
            *e = (*e).max(t);
        }
    }
    let mut v: Vec<i64> = last.into_values().collect();
    v.sort_unstable();
    v.dedup();
    v
}

/// The first session end after which replay on the evidence up to then makes `rule`
/// promotable (binary search: more evidence is assumed to keep it promotable).
pub fn replayed_promotion(rule: &Rule, ordered: &[Record], cfg: &LearnConfig) -> Option<i64> {
    let ends = session_ends(ordered);
    let promotable_at = |t: i64| {
        let prefix: Vec<Record> = ordered
            .iter()
            .filter(|r| ts_millis(&r.ts).is_some_and(|x| x <= t))
            .cloned()
            .collect();
        learn::reassess(std::slice::from_ref(rule), &prefix, cfg)
            .first()
            .is_some_and(|r| r.promotable == Some(true))
    };
    let (mut lo, mut hi) = (0usize, ends.len());
    if hi == 0 || !promotable_at(ends[hi - 1]) {
        return None;
    }
    hi -= 1;
    while lo < hi {
        let mid = (lo + hi) / 2;
        if promotable_at(ends[mid]) {
            hi = mid;
        } else {
            lo = mid + 1;
        }
    }
    Some(ends[lo])
}

fn fmt_ms(ms: i64) -> String {
    chrono::DateTime::from_timestamp_millis(ms)
        .map(|d| d.format("%Y-%m-%dT%H:%M:%S%.3fZ").to_string())
        .unwrap_or_default()
}

/// Live mode: each promoted rule split at the moment it took effect.
pub fn live(rules: &[Rule], history: &[Record], cfg: &LearnConfig) -> Recurrence {
    let ordered = order_by_ts(history);
    let promoted: Vec<Rule> = rules.iter().filter(|r| r.status == "promoted").cloned().collect();
    let starts = session_starts(&ordered);
    let hits = matched_sessions(&promoted, &ordered, cfg);
    let mut out = Vec::new();
    let mut earliest: Option<i64> = None;
    for (r, h) in promoted.iter().zip(&hits) {
        let replayed = replayed_promotion(r, &ordered, cfg);
        let created = r.created.as_deref().and_then(ts_millis);
        let (at, source) = match (replayed, created) {
            (Some(p), Some(c)) if c > p => (Some(c), "created"),
            (Some(p), _) => (Some(p), "replay"),
            (None, Some(c)) => (Some(c), "created"),
            (None, None) => (None, ""),
        };
        // A session is before when it started at or before the promotion moment.
        let (before, after): (BTreeSet<String>, BTreeSet<String>) = match at {
            Some(t) => {
                let b = starts
                    .iter()
                    .filter(|(_, s)| s.is_none_or(|s| s <= t))
                    .map(|(s, _)| s.clone())
                    .collect();
                let a = starts
                    .iter()
                    .filter(|(_, s)| s.is_some_and(|s| s > t))
                    .map(|(s, _)| s.clone())
                    .collect();
                (b, a)
            }
            None => (BTreeSet::new(), BTreeSet::new()),
        };
        if let Some(t) = at {
            earliest = Some(earliest.map_or(t, |e: i64| e.min(t)));
        }
        let mut m = measure(r, "promoted", h, &before, &after);
        m.promoted_at = at.map(fmt_ms);
        m.promoted_at_source = at.map(|_| source.to_string());
        out.push(m);
    }
    let any: BTreeSet<String> = hits.iter().flatten().cloned().collect();
    let (ob, oa): (BTreeSet<String>, BTreeSet<String>) = match earliest {
        Some(t) => starts
            .iter()
            .map(|(s, st)| (s.clone(), st.is_none_or(|x| x <= t)))
            .fold((BTreeSet::new(), BTreeSet::new()), |(mut b, mut a), (s, is_b)| {
                if is_b {
                    b.insert(s);
                } else {
                    a.insert(s);
                }
                (b, a)
            }),
        None => (BTreeSet::new(), BTreeSet::new()),
    };
    let records_before = ordered.iter().filter(|r| ob.contains(&r.session)).count();
    Recurrence {
        mode: "live".into(),
        fraction: None,
        cut: earliest.map(fmt_ms),
        sessions_before: ob.len(),
        sessions_after: oa.len(),
        records_before,
        records_after: ordered.iter().filter(|r| oa.contains(&r.session)).count(),
        min_after_sessions: MIN_AFTER_SESSIONS,
        measured: if promoted.is_empty() { "none" } else { "promoted" }.into(),
        retire_suggested: out
            .iter()
            .filter(|r| r.retire_suggested)
            .map(|r| r.id.clone())
            .collect(),
        rules: out,
        promotable_rules: promoted.len(),
        accepted_rules: promoted.len(),
        overall_before: rate_of(&any, &ob),
        overall_after: rate_of(&any, &oa),
        note: LIVE_NOTE.into(),
    }
}

fn fmt_part(p: &PartRate) -> String {
    let w = p.wilson.map(|(a, b)| format!(" [{a:.3}, {b:.3}]")).unwrap_or_default();
    format!("{}/{} = {}{}", p.hit, p.sessions, crate::learn::wilson::fmt3(p.rate), w)
}

/// The Markdown section (also the human output of `fable rules recurrence`).
pub fn render_markdown(r: &Recurrence) -> String {
    let mut s = String::from("## Recurrence after promotion\n\n");
    match r.mode.as_str() {
        "time_split" => s.push_str(&format!(
            "Mode: time split at {} of sessions (cut {}): {} sessions ({} records) before, {} sessions ({} records) after. Rules learned on the before part: {} promotable, {} accepted; measured: {}.\n\n",
            r.fraction.map(|f| f.to_string()).unwrap_or_else(|| "null".into()),
            r.cut.as_deref().unwrap_or("null"),
            r.sessions_before, r.records_before, r.sessions_after, r.records_after,
            r.promotable_rules, r.accepted_rules, r.measured
        )),
        _ => s.push_str(&format!(
            "Mode: live, {} promoted rules, each split at the moment it took effect (earliest {}).\n\n",
            r.rules.len(),
            r.cut.as_deref().unwrap_or("null")
        )),
    }
    s.push_str(&format!("{}\n\n", r.note));
    s.push_str("Rate = sessions with at least one failure the rule's trigger matches (pipeline replay) / sessions in the part, 95% Wilson. ");
    s.push_str(&format!(
        "A rule is flagged `retire` when after ≥ before with at least {} after sessions and at least one recurrence after.\n\n",
        r.min_after_sessions
    ));
    s.push_str("| rule | label | domain | promoted at | before | after | change | retire |\n|---|---|---|---|---|---|---|---|\n");
    for x in &r.rules {
        s.push_str(&format!(
            "| {} | {} | {} | {} | {} | {} | {} | {} |\n",
            x.id,
            x.label,
            x.domain,
            x.promoted_at.as_deref().unwrap_or("—"),
            fmt_part(&x.before),
            fmt_part(&x.after),
            crate::learn::wilson::fmt3(x.change),
            if x.retire_suggested { "yes" } else { "no" }
        ));
    }
    s.push_str(&format!(
        "| overall | any | — | — | {} | {} | {} | — |\n",
        fmt_part(&r.overall_before),
        fmt_part(&r.overall_after),
        crate::learn::wilson::fmt3(
            r.overall_before
                .exact()
                .zip(r.overall_after.exact())
                .map(|(b, a)| round3(a - b))
        )
    ));
    if !r.rules.is_empty() {
        s.push('\n');
        for x in &r.rules {
            s.push_str(&format!(
                "- {}: when {}, {}\n",
                x.id,
                x.trigger.replace('|', "\\|"),
                x.directive.replace('|', "\\|")
            ));
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rec(session: &str, ts: &str) -> Record {
        Record::new(ts, session, "/", "true", Some(0), true, "")
    }

    #[test]
    fn part_rates_and_nulls() {
        let p = PartRate::new(1, 4);
        assert_eq!(p.rate, Some(0.25));
        assert!(p.wilson.is_some());
        let e = PartRate::new(0, 0);
        assert_eq!((e.rate, e.wilson), (None, None));
    }

    #[test]
    fn retirement_test() {
        let m = MIN_AFTER_SESSIONS;
        assert!(!retire_suggested(&PartRate::new(4, 4), &PartRate::new(1, 4), m));
        assert!(retire_suggested(&PartRate::new(4, 4), &PartRate::new(4, 4), m));
        assert!(retire_suggested(&PartRate::new(1, 4), &PartRate::new(2, 5), m));
        // Too few after sessions, or no recurrence at all, or an empty part: never.
        assert!(!retire_suggested(&PartRate::new(4, 4), &PartRate::new(3, 3), m));
        assert!(!retire_suggested(&PartRate::new(0, 4), &PartRate::new(0, 6), m));
        assert!(!retire_suggested(&PartRate::new(0, 0), &PartRate::new(3, 6), m));
    }

    #[test]
    fn ordering_and_split() {
        let h = vec![
            rec("b", "2026-01-01T00:00:02.000Z"),
            rec("a", "2026-01-01T00:00:01.000Z"),
            rec("c", "2026-01-01T00:00:03.000Z"),
            rec("b", "2026-01-01T00:00:04.000Z"),
            rec("d", "2026-01-01T00:00:05.000Z"),
        ];
        let o = order_by_ts(&h);
        assert_eq!(o.iter().map(|r| r.session.as_str()).collect::<String>(), "abcbd");
        let s: Vec<String> = session_starts(&o).into_iter().map(|(s, _)| s).collect();
        assert_eq!(s, vec!["a", "b", "c", "d"]);
        let e = early_sessions(&o, 0.5);
        assert_eq!(e.into_iter().collect::<Vec<_>>(), vec!["a", "b"]);
        assert_eq!(split_count(7, 0.5), 4);
        assert_eq!(split_count(4, 0.0), 0);
        assert_eq!(split_count(4, 2.0), 4);
        assert_eq!(session_ends(&o).len(), 4);
    }

    #[test]
    fn support_refs_parse() {
        assert_eq!(support_index("s#1#12@2026-01-01T00:00:00.000Z"), Some(12));
        assert_eq!(support_index("nohash"), None);
    }
}
