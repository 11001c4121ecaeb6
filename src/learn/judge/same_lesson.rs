//! One lesson accepted twice: two rules of one failure class that stand on exactly the
//! same sessions are one fix spelt two ways (`cargo build --release` and `cargo build -r`
//! before the same missing binaries; two `sed` spellings of stripping trailing blanks
//! before the same commit). Each spelling is its own candidate, and each agrees with the
//! other's sessions (a short flag is its long flag's initial), so both passed every gate.
//!
//! Why after judging: which of them stands is the one ranked first, known only once both
//! are assessed. The other is kept, as a candidate, with the reason `same_lesson`: shown
//! by `fable learn`, never promoted, never shown to the agent twice.

use crate::learn::judge::rule::Learned;
use std::collections::BTreeSet;

/// The reason a rule gets when an earlier-ranked accepted rule is the same lesson.
pub const SAME_LESSON: &str = "same_lesson";

/// Unaccepts every accepted rule (in rank order) whose class and support an
/// earlier-ranked accepted rule already has, and every program's own rule that an
/// accepted class across programs holds whole ([`within_a_class_across_programs`]). Pure;
/// the order is left as it is.
pub fn fold(learned: &mut [Learned]) {
    within_a_class_across_programs(learned);
    let mut kept: Vec<(String, BTreeSet<String>)> = Vec::new();
    for l in learned.iter_mut() {
        if l.rule.accepted != Some(true) || l.rule.support.is_empty() {
            continue;
        }
        let class = l
            .rule
            .key
            .as_deref()
            .and_then(|k| k.split_once("||"))
            .map(|(c, _)| c.to_string())
            .unwrap_or_default();
        let support: BTreeSet<String> = l.rule.support.iter().cloned().collect();
        if kept.iter().any(|(c, s)| *c == class && *s == support) {
            l.rule.accepted = Some(false);
            l.rule.promotable = Some(false);
            l.rule.reason = SAME_LESSON.to_string();
            l.rule.status = "candidate".to_string();
        } else {
            kept.push((class, support));
        }
    }
}

/// A program's own rule that stands on its own, inside an accepted class across programs
/// that holds it: the same fix (the key's part after `||`), its program among the class's,
/// every session of its support the class's too. One lesson, said once, as the class
/// (`make -C lib` learned for `make`, and for `cc` and `make` together: the agent sees the
/// second). [`crate::learn::propose::cross_program`] lets a member that stands alone join
/// a class with members that do not.
fn within_a_class_across_programs(learned: &mut [Learned]) {
    let fix = |l: &Learned| {
        l.rule
            .key
            .as_deref()
            .and_then(|k| k.split_once("||"))
            .map(|(_, f)| f.to_string())
    };
    let classes: Vec<(Option<String>, Vec<String>, BTreeSet<String>)> = learned
        .iter()
        .filter(|l| l.rule.accepted == Some(true) && !l.rule.domains.is_empty())
        .map(|l| (fix(l), l.rule.domains.clone(), l.rule.support.iter().cloned().collect()))
        .collect();
    for l in learned.iter_mut() {
        if l.rule.accepted != Some(true) || !l.rule.domains.is_empty() || l.rule.support.is_empty() {
            continue;
        }
        let own = fix(l);
        let held = classes.iter().any(|(f, domains, support)| {
            own.is_some()
                && *f == own
                && domains.contains(&l.rule.domain)
                && l.rule.support.iter().all(|s| support.contains(s))
        });
        if held {
            l.rule.accepted = Some(false);
            l.rule.promotable = Some(false);
            l.rule.reason = SAME_LESSON.to_string();
            l.rule.status = "candidate".to_string();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn accepted(key: &str, support: &[&str]) -> Learned {
        // The pinned rule format's required fields, and what `fold` reads.
        let rule: crate::learn::judge::rule::Rule = serde_json::from_value(serde_json::json!({
            "id": "", "domain": "shell", "trigger": "t", "directive": "d", "status": "promoted",
            "verdict": "pass", "reason": "pass", "prevented": 3, "broken": 0, "near_misses": 0,
            "precision": 1.0, "wilson": [0.5, 1.0], "support": support, "key": key,
            "accepted": true, "promotable": true
        }))
        .unwrap();
        Learned {
            rule,
            support_refs: Vec::new(),
            prevented_refs: Vec::new(),
            broken_refs: Vec::new(),
            near_miss_refs: Vec::new(),
            outcomes: Default::default(),
            spelt_so: 1,
        }
    }

    #[test]
    fn the_second_spelling_of_one_lesson_stands_down() {
        let mut l = vec![
            accepted("shell|ENOENT||steps:cargo build --release", &["a:1", "b:1", "c:1"]),
            accepted("shell|ENOENT||steps:cargo build -r", &["c:1", "b:1", "a:1"]),
            // Another class on the same sessions, the same class on other sessions: both stand.
            accepted("cargo|E0601||variant:<one flag>", &["a:1", "b:1", "c:1"]),
            accepted("shell|ENOENT||steps:make", &["a:1", "b:1"]),
        ];
        fold(&mut l);
        let reasons: Vec<(&str, Option<bool>)> = l.iter().map(|x| (x.rule.reason.as_str(), x.rule.accepted)).collect();
        assert_eq!(
            reasons,
            vec![
                ("pass", Some(true)),
                (SAME_LESSON, Some(false)),
                ("pass", Some(true)),
                ("pass", Some(true))
            ]
        );
        assert_eq!(l[1].rule.promotable, Some(false));
        assert_eq!(l[1].rule.status, "candidate");
    }

    #[test]
    fn a_programs_own_rule_inside_its_class_across_programs_stands_down() {
        let across = |mut l: Learned, domains: &[&str]| {
            l.rule.domain = String::new();
            l.rule.domains = domains.iter().map(|d| d.to_string()).collect();
            l
        };
        let own = |mut l: Learned, domain: &str| {
            l.rule.domain = domain.to_string();
            l
        };
        let mut l = vec![
            own(accepted("make|ENOENT||steps:make all cd <v>", &["b:1", "c:1"]), "make"),
            across(
                accepted("cross:anchor:ENOENT||steps:make all cd <v>", &["a:1", "b:1", "c:1"]),
                &["cc", "make"],
            ),
            // Another fix, another program, or support the class does not hold: they stand.
            own(accepted("make|ENOENT||steps:make install", &["b:1", "c:1"]), "make"),
            own(accepted("npm|ENOENT||steps:make all cd <v>", &["b:1"]), "npm"),
            own(accepted("make|ENOENT||steps:make all cd <v>", &["b:1", "d:1"]), "make"),
        ];
        fold(&mut l);
        let reasons: Vec<&str> = l.iter().map(|x| x.rule.reason.as_str()).collect();
        assert_eq!(reasons, vec![SAME_LESSON, "pass", "pass", "pass", "pass"]);
        assert_eq!(l[0].rule.accepted, Some(false));
    }
}
