//! Error texts that say the same thing: failures whose masked texts differ in one name
//! are one failure class.
//!
//! Why: the signature masks what it can recognise as the session's own (paths, numbers,
//! quoted names), but a tool may print a name bare — `*** PREFIX is not set.  Stop.`,
//! `no such table: users` — and then each session's name split one cause into clusters
//! of one, each below the recurrence minimum. No list of such messages is kept: across
//! the history's failure texts, two texts that are the same but for one word are
//! anti-unified, that word becomes a hole (`<name>`), and every text that agrees with
//! another at that hole joins one cluster ([`crate::learn::history::prepared::Prepared::cluster_key`]).
//! Texts with anchors are not touched (the anchor is their class already); short texts
//! (fewer than [`MIN_WORDS`] words) never merge: there one word is most of what they say.
//!
//! Texts that differ only in their symbols (`grep: Unmatched ( or \(` and `grep:
//! Unmatched [, [^, [:, [., or [=`) say the same thing whatever their length: a token with
//! no letter or digit is the offending input's characters echoed back, like a quoted
//! name, never a word of the message. Each run of such tokens is a [`SYMBOLS`] hole; the
//! words stay exactly as they were, so nothing a message *says* is generalised.

use std::collections::HashMap;
use std::hash::{Hash, Hasher};

/// Fewest words a text must have before one differing word may be a hole in it.
pub const MIN_WORDS: usize = 5;

/// The hole a differing word becomes.
pub const HOLE: &str = "<name>";

/// A word that may be a name: letters, digits, `_`, `-`, with a letter; or a path the
/// signature masked (`<path>`: `byte/character` in `cut: byte/character positions are
/// numbered from 1` against `cut: fields are numbered from 1`); not the first word (the
/// program or the severity: `error:`, `make:`), not a hole already.
fn name_like(w: &str) -> bool {
    w == "<path>"
        || w.chars().any(|c| c.is_ascii_alphabetic())
            && w.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
}

/// Words that turn a message into its opposite: never part of a hole (`X is set` and `X
/// is not set` say opposite things).
const NEGATIONS: &[&str] = &["not", "no", "cannot", "never", "none", "nothing", "without"];

/// Longest run of words a hole may stand for (`pull with` in `cannot pull with rebase:`
/// against `cannot rebase:`, one cause worded by two commands of one tool).
pub const MAX_HOLE: usize = 2;

/// Every text with a run of 0 to [`MAX_HOLE`] name-like words made a hole (a hole of no
/// words is where another text says one or two more), as (hole length, position, hash of
/// the text with the hole): hashes, not strings, so a history of many distinct texts
/// costs a few bytes per generalisation. What stays around the hole must be at least
/// `MIN_WORDS - 1` words.
fn generalisations(words: &[&str]) -> Vec<(usize, usize, u64)> {
    // Words, not symbols: `grep: Unmatched ( or \(` is three words, too short for one
    // of them to be a hole (`Unmatched` against `Invalid` would be another message).
    let said = words.iter().filter(|w| w.chars().any(char::is_alphanumeric)).count();
    if said < MIN_WORDS {
        return Vec::new();
    }
    let mut out = Vec::new();
    for i in 1..=words.len() {
        for len in 0..=MAX_HOLE {
            let Some(run) = words.get(i..i + len) else { break };
            if !run
                .iter()
                .all(|w| name_like(w) && !NEGATIONS.contains(&w.to_ascii_lowercase().as_str()))
                || said - len < MIN_WORDS - 1
            {
                break;
            }
            let mut h = std::collections::hash_map::DefaultHasher::new();
            for w in words[..i].iter().chain([&HOLE]).chain(&words[i + len..]) {
                w.hash(&mut h);
            }
            out.push((len, i, h.finish()));
        }
    }
    out
}

/// The text with words `i..i + len` made the hole.
fn spell(words: &[&str], i: usize, len: usize) -> String {
    let mut g: Vec<&str> = words[..i].to_vec();
    g.push(HOLE);
    g.extend_from_slice(&words[i + len..]);
    g.join(" ")
}

/// The hole a run of symbol tokens becomes.
pub const SYMBOLS: &str = "<sym>";

/// Fewest word tokens (with a letter or digit) a text's skeleton must keep: a text of
/// symbols and one word says nothing to agree on.
const MIN_SKELETON_WORDS: usize = 3;

/// The text with each run of symbol-only tokens made one [`SYMBOLS`] hole (the ` | `
/// between error lines is no symbol: lines stay lines); `None` when it has no such token
/// or too few words.
fn skeleton(words: &[&str]) -> Option<String> {
    let symbol = |w: &str| w != "|" && !w.is_empty() && !w.chars().any(char::is_alphanumeric);
    if !words.iter().any(|w| symbol(w))
        || words.iter().filter(|w| w.chars().any(char::is_alphanumeric)).count() < MIN_SKELETON_WORDS
    {
        return None;
    }
    let mut out: Vec<&str> = Vec::with_capacity(words.len());
    for w in words {
        if !symbol(w) {
            out.push(w);
        } else if out.last() != Some(&SYMBOLS) {
            out.push(SYMBOLS);
        }
    }
    Some(out.join(" "))
}

/// For the given distinct texts: text → the anti-unified text of its class, for every
/// text that shares its generalisation with another one. A text with several candidate
/// holes takes the one most texts share (of equals the smallest hole, then the earliest).
/// Deterministic: the result depends on the set of texts, not their order.
pub fn merged<'a>(texts: impl IntoIterator<Item = &'a str>) -> HashMap<String, String> {
    let mut distinct: Vec<&str> = texts.into_iter().filter(|t| !t.is_empty()).collect();
    distinct.sort_unstable();
    distinct.dedup();
    // Texts that differ only in symbols: one skeleton (counted first, it wins).
    let mut skeletons: HashMap<String, Vec<&str>> = HashMap::new();
    for t in &distinct {
        let words: Vec<&str> = t.split(' ').collect();
        if let Some(k) = skeleton(&words) {
            skeletons.entry(k).or_default().push(t);
        }
    }
    let mut out = HashMap::new();
    for (k, ts) in skeletons.into_iter().filter(|(_, ts)| ts.len() >= 2) {
        for t in ts {
            out.insert(t.to_string(), k.clone());
        }
    }
    // Two passes over the generalisations (counted, then chosen from): none is kept.
    let mut count: HashMap<u64, u32> = HashMap::new();
    for t in &distinct {
        let words: Vec<&str> = t.split(' ').collect();
        // A text counts once per generalisation (a hole of no words at two places can
        // give one text twice).
        let mut mine: Vec<u64> = generalisations(&words).into_iter().map(|g| g.2).collect();
        mine.sort_unstable();
        mine.dedup();
        for g in mine {
            *count.entry(g).or_default() += 1;
        }
    }
    for t in &distinct {
        if out.contains_key(*t) {
            continue;
        }
        let words: Vec<&str> = t.split(' ').collect();
        let best = generalisations(&words)
            .into_iter()
            .filter(|g| count[&g.2] >= 2)
            .min_by_key(|&(len, i, g)| (std::cmp::Reverse(count[&g]), len, i));
        if let Some((len, i, _)) = best {
            out.insert(t.to_string(), spell(&words, i, len));
        }
    }
    // Texts of several lines that differ in one line after the first: the tool's hint
    // under one error (`npm error Missing script: "x"` with "Did you mean this?" or with
    // "To see a list of scripts, run:", depending on what the project holds).
    let lines = |t: &str| -> Vec<String> { t.split(" | ").map(str::to_string).collect() };
    let mut by_hint: HashMap<String, Vec<&str>> = HashMap::new();
    for t in distinct.iter().filter(|t| !out.contains_key(**t)) {
        let l = lines(t);
        if l.len() < MIN_LINES || l[0].split(' ').count() < MIN_WORDS {
            continue;
        }
        for j in 1..l.len() {
            let mut g = l.clone();
            g[j] = LINE.to_string();
            by_hint.entry(g.join(" | ")).or_default().push(t);
        }
    }
    // The generalisation most texts share wins (of equals the first in order: deterministic).
    let mut shared: Vec<(String, Vec<&str>)> = by_hint.into_iter().filter(|(_, ts)| ts.len() >= 2).collect();
    shared.sort_by(|a, b| b.1.len().cmp(&a.1.len()).then_with(|| a.0.cmp(&b.0)));
    for (g, ts) in shared {
        for t in ts {
            out.entry(t.to_string()).or_insert_with(|| g.clone());
        }
    }
    out
}

/// Fewest lines a text must have before one line after the first may differ.
pub const MIN_LINES: usize = 3;

/// The hole a differing line becomes.
pub const LINE: &str = "<line>";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_masked_path_may_stand_in_a_hole() {
        let fields = "cut: fields are numbered from <n> | try <q> for more information.";
        let bytes = "cut: <path> positions are numbered from <n> | try <q> for more information.";
        let m = merged([fields, bytes]);
        assert_eq!(m.get(fields), m.get(bytes), "{m:?}");
        assert!(m.contains_key(fields));
    }

    #[test]
    fn texts_that_differ_in_one_hint_line_merge() {
        let a = "npm error missing script: <q> | npm error | npm error did you mean this? | npm error a complete log of this run can be found in: <path>";
        let b = "npm error missing script: <q> | npm error | npm error to see a list of scripts, run: | npm error a complete log of this run can be found in: <path>";
        let m = merged([a, b]);
        assert_eq!(m.get(a), m.get(b), "{m:?}");
        assert!(m[a].contains(LINE), "{m:?}");
        // The first line differing is another error; two lines are too few to say which
        // line is the hint; a short first line says too little.
        for pair in [
            [
                "error: the lock file is stale now | note: a | note: b",
                "error: permission denied on the socket | note: a | note: b",
            ],
            [
                "error: the build failed here now | hint: run the migrations first",
                "error: the build failed here now | hint: remove the cache directory and retry",
            ],
            [
                "error: failed | hint: run the migrations first | done",
                "error: failed | hint: remove the cache directory and retry | done",
            ],
        ] {
            assert!(merged(pair).is_empty(), "{pair:?} merged: {:?}", merged(pair));
        }
    }

    #[test]
    fn texts_that_differ_in_one_name_merge() {
        let texts = [
            "makefile:<n>: *** prefix is not set. stop.",
            "makefile:<n>: *** version is not set. stop.",
            "makefile:<n>: *** destdir is not set. stop.",
            "makefile:<n>: *** missing separator. stop.",
        ];
        let m = merged(texts);
        let said = "makefile:<n>: *** <name> is not set. stop.";
        for t in &texts[..3] {
            assert_eq!(m.get(*t).map(String::as_str), Some(said), "{t}");
        }
        assert!(!m.contains_key(texts[3]), "another message stays its own: {m:?}");
    }

    #[test]
    fn texts_that_differ_only_in_symbols_merge_whatever_their_length() {
        let paren = "grep: unmatched ( or \\(";
        let bracket = "grep: unmatched [, [^, [:, [., or [=";
        let m = merged([paren, bracket, "grep: unmatched ) or \\)"]);
        assert_eq!(
            m.get(paren).map(String::as_str),
            Some("grep: unmatched <sym> or <sym>"),
            "{m:?}"
        );
        assert_eq!(m.get(paren), m.get(bracket), "{m:?}");
        // A word differing is no symbol; a text alone merges with nothing; symbols and
        // too few words say nothing to agree on; a line break is no symbol.
        for pair in [
            ["grep: unmatched ( or \\(", "grep: invalid ( or \\("],
            ["error: ( x", "error: [ x"],
            ["grep: unmatched ( | or x", "grep: unmatched ( or x"],
        ] {
            assert!(merged(pair).is_empty(), "{pair:?}: {:?}", merged(pair));
        }
        assert!(merged(["grep: unmatched ( or \\("]).is_empty());
    }

    #[test]
    fn short_texts_and_texts_alone_do_not_merge() {
        // Four words: one word is a quarter of what they say (`not found` vs `not
        // writable` would be other causes).
        let m = merged(["error: x not found", "error: x not writable"]);
        assert!(m.is_empty(), "{m:?}");
        // One text alone has nothing to agree with.
        assert!(merged(["error: in prepare, no such table: users"]).is_empty());
        // Two words differing is two things said.
        let m = merged([
            "error: cannot open the file for reading",
            "error: cannot create the dir for writing",
        ]);
        assert!(m.is_empty(), "{m:?}");
    }

    #[test]
    fn the_hole_most_texts_share_wins_whatever_the_order() {
        let a = [
            "e: no such column: bob in table users",
            "e: no such column: ann in table users",
            "e: no such column: ann in table tags",
        ];
        let b = [a[2], a[0], a[1]];
        assert_eq!(merged(a), merged(b));
        let m = merged(a);
        assert_eq!(m[a[0]], "e: no such column: <name> in table users");
        assert_eq!(m[a[1]], "e: no such column: <name> in table users");
        // The third agrees with the second only at the table's name: its own class.
        assert_eq!(m[a[2]], "e: no such column: ann in table <name>");
    }

    #[test]
    fn one_cause_worded_by_two_commands_merges_but_a_negation_never_is_a_hole() {
        let pull = "error: cannot pull with rebase: you have unstaged changes. | error: please commit or stash them.";
        let rebase = "error: cannot rebase: you have unstaged changes. | error: please commit or stash them.";
        let m = merged([pull, rebase]);
        assert_eq!(m.get(pull), m.get(rebase), "{m:?}");
        assert!(m[pull].contains("cannot <name> rebase:"), "{m:?}");
        // `is set` / `is not set`: opposite messages stay apart.
        let m = merged([
            "warning: the variable prefix is set here",
            "warning: the variable prefix is not set here",
        ]);
        assert!(m.is_empty(), "{m:?}");
    }
}
