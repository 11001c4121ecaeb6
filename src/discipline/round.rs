//! A session's round, as fable itself remembers it: what the ledger looked like when the
//! session started, and how many times in a row the Stop hook has blocked.
//!
//! Both live in the user's private state (`…/fable/rounds/<session>.json`), not in the
//! project: the agent edits the project, and a clone brings someone else's. The snapshot
//! lets the Stop hook check only the cards closed this round (a fresh clone with a
//! committed ledger is not blocked by commands that ran on someone else's machine), and
//! tell a mode or pause written during the session from one the round began with. The
//! block count replaces Claude Code's `stop_hook_active`, which any other Stop hook sets:
//! fable re-blocks a stop whose reason still stands up to a limit, then lets it go and
//! says so to the user.

use crate::discipline::ledger::{Card, Ledger};
use serde::{Deserialize, Serialize};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// Consecutive blocks before a stop is let through with a message (`FABLE_STOP_BLOCKS`).
pub const DEFAULT_STOP_BLOCKS: u64 = 3;

/// The ledger at the start of the round.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Snapshot {
    pub ts: String,
    pub light: bool,
    pub paused: bool,
    /// Fingerprints of the closed cards (title and notes), see [`card_print`].
    pub closed: BTreeSet<String>,
    /// Titles of the cards open when the round began (`baseline`: none may vanish).
    #[serde(default)]
    pub open: Vec<String>,
    /// `REPLAY: on` when the round began.
    #[serde(default)]
    pub replay: bool,
    /// The project root and whether its ledger could be read when the round began: a
    /// ledger or `.fable/` gone at Stop is judged against this.
    #[serde(default)]
    pub root: Option<String>,
    #[serde(default)]
    pub ledger: bool,
}

/// One session's round.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Round {
    #[serde(default)]
    pub snapshot: Option<Snapshot>,
    /// Blocks since the last allowed stop.
    #[serde(default)]
    pub blocks: u64,
    /// The last stop decided, so a second registration of the hook neither decides nor
    /// counts it again ([`stop_key`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub decided: Option<Decided>,
}

/// A stop already decided by the copy of the hook that came first.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Decided {
    /// [`stop_key`] of the stop.
    pub stop: String,
    /// Whether that copy blocked it.
    pub blocked: bool,
}

/// How much of the transcript's end is read to find the stop's assistant message.
const TRANSCRIPT_TAIL: u64 = 1 << 20;
/// How long the second copy of the hook waits for the first one's decision (it may be
/// running acceptance replay); past it the stop is decided again, as without the rule.
pub const STOP_LOCK_WAIT: std::time::Duration = std::time::Duration::from_secs(150);

/// What identifies one stop: the uuid of the transcript's last assistant entry (the
/// sub-agent's own transcript at SubagentStop). Both copies of a doubly registered Stop
/// hook read the same transcript; after a block the model answers anew, so the next stop
/// has a new uuid. `None` when the transcript cannot be read: then every invocation counts
/// (as before this rule), never the other way round — a key that stayed the same across
/// stops would stop the block count and leave the loop to Claude Code's own cap.
pub fn stop_key(input: &crate::hook::HookInput) -> Option<String> {
    let path = input
        .raw
        .get("agent_transcript_path")
        .and_then(serde_json::Value::as_str)
        .filter(|_| input.hook_event_name == "SubagentStop")
        .unwrap_or(&input.transcript_path);
    if path.is_empty() {
        return None;
    }
    crate::payload_read::search_tail(Path::new(path), TRANSCRIPT_TAIL, |tail, _| last_assistant_uuid(tail))
}

/// The uuid of the last top-level assistant entry in transcript text. Claude Code writes
/// `"type":"assistant","uuid":"…"` at the top level of the entry; inside a message's text
/// the quotes would be escaped, so the pattern cannot come from what a tool printed.
pub fn last_assistant_uuid(tail: &[u8]) -> Option<String> {
    const NEEDLE: &[u8] = br#""type":"assistant","uuid":""#;
    let at = memchr::memmem::rfind(tail, NEEDLE)? + NEEDLE.len();
    let rest = &tail[at..];
    let end = rest.iter().position(|b| *b == b'"')?;
    let uuid = std::str::from_utf8(&rest[..end]).ok()?;
    let ok = !uuid.is_empty() && uuid.len() <= 64 && uuid.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-');
    ok.then(|| uuid.to_string())
}

/// Holds the round's lock while one stop is decided, so a second copy of the hook waits
/// for the first one's answer instead of deciding (and counting) in parallel. `None`
/// when the lock cannot be had: the stop is decided as without the rule (fail-open).
pub fn lock_stop(round_path: &Path) -> Option<std::fs::File> {
    use std::os::unix::fs::OpenOptionsExt;
    let dir = round_path.parent()?;
    crate::session_state::mkdir_private(dir).ok()?;
    let f = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .mode(0o600)
        .custom_flags(libc::O_NOFOLLOW)
        .open(round_path.with_extension("lock"))
        .ok()?;
    let start = std::time::Instant::now();
    loop {
        match f.try_lock() {
            Ok(()) => return Some(f),
            Err(std::fs::TryLockError::WouldBlock) if start.elapsed() < STOP_LOCK_WAIT => {
                std::thread::sleep(std::time::Duration::from_millis(2))
            }
            Err(_) => return None,
        }
    }
}

impl Round {
    /// What the second copy of the hook answers for a stop the first copy decided: an
    /// allow that says nothing. The decision stands — Claude Code blocks a stop when any
    /// of its Stop hooks blocks — and it is said once: every blocking copy's reason is
    /// shown to the model (seen under the real CLI: the same findings twice per block),
    /// and a let-through message once to the user. `None` for a stop not yet decided.
    pub fn answered(&self, stop: Option<&str>) -> Option<crate::hook::Answer> {
        let d = self.decided.as_ref()?;
        (Some(d.stop.as_str()) == stop).then(crate::hook::Answer::allow)
    }

    /// Remembers this stop's answer (and saves the round) for a second copy of the hook.
    pub fn remember(&mut self, round_path: Option<&Path>, stop: Option<&str>, answer: &crate::hook::Answer) {
        let (Some(p), Some(stop)) = (round_path, stop) else {
            return;
        };
        self.decided = Some(Decided {
            stop: stop.to_string(),
            blocked: answer.is_block(),
        });
        save(p, self);
    }
}

/// A closed card's identity for "closed (or re-evidenced) since the round began".
pub fn card_print(c: &Card) -> String {
    let mut text = c.title.clone();
    for n in &c.notes {
        text.push('\u{1f}');
        text.push_str(&n.body);
    }
    format!("{:016x}", crate::fingerprint::fnv1a(text.as_bytes()))
}

impl Snapshot {
    pub fn of(ledger: &Ledger, ts: String) -> Snapshot {
        Snapshot {
            ts,
            light: ledger.is_light(),
            paused: ledger.is_paused(),
            closed: ledger.done_cards().map(card_print).collect(),
            open: ledger.open_cards().map(|c| c.title.clone()).collect(),
            replay: ledger.replay,
            root: None,
            ledger: true,
        }
    }

    /// True when this card was closed, or its notes changed, after the snapshot.
    pub fn is_new(&self, c: &Card) -> bool {
        !self.closed.contains(&card_print(c))
    }
}

/// `<state>/fable/rounds/<session>.json`; `None` without a state folder or session id.
pub fn path(get: impl Fn(&str) -> Option<String>, session: &str) -> Option<PathBuf> {
    if session.is_empty() {
        return None;
    }
    let safe: String = session
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '_'
            }
        })
        .take(128)
        .collect();
    crate::session_state::user_state_dir(get).map(|d| d.join("rounds").join(format!("{safe}.json")))
}

pub fn load(path: &Path) -> Round {
    std::fs::read(path)
        .ok()
        .filter(|b| b.len() < 1 << 20)
        .and_then(|b| serde_json::from_slice(&b).ok())
        .unwrap_or_default()
}

/// Saves (best effort: without it, only the round scoping and the block count are lost).
pub fn save(path: &Path, round: &Round) {
    if let Some(dir) = path.parent() {
        if crate::session_state::mkdir_private(dir).is_err() {
            return;
        }
        // Rounds older than a week are of no use to anyone.
        prune(dir);
    }
    if let Ok(bytes) = serde_json::to_vec(round) {
        // In place: a torn file reads as no round, which checks every card (stricter).
        let _ = crate::session_state::overwrite_small(path, &bytes);
    }
}

fn prune(dir: &Path) {
    let week = std::time::Duration::from_secs(7 * 24 * 3600);
    let now = std::time::SystemTime::now();
    for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let old = e
            .metadata()
            .and_then(|m| m.modified())
            .ok()
            .and_then(|t| now.duration_since(t).ok())
            .is_some_and(|age| age > week);
        if old {
            let _ = std::fs::remove_file(e.path());
        }
    }
}

/// Where notable allowed stops of a project are kept (for `fable status`).
fn stops_path(get: impl Fn(&str) -> Option<String>, fable_dir: &Path) -> Option<PathBuf> {
    let key = crate::fingerprint::project_key(fable_dir);
    crate::session_state::user_state_dir(get).map(|d| d.join("stops").join(format!("{key}.jsonl")))
}

/// How many notable stops are kept per project.
const STOPS_KEPT: usize = 20;

/// Records a stop that was allowed with something the user should know (let through
/// after the block limit, or under a mode written this session).
pub fn note_stop(get: impl Fn(&str) -> Option<String>, fable_dir: &Path, text: &str) {
    let Some(p) = stops_path(get, fable_dir) else { return };
    let mut lines: Vec<String> = std::fs::read_to_string(&p)
        .unwrap_or_default()
        .lines()
        .map(str::to_string)
        .collect();
    let rec = serde_json::json!({"ts": crate::evidence::now_ts(), "text": crate::evidence::head_chars(text, 2000)});
    lines.push(rec.to_string());
    let skip = lines.len().saturating_sub(STOPS_KEPT);
    let body: String = lines[skip..].iter().map(|l| format!("{l}\n")).collect();
    if let Some(dir) = p.parent() {
        let _ = crate::session_state::mkdir_private(dir);
    }
    let _ = crate::atomic_file::write(&p, body.as_bytes(), crate::atomic_file::Perms::Private, false);
}

/// The notable stops recorded for a project, oldest first: (time, text).
pub fn notable_stops(get: impl Fn(&str) -> Option<String>, fable_dir: &Path) -> Vec<(String, String)> {
    let Some(p) = stops_path(get, fable_dir) else {
        return Vec::new();
    };
    std::fs::read_to_string(p)
        .unwrap_or_default()
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .map(|v| {
            (
                v["ts"].as_str().unwrap_or("").to_string(),
                v["text"].as_str().unwrap_or("").to_string(),
            )
        })
        .collect()
}

/// SessionStart: remember the ledger as the round begins — once per session, so a resume
/// or a compaction keeps the round's real start.
pub fn begin(get: impl Fn(&str) -> Option<String>, session: &str, ledger: &Ledger) {
    begin_in(get, session, ledger, None);
}

/// [`begin`] for the project at `root`, whose ledger could be read (`Some(true)`) or not
/// (`Some(false)`: absent, refused, over its cap).
pub fn begin_in(get: impl Fn(&str) -> Option<String>, session: &str, ledger: &Ledger, root: Option<(&Path, bool)>) {
    let Some(p) = path(get, session) else { return };
    let mut round = load(&p);
    if round.snapshot.is_some() {
        return;
    }
    let mut snap = Snapshot::of(ledger, crate::evidence::now_ts());
    if let Some((root, readable)) = root {
        snap.root = Some(root.to_string_lossy().into_owned());
        snap.ledger = readable;
    }
    round.snapshot = Some(snap);
    save(&p, &round);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::discipline::ledger::parse;

    #[test]
    fn snapshot_tells_new_and_re_evidenced_cards_from_old_ones() {
        let before = parse("- [x] 1. old -- evidence: `make` -> ok\n- [ ] 2. new\n");
        let snap = Snapshot::of(&before, "t".into());
        let after =
            parse("- [x] 1. old -- evidence: `make` -> ok\n- [x] 2. new -- evidence: `pytest -q` -> 3 passed\n");
        let new: Vec<bool> = after.done_cards().map(|c| snap.is_new(c)).collect();
        assert_eq!(new, vec![false, true]);
        let edited = parse("- [x] 1. old -- evidence: `make test` -> ok\n");
        assert!(snap.is_new(edited.done_cards().next().unwrap()));
    }

    #[test]
    fn the_stop_key_is_the_last_top_level_assistant_uuid() {
        let t = concat!(
            r#"{"type":"assistant","uuid":"aaa-1","message":{"content":"said \"type\":\"assistant\",\"uuid\":\"fake\""}}"#,
            "\n",
            r#"{"parentUuid":"aaa-1","message":{"content":[{"type":"text","text":"x"}]},"type":"assistant","uuid":"bbb-2","timestamp":"t"}"#,
            "\n",
            r#"{"type":"system","uuid":"ccc-3"}"#,
            "\n"
        );
        assert_eq!(last_assistant_uuid(t.as_bytes()).as_deref(), Some("bbb-2"));
        assert_eq!(last_assistant_uuid(b"{\"type\":\"user\"}"), None);
        assert_eq!(last_assistant_uuid(br#""type":"assistant","uuid":"a b""#), None);
    }

    #[test]
    fn a_decided_stop_answers_again_only_for_the_same_key() {
        let t = tempfile::tempdir().unwrap();
        let p = t.path().join("r.json");
        let mut r = Round {
            blocks: 2,
            ..Round::default()
        };
        let a = crate::hook::Answer::block_stop("open cards");
        r.remember(Some(&p), Some("u1"), &a);
        let back = load(&p);
        assert_eq!(back.blocks, 2);
        assert!(back.decided.as_ref().unwrap().blocked);
        assert_eq!(back.answered(Some("u1")), Some(crate::hook::Answer::allow()));
        assert_eq!(back.answered(Some("u2")), None);
        assert_eq!(back.answered(None), None);
        let _held = lock_stop(&p).expect("lock");
    }

    #[test]
    fn begin_keeps_the_first_snapshot_of_a_session() {
        let t = tempfile::tempdir().unwrap();
        let state = t.path().to_string_lossy().into_owned();
        let get = |k: &str| (k == "XDG_STATE_HOME").then(|| state.clone());
        begin(get, "s/1", &parse("MODE: light\n"));
        begin(get, "s/1", &parse("- [ ] 1. x\n"));
        let r = load(&path(get, "s/1").unwrap());
        assert!(r.snapshot.unwrap().light);
        assert!(path(get, "").is_none());
    }
}
