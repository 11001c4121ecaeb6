//! The options a failure's own text names, in every spelling it gives them: GNU patch's
//! `Perhaps you used the wrong -p or --strip option?` names one option, spelt `-p` and
//! `--strip`.
//!
//! Why: a session that set the option the tool asked about did the same thing whichever
//! spelling it typed (`-p1`, `--strip=1`) and whether the option was there before with
//! another value (`-p0` → `-p1`) or not at all (the default). The tool's message is the
//! only place that says two spellings are one option without a table of synonyms
//! ([`crate::learn::text::spelling`] keeps none for flags); the recovery that uses it is
//! [`crate::learn::history::option_set`].

/// A word as an option's name: `-p` (one letter) or `--strip` (two letters or more), the
/// quotes and punctuation around it and any `=value` dropped. `None` for anything else
/// (`--`, `-1`, `a-b`).
pub(crate) fn option_name(word: &str) -> Option<String> {
    let w = word.trim_matches(|c: char| matches!(c, '\'' | '"' | '`' | '(' | ')' | ',' | '.' | '?' | ';' | ':' | '!'));
    let w = w.split_once('=').map_or(w, |(name, _)| name);
    let short = w.len() == 2 && w.starts_with('-') && w.as_bytes()[1].is_ascii_alphabetic();
    let long = w.len() >= 4
        && w.starts_with("--")
        && w[2..].starts_with(|c: char| c.is_ascii_alphabetic())
        && w[2..].chars().all(|c| c.is_ascii_alphanumeric() || c == '-');
    (short || long).then(|| w.to_string())
}

/// The options the text names, each as its spellings (the first as the text gives it
/// first): `[["-p", "--strip"]]`. Two names are one option when the text joins a short
/// and a long one by `or`, `/` or a comma (`-p or --strip`, `-p/--strip`, `-p, --strip`):
/// the ways tools and their usage lines say "the same option". Two long names (`--ours
/// or --theirs`) or two short ones are two options: a choice, not two spellings.
pub fn named(tail: &str) -> Vec<Vec<String>> {
    let mut out: Vec<Vec<String>> = Vec::new();
    for line in tail.lines() {
        let words: Vec<&str> = line.split_whitespace().flat_map(|w| split_slash(w)).collect();
        let mut i = 0;
        while i < words.len() {
            let Some(a) = option_name(words[i]) else {
                i += 1;
                continue;
            };
            let joined = |j: usize| -> Option<String> {
                let b = option_name(words.get(j)?)?;
                (a.starts_with("--") != b.starts_with("--")).then_some(b)
            };
            let pair = match words.get(i + 1).copied() {
                Some("or" | "/") => joined(i + 2).map(|b| (b, 3)),
                _ if words[i].ends_with(',') => joined(i + 1).map(|b| (b, 2)),
                _ => None,
            };
            let (group, step) = match pair {
                Some((b, step)) => (vec![a, b], step),
                None => (vec![a], 1),
            };
            if !out.iter().any(|g| g.iter().any(|s| group.contains(s))) {
                out.push(group);
            }
            i += step;
        }
    }
    out
}

/// `-p/--strip` as `-p`, `/`, `--strip`; any other word whole.
fn split_slash(w: &str) -> Vec<&str> {
    match w.split_once('/') {
        Some((a, b)) if option_name(a).is_some() && option_name(b).is_some() => vec![a, "/", b],
        _ => vec![w],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_short_and_a_long_name_joined_are_one_option() {
        for tail in [
            "can't find file to patch at input line 3\nPerhaps you used the wrong -p or --strip option?",
            "Perhaps you should have used the -p or --strip option?",
            "usage: -p/--strip NUM",
            "  -p, --strip=NUM  strip NUM leading components",
        ] {
            assert_eq!(
                named(tail),
                vec![vec!["-p".to_string(), "--strip".to_string()]],
                "{tail}"
            );
        }
    }

    #[test]
    fn two_long_names_or_lone_names_are_options_of_their_own() {
        assert_eq!(
            named("error: use --ours or --theirs to pick a side"),
            vec![vec!["--ours".to_string()], vec!["--theirs".to_string()]]
        );
        assert_eq!(
            named("hint: pass `--features cli` (or -F)"),
            vec![vec!["--features".to_string()], vec!["-F".to_string()]]
        );
        assert!(named("error: 3 files changed -- see a-b.txt, -1 is not a flag").is_empty());
    }
}
