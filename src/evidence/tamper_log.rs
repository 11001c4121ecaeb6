//! Attempts against fable's records, noted per session in user state, and told at Stop.
//!
//! A guard that denies quietly teaches the agent to try another way; a log that drops a
//! forged payload quietly leaves the user believing nothing happened. So every denial of
//! the log guard and every payload the evidence hook refuses is appended here, and the
//! close guard names what this round noted to the user (a `systemMessage` on an allowed
//! stop, a paragraph of the block text on a blocked one).
//!
//! `${XDG_STATE_HOME:-~/.local/state}/fable/tamper/<session>.jsonl` (folder 0700, file
//! 0600): one `{"ts","hook","what"}` line per attempt, appended in one write; beside it
//! `<session>.told`, the byte length already named at an allowed stop. It lives in user
//! state, outside the project, so the agent's project writes cannot erase it, and the log
//! guard denies the commands that plainly reach user state. It lives in `evidence/`, not
//! `discipline/`, because the evidence hook writes it and `evidence/` must not use
//! `discipline/`. Everything here is best effort: a note that cannot be written is lost,
//! never a reason to fail a hook.

use serde::{Deserialize, Serialize};
use std::io::Write;
use std::path::{Path, PathBuf};

/// A session's notes stop growing past this size (a looping agent must not fill a disk).
const MAX_BYTES: u64 = 256 * 1024;
/// Attempts named in one stop message; the rest are counted.
const NAMED: usize = 5;

/// One noted attempt.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Attempt {
    pub ts: String,
    /// The hook that noticed it (`fable-log-guard`, `fable-evidence`).
    pub hook: String,
    /// What was attempted and what fable did, one line.
    pub what: String,
}

/// The folder of notes, when a state folder can be named.
pub fn dir(get: impl Fn(&str) -> Option<String>) -> Option<PathBuf> {
    crate::session_state::user_state_dir(get).map(|d| d.join("tamper"))
}

fn file_stem(session: &str) -> String {
    crate::session_state::sanitize_sid(session).unwrap_or_else(|| "no-session".to_string())
}

fn paths(get: impl Fn(&str) -> Option<String>, session: &str) -> Option<(PathBuf, PathBuf)> {
    let d = dir(get)?;
    let stem = file_stem(session);
    Some((d.join(format!("{stem}.jsonl")), d.join(format!("{stem}.told"))))
}

/// Notes an attempt for `session`. Best effort: errors are swallowed.
pub fn note(get: impl Fn(&str) -> Option<String>, session: &str, hook: &str, what: &str) {
    let Some((log, _)) = paths(get, session) else { return };
    let _ = append(&log, hook, what);
}

fn append(log: &Path, hook: &str, what: &str) -> std::io::Result<()> {
    use std::os::unix::fs::OpenOptionsExt;
    if let Some(d) = log.parent() {
        crate::session_state::mkdir_private(d).map_err(|e| std::io::Error::other(e.to_string()))?;
    }
    let size = std::fs::metadata(log).map(|m| m.len()).unwrap_or(0);
    if size > MAX_BYTES {
        return Ok(());
    }
    let a = Attempt {
        ts: crate::evidence::now_ts(),
        hook: hook.to_string(),
        what: crate::hook::printable(what, 400),
    };
    let mut line = serde_json::to_string(&a).map_err(std::io::Error::other)?;
    line.push('\n');
    let mut f = std::fs::OpenOptions::new()
        .append(true)
        .create(true)
        .mode(0o600)
        .custom_flags(libc::O_NOFOLLOW)
        .open(log)?;
    f.write_all(line.as_bytes())
}

/// The attempts noted for `session` since the last allowed stop, and the byte length
/// that [`mark_told`] records once they were named.
pub fn untold(get: impl Fn(&str) -> Option<String>, session: &str) -> (Vec<Attempt>, u64) {
    let Some((log, told)) = paths(get, session) else {
        return (Vec::new(), 0);
    };
    let Ok(bytes) = std::fs::read(&log) else {
        return (Vec::new(), 0);
    };
    let from = std::fs::read_to_string(&told)
        .ok()
        .and_then(|s| s.trim().parse::<usize>().ok())
        .filter(|n| *n <= bytes.len())
        .unwrap_or(0);
    let attempts = bytes[from..]
        .split(|b| *b == b'\n')
        .filter_map(|l| serde_json::from_slice::<Attempt>(l).ok())
        .collect();
    (attempts, bytes.len() as u64)
}

/// Records that the attempts up to byte `upto` were named to the user.
pub fn mark_told(get: impl Fn(&str) -> Option<String>, session: &str, upto: u64) {
    if let Some((_, told)) = paths(get, session) {
        let _ = crate::session_state::overwrite_small(&told, upto.to_string().as_bytes());
    }
}

/// The paragraph that names the attempts: who noticed what, the newest last.
pub fn describe(attempts: &[Attempt]) -> Option<String> {
    if attempts.is_empty() {
        return None;
    }
    let mut text = format!(
        "fable: {} attempt(s) this round to get around fable's records were denied or refused:",
        attempts.len()
    );
    let skip = attempts.len().saturating_sub(NAMED);
    if skip > 0 {
        text.push_str(&format!(
            "\n  … and {skip} earlier (all in fable's user state, tamper/)"
        ));
    }
    for a in &attempts[skip..] {
        text.push_str(&format!("\n  - {} {}: {}", a.ts, a.hook, a.what));
    }
    Some(text)
}

/// Adds this round's attempts to a Stop answer: into the block text when the stop is
/// blocked (the model and, through the transcript, the user see it), else as a
/// `systemMessage` to the user, after which they count as told. Sub-agent stops leave
/// them for the main thread's stop.
pub fn at_stop(
    get: impl Fn(&str) -> Option<String> + Copy,
    session: &str,
    subagent: bool,
    answer: crate::hook::Answer,
) -> crate::hook::Answer {
    if subagent {
        return answer;
    }
    let (attempts, upto) = untold(get, session);
    let Some(text) = describe(&attempts) else {
        return answer;
    };
    if answer.is_block() {
        let mut v: serde_json::Value = serde_json::from_str(&answer.stdout).unwrap_or_default();
        if let Some(reason) = v.get("reason").and_then(|r| r.as_str()).map(str::to_string) {
            v["reason"] = serde_json::Value::String(format!("{reason}\n\n{text}"));
            return crate::hook::Answer::json(&v);
        }
        return answer;
    }
    mark_told(get, session, upto);
    answer.with_system_message(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(t: &Path) -> impl Fn(&str) -> Option<String> + Copy + '_ {
        move |k: &str| (k == "XDG_STATE_HOME").then(|| t.to_string_lossy().into_owned())
    }

    #[test]
    fn notes_are_told_once_at_an_allowed_stop_and_kept_through_blocks() {
        let t = tempfile::tempdir().unwrap();
        let get = env(t.path());
        assert_eq!(
            at_stop(get, "s1", false, crate::hook::Answer::allow()),
            crate::hook::Answer::allow()
        );
        note(get, "s1", "fable-log-guard", "denied `cat ~/.local/state/fable/key`");
        note(get, "s2", "fable-evidence", "another session");
        let blocked = at_stop(get, "s1", false, crate::hook::Answer::block_stop("card 1 open"));
        let v: serde_json::Value = serde_json::from_str(&blocked.stdout).unwrap();
        let reason = v["reason"].as_str().unwrap();
        assert!(
            reason.starts_with("card 1 open") && reason.contains("fable/key"),
            "{reason}"
        );
        // A sub-agent's stop leaves them for the main thread.
        assert_eq!(
            at_stop(get, "s1", true, crate::hook::Answer::allow()),
            crate::hook::Answer::allow()
        );
        let allowed = at_stop(get, "s1", false, crate::hook::Answer::allow());
        let v: serde_json::Value = serde_json::from_str(&allowed.stdout).unwrap();
        assert!(v["systemMessage"].as_str().unwrap().contains("1 attempt(s)"));
        assert!(!v["systemMessage"].as_str().unwrap().contains("another session"));
        // Told: the next stop is quiet, until a new attempt.
        assert_eq!(
            at_stop(get, "s1", false, crate::hook::Answer::allow()),
            crate::hook::Answer::allow()
        );
        note(get, "s1", "fable-evidence", "refused a payload");
        assert_eq!(untold(get, "s1").0.len(), 1);
    }

    #[test]
    fn many_attempts_are_counted_not_all_named() {
        let t = tempfile::tempdir().unwrap();
        let get = env(t.path());
        for i in 0..8 {
            note(get, "s", "h", &format!("attempt {i}"));
        }
        let text = describe(&untold(get, "s").0).unwrap();
        assert!(text.contains("8 attempt(s)") && text.contains("3 earlier") && text.contains("attempt 7"));
        assert!(!text.contains("attempt 2"), "{text}");
    }
}
