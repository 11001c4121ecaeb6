//! What replay has already told the user it skipped, per project and command, kept in
//! the user's private state folder (outside the project, like the log marker).
//!
//! A skipped citation stays on its closed card for the rest of the ledger's life; saying
//! "replay skipped `./deploy.sh`" at every stop would bury the messages that matter. Each
//! (project, command, reason) is said once; nothing here ever blocks.

use crate::discipline::replay::Skipped;
use std::path::{Path, PathBuf};

/// How many remembered lines are kept (the oldest go first).
const KEEP: usize = 500;

fn path(get: impl Fn(&str) -> Option<String>, fable_dir: &Path) -> Option<PathBuf> {
    crate::session_state::user_state_dir(get)
        .map(|d| d.join("replay-said").join(crate::fingerprint::project_key(fable_dir)))
}

/// The line that remembers one skip (a command is one line: newlines are folded).
fn key(s: &Skipped) -> String {
    format!("{:?}\t{}", s.why, s.cited.replace(['\n', '\r'], " "))
}

/// The messages for the skips not said before in this project, remembering them (best
/// effort: without a state folder every skip is said, every time).
pub fn unsaid(get: impl Fn(&str) -> Option<String>, fable_dir: &Path, skipped: &[Skipped]) -> Vec<String> {
    if skipped.is_empty() {
        return Vec::new();
    }
    let Some(p) = path(get, fable_dir) else {
        return skipped.iter().map(Skipped::describe).collect();
    };
    let old = crate::fable_dir::read_string(&p, crate::fable_dir::Kind::State)
        .ok()
        .flatten()
        .unwrap_or_default();
    let mut seen: Vec<String> = old.lines().map(str::to_string).collect();
    let mut out = Vec::new();
    for s in skipped {
        let k = key(s);
        if !seen.contains(&k) {
            out.push(s.describe());
            seen.push(k);
        }
    }
    if !out.is_empty() {
        let start = seen.len().saturating_sub(KEEP);
        if let Some(dir) = p.parent() {
            let _ = crate::session_state::mkdir_private(dir);
        }
        let _ = std::fs::write(&p, seen[start..].join("\n") + "\n");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::discipline::replay::Skip;

    #[test]
    fn each_skip_is_said_once_per_project() {
        let t = tempfile::tempdir().unwrap();
        let state = t.path().join("state").to_string_lossy().into_owned();
        let get = |k: &str| (k == "XDG_STATE_HOME").then(|| state.clone());
        let (a, b) = (t.path().join("a/.fable"), t.path().join("b/.fable"));
        let deploy = Skipped {
            cited: "./deploy.sh".into(),
            why: Skip::NotACheck,
        };
        assert_eq!(unsaid(get, &a, std::slice::from_ref(&deploy)).len(), 1);
        assert!(unsaid(get, &a, std::slice::from_ref(&deploy)).is_empty());
        assert_eq!(unsaid(get, &b, std::slice::from_ref(&deploy)).len(), 1);
        let redacted = Skipped {
            cited: "./deploy.sh".into(),
            why: Skip::Redacted,
        };
        assert_eq!(unsaid(get, &a, &[deploy, redacted]).len(), 1);
    }
}
