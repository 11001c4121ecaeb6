//! The standing set: at most one promoted rule per failure class, and only rules that
//! still pass (a rule now `unrecovered` — learned from a grind nothing fixed — steps down
//! too, [`crate::learn::judge::grind`]).
//!
//! One session that ignored a promoted rule produced a second promoted rule for the same
//! failure (support: that single session), both were injected, and the first stayed
//! promoted while its own record said `accepted: false`. After every merge the store is
//! settled: a promoted rule whose fresh assessment is not accepted steps down to
//! candidate, and where a class holds several promoted rules the best one stays (promoted
//! here first, then most failures prevented, then the higher Wilson lower bound, then the
//! older id) and the others step down, each saying which rule supersedes it.

use crate::learn::judge::rule::Rule;
use crate::learn::propose::failure_class::failure_class;
use std::collections::BTreeMap;

/// A rule's failure class, from what the store keeps of it.
pub fn class_of(r: &Rule) -> String {
    let cluster = format!("{}:{}", r.domain, r.action.as_deref().unwrap_or(""));
    failure_class(&cluster, &r.domain, r.anchors.first().map(String::as_str))
}

/// Settles the store in place; returns `(stepped down, reason)` for each change.
/// `here` says whether a rule was promoted on this machine (kept first in a tie).
pub fn settle(rules: &mut [Rule], here: &dyn Fn(&Rule) -> bool) -> Vec<(String, String)> {
    let mut changes = Vec::new();
    for r in rules
        .iter_mut()
        .filter(|r| r.status == "promoted" && (r.accepted == Some(false) || r.reason == "unrecovered"))
    {
        r.status = "candidate".into();
        let why = format!("stepped down: no longer accepted ({})", r.reason);
        r.reason = why.clone();
        changes.push((r.id.clone(), why));
    }
    let mut by_class: BTreeMap<String, Vec<usize>> = BTreeMap::new();
    for (i, r) in rules.iter().enumerate().filter(|(_, r)| r.status == "promoted") {
        by_class.entry(class_of(r)).or_default().push(i);
    }
    for idx in by_class.values().filter(|v| v.len() > 1) {
        let best = *idx
            .iter()
            .max_by(|&&a, &&b| {
                let (ra, rb) = (&rules[a], &rules[b]);
                here(ra)
                    .cmp(&here(rb))
                    .then(ra.prevented.cmp(&rb.prevented))
                    .then(
                        ra.wilson
                            .map_or(0.0, |w| w.0)
                            .partial_cmp(&rb.wilson.map_or(0.0, |w| w.0))
                            .unwrap_or(std::cmp::Ordering::Equal),
                    )
                    .then(id_num(&rb.id).cmp(&id_num(&ra.id)))
            })
            .expect("a class with rules has a best one");
        let keep = rules[best].id.clone();
        for &i in idx.iter().filter(|&&i| i != best) {
            let r = &mut rules[i];
            r.status = "candidate".into();
            let why = format!("superseded by {keep}: one promoted rule per failure class");
            r.reason = why.clone();
            changes.push((r.id.clone(), why));
        }
    }
    changes
}

fn id_num(id: &str) -> u64 {
    id.trim_start_matches("R-").parse().unwrap_or(u64::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::learn::store::rules::tests::rule;

    #[test]
    fn one_promoted_rule_per_class_and_only_accepted_ones() {
        let mut a = rule("a", "promoted");
        a.id = "R-1".into();
        a.prevented = 5;
        let mut b = rule("b", "promoted");
        b.id = "R-2".into();
        b.prevented = 1;
        let mut c = rule("c", "promoted");
        c.id = "R-3".into();
        c.accepted = Some(false);
        c.domain = "cargo".into();
        let mut other = rule("d", "promoted");
        other.id = "R-4".into();
        other.domain = "npm".into();
        let mut rules = vec![a, b, c, other];
        let changes = settle(&mut rules, &|_| false);
        let status: Vec<&str> = rules.iter().map(|r| r.status.as_str()).collect();
        assert_eq!(status, vec!["promoted", "candidate", "candidate", "promoted"]);
        assert!(rules[1].reason.contains("superseded by R-1"), "{}", rules[1].reason);
        assert!(rules[2].reason.starts_with("stepped down"), "{}", rules[2].reason);
        assert_eq!(changes.len(), 2);
        // A rule promoted here wins its class over a better-scoring one that is not.
        let mut x = rule("x", "promoted");
        x.id = "R-9".into();
        x.prevented = 9;
        let mut y = rule("y", "promoted");
        y.id = "R-10".into();
        let mut rules = vec![x, y];
        settle(&mut rules, &|r| r.id == "R-10");
        assert_eq!(
            (rules[0].status.as_str(), rules[1].status.as_str()),
            ("candidate", "promoted")
        );
    }

    #[test]
    fn a_promoted_rule_from_a_grind_nothing_fixed_steps_down() {
        let mut g = rule("g", "promoted");
        g.reason = "unrecovered".into();
        g.accepted = Some(true);
        let mut rules = vec![g];
        let changes = settle(&mut rules, &|_| true);
        assert_eq!(rules[0].status, "candidate");
        assert_eq!(changes.len(), 1);
    }
}
