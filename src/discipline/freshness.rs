//! A pass is evidence only of the code it ran on: a cited command's newest pass must be
//! newer than the session's last edit of a project file.
//!
//! The evidence hook logs successful Write/Edit/MultiEdit/NotebookEdit calls as edit
//! records (`file`, `ts`, no command). At Stop, the newest sealed edit of this session —
//! of a file under the project (`FABLE_FRESHNESS=project`, the default), of any file
//! (`any`), or not at all (`off`) — is compared with each cited pass: "`cargo test`
//! passed at 10:01, before your edit of src/parse.rs at 10:05: run it again". Edits
//! under `.fable/` (the ledger itself) never count: closing a card is not a code change.
//! Bash commands that write files (`sed -i`, a redirection) are not edits here: their own
//! record is the run, and the cited pass must still be its own newest run.

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

/// `HH:MM:SS` of a pinned timestamp, for messages.
fn clock(ts: &str) -> &str {
    ts.get(11..19).unwrap_or(ts)
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
            "`cargo test` passed at 10:01:00 UTC, before your edit of src/parse.rs at 10:05:00 UTC: run it again"
        );
        assert!(stale("cargo test", "2026-12-03T10:06:00.000Z", &e, Path::new("/p")).is_none());
    }
}
