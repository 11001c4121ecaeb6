//! Which turn a tool call belongs to: the id of the assistant message that asked for it.
//!
//! Claude Code runs the tool calls of one assistant message in parallel and fires one
//! PostToolUse(Failure) per call; the payload names the call (`tool_use_id`) but not the
//! message. The transcript (`transcript_path`) has it: the assistant message is written
//! before its tools run, each of its lines carries `message.id` and the `tool_use` blocks
//! with their ids. Six probes sent in one message are one attempt, not six failures in a
//! row — the fail streak counts turns, not calls.
//!
//! Only the transcript's tail is read (the call was just made); no transcript, no match
//! (a sub-agent's calls live in a transcript of their own) or a line that does not parse
//! → `None`, and the call counts on its own, as before.

use std::io::{Read, Seek, SeekFrom};

/// How much of the transcript's end is searched.
const TAIL: u64 = 512 * 1024;

/// The assistant message id that carried `tool_use_id`, from the transcript's tail.
pub fn of(transcript_path: &str, tool_use_id: &str) -> Option<String> {
    if transcript_path.is_empty() || tool_use_id.is_empty() {
        return None;
    }
    let mut f = std::fs::File::open(transcript_path).ok()?;
    let len = f.metadata().ok()?.len();
    let start = len.saturating_sub(TAIL);
    f.seek(SeekFrom::Start(start)).ok()?;
    let mut buf = Vec::with_capacity((len - start) as usize);
    f.take(TAIL).read_to_end(&mut buf).ok()?;
    let text = String::from_utf8_lossy(&buf);
    message_of(&text, tool_use_id)
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
        assert_eq!(of("", "toolu_a"), None);
        assert_eq!(of("/nonexistent/t.jsonl", "toolu_a"), None);
    }
}
