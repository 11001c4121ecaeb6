//! The exit code of a Codex shell call, read from the session's rollout.
//!
//! Codex fires plain PostToolUse for a failed shell command, and its `tool_response` is
//! the combined output string: no exit code anywhere in the payload. The rollout JSONL at
//! `transcript_path` already holds the call's end when PostToolUse runs (observed every
//! time with 0.171, docs codex-hooks.md §3):
//! `{"type":"event_msg","payload":{"type":"item_completed","item":{"type":"CommandExecution","id":"<tool_use_id>","exit_code":N,…}}}`.
//!
//! The line is near the end, so the file is read from its end in windows that grow
//! fourfold from 64 KiB up to 4 MiB (the line is normally
//! among the last few written); a huge rollout is never read whole. Not found (no
//! rollout, another shape, a line further back) is `None`: the status is unknown, which
//! the record keeps as `exit: null`, never as a pass.

/// First window read from the end of the rollout.
pub const FIRST_WINDOW: u64 = crate::payload_read::TAIL_FIRST;
/// The furthest back the search reads.
pub const MAX_WINDOW: u64 = 4 * 1024 * 1024;

/// The exit code Codex recorded for the call `call_id`, from the rollout's end.
pub fn exit_code(path: &str, call_id: &str) -> Option<i64> {
    if path.is_empty() || call_id.is_empty() {
        return None;
    }
    crate::payload_read::search_tail(std::path::Path::new(path), MAX_WINDOW, |buf, cut| {
        // A window that starts mid-line: its first (partial) line is not parsed.
        let text = String::from_utf8_lossy(buf);
        let text = if cut {
            text.find('\n').map_or("", |i| &text[i + 1..])
        } else {
            &text
        };
        exit_in(text, call_id)
    })
}

/// The pure part: the newest `item_completed` line of a `CommandExecution` with this id,
/// and its `exit_code`. Searched backwards for the quoted id; only lines that hold it are
/// parsed.
pub fn exit_in(text: &str, call_id: &str) -> Option<i64> {
    let needle = format!("\"{call_id}\"");
    let mut end = text.len();
    while let Some(at) = text[..end].rfind(&needle) {
        let start = text[..at].rfind('\n').map_or(0, |p| p + 1);
        let stop = text[at..].find('\n').map_or(text.len(), |p| at + p);
        if let Some(code) = exit_of_line(&text[start..stop], call_id) {
            return Some(code);
        }
        end = start;
    }
    None
}

fn exit_of_line(line: &str, call_id: &str) -> Option<i64> {
    let v: serde_json::Value = serde_json::from_str(line).ok()?;
    let p = &v["payload"];
    if v["type"] != "event_msg" || p["type"] != "item_completed" {
        return None;
    }
    let item = &p["item"];
    if item["type"] != "CommandExecution" || item["id"] != call_id {
        return None;
    }
    item["exit_code"].as_i64()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    fn line(id: &str, code: i64) -> String {
        format!(
            r#"{{"timestamp":"t","type":"event_msg","payload":{{"type":"item_completed","item":{{"type":"CommandExecution","id":"{id}","exit_code":{code},"status":"failed","aggregated_output":"x","command":["/bin/bash","-lc","false"]}}}}}}"#
        )
    }

    #[test]
    fn finds_the_newest_completed_item_of_the_call() {
        let text = format!(
            "{}\n{{\"type\":\"response_item\",\"payload\":{{\"call_id\":\"c1\"}}}}\n{}\n",
            line("c1", 3),
            line("c2", 0)
        );
        assert_eq!(exit_in(&text, "c1"), Some(3));
        assert_eq!(exit_in(&text, "c2"), Some(0));
        assert_eq!(exit_in(&text, "c3"), None);
        // The id in another kind of line (the call itself, its output) is no exit code.
        assert_eq!(
            exit_in(
                "{\"type\":\"response_item\",\"payload\":{\"id\":\"c1\",\"exit_code\":0}}",
                "c1"
            ),
            None
        );
    }

    #[test]
    fn reads_a_big_rollout_from_its_end_and_widens() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("rollout.jsonl");
        let mut f = std::fs::File::create(&p).unwrap();
        let filler = format!(
            "{{\"type\":\"response_item\",\"payload\":{{\"text\":\"{}\"}}}}\n",
            "y".repeat(1000)
        );
        writeln!(f, "{}", line("early", 7)).unwrap();
        for _ in 0..400 {
            f.write_all(filler.as_bytes()).unwrap();
        }
        writeln!(f, "{}", line("late", 2)).unwrap();
        for _ in 0..20 {
            f.write_all(filler.as_bytes()).unwrap();
        }
        drop(f);
        let path = p.to_str().unwrap();
        assert_eq!(exit_code(path, "late"), Some(2), "within the first window");
        assert_eq!(exit_code(path, "early"), Some(7), "found after widening");
        assert_eq!(exit_code(path, "none"), None);
        assert_eq!(exit_code("/nonexistent/rollout.jsonl", "late"), None);
        assert_eq!(exit_code("", "late"), None);
    }
}
