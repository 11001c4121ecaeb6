//! A note, outside the project, that a project's evidence log has existed.
//!
//! Corroboration is off in a project that never had a log (pre-logger projects stay
//! untouched). Without this note, deleting `.fable/evidence.jsonl` would switch it off too
//! (ancestor weakness §6.2). The logger writes the note in the user's private state folder
//! whenever it starts a live file; the close guard treats "no log, but a note" as an empty
//! log, so every citation must be run again before the agent may stop. An agent could still
//! delete the note, but it lives outside the project: that is tampering, not tidying.

use crate::session_state::user_state_dir;
use std::path::{Path, PathBuf};

/// The project's key in user state (`fingerprint::project_key`).
fn key(fable_dir: &Path) -> String {
    crate::fingerprint::project_key(fable_dir)
}

/// Where the note for this project lives, when a state folder can be named.
pub fn path(get: impl Fn(&str) -> Option<String>, fable_dir: &Path) -> Option<PathBuf> {
    user_state_dir(get).map(|d| d.join("logs").join(key(fable_dir)))
}

/// Writes the note (best effort: a read-only home must not fail the logger).
pub fn touch(get: impl Fn(&str) -> Option<String>, fable_dir: &Path) {
    let Some(p) = path(get, fable_dir) else { return };
    if p.exists() {
        return;
    }
    if let Some(dir) = p.parent() {
        use std::os::unix::fs::DirBuilderExt;
        let _ = std::fs::DirBuilder::new().recursive(true).mode(0o700).create(dir);
    }
    let _ = std::fs::write(&p, format!("{}\n", fable_dir.display()));
}

/// Where the note of the evidence hook's last failure to write lives.
fn failure_path(get: impl Fn(&str) -> Option<String>, fable_dir: &Path) -> Option<PathBuf> {
    path(get, fable_dir).map(|p| p.with_extension("failed"))
}

/// Notes that the evidence hook could not write this project's log (best effort), so the
/// close guard can name the failure instead of saying a command never ran.
pub fn note_failure(get: impl Fn(&str) -> Option<String>, fable_dir: &Path, what: &str) {
    let Some(p) = failure_path(get, fable_dir) else { return };
    if let Some(dir) = p.parent() {
        let _ = crate::session_state::mkdir_private(dir);
    }
    let line = format!("{} {}\n", crate::evidence::now_ts(), what.replace('\n', " "));
    let _ = std::fs::write(&p, crate::evidence::head_chars(&line, 400));
}

/// Clears the failure note after a successful write (one `stat` when there is none).
pub fn clear_failure(get: impl Fn(&str) -> Option<String>, fable_dir: &Path) {
    if let Some(p) = failure_path(get, fable_dir).filter(|p| p.exists()) {
        let _ = std::fs::remove_file(p);
    }
}

/// The last failure to write, as `<time> <what>`, when one is noted.
pub fn last_failure(get: impl Fn(&str) -> Option<String>, fable_dir: &Path) -> Option<String> {
    let p = failure_path(get, fable_dir)?;
    let text = crate::fable_dir::read_string(&p, crate::fable_dir::Kind::State).ok()??;
    Some(text.trim().to_string()).filter(|t| !t.is_empty())
}

/// True when this project's log existed before.
pub fn existed(get: impl Fn(&str) -> Option<String>, fable_dir: &Path) -> bool {
    path(get, fable_dir).is_some_and(|p| p.exists())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn note_round_trip_per_project() {
        let t = tempfile::tempdir().unwrap();
        let state = t.path().join("state").to_string_lossy().into_owned();
        let get = |k: &str| (k == "XDG_STATE_HOME").then(|| state.clone());
        let a = t.path().join("a/.fable");
        let b = t.path().join("b/.fable");
        std::fs::create_dir_all(&a).unwrap();
        std::fs::create_dir_all(&b).unwrap();
        assert!(!existed(get, &a));
        touch(get, &a);
        assert!(existed(get, &a));
        assert!(!existed(get, &b));
        assert!(path(|_| None, &a).is_none());
    }
}
