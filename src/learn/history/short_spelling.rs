//! A short flag spelt for an unsafe long one the same class's sessions used: `git worktree
//! add -f` where another session ran `git worktree add --force` after the same failure.
//!
//! Why: the safety gate knows `--force` by name, but not `-f` (`jq -f`, `tar -f`, `make
//! -f` read a file; a table of which program's `-f` forces cannot be kept). Every change to
//! the failing command's options is one kind of fix ([`crate::learn::history::fix_key`]),
//! so an `-f` the gate did not know joined the safe spellings (`-b <name>`, `--detach`) and
//! was said as the fix (dev7's `git-worktree-branch-checked-out`). By the GNU convention
//! `same_flag` already reads, a short letter is the initial of its long name: where the
//! history shows the long name unsafe for that program and action, the short letter is
//! judged the same — unless the failure's own text prescribes it (git's `hint: Use -f if
//! you really want to add them.`): then it is the tool's way on, and the gate's view of it
//! is left as it was. Measured cost: dev2's `gzip-output-exists`, whose sessions overwrite
//! the existing archive with `-f` beside one `--force` the gate already blocked, lost its
//! three `-f` sessions (the gate now says the same of both spellings).

use crate::learn::history::records::Records;
use std::collections::HashMap;

/// One recovery as this judgement reads it (the episode's parts: this file must not
/// depend on the episodes that ask it).
pub struct Recovery<'a> {
    pub domain: &'a str,
    pub action: &'a str,
    pub variant: &'a [String],
    pub fail_idx: usize,
    /// Recovered (not moved on, not flaky).
    pub recovered: bool,
    pub unsafe_fix: Option<&'static str>,
}

/// The long flags of `r`'s variant that make its failing command unsafe by themselves
/// (`--force` for `git worktree add …`), each as its initial and the pattern it adds.
fn unsafe_long_flags<H: Records + ?Sized>(r: &Recovery, history: &H) -> Vec<(char, &'static str)> {
    let cmd = history.cmd(r.fail_idx);
    let before = crate::learn::text::safety::unsafe_patterns(cmd);
    r.variant
        .iter()
        .filter(|w| w.starts_with("--") && w.len() > 3)
        .filter_map(|w| {
            let flag = w.split_once('=').map_or(w.as_str(), |(f, _)| f);
            let added = crate::learn::text::safety::unsafe_patterns(&format!("{cmd} {flag}"))
                .into_iter()
                .find(|p| !before.contains(p))?;
            Some((flag[2..].chars().next()?, added))
        })
        .collect()
}

/// For each recovery, the unsafe pattern it takes on: a safe recovery whose variant adds
/// the short spelling (`-f`) of a long flag (`--force`) another recovery of the same
/// program and action showed unsafe. `None` where nothing changes.
pub fn marks<H: Records + ?Sized>(recoveries: &[Recovery], history: &H) -> Vec<Option<&'static str>> {
    // A target's options are its program's (`make -i test` beside `make --ignore-errors
    // check`); a subcommand's are its own.
    fn key<'a>(r: &Recovery<'a>) -> (&'a str, &'a str) {
        let action = if crate::learn::text::command_norm::action_is_a_target(r.domain) {
            ""
        } else {
            r.action
        };
        (r.domain, action)
    }
    let mut unsafe_letters: HashMap<(&str, &str), Vec<(char, &'static str)>> = HashMap::new();
    for r in recoveries.iter().filter(|r| r.recovered && r.unsafe_fix.is_some()) {
        let found = unsafe_long_flags(r, history);
        if !found.is_empty() {
            unsafe_letters.entry(key(r)).or_default().extend(found);
        }
    }
    let short = |w: &String| {
        let b = w.as_bytes();
        (b.len() == 2 && b[0] == b'-' && b[1].is_ascii_alphabetic()).then(|| b[1] as char)
    };
    recoveries
        .iter()
        .map(|r| {
            if !r.recovered || r.unsafe_fix.is_some() {
                return None;
            }
            let letters = unsafe_letters.get(&key(r))?;
            // The tool's own text prescribing the short flag (`hint: Use -f if you really
            // want to add them.` after `git add` of an ignored path) makes it the tool's
            // way on, not a guard forced: left to the gate as it is.
            let tail = &history.tail(r.fail_idx);
            r.variant
                .iter()
                .filter(|w| !crate::learn::text::names::holds_whole(tail, w, false))
                .filter_map(short)
                .find_map(|c| letters.iter().find(|(l, _)| *l == c).map(|(_, p)| *p))
        })
        .collect()
}
