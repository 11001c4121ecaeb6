//! One tool call, one action: a hook registered twice (user and project settings under
//! two spellings, or a plugin plus an install) is started twice by Claude Code with the
//! same payload, in parallel (identical command strings run once, different ones each
//! time: claude-code-hooks.md). Left alone, every command is logged twice and every
//! failure counts twice. The first process to claim a call acts; the second sees the
//! claim and does nothing.
//!
//! A call is its `tool_use_id` plus a fingerprint of the whole payload: the two copies
//! Claude Code sends are byte-identical, and keying on the payload as well means a
//! different payload that happens to reuse an id is never dropped here (telling a forged
//! payload from a real one is the transcript check's job, not this one's).
//!
//! The claims live in one small file per hook under `.fable/state/` (`once.<hook>`), the
//! last [`KEEP`] keys one per line, read and extended under an exclusive lock of
//! `once.<hook>.lock`, so two processes started in the same millisecond cannot both
//! win. Fail-open: whatever goes wrong (no lock within [`LOCK_WAIT`], an unreadable or
//! refused file), the call counts as first, so a broken claim file can double an action
//! but never drop one.

use std::fs;
use std::path::Path;
use std::time::{Duration, Instant};

/// How many recent calls are remembered per hook: far more than can be in flight at once.
pub const KEEP: usize = 256;
/// Longest wait for another process's claim; past it the call acts (fail-open).
pub const LOCK_WAIT: Duration = Duration::from_millis(500);

/// The claim key of a tool call: `<tool_use_id>.<payload fingerprint>`; `None` when the
/// payload names no call (then nothing is deduplicated).
pub fn call_key(tool_use_id: &str, payload: &[u8]) -> Option<String> {
    let id: String = tool_use_id
        .chars()
        .filter(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-'))
        .take(120)
        .collect();
    if id.is_empty() {
        return None;
    }
    Some(format!("{id}.{:016x}", crate::fingerprint::fnv1a(payload)))
}

/// True the first time `key` is claimed for `hook` in this project, false for every
/// later claim (see the module docs; any error answers true).
pub fn first_claim(fable_dir: &Path, hook: &str, key: &str) -> bool {
    claim(fable_dir, hook, key).unwrap_or(true)
}

/// [`first_claim`] for a hook payload: the call's `tool_use_id` and the payload as sent.
pub fn first_call(fable_dir: &Path, hook: &str, tool_use_id: &str, payload: &serde_json::Value) -> bool {
    let bytes = serde_json::to_vec(payload).unwrap_or_default();
    match call_key(tool_use_id, &bytes) {
        Some(key) => first_claim(fable_dir, hook, &key),
        None => true,
    }
}

fn claim(fable_dir: &Path, hook: &str, key: &str) -> Option<bool> {
    let dir = fable_dir.join("state");
    crate::fable_dir::ensure_dir(&dir).ok()?;
    let path = dir.join(format!("once.{hook}"));
    let lock_path = dir.join(format!("once.{hook}.lock"));
    let lock = crate::fable_dir::open_lock(&lock_path).ok()?;
    let start = Instant::now();
    loop {
        match lock.try_lock() {
            Ok(()) => break,
            Err(fs::TryLockError::WouldBlock) if start.elapsed() < LOCK_WAIT => {
                std::thread::sleep(Duration::from_micros(200))
            }
            Err(_) => return None,
        }
    }
    let text = crate::fable_dir::read_string(&path, crate::fable_dir::Kind::State)
        .ok()?
        .unwrap_or_default();
    if text.lines().any(|l| l == key) {
        return Some(false);
    }
    let lines = text.lines().count();
    if lines < 2 * KEEP {
        let mut line = Vec::with_capacity(key.len() + 1);
        line.extend_from_slice(key.as_bytes());
        line.push(b'\n');
        crate::fable_dir::append_line(&path, &line).ok()?;
    } else {
        // Rarely (once per KEEP calls): keep the newest KEEP keys.
        let mut body: String = text.lines().skip(lines + 1 - KEEP).fold(String::new(), |mut s, l| {
            s.push_str(l);
            s.push('\n');
            s
        });
        body.push_str(key);
        body.push('\n');
        crate::fable_dir::replace_atomically(&path, body.as_bytes(), false).ok()?;
    }
    drop(lock);
    Some(true)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fable() -> (tempfile::TempDir, std::path::PathBuf) {
        let t = tempfile::tempdir().unwrap();
        let d = t.path().join(".fable");
        fs::create_dir(&d).unwrap();
        (t, d)
    }

    #[test]
    fn second_claim_of_one_call_loses_and_other_calls_win() {
        let (_t, d) = fable();
        let p = serde_json::json!({"tool_use_id": "toolu_1", "x": 1});
        assert!(first_call(&d, "fable-evidence", "toolu_1", &p));
        assert!(!first_call(&d, "fable-evidence", "toolu_1", &p));
        // Another hook keeps its own claims; another payload under the same id is not a copy.
        assert!(first_call(&d, "fable-fail-streak", "toolu_1", &p));
        let other = serde_json::json!({"tool_use_id": "toolu_1", "x": 2});
        assert!(first_call(&d, "fable-evidence", "toolu_1", &other));
        // No id: never deduplicated.
        assert!(first_call(&d, "fable-evidence", "", &p));
        assert!(first_call(&d, "fable-evidence", "", &p));
    }

    #[test]
    fn the_file_stays_bounded_and_keeps_the_newest() {
        let (_t, d) = fable();
        for i in 0..(2 * KEEP + 10) {
            assert!(first_claim(&d, "h", &format!("k{i}")));
        }
        let text = fs::read_to_string(d.join("state/once.h")).unwrap();
        assert!(text.lines().count() <= 2 * KEEP);
        assert!(!first_claim(&d, "h", &format!("k{}", 2 * KEEP + 9)));
        assert!(first_claim(&d, "h", "k0"), "the oldest keys are forgotten");
    }

    #[test]
    fn parallel_claims_of_one_call_have_one_winner() {
        let (_t, d) = fable();
        for round in 0..20 {
            let key = format!("call{round}");
            let wins: usize = std::thread::scope(|s| {
                let hs: Vec<_> = (0..4).map(|_| s.spawn(|| first_claim(&d, "h", &key))).collect();
                hs.into_iter().map(|h| usize::from(h.join().unwrap())).sum()
            });
            assert_eq!(wins, 1, "round {round}");
        }
    }

    #[test]
    fn a_refused_file_fails_open() {
        let (_t, d) = fable();
        fs::create_dir_all(d.join("state")).unwrap();
        std::os::unix::fs::symlink("/etc/passwd", d.join("state/once.h")).unwrap();
        assert!(first_claim(&d, "h", "k"));
        assert!(first_claim(&d, "h", "k"), "a link is never read: every call acts");
    }
}
