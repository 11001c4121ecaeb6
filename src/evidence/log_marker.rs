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

/// One failure of the evidence hook to write a record: what was lost, why, and where the
/// log stood then — so the close guard can tell whether it came after a cited pass from
/// the log's own order (the sealed head the lost record would have chained to), with the
/// wall clock only as a fallback.
#[derive(Debug, Clone, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
pub struct Failure {
    /// When the failure was noted (after the write gave up).
    pub at: String,
    /// The lost record's own time: when its command ran.
    #[serde(default)]
    pub run: String,
    /// The lost record's command (redacted, cut), empty for an edit record.
    #[serde(default)]
    pub cmd: String,
    /// Why the write failed (`No space left on device`).
    #[serde(default)]
    pub cause: String,
    /// The MAC of the newest sealed record when the write failed: the lost record would
    /// have come right after it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub head: Option<String>,
    /// The live file's size then, in bytes.
    #[serde(default)]
    pub size: u64,
}

impl Failure {
    /// The time of the lost run as `HH:MM:SS.mmm UTC` (the note's own time without one).
    pub fn run_clock(&self) -> String {
        let ts = if self.run.is_empty() { &self.at } else { &self.run };
        match ts.split_once('T') {
            Some((_, t)) => format!("{} UTC", t.trim_end_matches('Z')),
            None => ts.clone(),
        }
    }
}

/// How many lost records are remembered (the oldest go first).
const KEEP_FAILURES: usize = 16;

/// The key two commands share when one is a rerun of the other: whitespace collapsed,
/// one leading `cd <dir> &&` dropped (as corroboration matches citations).
fn same_command(a: &str, b: &str) -> bool {
    let key = |s: &str| {
        let n = crate::evidence::command_key::normalize(s);
        match crate::evidence::command_key::strip_cd(&n) {
            Some((_, rest)) => rest.to_string(),
            None => n,
        }
    };
    key(a) == key(b)
}

/// Notes that the evidence hook could not write a record of this project's log (best
/// effort), so the close guard can name the loss instead of saying a command never ran,
/// or allowing a stop on an older pass. Each loss is kept until a later write of the same
/// command succeeds ([`clear_failure`]).
pub fn note_failure(get: impl Fn(&str) -> Option<String>, fable_dir: &Path, failure: &Failure) {
    let Some(p) = failure_path(&get, fable_dir) else { return };
    if let Some(dir) = p.parent() {
        let _ = crate::session_state::mkdir_private(dir);
    }
    let f = Failure {
        // Whole (a record's command is capped already): a rerun is matched against it.
        cmd: failure.cmd.replace('\n', " "),
        cause: crate::evidence::head_chars(&failure.cause.replace('\n', " "), 300).to_string(),
        ..failure.clone()
    };
    let mut all = failures(&get, fable_dir);
    all.push(f);
    write_all(&p, &all);
}

fn write_all(p: &Path, all: &[Failure]) {
    let start = all.len().saturating_sub(KEEP_FAILURES);
    let text: String = all[start..]
        .iter()
        .filter_map(|f| serde_json::to_string(f).ok())
        .map(|l| l + "\n")
        .collect();
    let _ = if text.is_empty() {
        std::fs::remove_file(p)
    } else {
        std::fs::write(p, text)
    };
}

/// After a successful write of `cmd` (empty for an edit record), forgets the losses it
/// makes good: those of the same command, and lost edits, noted before this write began
/// (`began`, the pinned timestamp taken before it waited for the lock: a write that held
/// the lock while another timed out on it ends after the loss, but does not redo it). One
/// `stat` when nothing is noted.
pub fn clear_failure(get: impl Fn(&str) -> Option<String>, fable_dir: &Path, began: &str, cmd: &str) {
    let Some(p) = failure_path(&get, fable_dir).filter(|p| p.exists()) else {
        return;
    };
    let all = failures(&get, fable_dir);
    let kept: Vec<Failure> = all
        .iter()
        .filter(|f| f.at.as_str() >= began || !(f.cmd.is_empty() || same_command(&f.cmd, cmd)))
        .cloned()
        .collect();
    if kept.len() != all.len() || all.is_empty() {
        write_all(&p, &kept);
    }
}

/// The noted losses, oldest first (an older plain-text note, `<time> <what>`, reads as
/// one with only a time and a cause).
pub fn failures(get: impl Fn(&str) -> Option<String>, fable_dir: &Path) -> Vec<Failure> {
    let Some(p) = failure_path(get, fable_dir) else {
        return Vec::new();
    };
    let Ok(Some(text)) = crate::fable_dir::read_string(&p, crate::fable_dir::Kind::State) else {
        return Vec::new();
    };
    text.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .map(|l| {
            serde_json::from_str(l).unwrap_or_else(|_| {
                let (at, cause) = l.split_once(' ').unwrap_or((l, ""));
                Failure {
                    at: at.into(),
                    run: at.into(),
                    cause: cause.into(),
                    ..Failure::default()
                }
            })
        })
        .collect()
}

/// The newest noted loss.
pub fn failure(get: impl Fn(&str) -> Option<String>, fable_dir: &Path) -> Option<Failure> {
    failures(get, fable_dir).pop()
}

/// The last failure to write, as `<time> <cause>`, when one is noted.
pub fn last_failure(get: impl Fn(&str) -> Option<String>, fable_dir: &Path) -> Option<String> {
    failure(get, fable_dir).map(|f| format!("{} {}", f.at, f.cause))
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

    #[test]
    fn a_failure_is_cleared_only_by_a_write_that_began_after_it() {
        let t = tempfile::tempdir().unwrap();
        let state = t.path().join("state").to_string_lossy().into_owned();
        let get = |k: &str| (k == "XDG_STATE_HOME").then(|| state.clone());
        let a = t.path().join("a/.fable");
        std::fs::create_dir_all(&a).unwrap();
        let f = Failure {
            at: "2026-12-06T10:05:06.000Z".into(),
            run: "2026-12-06T10:05:01.234Z".into(),
            cmd: "pytest -q\nx".into(),
            cause: "No space left on device".into(),
            head: Some("ab".repeat(32)),
            size: 42,
        };
        note_failure(get, &a, &f);
        let read = failure(get, &a).unwrap();
        assert_eq!((read.cmd.as_str(), read.size), ("pytest -q x", 42));
        assert_eq!(read.run_clock(), "10:05:01.234 UTC");
        // A write that began before the failure (it held the lock) does not clear it,
        // nor does a later write of another command.
        clear_failure(get, &a, "2026-12-06T10:05:00.500Z", "pytest -q x");
        clear_failure(get, &a, "2026-12-06T10:05:07.000Z", "ls");
        assert!(failure(get, &a).is_some());
        // A later write of the same command does (whitespace and a leading cd aside).
        clear_failure(get, &a, "2026-12-06T10:05:07.000Z", "cd sub &&  pytest -q x");
        assert!(failure(get, &a).is_none());
        // Lost edits are made good by any later write; several losses are kept apart.
        let edit = Failure {
            cmd: String::new(),
            ..f.clone()
        };
        note_failure(get, &a, &edit);
        note_failure(get, &a, &f);
        assert_eq!(failures(get, &a).len(), 2);
        clear_failure(get, &a, "2026-12-06T10:05:07.000Z", "ls");
        assert_eq!(failures(get, &a).len(), 1);
        clear_failure(get, &a, "2026-12-06T10:05:07.000Z", "pytest -q x");
        assert!(!failure_path(get, &a).unwrap().exists());
        // An older plain-text note still reads.
        let p = failure_path(get, &a).unwrap();
        std::fs::write(&p, "2026-12-06T10:05:06.000Z could not write: disk full\n").unwrap();
        assert_eq!(failure(get, &a).unwrap().cause, "could not write: disk full");
    }
}
