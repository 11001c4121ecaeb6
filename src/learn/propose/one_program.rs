//! One cause in several texts of one program: a class across texts, learned when no
//! text's share stands alone.
//!
//! Why: a cluster without an anchor is its one-line text, so one cause worded two ways by
//! one program (`cargo new` on a keyword, "invalid package name `match`: it is a Rust
//! keyword", and on a leading digit, "invalid character `2` in package name … cannot start
//! with a digit"; both fixed by `--name`) splits into clusters below the recurrence
//! minimum, and nothing is learned from sessions that did the same thing. The texts are one
//! class when:
//!
//! - they say the same words: at least [`MIN_SHARED`] terms in common (masked values and
//!   stop words aside), at least half of the shorter text's; or one says all the other
//!   says (two terms or more) inside a frame of its own (`error: file is not a database`
//!   in `error: in prepare, file is not a database (<n>)`);
//! - every recovery of each member agrees with the reference's fix (the member with most
//!   sessions), and names the same flags (`--name` in both; a kind of change alone, "a
//!   flag added", is not enough within one program), or is the same steps (a step fix's
//!   key says which);
//! - not all of them stand on their own (a text that does joins those that do not; its
//!   own rule is folded into the class's as the same lesson).
//!
//! The merged candidate is the program's, its trigger the shared words in the reference's
//! order; it is stored as a class across programs of one program (`domains`, and its
//! cluster `cross:words:…`, by which a stored rule finds its support again:
//! [`crate::learn::propose::cross_program::member`]).

use crate::learn::history::episodes::{Episode, Prepared};
use crate::learn::matching::compiled_trigger::{compile, OR};
use crate::learn::matching::matcher::{TriggerSpec, Vocab};
use crate::learn::propose::candidates::Candidate;
use crate::learn::propose::cross_program::{a_class, agrees_with, merged, observed, sessions, words, TEXTS};
use std::collections::BTreeSet;

/// Terms two texts must share to be one cause's wording.
pub const MIN_SHARED: usize = 3;

/// A candidate's one-line text, when its cluster is one.
fn text_of(c: &Candidate) -> Option<&str> {
    let (_, t) = c.cluster.split_once("|tpl:")?;
    (!t.contains(" | ") && c.anchors.is_empty()).then_some(t)
}

/// The flags the recoveries of a candidate added or changed (`--name`; `-std` of
/// `-std=c99`), when every recovery named the same ones.
fn flags(c: &Candidate, episodes: &[Episode]) -> Option<BTreeSet<String>> {
    let of = |e: &Episode| -> BTreeSet<String> {
        e.variant
            .iter()
            .map(|w| w.trim_start_matches("value:"))
            .filter(|w| w.starts_with('-') && w.len() > 1 && *w != "--")
            .map(|w| w.split('=').next().unwrap_or(w).to_string())
            .collect()
    };
    let mut sets = c.covering.iter().map(|&ei| of(&episodes[ei]));
    let first = sets.next()?;
    (!first.is_empty() && sets.all(|s| s == first)).then_some(first)
}

/// How much of each text a trigger of several texts quotes: enough for the words that
/// tell the texts apart (`…only allowed in C99 or C11 mode`).
const ALTERNATIVE_CHARS: usize = 120;

/// Can a text join another by the option its recoveries changed (`-std=c89` → `-std=c99`
/// after "'for' loop initial declarations are only allowed in C99 mode", and after "C++
/// style comments are not allowed in ISO C90")? Yes when every recovery gave an option
/// another value and nothing else, and the text recurs on its own (two sessions or more):
/// a text met once is no class to join. Asked of the reference once and of each other
/// text; that both changed the *same* options is the merge's flag test. Two texts of one
/// program so fixed are one cause, the option's setting, however each words it.
fn one_option_value(c: &Candidate, episodes: &[Episode], prep: &Prepared) -> bool {
    values_only(c, episodes) && sessions(&c.covering, episodes, prep) >= 2
}

/// The specs of a trigger of several texts ([`crate::learn::matching::compiled_trigger::alternatives`]),
/// each scored as the candidate's own (its domains and actions), as a stored rule's are.
pub fn alternative_specs(c: &Candidate, vocab: &mut Vocab) -> Vec<TriggerSpec> {
    // Asked of every candidate: compiling runs the signature masks, so only a trigger that
    // names several texts is compiled.
    if !c.trigger.contains(OR) {
        return Vec::new();
    }
    compile(&c.trigger, &c.domain)
        .alternatives
        .iter()
        .map(|a| TriggerSpec {
            domain: c.domain.clone(),
            action: c.action.clone(),
            actions: c.actions.clone(),
            domains: c.domains.clone(),
            ..a.spec(vocab)
        })
        .collect()
}

/// Did every recovery of `c` change an option's value and nothing else (`-std=c89` →
/// `-std=c99`)?
fn values_only(c: &Candidate, episodes: &[Episode]) -> bool {
    !c.covering.is_empty()
        && c.covering.iter().all(|&ei| {
            let v = &episodes[ei].variant;
            !v.is_empty() && v.iter().all(|w| w.starts_with("value:"))
        })
}

/// The reference's text said with the shared words only, a gap as `…`: `error: invalid …
/// package name`.
fn shared_text(text: &str, shared: &BTreeSet<String>) -> String {
    let mut out: Vec<&str> = Vec::new();
    let mut said: BTreeSet<String> = BTreeSet::new();
    for tok in text.split_whitespace() {
        if said.len() == shared.len() {
            break;
        }
        let w = words(tok);
        // Each shared word once, where the reference first says it.
        if !w.is_empty() && w.iter().all(|t| shared.contains(t)) && !w.iter().all(|t| said.contains(t)) {
            said.extend(w);
            out.push(tok);
        } else if out.last().is_some_and(|l| *l != "…") {
            out.push("…");
        }
    }
    while out.last() == Some(&"…") {
        out.pop();
    }
    out.join(" ").trim_end_matches([':', ',', ';', '.']).to_string()
}

/// The merged candidates for `cands` (appended by the caller). `stands_alone`: whether a
/// candidate has the recurrence to be accepted on its own (the judge's minimum). Pure.
pub fn merge(
    cands: &[Candidate],
    episodes: &[Episode],
    prep: &Prepared,
    stands_alone: impl Fn(&Candidate, usize) -> bool,
) -> Vec<Candidate> {
    let pool: Vec<(usize, BTreeSet<String>, BTreeSet<String>)> = (0..cands.len())
        .filter(|&i| observed(&cands[i]))
        .filter_map(|i| {
            let t = text_of(&cands[i])?;
            // A step fix is known by its steps (its key says which); a changed command
            // only by the flags it changed.
            let steps = crate::learn::propose::cross_program::fix_of(&cands[i]).starts_with("steps:");
            let f = if steps {
                Some(BTreeSet::new())
            } else {
                flags(&cands[i], episodes)
            };
            Some((i, words(t), f?))
        })
        .collect();
    let mut refs: Vec<usize> = (0..pool.len()).collect();
    refs.sort_by_key(|&p| {
        let c = &cands[pool[p].0];
        (std::cmp::Reverse(sessions(&c.covering, episodes, prep)), c.key.clone())
    });
    let mut used: BTreeSet<usize> = BTreeSet::new();
    let mut out = Vec::new();
    for &r in &refs {
        let (ri, rw, rf) = &pool[r];
        if used.contains(ri) {
            continue;
        }
        let rc = &cands[*ri];
        let mut members = vec![*ri];
        let mut shared = rw.clone();
        // Joined by the option whose value every recovery changed, not by shared words:
        // the class is said as its texts, each matched apart.
        let mut by_value = false;
        let rc_by_value = one_option_value(rc, episodes, prep);
        for (oi, ow, of) in &pool {
            let c = &cands[*oi];
            if used.contains(oi) || members.contains(oi) || c.domain != rc.domain || c.cluster == rc.cluster || of != rf
            {
                continue;
            }
            let common: BTreeSet<String> = shared.intersection(ow).cloned().collect();
            // Or one text says all the other says, in a frame of its own (`error: file is
            // not a database` inside `error: in prepare, file is not a database (<n>)`).
            let within = common.len() >= 2 && (common == *ow || common == *rw);
            let alike = common.len() >= MIN_SHARED && common.len() * 2 >= rw.len().min(ow.len());
            let one_value = !(alike || within) && rc_by_value && one_option_value(c, episodes, prep);
            if (alike || within || one_value) && agrees_with(c, rc, episodes) {
                members.push(*oi);
                if alike || within {
                    shared = common;
                } else {
                    by_value = true;
                }
            }
        }
        if !a_class(&members, cands, episodes, prep, &stands_alone) {
            continue;
        }
        used.extend(members.iter().copied());
        let texts: Vec<&str> = members.iter().filter_map(|&m| text_of(&cands[m])).collect();
        let (text, said) = if by_value {
            (
                BTreeSet::from([format!("texts:{}", texts.join(TEXTS))]),
                texts[0].to_string(),
            )
        } else {
            let key = shared.iter().cloned().collect::<Vec<_>>().join(" ");
            let said = shared_text(text_of(rc).unwrap_or_default(), &shared);
            (BTreeSet::from([format!("words:{key}")]), said)
        };
        let mut c = merged(cands, &members, &text, episodes, prep);
        c.domain = rc.domain.clone();
        c.domains = vec![rc.domain.clone()];
        c.label = rc.label.clone();
        c.template = said.clone();
        let quoted: Vec<String> = if by_value {
            texts
                .iter()
                .map(|t| crate::evidence::head_chars(t, ALTERNATIVE_CHARS).to_string())
                .collect()
        } else {
            vec![crate::evidence::head_chars(&said, 80).to_string()]
        };
        c.trigger = format!("`{}` fails with \"{}\"", rc.label, quoted.join(OR));
        c.directive = rc.directive.clone();
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_texts_words_leave_its_placeholders_out() {
        let w = words("error: invalid package name <q>: it is a rust keyword");
        assert!(
            w.contains("invalid") && w.contains("packag") || w.contains("package"),
            "{w:?}"
        );
        assert!(!w.iter().any(|t| t == "q"), "{w:?}");
        let shared: BTreeSet<String> = words("error: invalid package name").into_iter().collect();
        assert_eq!(
            shared_text(
                "error: invalid character <q> in package name: <q>, it cannot start",
                &shared
            ),
            "invalid … package name"
        );
    }

    /// A stored rule finds its support again in either text of its program, not in
    /// another text or another program.
    #[test]
    fn a_stored_rule_finds_both_texts_again() {
        use crate::learn::propose::cross_program::member;
        let cargo = ["cargo".to_string()];
        let key = "cross:words:invalid name package";
        let digit = "cargo|tpl:error: invalid character <q> in package name: <q>, the name cannot start with a digit";
        assert!(member(key, digit, &cargo, &[], ""));
        assert!(member(
            key,
            "cargo|tpl:error: invalid package name <q>: it is a rust keyword",
            &cargo,
            &[],
            ""
        ));
        assert!(!member(
            key,
            "cargo|tpl:error: destination <path> already exists",
            &cargo,
            &[],
            ""
        ));
        assert!(!member(key, &digit.replace("cargo|", "npm|"), &cargo, &[], ""));
    }
}
