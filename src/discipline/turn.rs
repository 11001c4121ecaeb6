//! Which turn a tool call belongs to: the id of the assistant message that asked for it.
//!
//! Claude Code runs the tool calls of one assistant message in parallel and fires one
//! PostToolUse(Failure) per call; the payload names the call (`tool_use_id`) but not the
//! message. The transcript (`transcript_path`) has it: the assistant message is written
//! before its tools run, each of its lines carries `message.id` and the `tool_use` blocks
//! with their ids. Six probes sent in one message are one attempt, not six failures in a
//! row — the fail streak counts turns, not calls.
//!
//! Only the transcript's tail is read (the call was just made): its last 64 KiB, and only
//! when the call is not there (parallel calls' results written since), up to 512 KiB
//! ([`search_tail`](crate::payload_read::search_tail)). No transcript, no match (a
//! sub-agent's calls live in a transcript of their own) or a line that does not parse →
//! `None`, and the call counts on its own, as before.
//!
//! The transcript lags the calls: Claude Code queues its lines and writes them on a
//! 100 ms timer, so a call that fails fast can reach its hook before the message that
//! asked for it is on disk. Counted on its own, that call made six parallel probes two
//! attempts (seen once in CI, under load); six such misses would have been the hard stop.
//! So a call missing from a transcript of messages is waited for, briefly ([`PATIENCE`]),
//! re-reading the tail; a file of another shape (Codex's rollout) is not waited on.

use std::path::Path;
use std::time::{Duration, Instant};

/// How much of the transcript's end is searched at most.
const TAIL: u64 = 512 * 1024;

/// How long a call missing from a transcript of messages is waited for: several of the
/// host's 100 ms write intervals, for a loaded machine. Paid only by a failing call whose
/// message is not on disk yet, and only until it is.
pub const PATIENCE: Duration = Duration::from_millis(600);

/// How often the tail is read again while waiting.
const POLL: Duration = Duration::from_millis(10);

/// What one read of the tail found.
enum Look {
    Found(String),
    /// The file holds the host's messages but not this call (yet).
    NotYet,
    /// No file, or not a transcript of messages: waiting would not help.
    Never,
}

/// The assistant message id that carried `tool_use_id`, from the transcript's tail,
/// waiting up to `patience` for a message the host has not written yet.
pub fn of(transcript_path: &str, tool_use_id: &str, patience: Duration) -> Option<String> {
    if transcript_path.is_empty() || tool_use_id.is_empty() {
        return None;
    }
    let path = Path::new(transcript_path);
    let started = Instant::now();
    loop {
        match look(path, tool_use_id) {
            Look::Found(id) => return Some(id),
            Look::NotYet if started.elapsed() < patience => std::thread::sleep(POLL),
            Look::NotYet | Look::Never => return None,
        }
    }
}

/// One search of the tail; on a miss, whether the last window read held the host's
/// message lines (so the call may still come).
fn look(path: &Path, tool_use_id: &str) -> Look {
    let shaped = std::cell::Cell::new(false);
    let found = crate::payload_read::search_tail(path, TAIL, |tail, _| {
        let text = String::from_utf8_lossy(tail);
        if !shaped.get() {
            shaped.set(holds_messages(&text));
        }
        // A line cut at the window's start does not parse, so it never answers.
        message_of(&text, tool_use_id)
    });
    match found {
        Some(id) => Look::Found(id),
        None if shaped.get() => Look::NotYet,
        None => Look::Never,
    }
}

/// Whether a tail holds a line of the transcript shape [`message_of`] reads: a user or
/// assistant entry carrying a `message`.
fn holds_messages(tail: &str) -> bool {
    tail.lines().rev().take(64).any(|line| {
        (line.contains(r#""type":"assistant""#) || line.contains(r#""type":"user""#)) && line.contains(r#""message":{"#)
    })
}

/// The pure part: the newest transcript line whose `tool_use` block has this id, and its
/// `message.id`. Searched backwards for the id (one substring search, no per-line work),
/// and only the lines that hold it are parsed.
pub fn message_of(transcript: &str, tool_use_id: &str) -> Option<String> {
    let needle = format!("\"{tool_use_id}\"");
    let mut end = transcript.len();
    while let Some(at) = transcript[..end].rfind(&needle) {
        let start = transcript[..at].rfind('\n').map_or(0, |p| p + 1);
        let stop = transcript[at..].find('\n').map_or(transcript.len(), |p| at + p);
        if let Some(id) = message_id(&transcript[start..stop], tool_use_id) {
            return Some(id);
        }
        end = start;
    }
    None
}

/// The `message.id` of an assistant line that carries the call.
fn message_id(line: &str, tool_use_id: &str) -> Option<String> {
    let v: serde_json::Value = serde_json::from_str(line).ok()?;
    if v["type"] != "assistant" {
        return None;
    }
    let m = &v["message"];
    let carries = m["content"]
        .as_array()?
        .iter()
        .any(|c| c["type"] == "tool_use" && c["id"] == tool_use_id);
    carries.then(|| m["id"].as_str().map(str::to_string)).flatten()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_the_message_of_a_call_and_nothing_else() {
        let t = concat!(
            r#"{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"toolu_a"}]}}"#,
            "\n",
            r#"{"type":"assistant","message":{"id":"msg_1","content":[{"type":"tool_use","id":"toolu_a"},{"type":"tool_use","id":"toolu_b"}]}}"#,
            "\n",
            r#"{"type":"assistant","message":{"id":"msg_2","content":[{"type":"tool_use","id":"toolu_c"}]}}"#,
            "\n",
        );
        assert_eq!(message_of(t, "toolu_a").as_deref(), Some("msg_1"));
        assert_eq!(message_of(t, "toolu_b").as_deref(), Some("msg_1"));
        assert_eq!(message_of(t, "toolu_c").as_deref(), Some("msg_2"));
        assert_eq!(message_of(t, "toolu_x"), None);
        assert_eq!(of("", "toolu_a", PATIENCE), None);
        let started = Instant::now();
        assert_eq!(of("/nonexistent/t.jsonl", "toolu_a", PATIENCE), None);
        assert!(started.elapsed() < PATIENCE, "no file is not waited on");
    }

    /// The host writes the message after the call's hook has started: the hook waits for
    /// it. A file of another shape is not waited on.
    #[test]
    fn a_message_written_late_is_waited_for_and_a_rollout_is_not() {
        use std::io::Write;
        let t = tempfile::tempdir().unwrap();
        let p = t.path().join("t.jsonl");
        std::fs::write(
            &p,
            r#"{"type":"user","message":{"role":"user","content":"do it"}}"#.to_string() + "\n",
        )
        .unwrap();
        let writer = {
            let p = p.clone();
            std::thread::spawn(move || {
                std::thread::sleep(Duration::from_millis(150));
                let mut f = std::fs::OpenOptions::new().append(true).open(p).unwrap();
                let line = r#"{"type":"assistant","message":{"id":"msg_late","content":[{"type":"tool_use","id":"toolu_late"}]}}"#;
                writeln!(f, "{line}").unwrap();
            })
        };
        assert_eq!(
            of(p.to_str().unwrap(), "toolu_late", PATIENCE).as_deref(),
            Some("msg_late")
        );
        writer.join().unwrap();
        assert_eq!(
            of(p.to_str().unwrap(), "toolu_late", Duration::ZERO).as_deref(),
            Some("msg_late")
        );

        let rollout = t.path().join("rollout.jsonl");
        std::fs::write(
            &rollout,
            r#"{"timestamp":"t","type":"response_item","payload":{"type":"function_call","call_id":"call_1"}}"#
                .to_string()
                + "\n",
        )
        .unwrap();
        let started = Instant::now();
        assert_eq!(of(rollout.to_str().unwrap(), "call_1", PATIENCE), None);
        assert!(started.elapsed() < PATIENCE / 2, "a rollout is not waited on");
    }

    #[test]
    fn a_call_beyond_the_first_window_is_found_in_the_second_and_no_further() {
        let t = tempfile::tempdir().unwrap();
        let p = t.path().join("t.jsonl");
        let carrying = |call: &str, msg: &str| {
            format!(
                r#"{{"type":"assistant","message":{{"id":"{msg}","content":[{{"type":"tool_use","id":"{call}"}}]}}}}"#
            ) + "\n"
        };
        let results = |bytes: usize| {
            let line = format!(r#"{{"type":"user","message":{{"content":"{}"}}}}"#, "x".repeat(1000)) + "\n";
            line.repeat(bytes / line.len() + 1)
        };
        let text = carrying("toolu_far", "msg_far")
            + &results(600 * 1024)
            + &carrying("toolu_mid", "msg_mid")
            + &results(100 * 1024)
            + &carrying("toolu_near", "msg_near")
            + &results(10 * 1024);
        std::fs::write(&p, text).unwrap();
        let of = |call: &str| of(p.to_str().unwrap(), call, Duration::ZERO);
        assert_eq!(of("toolu_near").as_deref(), Some("msg_near"));
        assert_eq!(of("toolu_mid").as_deref(), Some("msg_mid"));
        assert_eq!(of("toolu_far"), None, "beyond the last window");
    }
}
