//! One option the fixes of a class share, wherever each session gave it: `-fPIC` as a
//! compiler flag on the retry (`gcc -shared -fPIC …`), on a step that rebuilt the input
//! (`gcc -fPIC -c …`), or inside a build variable (`make CFLAGS='-O2 -fPIC' …`).
//!
//! Why: each of those is its own fix key (a variant, a step of `cc`, a step of `make`), so
//! dev6's `c-shared-object-needs-fpic` contested itself 1 against 1 against 1 though every
//! session did the one thing the linker asked. What they share is the option, new to the
//! failing command in every one of them; no table says which options matter.

use crate::learn::history::episodes::{Episode, Prepared};
use std::collections::BTreeSet;

/// An option word long enough to mean something by itself (`-fPIC`, `-fcommon`,
/// `--unshallow`): a single dash and 4 characters or more, or a double dash and 6 or more.
fn option_word(w: &str) -> bool {
    let long = w.starts_with("--") && w.len() >= 6 && w[2..].starts_with(|c: char| c.is_ascii_alphabetic());
    let short = !w.starts_with("--")
        && w.starts_with('-')
        && w.len() >= 4
        && w[1..].starts_with(|c: char| c.is_ascii_alphabetic());
    long || short
}

/// The option words of a text: split at blanks, quotes, `=` and `,`.
fn options_in(text: &str) -> impl Iterator<Item = String> + '_ {
    text.split(|c: char| c.is_whitespace() || matches!(c, '\'' | '"' | '=' | ','))
        .filter(|w| option_word(w))
        .map(str::to_string)
}

/// The options a recovery's fix gave that its failing command did not have: in its steps,
/// its retry and the context the retry added (`CFLAGS=-O2 -fPIC`).
pub fn new_options(e: &Episode, prep: &Prepared) -> BTreeSet<String> {
    let Some(fail) = prep.failing(e.fail_idx) else {
        return BTreeSet::new();
    };
    let had: BTreeSet<String> = fail
        .words
        .iter()
        .flat_map(|w| options_in(w).collect::<Vec<_>>())
        .collect();
    let mut out: BTreeSet<String> = BTreeSet::new();
    for s in &e.steps {
        out.extend(options_in(&s.text));
    }
    for w in &e.variant {
        out.extend(options_in(w.rsplit_once(':').map_or(w.as_str(), |(_, v)| v)));
        out.extend(options_in(w));
    }
    if let Some(r) = e.retry_idx.and_then(|k| prep.retry_of(e.fail_idx, k)) {
        for w in &r.words {
            out.extend(options_in(w));
        }
    }
    out.retain(|o| !had.contains(o));
    out
}

/// The options every one of `group` gave (none when the group is empty).
pub fn common(group: &[BTreeSet<String>]) -> BTreeSet<String> {
    let mut it = group.iter();
    let Some(first) = it.next() else { return BTreeSet::new() };
    it.fold(first.clone(), |acc, s| acc.intersection(s).cloned().collect())
}
