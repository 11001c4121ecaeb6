//! How close an extracted rule is to the rule a careful engineer wrote (`expected_rule`).
//!
//! Three figures, reported separately and never fused (seed 002):
//! - `token_f1`: SQuAD v1.1 token F1 on the whole rule (trigger + directive): lower-case,
//!   ASCII punctuation deleted, articles a/an/the dropped, multiset overlap.
//! - `directive_f1`: the same F1 on the directive alone.
//! - `agreement`: whether the *trigger* says the same thing, by [`trigger_similarity`]
//!   ≥ [`AGREEMENT_THRESHOLD`] — a comparator built to survive correct rewording
//!   ("is rejected as" vs "fails with") that exact token overlap punishes.
//!
//! CauterRule's own `token_f1` is a different metric (token *sets*, a stop-list, 1-char
//! tokens dropped); [`cauterule_set_f1`] computes it, labelled as such, so numbers can be
//! put side by side honestly.

use std::collections::HashMap;

/// Trigger agreement threshold on [`trigger_similarity`].
pub const AGREEMENT_THRESHOLD: f64 = 0.5;

/// SQuAD v1.1 normalisation: lower-case, delete ASCII punctuation, drop articles, split.
pub fn squad_tokens(s: &str) -> Vec<String> {
    let lowered: String = s.to_lowercase().chars().filter(|c| !c.is_ascii_punctuation()).collect();
    lowered
        .split_whitespace()
        .filter(|w| !matches!(*w, "a" | "an" | "the"))
        .map(str::to_string)
        .collect()
}

fn multiset_f1(pred: &[String], gold: &[String]) -> f64 {
    if pred.is_empty() || gold.is_empty() {
        return 0.0;
    }
    let mut counts: HashMap<&str, i64> = HashMap::new();
    for g in gold {
        *counts.entry(g.as_str()).or_default() += 1;
    }
    let mut common = 0i64;
    for p in pred {
        if let Some(c) = counts.get_mut(p.as_str()) {
            if *c > 0 {
                *c -= 1;
                common += 1;
            }
        }
    }
    if common == 0 {
        return 0.0;
    }
    let p = common as f64 / pred.len() as f64;
    let r = common as f64 / gold.len() as f64;
    2.0 * p * r / (p + r)
}

/// SQuAD v1.1 token F1 (empty vs empty is 0, as in v1.1).
pub fn squad_f1(pred: &str, gold: &str) -> f64 {
    multiset_f1(&squad_tokens(pred), &squad_tokens(gold))
}

const CAUTERULE_STOP: [&str; 22] = [
    "a", "an", "the", "and", "or", "to", "of", "in", "on", "for", "with", "is", "are", "be", "it", "this", "that",
    "when", "before", "after", "if", "then",
];

/// CauterRule-style token F1: token *sets* split on non-alphanumerics, a stop-list
/// (its published list is elided; ours is `CAUTERULE_STOP`) and 1-character tokens dropped.
pub fn cauterule_set_f1(pred: &str, gold: &str) -> f64 {
    let set = |s: &str| -> Vec<String> {
        let mut v: Vec<String> = s
            .to_lowercase()
            .split(|c: char| !c.is_alphanumeric())
            .filter(|w| w.chars().count() > 1 && !CAUTERULE_STOP.contains(w))
            .map(str::to_string)
            .collect();
        v.sort();
        v.dedup();
        v
    };
    multiset_f1(&set(pred), &set(gold))
}

/// Words that carry no meaning in a trigger.
const TRIGGER_STOP: [&str; 30] = [
    "a", "an", "the", "and", "or", "to", "of", "in", "on", "for", "with", "is", "are", "be", "it", "this", "that",
    "when", "before", "after", "if", "then", "as", "by", "because", "due", "its", "at", "from", "was",
];

/// Canonical forms for words that say the same thing about a failure.
fn canonical(word: &str) -> &str {
    match word {
        "fail" | "fails" | "failed" | "failing" | "failure" | "error" | "errors" | "errored" | "reject" | "rejects"
        | "rejected" | "rejection" | "denied" | "deny" | "refused" | "refuses" | "broken" | "breaks" | "crash"
        | "crashes" | "crashed" => "fail",
        "missing" | "absent" | "notfound" | "nonexistent" | "unresolved" | "unknown" | "undefined" => "missing",
        "module" | "package" | "dependency" | "dependencies" | "library" | "crate" | "import" | "imports" => "module",
        "timeout" | "timed" | "timeouts" | "hang" | "hangs" => "timeout",
        "behind" | "diverged" | "nonfastforward" | "stale" | "outdated" => "behind",
        _ => word,
    }
}

/// A light suffix stemmer: enough to meet "pushing"/"push", "changes"/"change".
fn stem(w: &str) -> String {
    for suffix in ["ing", "ed", "es", "s", "ly"] {
        if let Some(base) = w.strip_suffix(suffix) {
            if base.chars().count() >= 3 {
                return base.to_string();
            }
        }
    }
    w.to_string()
}

/// Content tokens of a trigger: lower-case, hyphenated words joined (`non-fast-forward`
/// stays one word), stop words dropped, synonyms and suffixes folded.
pub fn trigger_tokens(s: &str) -> Vec<String> {
    let lowered = s.to_lowercase().replace('-', "");
    lowered
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty() && !TRIGGER_STOP.contains(w))
        .map(|w| {
            let c = canonical(w);
            if c != w {
                return c.to_string();
            }
            let s = stem(w);
            canonical(&s).to_string()
        })
        .collect()
}

/// Similarity of two triggers in [0, 1]: multiset F1 over [`trigger_tokens`].
pub fn trigger_similarity(pred: &str, gold: &str) -> f64 {
    multiset_f1(&trigger_tokens(pred), &trigger_tokens(gold))
}

/// The per-trajectory scores of one extracted rule against its expected rule.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Scores {
    pub token_f1: f64,
    pub directive_f1: f64,
    pub trigger_similarity: f64,
    pub agreement: bool,
    pub cauterule_token_f1: f64,
}

/// Scores an extracted (trigger, directive) against the expected one.
pub fn score(pred_trigger: &str, pred_directive: &str, gold_trigger: &str, gold_directive: &str) -> Scores {
    let whole_pred = format!("{pred_trigger} {pred_directive}");
    let whole_gold = format!("{gold_trigger} {gold_directive}");
    let sim = trigger_similarity(pred_trigger, gold_trigger);
    Scores {
        token_f1: squad_f1(&whole_pred, &whole_gold),
        directive_f1: squad_f1(pred_directive, gold_directive),
        trigger_similarity: sim,
        agreement: sim >= AGREEMENT_THRESHOLD,
        cauterule_token_f1: cauterule_set_f1(&whole_pred, &whole_gold),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 5e-4
    }

    #[test]
    fn squad_vectors() {
        assert!(close(
            squad_f1(
                "pull latest changes before pushing",
                "pull the latest changes before you push"
            ),
            0.7273
        ));
        assert!(close(squad_f1("the cat the cat", "cat"), 0.6667));
        assert!(close(squad_f1("Run cargo update", "run `cargo update` first"), 0.8571));
        assert!(close(
            squad_f1(
                "git push fails with non-fast-forward",
                "! [rejected] main -> main (non-fast-forward) error: failed to push some refs to origin"
            ),
            0.2353
        ));
        assert_eq!(squad_f1("", ""), 0.0);
    }

    #[test]
    fn comparator_scores_near_verbatim_high_and_survives_rewording() {
        let gold = "git push fails with non-fast-forward";
        assert!(trigger_similarity("git push fails with non-fast-forward error", gold) >= 0.8);
        let reworded = trigger_similarity("`git push` is rejected as non-fast-forward", gold);
        assert!(reworded >= AGREEMENT_THRESHOLD, "{reworded}");
        let imports = trigger_similarity(
            "python import fails with ModuleNotFoundError",
            "python raises ModuleNotFoundError: a module is missing",
        );
        assert!(imports >= AGREEMENT_THRESHOLD, "{imports}");
        // Token F1 punishes the same rewording much harder: the reason agreement exists.
        assert!(squad_f1("`git push` is rejected as non-fast-forward", gold) < reworded);
        // Unrelated triggers do not agree.
        assert!(trigger_similarity("npm install fails with ERESOLVE peer dependency conflict", gold) < 0.3);
        assert!(trigger_similarity("", gold) == 0.0);
    }

    #[test]
    fn cauterule_variant_uses_sets_and_a_stop_list() {
        // Sets: repetition does not count twice; stop words and 1-char tokens vanish.
        assert!(close(cauterule_set_f1("the cat the cat", "cat"), 1.0));
        assert!(close(cauterule_set_f1("when x fails, then y", "fails"), 1.0));
    }

    #[test]
    fn score_reports_each_figure() {
        let s = score(
            "git push is rejected as non-fast-forward",
            "run `git pull --rebase`, then push again",
            "git push fails with non-fast-forward",
            "pull latest changes before pushing",
        );
        assert!(s.agreement);
        assert!(s.directive_f1 < 0.4 && s.directive_f1 > 0.0, "{s:?}");
        assert!(s.token_f1 > 0.2 && s.token_f1 < 0.7, "{s:?}");
    }
}
