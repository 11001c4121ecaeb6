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

/// How much of the transcript's end is searched at most.
const TAIL: u64 = 512 * 1024;

/// The assistant message id that carried `tool_use_id`, from the transcript's tail.
pub fn of(transcript_path: &str, tool_use_id: &str) -> Option<String> {
    if transcript_path.is_empty() || tool_use_id.is_empty() {
        return None;
    }
    crate::payload_read::search_tail(std::path::Path::new(transcript_path), TAIL, |tail, _| {
        // A line cut at the window's start does not parse, so it never answers.
        message_of(&String::from_utf8_lossy(tail), tool_use_id)
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
        assert_eq!(of("", "toolu_a"), None);
        assert_eq!(of("/nonexistent/t.jsonl", "toolu_a"), None);
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
        let of = |call: &str| of(p.to_str().unwrap(), call);
        assert_eq!(of("toolu_near").as_deref(), Some("msg_near"));
        assert_eq!(of("toolu_mid").as_deref(), Some("msg_mid"));
        assert_eq!(of("toolu_far"), None, "beyond the last window");
    }
}
