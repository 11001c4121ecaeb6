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
}
