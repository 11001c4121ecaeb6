//! The session's model when SessionStart did not say it.
//!
//! Claude Code 2.1.x sends no `model` in the startup SessionStart payload, so the model
//! ceiling had nothing to compare a spawn against and allowed everything. The transcript
//! does know: each assistant entry carries `message.model` (the model that answered). The
//! spawn guard reads it from the end of `transcript_path` — bounded, newest first — and
//! caches it like a SessionStart model. Sub-agent (sidechain) entries are skipped: their
//! model is not the session's.

use std::io::{Read, Seek, SeekFrom};
use std::path::Path;

/// How much of the transcript's end is read: enough for the last few turns.
const TAIL: u64 = 512 * 1024;

/// The model of the newest main-thread assistant entry of a transcript, if any.
pub fn from_transcript(path: &Path) -> Option<String> {
    let mut f = std::fs::File::open(path).ok()?;
    let meta = f.metadata().ok()?;
    if !meta.is_file() {
        return None;
    }
    f.seek(SeekFrom::Start(meta.len().saturating_sub(TAIL))).ok()?;
    let mut buf = Vec::new();
    f.take(TAIL).read_to_end(&mut buf).ok()?;
    buf.split(|b| *b == b'\n').rev().find_map(model_of_line)
}

/// How long [`from_transcript_settled`] waits for the transcript to name a model.
pub const SETTLE: std::time::Duration = std::time::Duration::from_millis(300);

/// [`from_transcript`], waiting up to `budget` for the entry to land. Claude Code 2.1.332
/// runs PreToolUse while the assistant message that asked for the tool may not be in the
/// transcript yet (seen under the real CLI: a session's first tool call is an Agent spawn,
/// the transcript holds no assistant entry when the hook reads it, and an `opus` spawn on
/// a `sonnet` session went through — at that moment the transcript file did not even
/// exist yet). The spawn guard asks only for a spawn that names a model and only until the
/// session's model is cached, so the wait is paid at most on a session's first such spawn;
/// an empty path (a host without transcripts) is not waited for.
pub fn from_transcript_settled(path: &Path, budget: std::time::Duration) -> Option<String> {
    let start = std::time::Instant::now();
    loop {
        if let Some(m) = from_transcript(path) {
            return Some(m);
        }
        if path.as_os_str().is_empty() || start.elapsed() >= budget {
            return None;
        }
        std::thread::sleep(std::time::Duration::from_millis(15));
    }
}

fn model_of_line(line: &[u8]) -> Option<String> {
    // Cheap test before parsing: most lines are not assistant entries.
    let text = std::str::from_utf8(line).ok()?;
    if !text.contains("\"assistant\"") || !text.contains("\"model\"") {
        return None;
    }
    let v: serde_json::Value = serde_json::from_str(text).ok()?;
    if v["type"] != "assistant" || v["isSidechain"] == true {
        return None;
    }
    let m = v["message"]["model"]
        .as_str()
        .or_else(|| v["requestedModel"].as_str())?;
    let m = m.trim();
    (!m.is_empty() && !m.starts_with('<')).then(|| m.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn newest_main_thread_model_wins() {
        let t = tempfile::tempdir().unwrap();
        let p = t.path().join("s.jsonl");
        let lines = [
            r#"{"type":"user","message":{"content":"hi"}}"#,
            r#"{"type":"assistant","isSidechain":false,"message":{"model":"claude-sonnet-4-5","content":[]}}"#,
            r#"{"type":"assistant","isSidechain":true,"message":{"model":"claude-haiku-4-5","content":[]}}"#,
            r#"{"type":"assistant","message":{"model":"<synthetic>","content":[]}}"#,
            "{torn",
        ];
        std::fs::write(&p, lines.join("\n")).unwrap();
        assert_eq!(from_transcript(&p).as_deref(), Some("claude-sonnet-4-5"));
        assert_eq!(from_transcript(&t.path().join("none.jsonl")), None);
        std::fs::write(&p, "{\"type\":\"user\"}\n").unwrap();
        assert_eq!(from_transcript(&p), None);
    }

    #[test]
    fn a_model_entry_landing_after_the_hook_started_is_waited_for() {
        let t = tempfile::tempdir().unwrap();
        let p = t.path().join("s.jsonl");
        std::fs::write(&p, "{\"type\":\"user\"}\n").unwrap();
        let late = p.clone();
        let writer = std::thread::spawn(move || {
            std::thread::sleep(std::time::Duration::from_millis(60));
            let entry = r#"{"type":"assistant","message":{"model":"claude-sonnet-5-5","content":[]}}"#;
            std::fs::write(&late, format!("{{\"type\":\"user\"}}\n{entry}\n")).unwrap();
        });
        assert_eq!(
            from_transcript_settled(&p, SETTLE).as_deref(),
            Some("claude-sonnet-5-5")
        );
        writer.join().unwrap();
        // A transcript that does not exist yet is waited for too (the first tool call of a
        // session can come before the file); no path at all is not.
        let first = t.path().join("first.jsonl");
        let late = first.clone();
        let writer = std::thread::spawn(move || {
            std::thread::sleep(std::time::Duration::from_millis(60));
            std::fs::write(&late, r#"{"type":"assistant","message":{"model":"claude-haiku-5-5"}}"#).unwrap();
        });
        assert_eq!(
            from_transcript_settled(&first, SETTLE).as_deref(),
            Some("claude-haiku-5-5")
        );
        writer.join().unwrap();
        let start = std::time::Instant::now();
        assert_eq!(from_transcript_settled(Path::new(""), SETTLE), None);
        assert!(start.elapsed() < SETTLE);
    }
}
