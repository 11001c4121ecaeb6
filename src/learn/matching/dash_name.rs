//! A rule whose fix keeps a file name that starts with `-` a name (`--` before it, or
//! `./<name>`) applies only where such a file is.
//!
//! Why: it is learned from `cat -notes.txt` → "cat: invalid option -- 'n'", and its masked
//! text is also what `cat -z notes.txt` says, a flag mistyped. The rule scored 0.94 there
//! and told the agent its option was a file name. What sets the learned failures apart is
//! on disk: a word of the line that starts with `-` is a file in the failure's folder.

use crate::learn::text::command_norm::CmdNorm;

/// The fix part of a rule key that says "a dash name kept a name"
/// ([`crate::learn::history::fix_key`]: `escaped:`).
const ESCAPED: &str = "variant:escaped:";

/// Is this rule (by its dedup key, `<cluster>||<fix>`) one whose fix keeps a dash name a
/// name?
pub fn needs_dash_name(key: Option<&str>) -> bool {
    key.and_then(|k| k.rsplit_once("||"))
        .is_some_and(|(_, fix)| fix.starts_with(ESCAPED))
}

/// Does the failing line hold a word that starts with one `-` and is a file that
/// `exists` (asked relative to the failure's folder by the caller)? Only words before a
/// `--` (after it, a name is read as a name already).
pub fn holds_dash_name(norm: &CmdNorm, exists: impl Fn(&str) -> bool) -> bool {
    norm.segments.iter().any(|s| {
        s.words
            .iter()
            .skip(1)
            .take_while(|w| *w != "--")
            .any(|w| w.len() > 1 && w.starts_with('-') && !w.starts_with("--") && exists(w))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::learn::text::command_norm::normalize;

    #[test]
    fn only_a_fix_that_keeps_a_dash_name_needs_one() {
        assert!(needs_dash_name(Some(
            "cross:text:invalid option -- <q>||variant:escaped:<v>"
        )));
        assert!(!needs_dash_name(Some("git|pathspec||variant:joined:<v>")));
        assert!(!needs_dash_name(None));
    }

    #[test]
    fn a_word_that_starts_with_a_dash_and_is_a_file_is_a_dash_name() {
        let on_disk = ["-notes.txt", "notes.txt", "-y.csv"];
        let holds = |cmd: &str| holds_dash_name(&normalize(cmd), |p| on_disk.contains(&p));
        assert!(holds("cat -notes.txt"));
        assert!(holds("wc -l -y.csv"));
        assert!(!holds("cat -z notes.txt"), "a mistyped flag");
        assert!(!holds("wc -q data.csv"));
        assert!(!holds("cat -- -notes.txt"), "already a name");
        assert!(!holds("cat --notes.txt"), "a long option is no dash name");
    }
}
