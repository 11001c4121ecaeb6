//! Per-session state: the fail streak (in the project) and the session's model (per user).
//!
//! Hooks of one event run in parallel and several Bash calls can finish at once, so the
//! streak is a locked read-modify-write of one small JSON file under `.fable/state/`
//! (mode 0600). The session model is cached by SessionStart for the spawn guard in a
//! user-private folder (`${XDG_STATE_HOME:-$HOME/.local/state}/fable/sessions`, 0700),
//! never a shared `/tmp`, and even before the project has a `.fable/` (a project may opt
//! in mid-session). Session ids are sanitised before they become file names.

use crate::error::{Error, IoContext, Result};
use serde::{Deserialize, Serialize};
use std::fs::{self, File};
use std::os::unix::fs::DirBuilderExt;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant, SystemTime};

/// Longest session id kept in a file name.
const MAX_SID: usize = 120;
/// Cached models older than this are deleted when a new one is saved.
const MODEL_TTL: Duration = Duration::from_secs(7 * 24 * 3600);
const LOCK_WAIT: Duration = Duration::from_secs(2);

/// A session id as a safe file name: `[A-Za-z0-9._-]`, at most 120 chars, no leading dot.
/// `None` when nothing usable is left.
pub fn sanitize_sid(sid: &str) -> Option<String> {
    let s: String = sid
        .chars()
        .filter(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'))
        .take(MAX_SID)
        .collect();
    let s = s.trim_start_matches('.').to_string();
    (!s.is_empty()).then_some(s)
}

/// A session's fail-streak state.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct StreakState {
    /// Consecutive failures.
    #[serde(default)]
    pub streak: u32,
    /// Fingerprints of the substantive `tried:` notes seen at the last update; a note not
    /// in this set is new and resets the streak.
    #[serde(default)]
    pub tried: Vec<u64>,
    /// When the current streak began (RFC 3339), empty when there is none.
    #[serde(default)]
    pub since: String,
    /// The turn (assistant message) of the last counted failure: failures of calls made
    /// in one turn are one attempt ([`crate::discipline::fail_streak`]).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub turn: String,
    /// Failures of each check (normalised command) since its last pass, oldest first.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub checks: Vec<CheckFails>,
    /// Set when the demand at six was given: what the restart after it is compared with.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub demand: Option<Demand>,
}

/// One check's failures since it last passed.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct CheckFails {
    pub key: String,
    pub n: u32,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub turn: String,
}

/// The fail streak's demand, as given: the `tried:` notes that existed then (a note not
/// among them was written after it) and the check that was failing.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Demand {
    pub tried: Vec<u64>,
    #[serde(default)]
    pub key: String,
}

/// Overwrites a small private file in place (0600, never through a link): open, write
/// from offset 0, cut to length. Not atomic — for state where a torn write only loses
/// information and fails safe (a chain head, a round's snapshot). Why not temp + rename:
/// on ext4 a rename over an existing file flushes the new file's data synchronously
/// (`auto_da_alloc`), which cost the hooks milliseconds on every call.
pub fn overwrite_small(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    use std::io::Write;
    use std::os::unix::fs::OpenOptionsExt;
    let mut f = fs::OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(false)
        .mode(0o600)
        .custom_flags(libc::O_NOFOLLOW)
        .open(path)?;
    if !f.metadata()?.is_file() {
        return Err(std::io::Error::other("not a regular file"));
    }
    f.write_all(bytes)?;
    f.set_len(bytes.len() as u64)
}

/// Creates a user-private folder (0700) and its parents.
pub fn mkdir_private(dir: &Path) -> Result<()> {
    fs::DirBuilder::new().recursive(true).mode(0o700).create(dir).at(dir)
}

fn lock(f: &File, path: &Path) -> Result<()> {
    let start = Instant::now();
    loop {
        match f.try_lock() {
            Ok(()) => return Ok(()),
            Err(fs::TryLockError::WouldBlock) if start.elapsed() < LOCK_WAIT => {
                std::thread::sleep(Duration::from_millis(1))
            }
            Err(fs::TryLockError::WouldBlock) => return Err(Error::msg(format!("{}: still locked", path.display()))),
            Err(fs::TryLockError::Error(e)) => return Err(Error::io(path, e)),
        }
    }
}

/// The streak file of a session.
pub fn streak_path(fable_dir: &Path, sid: &str) -> PathBuf {
    fable_dir.join("state").join(format!("{sid}.streak.json"))
}

/// Reads, updates and writes a session's streak state under an exclusive lock.
/// A corrupt file reads as a fresh state.
pub fn update_streak<R>(fable_dir: &Path, sid: &str, f: impl FnOnce(&mut StreakState) -> R) -> Result<R> {
    let path = streak_path(fable_dir, sid);
    if let Some(dir) = path.parent() {
        crate::fable_dir::ensure_dir(dir).at(dir)?;
    }
    // A lock file of its own, because the state is replaced by unlink + rename
    // ([`crate::state_file`]; a SIGKILL between truncate and rewrite used to reset the
    // streak): the lock must outlive the inode.
    let lock_path = path.with_extension("lock");
    let lock_file = crate::fable_dir::open_lock(&lock_path).at(&lock_path)?;
    lock(&lock_file, &lock_path)?;
    let text = crate::state_file::read(&path).at(&path)?.unwrap_or_default();
    let mut state: StreakState = serde_json::from_str(&text).unwrap_or_default();
    let out = f(&mut state);
    let body = serde_json::to_string(&state).map_err(|e| Error::msg(e.to_string()))?;
    // Most calls are a success with no streak running: nothing changed, so nothing is
    // written (a rename is the most expensive step of this hook).
    if body != text {
        crate::state_file::replace(&path, body.as_bytes())?;
    }
    drop(lock_file);
    Ok(out)
}

/// A session's streak state as it is now, read without the lock (a torn or missing file
/// reads as `None`): for the Stop hook, which only looks.
pub fn read_streak(fable_dir: &Path, sid: &str) -> Option<StreakState> {
    let text = crate::state_file::read(&streak_path(fable_dir, sid)).ok()??;
    serde_json::from_str(&text).ok()
}

/// The most recently updated streak in the project (for `fable status`): session id and state.
///
/// A main session's streak wins over its sub-agents' (`<sid>.agent.<id>`, kept apart by
/// the fail streak): the user asks how *their* session is doing, and a sub-agent that
/// failed last would otherwise stand in for it.
pub fn latest_streak(fable_dir: &Path) -> Option<(String, StreakState)> {
    let dir = fable_dir.join("state");
    let newest = fs::read_dir(dir)
        .ok()?
        .flatten()
        .filter_map(|e| {
            let name = e.file_name().into_string().ok()?;
            let sid = name.strip_suffix(".streak.json")?.to_string();
            let t = e.metadata().ok()?.modified().ok()?;
            Some((!sid.contains(".agent."), t, sid, e.path()))
        })
        .max_by_key(|(main, t, _, _)| (*main, *t))
        .map(|(_, t, sid, path)| (t, sid, path))?;
    let text = crate::state_file::read(&newest.2).ok()??;
    let state = serde_json::from_str(&text).ok()?;
    Some((newest.1, state))
}

/// fable's user-private state folder, outside every project:
/// `${XDG_STATE_HOME:-$HOME/.local/state}/fable`.
pub fn user_state_dir(get: impl Fn(&str) -> Option<String>) -> Option<PathBuf> {
    let nonempty = |k: &str| get(k).filter(|v| !v.is_empty());
    let base = nonempty("XDG_STATE_HOME")
        .filter(|x| Path::new(x).is_absolute())
        .map(PathBuf::from)
        .or_else(|| nonempty("HOME").map(|h| Path::new(&h).join(".local").join("state")))?;
    Some(base.join("fable"))
}

/// The user-private folder of cached session models.
pub fn model_dir(get: impl Fn(&str) -> Option<String>) -> Option<PathBuf> {
    user_state_dir(get).map(|d| d.join("sessions"))
}

/// Caches a session's model; also drops cache files older than a week.
pub fn save_model(dir: &Path, sid: &str, model: &str) -> Result<()> {
    mkdir_private(dir)?;
    let path = dir.join(sid);
    // Resumed, cleared and compacted sessions start again with the model they had: then
    // nothing is written (a rename over an existing file is the costliest step of
    // SessionStart on ext4, which flushes the new file's data before the rename).
    if load_model(dir, sid).as_deref() == Some(model) {
        return Ok(());
    }
    // A cache: atomic, private, but not worth an fsync on the SessionStart hot path.
    crate::atomic_file::write(&path, model.as_bytes(), crate::atomic_file::Perms::Private, false)?;
    let now = SystemTime::now();
    for e in fs::read_dir(dir).into_iter().flatten().flatten() {
        let old = e
            .metadata()
            .and_then(|m| m.modified())
            .ok()
            .and_then(|t| now.duration_since(t).ok())
            .is_some_and(|age| age > MODEL_TTL);
        if old {
            let _ = fs::remove_file(e.path());
        }
    }
    Ok(())
}

/// The cached model of a session, if any.
pub fn load_model(dir: &Path, sid: &str) -> Option<String> {
    let s = fs::read_to_string(dir.join(sid)).ok()?;
    let s = s.trim();
    (!s.is_empty()).then(|| s.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    #[test]
    fn the_main_sessions_streak_wins_over_a_sub_agent_that_failed_later() {
        let t = tempfile::tempdir().unwrap();
        update_streak(t.path(), "s1", |s| s.streak = 2).unwrap();
        std::thread::sleep(Duration::from_millis(20));
        update_streak(t.path(), "s1.agent.a7", |s| s.streak = 5).unwrap();
        let (sid, state) = latest_streak(t.path()).unwrap();
        assert_eq!((sid.as_str(), state.streak), ("s1", 2));
        // Only a sub-agent's file: it is shown rather than nothing.
        let u = tempfile::tempdir().unwrap();
        update_streak(u.path(), "s2.agent.b", |s| s.streak = 1).unwrap();
        assert_eq!(latest_streak(u.path()).unwrap().0, "s2.agent.b");
    }

    #[test]
    fn sids_are_sanitised() {
        assert_eq!(sanitize_sid("../../etc/passwd").as_deref(), Some("etcpasswd"));
        assert_eq!(sanitize_sid("..").as_deref(), None);
        assert_eq!(sanitize_sid("ab-1_2.c").as_deref(), Some("ab-1_2.c"));
        assert_eq!(sanitize_sid(&"x".repeat(300)).unwrap().len(), 120);
        assert_eq!(sanitize_sid(""), None);
    }

    #[test]
    fn streak_round_trip_is_private() {
        let t = tempfile::tempdir().unwrap();
        let n = update_streak(t.path(), "s1", |s| {
            s.streak += 2;
            s.streak
        })
        .unwrap();
        assert_eq!(n, 2);
        let n = update_streak(t.path(), "s1", |s| s.streak).unwrap();
        assert_eq!(n, 2);
        let mode = fs::metadata(streak_path(t.path(), "s1")).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
        assert_eq!(latest_streak(t.path()).unwrap().1.streak, 2);
    }

    #[test]
    fn concurrent_updates_are_not_lost() {
        let t = tempfile::tempdir().unwrap();
        let dir = t.path().to_path_buf();
        let hs: Vec<_> = (0..8)
            .map(|_| {
                let d = dir.clone();
                std::thread::spawn(move || {
                    for _ in 0..25 {
                        update_streak(&d, "s", |s| s.streak += 1).unwrap();
                    }
                })
            })
            .collect();
        hs.into_iter().for_each(|h| h.join().unwrap());
        assert_eq!(update_streak(&dir, "s", |s| s.streak).unwrap(), 200);
    }

    #[test]
    fn model_cache() {
        let t = tempfile::tempdir().unwrap();
        let d = t.path().join("m");
        save_model(&d, "sid", "claude-opus-4").unwrap();
        assert_eq!(load_model(&d, "sid").as_deref(), Some("claude-opus-4"));
        assert_eq!(fs::metadata(&d).unwrap().permissions().mode() & 0o777, 0o700);
    }
}
