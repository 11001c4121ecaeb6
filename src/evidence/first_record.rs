//! For one tool call, the first payload's record stands.
//!
//! A call's `tool_use_id` names one run. A second payload with the same id is either the
//! same hook registered in two scopes (user and project settings with different command
//! strings both fire, with identical payloads) — dropped silently — or a later payload
//! that says something else about a call already logged (a failure re-reported as a
//! pass) — dropped and reported as tampering.
//!
//! The claim is a symbolic link `${XDG_STATE_HOME:-~/.local/state}/fable/calls/<session>/<id>`
//! whose target is the payload's fingerprint: `symlink(2)` creates it atomically or fails
//! with `EEXIST`, so two hooks racing for one id cannot both win, and a short link's
//! target lives in its inode (no data block, one system call on the hot path). A
//! session's folder is made on its first call; making one removes folders of sessions
//! idle for a week. Anything that goes wrong claims nothing and lets the record through:
//! losing evidence of a real run is worse than a duplicate line.

use crate::hook::HookInput;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

/// Session folders untouched this long are removed when a new session starts one.
const TTL: Duration = Duration::from_secs(7 * 24 * 3600);

/// What a claim found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Claim {
    /// The first payload for this id: log it.
    First,
    /// An identical payload was already claimed: drop it quietly.
    Same,
    /// A different payload was already claimed for this id: drop it and report.
    Different,
}

/// The payload's content that two registrations of one hook share: event, tool, input,
/// response or error.
pub fn fingerprint(input: &HookInput) -> u64 {
    let body = serde_json::json!([
        input.hook_event_name,
        input.tool_name,
        input.tool_input,
        input.tool_response,
        input.error,
    ]);
    crate::fingerprint::fnv1a(body.to_string().as_bytes())
}

fn session_dir(get: impl Fn(&str) -> Option<String>, session: &str) -> Option<PathBuf> {
    let sid = crate::session_state::sanitize_sid(session)?;
    crate::session_state::user_state_dir(get).map(|d| d.join("calls").join(sid))
}

/// Claims `id` for the payload with fingerprint `fp` in `session`.
pub fn claim(get: impl Fn(&str) -> Option<String>, session: &str, id: &str, fp: u64) -> Claim {
    try_claim(get, session, id, fp).unwrap_or(Claim::First)
}

/// [`claim`], or `None` when there is nowhere to claim: no session, no user state
/// folder, or an id that cannot name a file (then the caller decides how to count it).
pub fn try_claim(get: impl Fn(&str) -> Option<String>, session: &str, id: &str, fp: u64) -> Option<Claim> {
    let dir = session_dir(get, session)?;
    let name = crate::session_state::sanitize_sid(id)?;
    Some(claim_in(&dir, &name, fp))
}

fn claim_in(dir: &Path, name: &str, fp: u64) -> Claim {
    let dir = dir.to_path_buf();
    let link = dir.join(name);
    let target = format!("{fp:016x}");
    match std::os::unix::fs::symlink(&target, &link) {
        Ok(()) => Claim::First,
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => match std::fs::read_link(&link) {
            Ok(t) if t.as_os_str() == target.as_str() => Claim::Same,
            Ok(_) => Claim::Different,
            Err(_) => Claim::First,
        },
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            if crate::session_state::mkdir_private(&dir).is_err() {
                return Claim::First;
            }
            if let Some(parent) = dir.parent() {
                prune(parent, &dir);
            }
            match std::os::unix::fs::symlink(&target, &link) {
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => claim_again(&link, &target),
                _ => Claim::First,
            }
        }
        Err(_) => Claim::First,
    }
}

fn claim_again(link: &Path, target: &str) -> Claim {
    match std::fs::read_link(link) {
        Ok(t) if t.as_os_str() == target => Claim::Same,
        Ok(_) => Claim::Different,
        Err(_) => Claim::First,
    }
}

/// Removes session folders idle for [`TTL`], except `keep`.
fn prune(calls: &Path, keep: &Path) {
    let now = SystemTime::now();
    for e in std::fs::read_dir(calls).into_iter().flatten().flatten() {
        let p = e.path();
        let old = e
            .metadata()
            .and_then(|m| m.modified())
            .ok()
            .and_then(|t| now.duration_since(t).ok())
            .is_some_and(|age| age > TTL);
        if old && p != keep {
            let _ = std::fs::remove_dir_all(&p);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn first_stands_identical_is_same_other_is_different() {
        let t = tempfile::tempdir().unwrap();
        let s = t.path().to_string_lossy().into_owned();
        let get = |k: &str| (k == "XDG_STATE_HOME").then(|| s.clone());
        assert_eq!(claim(get, "sess", "toolu_1", 7), Claim::First);
        assert_eq!(claim(get, "sess", "toolu_1", 7), Claim::Same);
        assert_eq!(claim(get, "sess", "toolu_1", 8), Claim::Different);
        assert_eq!(claim(get, "sess", "toolu_2", 8), Claim::First);
        assert_eq!(claim(get, "other", "toolu_1", 8), Claim::First);
    }

    #[test]
    fn nowhere_to_claim_is_said_not_guessed() {
        let t = tempfile::tempdir().unwrap();
        let s = t.path().to_string_lossy().into_owned();
        let get = |k: &str| (k == "XDG_STATE_HOME").then(|| s.clone());
        assert_eq!(try_claim(get, "", "toolu_1", 7), None, "no session");
        assert_eq!(try_claim(|_| None, "sess", "toolu_1", 7), None, "no state folder");
        assert_eq!(try_claim(get, "sess", "toolu_1", 7), Some(Claim::First));
        assert_eq!(claim(get, "", "toolu_1", 7), Claim::First, "claim fails open");
    }

    #[test]
    fn racing_claims_have_one_winner() {
        let t = tempfile::tempdir().unwrap();
        let s = t.path().to_string_lossy().into_owned();
        let hs: Vec<_> = (0..8)
            .map(|_| {
                let s = s.clone();
                std::thread::spawn(move || {
                    claim(
                        move |k: &str| (k == "XDG_STATE_HOME").then(|| s.clone()),
                        "race",
                        "toolu_r",
                        1,
                    )
                })
            })
            .collect();
        let firsts = hs
            .into_iter()
            .map(|h| h.join().unwrap())
            .filter(|c| *c == Claim::First)
            .count();
        assert_eq!(firsts, 1);
    }
}
