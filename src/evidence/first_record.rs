//! For one tool call, the first payload's record stands.
//!
//! A call's `tool_use_id` names one run. A second payload with the same id is either the
//! same hook registered in two scopes (user and project settings with different command
//! strings both fire, with identical payloads) — dropped silently — or a later payload
//! that says something else about a call already logged (a failure re-reported as a
//! pass) — dropped and reported as tampering.
//!
//! The claims of a session are one table file, `${XDG_STATE_HOME:-~/.local/state}/fable/
//! calls/<session>.tab` (0600): per call the first 16 bytes of SHA-256 of its id and the
//! payload's fingerprint, in open addressing, read and extended under an exclusive lock,
//! so two hooks racing for one id cannot both win. A claim is one open, one lock, one
//! read and one 24-byte write, whatever the session's length. (It was a symbolic link
//! per call: creating an inode per call cost 0.05-0.6 ms of journal time on this ext4
//! under load, more than the rest of a failure's record.) A session's table is made on
//! its first call; making one removes the tables (and older link folders) of sessions
//! idle for a week. Anything that goes wrong claims nothing and lets the record through:
//! losing evidence of a real run is worse than a duplicate line.

use crate::hook::HookInput;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant, SystemTime};

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

/// The folder of the session tables and this session's table.
fn table_path(get: impl Fn(&str) -> Option<String>, session: &str) -> Option<(PathBuf, PathBuf)> {
    let sid = crate::session_state::sanitize_sid(session)?;
    let calls = crate::session_state::user_state_dir(get)?.join("calls");
    let table = calls.join(format!("{sid}.tab"));
    Some((calls, table))
}

/// Claims `id` for the payload with fingerprint `fp` in `session`.
pub fn claim(get: impl Fn(&str) -> Option<String>, session: &str, id: &str, fp: u64) -> Claim {
    try_claim(get, session, id, fp).unwrap_or(Claim::First)
}

/// [`claim`], or `None` when there is nowhere to claim: no session, no user state
/// folder, or an id that cannot name a call (then the caller decides how to count it).
pub fn try_claim(get: impl Fn(&str) -> Option<String>, session: &str, id: &str, fp: u64) -> Option<Claim> {
    let (calls, table) = table_path(get, session)?;
    let id = crate::session_state::sanitize_sid(id)?;
    Some(claim_in(&calls, &table, &id, fp).unwrap_or(Claim::First))
}

/// Longest wait for another hook's claim; past it the call acts (fail-open).
const LOCK_WAIT: Duration = Duration::from_millis(500);
const MAGIC: &[u8; 8] = b"FABLECL1";
const HEADER: usize = 16;
const SLOT: usize = 24;
const FIRST_SLOTS: usize = 1024;
/// The most a table grows to (1M calls); a full one claims nothing (fail-open).
const MAX_SLOTS: usize = 1 << 20;

fn open_table(calls: &Path, table: &Path) -> std::io::Result<std::fs::File> {
    use std::os::unix::fs::OpenOptionsExt;
    let open = || {
        std::fs::File::options()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .mode(0o600)
            .custom_flags(libc::O_NOFOLLOW | libc::O_CLOEXEC)
            .open(table)
    };
    match open() {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            crate::session_state::mkdir_private(calls).map_err(|e| std::io::Error::other(e.to_string()))?;
            prune(calls, table);
            open()
        }
        other => other,
    }
}

fn claim_in(calls: &Path, table: &Path, id: &str, fp: u64) -> Option<Claim> {
    use sha2::{Digest, Sha256};
    use std::io::Read;
    use std::os::unix::fs::FileExt;
    let mut f = open_table(calls, table).ok()?;
    let start = Instant::now();
    loop {
        match f.try_lock() {
            Ok(()) => break,
            Err(std::fs::TryLockError::WouldBlock) if start.elapsed() < LOCK_WAIT => {
                std::thread::sleep(Duration::from_micros(200))
            }
            Err(_) => return None,
        }
    }
    let mut bytes = Vec::new();
    f.read_to_end(&mut bytes).ok()?;
    let mut key = [0u8; 16];
    key.copy_from_slice(&Sha256::digest(id.as_bytes())[..16]);
    if key == [0u8; 16] {
        key[0] = 1;
    }
    let (mut t, fresh) = match Table::parse(bytes) {
        Some(t) => (t, false),
        None => (Table::new(FIRST_SLOTS), true),
    };
    let claim = match t.find(&key) {
        Ok(i) if t.fp(i) == fp => return Some(Claim::Same),
        Ok(_) => return Some(Claim::Different),
        Err(i) => i,
    };
    if (t.used() + 1) * 4 > t.slots() * 3 {
        if t.slots() * 2 > MAX_SLOTS {
            return None;
        }
        t = t.grown();
        let i = t.find(&key).err()?;
        t.put(i, &key, fp);
        f.write_all_at(&t.bytes, 0).ok()?;
    } else if fresh {
        // A new table, or one that was not a table: written whole, at its own length.
        t.put(claim, &key, fp);
        f.write_all_at(&t.bytes, 0).ok()?;
        f.set_len(t.bytes.len() as u64).ok()?;
    } else {
        t.put(claim, &key, fp);
        let at = HEADER + claim * SLOT;
        f.write_all_at(&t.bytes[at..at + SLOT], at as u64).ok()?;
        f.write_all_at(&t.bytes[..HEADER], 0).ok()?;
    }
    Some(Claim::First)
}

/// A claim table in memory: header (magic, slots, used), then the slots.
struct Table {
    bytes: Vec<u8>,
}

impl Table {
    fn new(slots: usize) -> Table {
        let mut bytes = vec![0u8; HEADER + slots * SLOT];
        bytes[..8].copy_from_slice(MAGIC);
        bytes[8..12].copy_from_slice(&(slots as u32).to_le_bytes());
        Table { bytes }
    }

    /// A well-formed table, or `None` (then a new one replaces it: fail-open).
    fn parse(bytes: Vec<u8>) -> Option<Table> {
        if bytes.len() < HEADER || &bytes[..8] != MAGIC {
            return None;
        }
        let slots = u32::from_le_bytes(bytes[8..12].try_into().ok()?) as usize;
        let used = u32::from_le_bytes(bytes[12..16].try_into().ok()?) as usize;
        if slots == 0 || slots > MAX_SLOTS || bytes.len() != HEADER + slots * SLOT || used >= slots {
            return None;
        }
        Some(Table { bytes })
    }

    fn slots(&self) -> usize {
        (self.bytes.len() - HEADER) / SLOT
    }

    fn used(&self) -> usize {
        u32::from_le_bytes([self.bytes[12], self.bytes[13], self.bytes[14], self.bytes[15]]) as usize
    }

    fn key(&self, i: usize) -> &[u8] {
        &self.bytes[HEADER + i * SLOT..HEADER + i * SLOT + 16]
    }

    fn fp(&self, i: usize) -> u64 {
        let at = HEADER + i * SLOT + 16;
        u64::from_le_bytes(self.bytes[at..at + 8].try_into().unwrap_or_default())
    }

    /// `Ok(slot)` holding `key`, or `Err(slot)` where it would go.
    fn find(&self, key: &[u8; 16]) -> Result<usize, usize> {
        let n = self.slots();
        let mut i = (u64::from_le_bytes(key[..8].try_into().unwrap_or_default()) % n as u64) as usize;
        for _ in 0..n {
            let k = self.key(i);
            if k == key {
                return Ok(i);
            }
            if k.iter().all(|b| *b == 0) {
                return Err(i);
            }
            i = (i + 1) % n;
        }
        Err(n)
    }

    fn put(&mut self, i: usize, key: &[u8; 16], fp: u64) {
        let at = HEADER + i * SLOT;
        self.bytes[at..at + 16].copy_from_slice(key);
        self.bytes[at + 16..at + 24].copy_from_slice(&fp.to_le_bytes());
        let used = (self.used() + 1) as u32;
        self.bytes[12..16].copy_from_slice(&used.to_le_bytes());
    }

    /// The same claims in twice the slots.
    fn grown(&self) -> Table {
        let mut t = Table::new(self.slots() * 2);
        for i in 0..self.slots() {
            let k = self.key(i);
            if k.iter().all(|b| *b == 0) {
                continue;
            }
            let mut key = [0u8; 16];
            key.copy_from_slice(k);
            if let Err(j) = t.find(&key) {
                t.put(j, &key, self.fp(i));
            }
        }
        t
    }
}

/// Removes the tables (and link folders of older versions) of sessions idle for
/// [`TTL`], except `keep`.
fn prune(calls: &Path, keep: &Path) {
    let now = SystemTime::now();
    for e in std::fs::read_dir(calls).into_iter().flatten().flatten() {
        let p = e.path();
        let Ok(m) = e.metadata() else { continue };
        let old = m
            .modified()
            .ok()
            .and_then(|t| now.duration_since(t).ok())
            .is_some_and(|age| age > TTL);
        if old && p != keep {
            let _ = if m.is_dir() {
                std::fs::remove_dir_all(&p)
            } else {
                std::fs::remove_file(&p)
            };
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
    fn the_table_grows_and_forgets_nothing_and_a_broken_one_fails_open() {
        let t = tempfile::tempdir().unwrap();
        let s = t.path().to_string_lossy().into_owned();
        let get = |k: &str| (k == "XDG_STATE_HOME").then(|| s.clone());
        let n = FIRST_SLOTS * 2;
        for i in 0..n {
            assert_eq!(claim(get, "long", &format!("toolu_{i}"), i as u64), Claim::First, "{i}");
        }
        for i in (0..n).step_by(97) {
            assert_eq!(claim(get, "long", &format!("toolu_{i}"), i as u64), Claim::Same);
            assert_eq!(claim(get, "long", &format!("toolu_{i}"), 1 << 40), Claim::Different);
        }
        let path = t.path().join("fable/calls/long.tab");
        let bytes = std::fs::read(&path).unwrap();
        let table = Table::parse(bytes.clone()).unwrap();
        assert_eq!(table.used(), n);
        assert!(table.slots() >= n * 4 / 3);
        // A truncated table is replaced: the call acts (a duplicate at worst, never a drop).
        for broken in [&bytes[..100], &[bytes.as_slice(), b"junk"].concat()[..]] {
            std::fs::write(&path, broken).unwrap();
            assert_eq!(claim(get, "long", "toolu_0", 5), Claim::First);
            assert_eq!(claim(get, "long", "toolu_0", 5), Claim::Same, "the new table holds");
        }
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
