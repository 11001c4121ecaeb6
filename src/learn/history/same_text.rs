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

use std::collections::HashMap;

/// Fewest words a text must have before one differing word may be a hole in it.
pub const MIN_WORDS: usize = 5;

/// The hole a differing word becomes.
pub const HOLE: &str = "<name>";

/// A word that may be a name: letters, digits, `_`, `-`, with a letter; not the first
/// word (the program or the severity: `error:`, `make:`), not a hole already.
fn name_like(w: &str) -> bool {
    w.chars().any(|c| c.is_ascii_alphabetic()) && w.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
}

/// Every text with one name-like word made a hole.
fn generalisations(text: &str) -> Vec<String> {
    let words: Vec<&str> = text.split(' ').collect();
    if words.iter().filter(|w| !w.is_empty()).count() < MIN_WORDS {
        return Vec::new();
    }
    (1..words.len())
        .filter(|&i| name_like(words[i]))
        .map(|i| {
            let mut g: Vec<&str> = words.clone();
            g[i] = HOLE;
            g.join(" ")
        })
        .collect()
}

/// For the given distinct texts: text → the anti-unified text of its class, for every
/// text that shares its generalisation with another one. A text with several candidate
/// holes takes the one most texts share (then the earliest word). Deterministic: the
/// result depends on the set of texts, not their order.
pub fn merged<'a>(texts: impl IntoIterator<Item = &'a str>) -> HashMap<String, String> {
    let mut distinct: Vec<&str> = texts.into_iter().filter(|t| !t.is_empty()).collect();
    distinct.sort_unstable();
    distinct.dedup();
    let gens: Vec<Vec<String>> = distinct.iter().map(|t| generalisations(t)).collect();
    let mut count: HashMap<&str, usize> = HashMap::new();
    for g in gens.iter().flatten() {
        *count.entry(g.as_str()).or_default() += 1;
    }
    let mut out = HashMap::new();
    for (t, gs) in distinct.iter().zip(&gens) {
        // Highest count first; `max_by_key` keeps the last of equals, so walk reversed
        // to keep the earliest hole.
        let best = gs
            .iter()
            .rev()
            .filter(|g| count[g.as_str()] >= 2)
            .max_by_key(|g| count[g.as_str()]);
        if let Some(g) = best {
            out.insert(t.to_string(), g.clone());
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

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
}
