//! Per-class field-test results: when trajectories carry the optional `class` field
//! (a failure class, e.g. `git-push-nonff`), each corpus also reports passed/n per class
//! with the 95% Wilson interval, so a learner that gets one class right and another wrong
//! is seen as such instead of averaged away. Optional in the report (`classes`), absent
//! when no trajectory of the corpus has a class.

use crate::learn::wilson::{round3, wilson};
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet};

/// The class name given to a trajectory without one, in a corpus where others have one.
pub const UNCLASSIFIED: &str = "(unclassified)";

/// One class of one corpus.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct ClassReport {
    pub class: String,
    pub n: usize,
    /// Trajectories that passed (promotion: an accepted rule drew support from it;
    /// rejection: none did).
    pub passed: usize,
    pub pass_rate: f64,
    /// 95% Wilson interval of passed/n.
    pub wilson: Option<(f64, f64)>,
    /// Distinct accepted rules that drew support from this class's trajectories.
    pub accepted_rules: usize,
}

/// One scored trajectory, as the per-class tally needs it.
pub struct Scored<'a> {
    pub class: Option<&'a str>,
    pub passed: bool,
    /// Indices of the accepted rules that drew support from it.
    pub accepted: &'a [usize],
}

/// Per-class results in class-name order; `None` when no trajectory has a class.
pub fn per_class(items: &[Scored<'_>]) -> Option<Vec<ClassReport>> {
    if items.iter().all(|t| t.class.is_none()) {
        return None;
    }
    let mut by: BTreeMap<&str, (usize, usize, BTreeSet<usize>)> = BTreeMap::new();
    for t in items {
        let e = by.entry(t.class.unwrap_or(UNCLASSIFIED)).or_default();
        e.0 += 1;
        e.1 += usize::from(t.passed);
        e.2.extend(t.accepted.iter().copied());
    }
    Some(
        by.into_iter()
            .map(|(class, (n, passed, rules))| ClassReport {
                class: class.to_string(),
                n,
                passed,
                pass_rate: round3(passed as f64 / n as f64),
                wilson: wilson(passed as u64, n as u64).map(|(a, b)| (round3(a), round3(b))),
                accepted_rules: rules.len(),
            })
            .collect(),
    )
}

/// The Markdown table of every corpus's classes (`(corpus, kind, classes)`), or `None`
/// when no corpus has classes.
pub fn render_markdown(corpora: &[(&str, &str, &[ClassReport])]) -> Option<String> {
    if corpora.iter().all(|(_, _, c)| c.is_empty()) {
        return None;
    }
    let mut s = String::from(
        "### Per class\n\n| corpus | kind | class | passed / n | pass rate | Wilson 95% | accepted rules |\n|---|---|---|---|---|---|---|\n",
    );
    for (name, kind, classes) in corpora {
        for c in classes.iter() {
            s.push_str(&format!(
                "| {name} | {kind} | {} | {}/{} | {:.3} | {} | {} |\n",
                c.class.replace('|', "\\|"),
                c.passed,
                c.n,
                c.pass_rate,
                c.wilson
                    .map(|(a, b)| format!("[{a:.3}, {b:.3}]"))
                    .unwrap_or_else(|| "null".into()),
                c.accepted_rules
            ));
        }
    }
    s.push_str("\nPromotion classes: share of trajectories an accepted rule drew support from. Rejection classes: share with no accepted rule drawing support; `accepted rules` must be 0.\n");
    Some(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_class_no_section() {
        let items = [Scored {
            class: None,
            passed: true,
            accepted: &[],
        }];
        assert_eq!(per_class(&items), None);
        assert_eq!(render_markdown(&[("g", "promotion", &[])]), None);
    }

    #[test]
    fn counts_per_class_with_wilson_and_distinct_rules() {
        let items = [
            Scored {
                class: Some("b"),
                passed: true,
                accepted: &[3],
            },
            Scored {
                class: Some("a"),
                passed: false,
                accepted: &[],
            },
            Scored {
                class: Some("b"),
                passed: true,
                accepted: &[3, 5],
            },
            Scored {
                class: None,
                passed: false,
                accepted: &[],
            },
            Scored {
                class: Some("b"),
                passed: false,
                accepted: &[],
            },
        ];
        let r = per_class(&items).unwrap();
        let names: Vec<&str> = r.iter().map(|c| c.class.as_str()).collect();
        assert_eq!(names, ["(unclassified)", "a", "b"]);
        let b = &r[2];
        assert_eq!((b.n, b.passed, b.pass_rate, b.accepted_rules), (3, 2, 0.667, 2));
        let (lo, hi) = wilson(2, 3).unwrap();
        assert_eq!(b.wilson, Some((round3(lo), round3(hi))));
        assert_eq!((r[1].passed, r[1].n, r[1].wilson.unwrap().0), (0, 1, 0.0));
        let md = render_markdown(&[("g", "promotion", &r)]).unwrap();
        assert!(md.contains("| g | promotion | b | 2/3 | 0.667 |"), "{md}");
    }
}
