//! How a fix is said when the sessions wrote a path so the shell expands it (`"~/x"` →
//! `~/x`, or `"$HOME/x"`): the way each wrote it, never the path, which is the session's own.
//!
//! Why apart from [`crate::learn::propose::fix_directive`]: which words a directive uses
//! is that file's; how one kind of fix is said across sessions is a concept of its own.

use crate::learn::history::episodes::Episode;
use crate::learn::history::recovery_form::EXPAND;
use crate::learn::propose::render::quote_cmd;

/// How a word the shell expands was written, without the session's own path: `~/…`,
/// `"$HOME/…"`, `$HOME/…`.
fn expansion_way(typed: &str) -> String {
    match typed.split_once('/') {
        Some((head, _)) => {
            let close = ["\"", "'"].into_iter().find(|q| head.starts_with(q)).unwrap_or("");
            format!("{head}/…{close}")
        }
        None => typed.to_string(),
    }
}

/// The directive of the group `eps` whose most recent recovered episode is `last`: the
/// way `last` wrote the path, the group's other ways after it (`retry` is the failing
/// command, quoted).
pub fn expansion_said(episodes: &[Episode], eps: &[usize], last: &Episode, retry: &str) -> String {
    let word = last.variant[0].trim_start_matches(EXPAND);
    let mut others: Vec<String> = Vec::new();
    for &ei in eps {
        for w in &episodes[ei].variant {
            let way = expansion_way(w.trim_start_matches(EXPAND));
            if w.starts_with(EXPAND) && way != expansion_way(word) && !others.contains(&way) {
                others.push(way);
            }
        }
    }
    let list: Vec<String> = others.iter().map(|o| quote_cmd(o)).collect();
    let also = crate::learn::propose::render::also_said(&list);
    format!(
        "retry {retry} with the path written where the shell expands it (in quotes `~` reaches the program as a literal `~`): {}{also}",
        quote_cmd(&expansion_way(word))
    )
}

#[cfg(test)]
mod tests {
    use super::expansion_way;

    #[test]
    fn the_way_is_said_without_the_path() {
        assert_eq!(expansion_way("~/exports/s.csv"), "~/…");
        assert_eq!(expansion_way("\"$HOME/data/e.jsonl\""), "\"$HOME/…\"");
        assert_eq!(expansion_way("${HOME}/x"), "${HOME}/…");
    }
}
