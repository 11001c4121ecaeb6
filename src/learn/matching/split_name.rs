//! A rule whose fix is a name split at a blank given whole applies only where a name was
//! split.
//!
//! Why: such a rule ("quote the name that holds a blank as one word, then retry `git
//! add`") is learned from failures like `git add My Notes.md` → "pathspec 'My' did not
//! match any files". Its trigger is that text, masked, and so is the failure of `git add
//! missing.txt`. The rule scored 0.96 on it and told the agent to quote a name that holds
//! no blank. What sets the learned failures apart is in the line and on disk, not in the
//! text: the error names a word of the command that the next words continue into a name
//! that exists (`My Notes.md` is there). No such name, no such rule: the files as they
//! are now decide, not the wording of the error.

use crate::learn::text::command_norm::CmdNorm;

/// The fix part of a rule key that says "the words the shell split, given whole"
/// ([`crate::learn::history::fix_key`]: `joined:`).
const JOINED: &str = "variant:joined:";

/// Is this rule (by its dedup key, `<cluster>||<fix>`) one whose fix joins a split name?
pub fn needs_split_name(key: Option<&str>) -> bool {
    key.and_then(|k| k.rsplit_once("||"))
        .is_some_and(|(_, fix)| fix.starts_with(JOINED))
}

/// Longest run of words one split name is looked for in.
const MAX_PIECES: usize = 4;

/// Does the failing line hold a name the shell split? A run of two to [`MAX_PIECES`]
/// operands of one step, one of which the failure's text names as a word of its own
/// (`'My'`, `My:`), that joined by blanks is a path that `exists` (asked relative to the
/// failure's folder by the caller: the one I/O, at the edge). Cheap tests first: the text
/// is read before the disk, and only for runs it names.
pub fn holds_split_name(norm: &CmdNorm, tail: &str, exists: impl Fn(&str) -> bool) -> bool {
    norm.segments.iter().any(|s| {
        let skip = 1 + s.action.split(' ').filter(|w| !w.is_empty()).count();
        let operands: Vec<&str> = s
            .words
            .iter()
            .skip(skip)
            .map(String::as_str)
            .take_while(|w| *w != "--")
            .collect();
        (0..operands.len()).any(|i| {
            (i + 2..=(i + MAX_PIECES).min(operands.len())).any(|j| {
                let run = &operands[i..j];
                !run.iter().any(|w| w.starts_with('-'))
                    && run
                        .iter()
                        .any(|w| w.len() >= 2 && crate::learn::text::names::holds_whole(tail, w, true))
                    && exists(&run.join(" "))
            })
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::learn::text::command_norm::normalize;

    #[test]
    fn only_a_joining_fix_needs_a_split_name() {
        assert!(needs_split_name(Some("git|pathspec||variant:joined:<v>")));
        assert!(!needs_split_name(Some("git|pathspec||variant:<one flag>")));
        assert!(!needs_split_name(Some("cluster:x||steps:mkdir -p")));
        assert!(!needs_split_name(None));
    }

    #[test]
    fn a_fragment_the_failure_named_of_a_name_that_exists_is_a_split_name() {
        let on_disk = [
            "My Notes.md",
            "Q3 report.txt",
            "My Notes.py",
            "Old Report.txt",
            "src/a.rs",
            "src/b.rs",
        ];
        let holds = |cmd: &str, tail: &str| holds_split_name(&normalize(cmd), tail, |p| on_disk.contains(&p));
        let spec = |w: &str| format!("fatal: pathspec '{w}' did not match any files");
        assert!(holds("git add My Notes.md", &spec("My")));
        assert!(holds("git add Q3 report.txt", &spec("report.txt")));
        assert!(holds(
            "python3 My Notes.py",
            "python3: can't open file '/home/dev/p/My': [Errno 2] No such file or directory"
        ));
        assert!(holds("wc -l Old Report.txt", "wc: Old: No such file or directory"));
        // One name, whole: nothing split.
        assert!(!holds("git add missing.txt", &spec("missing.txt")));
        assert!(!holds(
            "python3 tools/gen.py --out x",
            "python3: can't open file '/w/tools/gen.py': [Errno 2] No such file or directory"
        ));
        // Two names, one of them missing: no name with a blank is on disk.
        assert!(!holds("git add src/a.rs src/c.rs", &spec("src/c.rs")));
        assert!(!holds("git add src/c.rs src/a.rs", &spec("src/c.rs")));
        // A split name the failure does not name, or names only inside a longer word.
        assert!(!holds("git add My Notes.md", &spec("Other")));
        assert!(!holds("git add My Notes.md", &spec("MyNotes")));
    }
}
