//! One value the retries of a class gave, however each gave it: `cargo +stable build` and
//! `RUSTUP_TOOLCHAIN=stable cargo build` after "toolchain … is not installed"; `perl -Ilib
//! x.pl` and `PERL5LIB=lib perl x.pl` after "Can't locate … in @INC"; `sqlite3 -cmd
//! '.timeout 10000' db …` and `sqlite3 db '.timeout 8000' …` after "database is locked".
//!
//! Why: each spelling is its own kind of change (a `+toolchain` operand, an environment
//! setting, an option, an operand), so four sessions that did one thing split two against
//! two and contested each other. What they share is the value the retry gave, new to the
//! failing command: no table says that `+stable` is `RUSTUP_TOOLCHAIN`, or `-I` is
//! `PERL5LIB`. Only retries changed and nothing else (no step): a value in a step is some
//! other action's ([`crate::learn::propose::shared_option`] covers an option given there).

use crate::learn::history::episodes::{Episode, Prepared};
use std::collections::BTreeSet;

/// Words no value is told by: what a switch is set to.
const SWITCH_WORDS: [&str; 6] = ["true", "false", "yes", "none", "null", "off"];

/// The value words of a word as typed: split at anything but letters, digits, `_` and
/// `-`, each piece without its leading dashes, pluses or dots, lowercased; a short
/// option's attached value besides (`-Ilib`: `lib`). Three characters or more, not a
/// number, not a switch's setting.
fn values_in(word: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut push = |piece: &str| {
        let p = piece.trim_start_matches(['-', '+', '.']).to_ascii_lowercase();
        if p.len() >= 3 && !p.chars().all(|c| c.is_ascii_digit()) && !SWITCH_WORDS.contains(&p.as_str()) {
            out.push(p);
        }
    };
    for piece in word.split(|c: char| !(c.is_alphanumeric() || c == '_' || c == '-' || c == '.' || c == '+')) {
        push(piece);
        // A setting's words (`busy_timeout`: `timeout`, as `.timeout` said it;
        // `--test-threads`: `threads`, as `RUST_TEST_THREADS` says it).
        let words = piece.trim_start_matches(['-', '+', '.']);
        if words.contains(['_', '-']) {
            words.split(['_', '-']).for_each(&mut push);
        }
        let attached = piece.len() > 2 && piece.starts_with('-') && !piece.starts_with("--");
        if attached {
            push(&piece[2..]);
        }
    }
    out
}

/// The values a recovery's retry gave that its failing command did not have: only a
/// retry changed by words as typed (a form's carried text, never its name:
/// [`crate::learn::history::fix_key::typed_in`]), with no step before it. Not a retry that
/// also switched something off (`--no-color`): that is another choice beside the value.
pub fn new_values(e: &Episode, prep: &Prepared) -> BTreeSet<String> {
    if !e.steps.is_empty() || e.variant.iter().any(|w| w.starts_with("--no-")) {
        return BTreeSet::new();
    }
    let Some(fail) = prep.failing(e.fail_idx) else {
        return BTreeSet::new();
    };
    let had: BTreeSet<String> = fail.words.iter().flat_map(|w| values_in(w)).collect();
    e.variant
        .iter()
        .filter_map(|w| crate::learn::history::fix_key::typed_in(w))
        .flat_map(values_in)
        .filter(|v| !had.contains(v))
        .collect()
}

/// The other spellings of the value, named beside the directive: the changed retries
/// `only_by_value` (sessions that agree with the group by the value alone, as typed:
/// `RUSTUP_TOOLCHAIN=stable` beside `+stable`). Joined to the directive's own "also seen"
/// list when it has one; the directive unchanged when there are none.
pub fn said_otherwise(directive: &str, episodes: &[Episode], only_by_value: impl Iterator<Item = usize>) -> String {
    let mut said: Vec<String> = Vec::new();
    for ei in only_by_value {
        // Said only when every word is as typed: a form (`insert:…`) is no shell.
        let as_typed = |w: &String| crate::learn::history::fix_key::typed_in(w) == Some(w.as_str());
        if !episodes[ei].variant.iter().all(as_typed) {
            continue;
        }
        let text = crate::learn::propose::render::quote_cmd(&crate::learn::propose::render::quote_words(
            &episodes[ei].variant,
        ));
        if !said.contains(&text) && !directive.contains(&text) && said.len() < 3 {
            said.push(text);
        }
    }
    if said.is_empty() {
        return directive.to_string();
    }
    match directive.strip_suffix(')').filter(|d| d.contains(" (also seen: ")) {
        Some(open) => format!("{open}, {})", said.join(", ")),
        None => format!("{directive}{}", crate::learn::propose::render::also_said(&said)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_value_is_found_however_it_was_given() {
        assert_eq!(values_in("+stable"), ["stable"]);
        assert_eq!(
            values_in("RUSTUP_TOOLCHAIN=stable"),
            ["rustup_toolchain", "rustup", "toolchain", "stable"]
        );
        assert!(values_in("-Ilib").contains(&"lib".to_string()));
        assert!(values_in("PERL5LIB=\"$PWD/lib\"").contains(&"lib".to_string()));
        assert_eq!(values_in(".timeout 8000"), ["timeout"]);
        assert_eq!(values_in("--csv"), ["csv"]);
        assert!(values_in("--test-threads=1").contains(&"threads".to_string()));
        assert!(values_in("RUST_TEST_THREADS=1").contains(&"threads".to_string()));
    }

    #[test]
    fn numbers_switches_and_short_pieces_are_no_values() {
        assert!(values_in("-j 4").is_empty());
        assert!(values_in("CI=true").iter().all(|v| v != "true"));
        assert!(values_in("-I.").is_empty());
    }
}
