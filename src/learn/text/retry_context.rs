//! The context a retry added to a failing command line: environment assignments
//! (`PYTHONPATH=src`) and directory changes (`cd web`).
//!
//! Why apart from [`crate::learn::history::episodes`]: normalisation sets these aside as
//! housekeeping, so the episode needs the raw words to see that the context was the fix;
//! reading them is its own small judgement, tested with the episodes that use it.

use crate::learn::text::wrappers::{option_takes_value, AS_ANOTHER_USER};

/// `NAME=value` (an environment assignment word).
pub(crate) fn is_env_assignment(w: &str) -> bool {
    match w.split_once('=') {
        Some((k, _)) => {
            !k.is_empty()
                && k.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
                && !k.starts_with(|c: char| c.is_ascii_digit())
        }
        None => false,
    }
}

/// The context a retry added to the failing command line, which normalisation sets
/// aside as housekeeping: environment assignments (`PYTHONPATH=src`) and directory
/// changes (`cd web`), each as one word, when the failing line did not have them.
pub fn context_added(fail: &str, retry: &str) -> Vec<String> {
    let ctx = |cmd: &str| -> Vec<String> {
        let words: Vec<&str> = cmd.split_whitespace().collect();
        let mut out = Vec::new();
        let mut i = 0;
        while i < words.len() {
            let w = words[i].trim_matches(|c| c == '(' || c == ')' || c == ';');
            if w == "cd" && i + 1 < words.len() {
                out.push(format!("cd {}", words[i + 1].trim_end_matches(';')));
                i += 2;
                continue;
            }
            // `env`'s own flags (`env -i PATH=/usr/bin make`) keep its assignments at the start.
            let after_env_flags = words[..i]
                .iter()
                .rposition(|x| !x.starts_with('-'))
                .is_some_and(|k| words[k] == "env" && k + 1 < i);
            let segment_start = i == 0
                || matches!(words[i - 1], "&&" | "||" | ";" | "|" | "env" | "export")
                || is_env_assignment(words[i - 1])
                || after_env_flags;
            if segment_start && is_env_assignment(w) {
                out.push(w.to_string());
            }
            // A runner with options of its own (`uv run --with httpx`, `npx -p typescript`,
            // `sudo -u postgres`): normalisation drops it with them, so a retry that only
            // changed them read as the same command run again.
            if segment_start {
                if let Some(n) = runner_with_options(&words[i..]) {
                    out.push(format!("{VIA}{}", words[i..i + n].join(" ")));
                    i += n;
                    continue;
                }
            }
            // The time limit `timeout` gives the command (`timeout 60s`, `timeout -k 5
            // 120`): normalisation drops the wrapper with its duration, so a retry with a
            // longer limit read as the same command run again.
            if segment_start && w == "timeout" {
                let mut j = i + 1;
                while j < words.len() && words[j].starts_with('-') {
                    j += if option_takes_value("timeout", words[j]) { 2 } else { 1 };
                }
                let end = (j + 1).min(words.len());
                out.push(words[i..end].join(" "));
                i = end;
                continue;
            }
            i += 1;
        }
        out
    };
    let before = ctx(fail);
    ctx(retry).into_iter().filter(|w| !before.contains(w)).collect()
}

/// A context word for a runner and its own options ([`context_added`]): `via:uv run --with
/// httpx`.
pub const VIA: &str = "via:";

/// How many words a runner and its own options take at the start of `words`, when it has
/// options (`uv run --with httpx pytest` → 4; `sudo -u postgres psql` → 3); `sudo` counts
/// alone as well (running as root is a context of its own). `None` for no runner, or a
/// runner without options (`uv run pytest`, `npx tsc`: the program through the project's
/// environment, a substitute).
fn runner_with_options(words: &[&str]) -> Option<usize> {
    let first = *words.first()?;
    let lead = match first {
        "sudo" | "doas" | "npx" | "bunx" | "pnpx" => 1,
        "uv" | "poetry" | "pipenv" | "pdm" | "hatch" | "rye" if words.get(1) == Some(&"run") => 2,
        _ => return None,
    };
    let mut n = lead;
    while let Some(w) = words.get(n).filter(|w| w.starts_with('-')) {
        n += if option_takes_value(first, w) { 2 } else { 1 };
    }
    let n = n.min(words.len());
    (n > lead || AS_ANOTHER_USER.contains(&first)).then_some(n)
}
