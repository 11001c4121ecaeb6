//! A pass is evidence only of the code it ran on: a cited pass is stale when a project
//! file changed after it — whatever changed it (Write, Edit, `sed -i`, a heredoc, a
//! script, `git checkout`), in any session.
//!
//! A passing test/build/check run carries `tree`, the sealed hash of the project's files
//! as the run left them (`evidence::tree`). At Stop the files are compared with it by
//! **equality** of path, size, mtime, ctime and inode: no clock is compared, so a clock
//! that jumps neither hides a change nor blocks an honest rerun. "`python3 -m unittest`
//! passed at 10:01:02.345 UTC; calc.py changed after it: run it again". Files the run
//! writes (build output, caches, `.fable/`) and git-ignored files do not count.
//!
//! Records without `tree` (older ones, commands that are not runners) keep the older
//! rule: the session's newest sealed Write/Edit/MultiEdit/NotebookEdit record — of a file
//! under the project (`FABLE_FRESHNESS=project`, the default), of any file (`any`), or not
//! at all (`off`) — must be older than the pass by timestamp. For a record with `tree`,
//! an edit record counts only when the tree cannot see its file (outside the project, or
//! no longer on disk). Edits under `.fable/` (the ledger itself) never count.

use crate::evidence::tree::Change;
use crate::evidence::tree_check::{Now, Verdict};
use std::path::Path;

/// Which edits make a pass stale.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    Project,
    Any,
    Off,
}

impl Scope {
    pub fn from_setting(v: Option<&str>) -> Scope {
        match v.map(|s| s.trim().to_ascii_lowercase()).as_deref() {
            Some("any") => Scope::Any,
            Some("off") | Some("0") | Some("no") => Scope::Off,
            _ => Scope::Project,
        }
    }
}

/// The newest edit that counts: (timestamp, file as logged).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Edit {
    pub ts: String,
    pub file: String,
}

/// True when an edit of `file` (made in `cwd`) counts under `scope` for this project.
pub fn counts(file: &str, cwd: &str, root: &Path, scope: Scope) -> bool {
    // One rule for the scan and for the outcome index that files edits as they are logged.
    let (any, project) = crate::evidence::outcome_index::edit_reach(file, cwd, root);
    match scope {
        Scope::Off => false,
        Scope::Any => any,
        Scope::Project => project,
    }
}

#[derive(serde::Deserialize)]
struct EditLite {
    #[serde(default)]
    ts: String,
    #[serde(default)]
    cwd: String,
    file: String,
}

/// The edit a log line records, when it is an edit that counts (not verified here: the
/// reader checks the seal).
pub fn edit_of_line(line: &[u8], root: &Path, scope: Scope) -> Option<Edit> {
    let e = serde_json::from_slice::<EditLite>(line).ok()?;
    counts(&e.file, &e.cwd, root, scope).then_some(Edit { ts: e.ts, file: e.file })
}

/// `HH:MM:SS.mmm` of a pinned timestamp, for messages.
pub fn clock(ts: &str) -> &str {
    ts.get(11..23).unwrap_or(ts)
}

/// The message when a pass at `pass_ts` is older than `edit`.
pub fn stale(cited: &str, pass_ts: &str, edit: &Edit, root: &Path) -> Option<String> {
    (pass_ts < edit.ts.as_str()).then(|| {
        let shown = Path::new(&edit.file)
            .strip_prefix(root)
            .map(|p| p.display().to_string())
            .unwrap_or_else(|_| edit.file.clone());
        format!(
            "`{cited}` passed at {} UTC, before your edit of {shown} at {} UTC: run it again",
            clock(pass_ts),
            clock(&edit.ts)
        )
    })
}

/// How many changed files a message names.
const NAMED: usize = 3;

/// "calc.py", "calc.py and util.py (new)", "a.py, b.py, c.py and 4 more files".
fn named(changes: &[Change]) -> String {
    let shown: Vec<String> = changes
        .iter()
        .take(NAMED)
        .map(|c| match c {
            Change::Changed(p) => p.clone(),
            Change::Added(p) => format!("{p} (new)"),
            Change::Removed(p) => format!("{p} (removed)"),
        })
        .collect();
    let more = changes.len().saturating_sub(NAMED);
    match (shown.len(), more) {
        (_, m) if m > 0 => format!("{} and {m} more file(s)", shown.join(", ")),
        (1, _) => shown[0].clone(),
        _ => {
            let (last, rest) = shown
                .split_last()
                .map(|(l, r)| (l.clone(), r.join(", ")))
                .unwrap_or_default();
            format!("{rest} and {last}")
        }
    }
}

/// The message when the files differ from what a pass at `pass_ts` saw.
pub fn stale_tree(cited: &str, pass_ts: &str, verdict: &Verdict) -> Option<String> {
    let what = match verdict {
        Verdict::Same | Verdict::Unknown => return None,
        Verdict::Changed(c) if c.is_empty() => return None,
        Verdict::Changed(c) => named(c),
        Verdict::ChangedUnnamed => "project files".to_string(),
    };
    Some(format!(
        "`{cited}` passed at {} UTC; {what} changed after it: run it again",
        clock(pass_ts)
    ))
}

/// True when `edit`'s file is one the tree sees: an existing file under the project.
fn on_disk(edit: &Edit, root: &Path) -> bool {
    let p = Path::new(&edit.file);
    let abs = if p.is_absolute() { p.to_path_buf() } else { root.join(p) };
    abs.starts_with(root) && abs.exists()
}

/// Why `rec` (a passing run of `cited`) no longer proves the code as it is, if it does
/// not: by its `tree` when it has one and `now` can compare (no clock involved), else by
/// the session's newest edit record and timestamps.
pub fn stale_pass(
    cited: &str,
    rec: &crate::evidence::Record,
    last_edit: Option<&Edit>,
    now: &Now,
    scope: Scope,
    root: &Path,
) -> Option<String> {
    if scope == Scope::Off {
        return None;
    }
    let by_edit = |e: &Edit| stale(cited, &rec.ts, e, root);
    match rec.tree.as_deref().map(|t| now.verdict(t)) {
        Some(Verdict::Unknown) | None => last_edit.and_then(by_edit),
        Some(v @ (Verdict::Changed(_) | Verdict::ChangedUnnamed)) => stale_tree(cited, &rec.ts, &v),
        // The files are as the pass left them: only an edit the tree cannot see counts.
        Some(Verdict::Same) => last_edit.filter(|e| !on_disk(e, root)).and_then(by_edit),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn which_edits_count() {
        let root = Path::new("/p");
        assert!(counts("/p/src/a.rs", "/p", root, Scope::Project));
        assert!(counts("src/a.rs", "/p", root, Scope::Project));
        assert!(!counts("/p/.fable/LEDGER.md", "/p", root, Scope::Project));
        assert!(!counts("../other/x", "/p", root, Scope::Project));
        assert!(counts("/tmp/x", "/p", root, Scope::Any));
        assert!(!counts("/p/src/a.rs", "/p", root, Scope::Off));
        assert_eq!(Scope::from_setting(Some(" ANY ")), Scope::Any);
        assert_eq!(Scope::from_setting(None), Scope::Project);
    }

    #[test]
    fn a_pass_before_the_edit_is_stale() {
        let e = Edit {
            ts: "2026-12-03T10:05:00.000Z".into(),
            file: "/p/src/parse.rs".into(),
        };
        let m = stale("cargo test", "2026-12-03T10:01:00.000Z", &e, Path::new("/p")).unwrap();
        assert_eq!(
            m,
            "`cargo test` passed at 10:01:00.000 UTC, before your edit of src/parse.rs at 10:05:00.000 UTC: run it again"
        );
        assert!(stale("cargo test", "2026-12-03T10:06:00.000Z", &e, Path::new("/p")).is_none());
    }

    #[test]
    fn tree_messages_name_up_to_three_files_with_milliseconds() {
        let ts = "2026-12-03T10:01:02.345Z";
        let v = Verdict::Changed(vec![Change::Changed("calc.py".into())]);
        assert_eq!(
            stale_tree("python3 -m unittest", ts, &v).unwrap(),
            "`python3 -m unittest` passed at 10:01:02.345 UTC; calc.py changed after it: run it again"
        );
        let v = Verdict::Changed(vec![Change::Changed("a.py".into()), Change::Added("b.py".into())]);
        assert!(stale_tree("t", ts, &v)
            .unwrap()
            .contains("; a.py and b.py (new) changed after it"));
        let v = Verdict::Changed((0..5).map(|i| Change::Removed(format!("{i}.py"))).collect());
        assert!(stale_tree("t", ts, &v)
            .unwrap()
            .contains("0.py (removed), 1.py (removed), 2.py (removed) and 2 more file(s) changed"));
        assert!(stale_tree("t", ts, &Verdict::ChangedUnnamed)
            .unwrap()
            .contains("; project files changed after it"));
        assert_eq!(stale_tree("t", ts, &Verdict::Same), None);
    }
}
